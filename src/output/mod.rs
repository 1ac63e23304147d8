//! Writing answers: ripgrep's printers as ripgrep configures them
//! ([`printer`]), the parallel plain-text writer for big files ([`plain`]),
//! `--json` ([`json`]), one line's matches as ripgrep's printers find them
//! ([`matches`](mod@matches)) and their colors ([`style`]), and `--stats`
//! ([`stats`]).

pub mod context;
pub mod json;
pub mod matches;
pub mod plain;
pub mod printer;
pub mod stats;
pub mod style;
pub mod writer;
