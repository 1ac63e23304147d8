//! ripgrep's line searcher (grep-searcher) as ripgrep configures it from
//! the flags: line terminator, context, line numbers, inversion, and binary
//! detection (explicit files are never skipped). Files are never mapped by
//! grep-searcher itself: the search drivers map them under the SIGBUS guard
//! (`sys::guard`) when `Config::use_mmap` says so.

use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};

use crate::cli::config::{BinaryMode, Config};
use crate::cli::input::EncodingMode;

/// Builds the line searcher as ripgrep does.
pub fn searcher(cfg: &Config) -> Searcher {
    let mut b = SearcherBuilder::new();
    b.max_matches(cfg.max_count)
        .line_terminator(grep_matcher::LineTerminator::byte(b'\n'))
        .invert_match(cfg.invert)
        .line_number(cfg.line_number)
        .multi_line(cfg.input.multiline)
        // grep-searcher never maps files itself: `search_haystack` maps
        // them under the SIGBUS guard and searches the slice.
        .memory_map(MmapChoice::never())
        .before_context(cfg.before)
        .after_context(cfg.after);
    match &cfg.input.encoding {
        EncodingMode::Auto => {}
        EncodingMode::Some(enc) => {
            b.encoding(Some(enc.clone()));
        }
        EncodingMode::Disabled => {
            b.bom_sniffing(false);
        }
    }
    b.build()
}

/// Binary detection for a haystack: explicit files are never skipped.
pub fn binary_detection(cfg: &Config, explicit: bool) -> BinaryDetection {
    match cfg.binary {
        BinaryMode::AsText => BinaryDetection::none(),
        BinaryMode::SearchAndSuppress => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto if explicit => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto => BinaryDetection::quit(b'\x00'),
    }
}
