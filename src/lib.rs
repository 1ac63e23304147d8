//! gsearch: a ripgrep-compatible search tool whose matcher runs on GPUs
//! through OpenCL. See ARCHITECTURE.md for the map of modules.

pub mod cli;
pub mod config;
pub mod engine;
pub mod generate;
pub mod messages;
pub mod offsets;
pub mod plan;
pub mod printer;
pub mod run;
pub mod stats;
pub mod walk;
