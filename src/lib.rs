//! gsearch: a ripgrep-compatible search tool whose matcher runs on GPUs
//! through OpenCL. See ARCHITECTURE.md for the map of modules.

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
