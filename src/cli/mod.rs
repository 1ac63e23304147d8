//! The command line: the clap definition ([`args`]), its validation into
//! a [`config::Config`], and `--generate` (man page and completions).

mod args;
pub mod config;
pub mod generate;
pub mod input;
mod names;
pub mod order;
pub mod output_opts;
pub mod parse;
mod rcfile;
pub mod version;
pub mod walkcfg;

pub use args::*;
