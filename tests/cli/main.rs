//! Integration tests of the `gsearch` command line: every expected output
//! below was derived by running ripgrep 15 with the same arguments, since
//! gsearch must answer as ripgrep does, byte for byte.
//!
//! Each case runs twice, `::cpu` and `::opencl` (see `util.rs`).
//! Run: `cargo test --test cli`; only one engine: `cargo test --test cli -- ::cpu`.

#[path = "../common/mod.rs"]
mod common;
#[macro_use]
mod util;

mod args;
mod bigfile;
mod binary;
mod context;
mod dfa;
mod exit;
mod flags_output;
mod generate;
mod input;
mod input_flags;
mod json;
mod misc;
mod output;
mod patterns;
mod pcre2;
mod regression;
mod rules;
mod walk;
mod walk_filters;

/// A small text most cases search. Line numbers matter: keep it stable.
pub const POEM: &str = "\
Call the fox by name, and the fox will come.
A grey dog sleeps beside the FOX den.
foxglove grows where foxes hide;
no dog, no Fox, no hound tonight.
The hunter waited; the fox did not.
fox
";
