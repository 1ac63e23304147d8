//! Getting bytes to the matchers: line-aligned cutting of big files among
//! threads ([`lines`]), segments searched by every core and emitted in order
//! ([`segments`]) and the multi-threaded staging fill ([`fill`]).

pub mod fill;
pub mod lines;
pub mod segments;
