//! ripgrep's line searcher (grep-searcher) as ripgrep configures it from
//! the flags: line terminator (`--crlf`, `--null-data`), context (and
//! `--passthru`, `--stop-on-nonmatch`), line numbers, inversion, and binary
//! detection (explicit files are never skipped). Files are never mapped by
//! grep-searcher itself: the search drivers map them under the SIGBUS guard
//! (`sys::guard`) when `Config::use_mmap` says so.

use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};

use crate::cli::config::{BinaryMode, Config};
use crate::cli::input::EncodingMode;
use crate::cli::output_opts::LineTerm;

/// Builds the line searcher as ripgrep does.
pub fn searcher(cfg: &Config) -> Searcher {
    let mut b = SearcherBuilder::new();
    b.max_matches(cfg.max_count)
        .line_terminator(line_terminator(cfg))
        .invert_match(cfg.invert)
        .line_number(cfg.line_number)
        .multi_line(cfg.input.multiline)
        // grep-searcher never maps files itself: `search_haystack` maps
        // them under the SIGBUS guard and searches the slice.
        .memory_map(MmapChoice::never())
        .before_context(cfg.before)
        .after_context(cfg.after)
        .passthru(cfg.out.passthru)
        .stop_on_nonmatch(cfg.out.stop_on_nonmatch);
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

/// `\n`, or CRLF (`--crlf`), or NUL (`--null-data`).
fn line_terminator(cfg: &Config) -> grep_matcher::LineTerminator {
    match cfg.out.line_term {
        LineTerm::Lf => grep_matcher::LineTerminator::byte(b'\n'),
        LineTerm::Crlf => grep_matcher::LineTerminator::crlf(),
        LineTerm::Nul => grep_matcher::LineTerminator::byte(b'\x00'),
    }
}

/// Binary detection for a haystack: explicit files are never skipped.
pub fn binary_detection(cfg: &Config, explicit: bool) -> BinaryDetection {
    match cfg.binary {
        // NUL ends lines with `--null-data`: nothing is binary.
        _ if cfg.out.line_term == LineTerm::Nul => BinaryDetection::none(),
        BinaryMode::AsText => BinaryDetection::none(),
        BinaryMode::SearchAndSuppress => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto if explicit => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto => BinaryDetection::quit(b'\x00'),
    }
}
