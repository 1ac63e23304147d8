//! Getting bytes to the matchers: line-aligned cutting of big files among
//! threads ([`lines`]), one literal counted and found with `memchr` alone
//! ([`literal`]), segments searched by every core and emitted in order
//! ([`segments`]), reading ahead of them on a file that is not in the page
//! cache ([`readahead`]) and the multi-threaded staging fill ([`fill`]).

pub mod fill;
pub mod lines;
pub mod literal;
pub mod readahead;
pub mod segments;
