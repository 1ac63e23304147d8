//! The regex settings of ripgrep's flags that gsearch's matcher takes as
//! ripgrep's default engine does (`--crlf`, `--null-data`, `--no-unicode`,
//! the size limits), and the PCRE2 engine, which gsearch does not have:
//! asking for it fails as in a ripgrep built without PCRE2.

use anyhow::bail;
use grep_regex::RegexMatcherBuilder;

use crate::cli::config::Config;
use crate::cli::output_opts::{LineTerm, RegexEngine};
use crate::cli::version::NO_PCRE2;

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

    /// `-P`: the error a ripgrep without PCRE2 gives.
    pub fn engine_available(&self) -> anyhow::Result<()> {
        if self.engine == RegexEngine::Pcre2 {
            bail!("{NO_PCRE2}");
        }
        Ok(())
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

    /// A pattern that does not compile: with `--engine auto` ripgrep tells
    /// what each engine said.
    pub fn compile_error(&self, err: String) -> anyhow::Error {
        if self.engine != RegexEngine::Hybrid {
            return anyhow::anyhow!("{err}");
        }
        let divider = "~".repeat(79);
        anyhow::anyhow!(
            "regex could not be compiled with either the default regex engine or with PCRE2.\n\n\
             default regex engine error:\n{divider}\n{err}\n{divider}\n\n\
             PCRE2 regex engine error:\n{NO_PCRE2}"
        )
    }
}
