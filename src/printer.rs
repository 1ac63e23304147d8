//! Builds the printer that a search writes to: ripgrep's own printers
//! (grep-printer), configured as ripgrep configures them, so output is
//! ripgrep's byte for byte.

use std::io;
use std::path::Path;

use grep_matcher::Matcher;
use grep_printer::{
    ColorSpecs, JSON, JSONBuilder, Standard, StandardBuilder, Stats, Summary, SummaryBuilder,
    SummaryKind,
};
use grep_searcher::{Searcher, Sink};
use termcolor::WriteColor;

use crate::config::{Config, OutputMode};

/// One of ripgrep's three printers.
pub enum Printer<W> {
    Standard(Standard<W>),
    Summary(Summary<W>),
    Json(JSON<W>),
}

/// What one search reports back.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub has_match: bool,
    pub stats: Option<Stats>,
}

impl<W: WriteColor> Printer<W> {
    /// The printer for this run's output mode. With one thread the printer
    /// writes the separator between files itself, as ripgrep's does.
    pub fn new(cfg: &Config, wtr: W) -> Printer<W> {
        Printer::build(cfg, wtr, cfg.threads == 1)
    }

    /// A printer for output that a `termcolor::BufferWriter` separates.
    pub fn new_unseparated(cfg: &Config, wtr: W) -> Printer<W> {
        Printer::build(cfg, wtr, false)
    }

    fn build(cfg: &Config, wtr: W, own_separator: bool) -> Printer<W> {
        let colors = ColorSpecs::new(&grep_printer::default_color_specs());
        let terminator = cfg.null.then_some(b'\x00');
        let summary_kind = if cfg.quiet {
            if cfg.mode == OutputMode::FilesWithoutMatch {
                SummaryKind::QuietWithoutMatch
            } else {
                SummaryKind::QuietWithMatch
            }
        } else {
            match cfg.mode {
                OutputMode::FilesWithMatches => SummaryKind::PathWithMatch,
                OutputMode::FilesWithoutMatch => SummaryKind::PathWithoutMatch,
                OutputMode::Count => SummaryKind::Count,
                OutputMode::CountMatches => SummaryKind::CountMatches,
                OutputMode::Json => {
                    return Printer::Json(
                        JSONBuilder::new()
                            .pretty(false)
                            .replacement(cfg.replace.clone())
                            .always_begin_end(false)
                            .build(wtr),
                    );
                }
                OutputMode::Standard => {
                    let mut b = StandardBuilder::new();
                    b.byte_offset(cfg.byte_offset)
                        .color_specs(colors)
                        .column(cfg.column)
                        .heading(cfg.heading)
                        .only_matching(cfg.only_matching)
                        .path(cfg.with_filename)
                        .path_terminator(terminator)
                        .per_match_one_line(true)
                        .per_match(cfg.vimgrep)
                        .replacement(cfg.replace.clone())
                        .separator_context(cfg.context_separator.clone())
                        .separator_field_context(b"-".to_vec())
                        .separator_field_match(b":".to_vec())
                        .stats(cfg.stats);
                    if own_separator {
                        b.separator_search(cfg.file_separator.clone());
                    }
                    return Printer::Standard(b.build(wtr));
                }
            }
        };
        Printer::Summary(
            SummaryBuilder::new()
                .color_specs(colors)
                .exclude_zero(!cfg.include_zero)
                .kind(summary_kind)
                .path(cfg.with_filename)
                .path_terminator(terminator)
                .separator_field(b":".to_vec())
                .stats(cfg.stats)
                .build(wtr),
        )
    }

    pub fn get_mut(&mut self) -> &mut W {
        match self {
            Printer::Standard(p) => p.get_mut(),
            Printer::Summary(p) => p.get_mut(),
            Printer::Json(p) => p.get_mut(),
        }
    }

    /// Searches `input` with `matcher`, printing results for `path`.
    pub fn search<M: Matcher>(
        &mut self,
        searcher: &mut Searcher,
        matcher: M,
        path: &Path,
        input: Input<'_>,
    ) -> io::Result<SearchResult> {
        match self {
            Printer::Standard(p) => {
                let mut sink = p.sink_with_path(&matcher, path);
                feed(searcher, &matcher, input, &mut sink)?;
                Ok(SearchResult {
                    has_match: sink.has_match(),
                    stats: sink.stats().cloned(),
                })
            }
            Printer::Summary(p) => {
                let mut sink = p.sink_with_path(&matcher, path);
                feed(searcher, &matcher, input, &mut sink)?;
                Ok(SearchResult {
                    has_match: sink.has_match(),
                    stats: sink.stats().cloned(),
                })
            }
            Printer::Json(p) => {
                let mut sink = p.sink_with_path(&matcher, path);
                feed(searcher, &matcher, input, &mut sink)?;
                Ok(SearchResult {
                    has_match: sink.has_match(),
                    stats: Some(sink.stats().clone()),
                })
            }
        }
    }
}

/// Where the bytes of one search come from.
pub enum Input<'a> {
    /// A file path (the searcher decides between a memory map and reads).
    Path(&'a Path),
    /// A reader, e.g. standard input.
    Reader(&'a mut dyn io::Read),
    /// Bytes already in memory (a staging buffer, a memory map).
    Slice(&'a [u8]),
}

fn feed<M: Matcher, S: Sink<Error = io::Error>>(
    searcher: &mut Searcher,
    matcher: &M,
    input: Input<'_>,
    sink: &mut S,
) -> io::Result<()> {
    match input {
        Input::Path(p) => searcher.search_path(matcher, p, sink),
        Input::Reader(r) => searcher.search_reader(matcher, r, sink),
        Input::Slice(s) => searcher.search_slice(matcher, s, sink),
    }
}
