//! Writing answers: ripgrep's printers as ripgrep configures them
//! ([`printer`]), the parallel plain-text writer for big files ([`plain`]),
//! and `--stats` ([`stats`]).

pub mod json;
pub mod plain;
pub mod printer;
pub mod stats;
pub mod writer;
