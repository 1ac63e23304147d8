//! The search drivers: which engine runs ([`choose`]), the CPU loops over
//! files ([`cpu`]), one big file on every core ([`bigfile`]), the device
//! loop ([`device`]) and its big files' candidates confirmed as they stream
//! ([`early`]), the CPU and the device on one file ([`hybrid`], its
//! chunks [`chunks`]), one big
//! file printed while its chunks are searched ([`streamed`]), and
//! `--sorted` lookups ([`lookup`]).

pub mod bigfile;
pub mod choose;
pub mod chunks;
pub mod converted;
pub mod cost;
pub mod cpu;
pub mod device;
pub mod early;
pub mod haystack;
pub mod hybrid;
pub mod lookup;
pub mod prepare;
pub mod staging;
pub mod streamed;
