//! gsearch: a ripgrep-compatible search tool whose matcher runs on GPUs
//! through OpenCL. See ARCHITECTURE.md for the map of modules.
//!
//! The library is the binary's structure, not an API for other crates: its
//! documentation is for the project's developers and covers private items
//! (`cargo doc --document-private-items`), which the public items' docs
//! link to freely.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cli;
pub mod engine;
pub mod matcher;
pub mod opencl;
pub mod output;
pub mod pipeline;
pub mod search;
pub mod sorted;
pub mod sys;
pub mod walk;
