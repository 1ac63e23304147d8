//! Getting bytes to the matchers: line-aligned cutting of big files among
//! threads ([`lines`]) and the multi-threaded staging fill ([`fill`]).

pub mod fill;
pub mod lines;
