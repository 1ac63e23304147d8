//! What the exact matcher is compiled from, and its two compilers as
//! ripgrep configures them from the flags: grep-regex (ripgrep's default
//! engine, which every device path mirrors) and grep-pcre2 (`-P`, and
//! `--engine auto` for patterns the default engine cannot compile), with
//! ripgrep's messages and hints when a pattern does not compile.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::cli::config::{BinaryMode, Boundary, CaseMode, Config};
use crate::cli::output_opts::{LineTerm, RegexEngine};
use crate::matcher::regex_opts::RegexOpts;

/// What the regex is compiled from (owned, for the compiler thread).
#[derive(Clone)]
pub(super) struct MatcherSpec {
    pub(super) fixed_strings: bool,
    pub(super) case: CaseMode,
    pub(super) boundary: Boundary,
    pub(super) ban_nul: bool,
    pub(super) patterns: Vec<String>,
    /// `-U` (the regex may match line terminators), and `--multiline-dotall`.
    pub(super) multiline: Option<bool>,
    /// The flags-output group's regex settings.
    pub(super) out: RegexOpts,
}

impl MatcherSpec {
    pub(super) fn of(cfg: &Config) -> MatcherSpec {
        MatcherSpec {
            fixed_strings: cfg.fixed_strings,
            case: cfg.case,
            boundary: cfg.boundary,
            ban_nul: cfg.binary != BinaryMode::AsText && cfg.out.line_term != LineTerm::Nul,
            patterns: cfg.patterns.clone(),
            multiline: cfg.input.multiline.then_some(cfg.input.multiline_dotall),
            out: RegexOpts::of(cfg),
        }
    }

    /// The patterns compiled by the default engine.
    pub(super) fn build(&self) -> anyhow::Result<RegexMatcher> {
        self.build_many(&self.patterns)
    }

    /// `patterns` (in place of the spec's own) compiled as one alternation
    /// by the default engine. Its error carries ripgrep's hints (`-U`,
    /// `-a`, and `-P` for look-around and backreferences unless PCRE2 is
    /// tried next).
    pub(super) fn build_many<P: AsRef<str>>(&self, patterns: &[P]) -> anyhow::Result<RegexMatcher> {
        let mut b = RegexMatcherBuilder::new();
        b.multi_line(true)
            .unicode(!self.out.no_unicode)
            .octal(false)
            .fixed_strings(self.fixed_strings);
        match self.case {
            CaseMode::Sensitive => b.case_insensitive(false),
            CaseMode::Insensitive => b.case_insensitive(true),
            CaseMode::Smart => b.case_smart(true),
        };
        match self.boundary {
            Boundary::Word => {
                b.word(true);
            }
            Boundary::Line => {
                b.whole_line(true);
            }
            Boundary::None => {}
        }
        match self.multiline {
            Some(dotall) => b.dot_matches_new_line(dotall),
            None => b.line_terminator(Some(b'\n')).dot_matches_new_line(false),
        };
        self.out.configure(&mut b, self.multiline.is_some());
        if self.ban_nul {
            b.ban_byte(Some(b'\x00'));
        }
        b.build_many(patterns).map_err(|e| {
            let msg = suggest_text(suggest_multiline(e.to_string()));
            match self.out.engine {
                RegexEngine::Default => anyhow::anyhow!("{}", suggest_pcre2(msg)),
                _ => anyhow::anyhow!("{msg}"),
            }
        })
    }

    /// The patterns compiled by PCRE2, configured as ripgrep configures it
    /// (its JIT with a 10 MiB stack, Unicode unless `--no-unicode`).
    pub(super) fn build_pcre2(&self) -> anyhow::Result<grep_pcre2::RegexMatcher> {
        let mut b = grep_pcre2::RegexMatcherBuilder::new();
        b.multi_line(true).fixed_strings(self.fixed_strings);
        match self.case {
            CaseMode::Sensitive => b.caseless(false),
            CaseMode::Insensitive => b.caseless(true),
            CaseMode::Smart => b.case_smart(true),
        };
        match self.boundary {
            Boundary::Word => {
                b.word(true);
            }
            Boundary::Line => {
                b.whole_line(true);
            }
            Boundary::None => {}
        }
        if cfg!(target_pointer_width = "64") {
            b.jit_if_available(true).max_jit_stack_size(Some(10 << 20));
        }
        if !self.out.no_unicode {
            b.utf(true).ucp(true);
        }
        if let Some(dotall) = self.multiline {
            b.dotall(dotall);
        }
        if self.out.line_term == LineTerm::Crlf {
            b.crlf(true);
        }
        Ok(b.build_many(&self.patterns)?)
    }

    /// The PCRE2 matcher of a search PCRE2 runs; with `--engine auto`, both
    /// engines' errors when neither compiles the patterns.
    pub(super) fn build_pcre2_or_explain(&self) -> anyhow::Result<grep_pcre2::RegexMatcher> {
        self.build_pcre2().map_err(|pcre2| match self.out.engine {
            RegexEngine::Hybrid => match self.build() {
                Err(default) => neither(&default, &pcre2),
                Ok(_) => pcre2,
            },
            _ => pcre2,
        })
    }
}

/// ripgrep's message when `--engine auto` finds that neither engine
/// compiles the patterns.
pub(super) fn neither(default: &anyhow::Error, pcre2: &anyhow::Error) -> anyhow::Error {
    let divider = "~".repeat(79);
    anyhow::anyhow!(
        "regex could not be compiled with either the default regex engine or with PCRE2.\n\n\
         default regex engine error:\n{divider}\n{default}\n{divider}\n\n\
         PCRE2 regex engine error:\n{pcre2}"
    )
}

/// Decides, with the patterns known, whether PCRE2 runs the search
/// (`OutputOpts::pcre2`): `-P` says so, and `--engine auto` when the
/// default engine cannot parse a pattern (look-around, backreferences...).
/// A pattern it parses and yet cannot compile (a size limit) is caught when
/// the plan is finished (`PendingPlan::finish`).
pub fn resolve_engine(cfg: &mut Config) {
    if cfg.out.regex_engine != RegexEngine::Hybrid || cfg.fixed_strings {
        return;
    }
    // A parser per pattern: regex-syntax numbers capture groups across
    // parses and refuses a second one.
    let parses = |p: &String| {
        regex_syntax::ParserBuilder::new()
            .utf8(false)
            .unicode(!cfg.out.no_unicode)
            .octal(false)
            .multi_line(true)
            .build()
            .parse(p)
            .is_ok()
    };
    // A pattern without a meta character is a literal, which parses.
    let regex = |p: &&String| p.chars().any(regex_syntax::is_meta_character);
    cfg.out.pcre2 = !cfg.patterns.iter().filter(regex).all(parses);
}

/// ripgrep's hint when a pattern holds a line terminator that only
/// multiline mode allows.
fn suggest_multiline(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else {
        msg
    }
}

/// ripgrep's hint when a pattern holds a NUL that binary detection bans.
fn suggest_text(msg: String) -> String {
    if msg.contains("pattern contains \"\\0\"") {
        format!(
            "{msg}\n\nConsider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible."
        )
    } else {
        msg
    }
}

/// ripgrep's hint when the default engine meets syntax PCRE2 has.
fn suggest_pcre2(msg: String) -> String {
    if msg.contains("backreferences") || msg.contains("look-around") {
        format!(
            "{msg}\n\nConsider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\nand look-around."
        )
    } else {
        msg
    }
}
