//! The regex settings of ripgrep's flags that gsearch's matcher takes as
//! ripgrep's default engine does (`--crlf`, `--null-data`, `--no-unicode`,
//! the size limits), and the engine they asked for.

use grep_regex::RegexMatcherBuilder;

use crate::cli::config::Config;
use crate::cli::output_opts::{LineTerm, RegexEngine};

/// What the flags ask of the regex compiler.
#[derive(Clone, Debug)]
pub struct RegexOpts {
    pub line_term: LineTerm,
    pub no_unicode: bool,
    pub size_limit: Option<usize>,
    pub dfa_size_limit: Option<usize>,
    pub engine: RegexEngine,
}

impl RegexOpts {
    pub fn of(cfg: &Config) -> RegexOpts {
        RegexOpts {
            line_term: cfg.out.line_term,
            no_unicode: cfg.out.no_unicode,
            size_limit: cfg.out.regex_size_limit,
            dfa_size_limit: cfg.out.dfa_size_limit,
            engine: cfg.out.regex_engine,
        }
    }

    /// Line terminator and limits, after the builder's other settings. A
    /// multiline regex (`multiline`) has no line terminator, as in
    /// ripgrep: with `--crlf` it may match `\r\n` (`-U --crlf 'a\r\nb'`),
    /// with `--null-data` a NUL.
    pub fn configure(&self, b: &mut RegexMatcherBuilder, multiline: bool) {
        match self.line_term {
            LineTerm::Lf => {}
            LineTerm::Crlf if multiline => {
                b.crlf(true).line_terminator(None);
            }
            LineTerm::Crlf => {
                b.crlf(true);
            }
            LineTerm::Nul if multiline => {}
            LineTerm::Nul => {
                b.line_terminator(Some(b'\x00'));
            }
        }
        if let Some(n) = self.size_limit {
            b.size_limit(n);
        }
        if let Some(n) = self.dfa_size_limit {
            b.dfa_size_limit(n);
        }
    }
}
