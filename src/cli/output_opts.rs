//! The flags-output group's settings: line terminators and line handling
//! (`--crlf`, `--null-data`, `--passthru`, `--trim`, `-M`,
//! `--stop-on-nonmatch`), printer options (`--colors`, field and path
//! separators, hyperlinks, buffering) and regex options (size limits,
//! `--no-unicode`, the PCRE2 flags), parsed with ripgrep's messages.

use anyhow::anyhow;
use grep_printer::{ColorSpecs, HyperlinkConfig, HyperlinkEnvironment, HyperlinkFormat};

use crate::cli::{Cli, EngineArg};

/// What ends a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineTerm {
    Lf,
    /// `--crlf`: `\n` ends a line, a `\r` before it is part of the ending.
    Crlf,
    /// `--null-data`: NUL ends a line.
    Nul,
}

/// Which regex engine ripgrep's flags asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegexEngine {
    /// gsearch's matcher (ripgrep's default engine).
    Default,
    /// `-P`, `--engine pcre2`: PCRE2 (`grep-pcre2`, as ripgrep builds it).
    Pcre2,
    /// `--engine auto`, `--auto-hybrid-regex`: the default engine, else
    /// PCRE2 when the default engine cannot compile the patterns.
    Hybrid,
}

/// The settings of the flags-output group.
#[derive(Clone, Debug)]
pub struct OutputOpts {
    pub line_term: LineTerm,
    pub passthru: bool,
    pub trim: bool,
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    pub stop_on_nonmatch: bool,
    pub colors: ColorSpecs,
    pub field_context_separator: Vec<u8>,
    pub field_match_separator: Vec<u8>,
    pub path_separator: Option<u8>,
    pub hyperlink: HyperlinkConfig,
    /// A hyperlink format is in use (not empty).
    pub hyperlinks: bool,
    /// `--line-buffered` (`Some(true)`) or `--block-buffered`.
    pub line_buffered: Option<bool>,
    pub regex_size_limit: Option<usize>,
    pub dfa_size_limit: Option<usize>,
    pub no_unicode: bool,
    pub regex_engine: RegexEngine,
    /// PCRE2 runs the search: `-P`, or `--engine auto` with patterns the
    /// default engine cannot compile (decided with the patterns, by
    /// `matcher::plan::resolve_engine`).
    pub pcre2: bool,
}

impl OutputOpts {
    /// Parses the group's flags (the messages are ripgrep's).
    pub fn from_cli(cli: &Cli) -> anyhow::Result<OutputOpts> {
        let line_term = if cli.null_data {
            LineTerm::Nul
        } else if cli.crlf {
            LineTerm::Crlf
        } else {
            LineTerm::Lf
        };
        let colors = color_specs(&cli.colors)?;
        let engine = regex_engine(cli);
        Ok(OutputOpts {
            line_term,
            passthru: cli.passthru,
            trim: cli.trim,
            max_columns: max_columns(cli.max_columns.as_deref())?,
            max_columns_preview: cli.max_columns_preview,
            stop_on_nonmatch: cli.stop_on_nonmatch,
            colors,
            field_context_separator: separator(cli.field_context_separator.as_deref(), "-"),
            field_match_separator: separator(cli.field_match_separator.as_deref(), ":"),
            path_separator: path_separator(cli.path_separator.as_deref())?,
            hyperlink: hyperlink(cli)?,
            hyperlinks: cli
                .hyperlink_format
                .as_deref()
                .is_some_and(|f| f.parse::<HyperlinkFormat>().is_ok_and(|f| !f.is_empty())),
            line_buffered: buffering(cli),
            regex_size_limit: size("--regex-size-limit", cli.regex_size_limit.as_deref())?,
            dfa_size_limit: size("--dfa-size-limit", cli.dfa_size_limit.as_deref())?,
            no_unicode: cli.no_unicode || cli.no_pcre2_unicode,
            regex_engine: engine,
            pcre2: engine == RegexEngine::Pcre2,
        })
    }

    /// Whether only ripgrep's searcher on the CPU gives this output: a
    /// line terminator other than `\n`, every line printed (`--passthru`),
    /// a search that stops at a non-matching line, a regex built without
    /// Unicode or with size limits, or by PCRE2. The device path and the
    /// hybrid search then stand aside.
    pub fn needs_cpu_searcher(&self) -> bool {
        self.searcher_flags() || self.pcre2
    }

    /// [`OutputOpts::needs_cpu_searcher`] but for PCRE2, which a big file
    /// split over the cores and the plain printer (`output::plain`) can use
    /// too (`search::bigfile`): PCRE2 decides which lines match, not how
    /// they are printed.
    pub fn searcher_flags(&self) -> bool {
        self.line_term != LineTerm::Lf
            || self.passthru
            || self.stop_on_nonmatch
            || self.no_unicode
            || self.regex_size_limit.is_some()
            || self.dfa_size_limit.is_some()
    }

    /// Whether only ripgrep's printers give this output: the searcher's
    /// options ([`OutputOpts::searcher_flags`]), or lines printed other
    /// than as they are (`--trim`, `-M`), other separators, paths or
    /// hyperlinks (`--colors` are `output::style`'s too). Any engine may find the lines (the
    /// device's reach ripgrep's printer through `OffsetMatcher`); the plain
    /// printer and big-file streaming stand aside.
    pub fn needs_ripgrep_printer(&self) -> bool {
        self.searcher_flags()
            || self.trim
            || self.max_columns.is_some()
            || self.field_context_separator != b"-"
            || self.field_match_separator != b":"
            || self.path_separator.is_some()
            || self.hyperlinks
    }

    /// Whether a count (`-c`, `--count-matches`) needs ripgrep's printers:
    /// its paths (`--path-separator`, hyperlinks) or its searcher. Lines
    /// are not printed, so `-M`, `--trim`, colors and field separators
    /// change nothing (ripgrep writes `PATH:COUNT` whatever they say).
    pub fn count_needs_ripgrep_printer(&self) -> bool {
        self.searcher_flags() || self.path_separator.is_some() || self.hyperlinks
    }

    /// The byte that ends lines for the searcher and the matcher.
    pub fn line_byte(&self) -> u8 {
        if self.line_term == LineTerm::Nul {
            b'\x00'
        } else {
            b'\n'
        }
    }
}

/// `-M NUM`: 0 means no limit.
fn max_columns(v: Option<&str>) -> anyhow::Result<Option<u64>> {
    let Some(v) = v else { return Ok(None) };
    let n: u64 = v.parse().map_err(|e| {
        let flag = typed_name("max-columns", 'M');
        anyhow!("error parsing flag {flag}: value is not a valid number: {e}")
    })?;
    Ok((n > 0).then_some(n))
}

/// The flag as the user spelled it last (`-M` or `--max-columns`), as
/// ripgrep names it in messages.
fn typed_name(long: &str, short: char) -> String {
    let long_form = format!("--{long}");
    let mut name = long_form.clone();
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            break;
        }
        if arg == long_form || arg.starts_with(&format!("{long_form}=")) {
            name.clone_from(&long_form);
        } else if !arg.starts_with("--") && arg.starts_with('-') && arg.contains(short) {
            name = format!("-{short}");
        }
    }
    name
}

/// ripgrep's default colors, then every `--colors` spec in order.
fn color_specs(specs: &[String]) -> anyhow::Result<ColorSpecs> {
    let mut all = grep_printer::default_color_specs();
    for s in specs {
        let spec = s
            .parse()
            .map_err(|e| anyhow!("error parsing flag --colors: {e}"))?;
        all.push(spec);
    }
    Ok(ColorSpecs::new(&all))
}

/// Whether a `--colors` spec parses (as the parser checks each one given,
/// in order with the other flags' values, whatever then runs).
pub(crate) fn check_color_spec(s: &str) -> Result<(), String> {
    s.parse::<grep_printer::UserColorSpec>()
        .map(drop)
        .map_err(|e| e.to_string())
}

fn separator(v: Option<&str>, default: &str) -> Vec<u8> {
    grep_cli::unescape(v.unwrap_or(default))
}

/// `--path-separator`: one byte, or empty for the platform's.
fn path_separator(v: Option<&str>) -> anyhow::Result<Option<u8>> {
    let Some(s) = v else { return Ok(None) };
    one_byte(s).map_err(|why| anyhow!("error parsing flag --path-separator: {why}"))
}

/// Whether `--path-separator` is one byte or empty (as the parser checks
/// each one given).
pub(crate) fn check_path_separator(s: &str) -> Result<(), String> {
    one_byte(s).map(drop)
}

fn one_byte(s: &str) -> Result<Option<u8>, String> {
    let raw = grep_cli::unescape(s);
    match raw.len() {
        0 => Ok(None),
        1 => Ok(Some(raw[0])),
        len => Err(format!(
            "A path separator must be exactly one byte, but the given separator is {len} bytes: {s}\nIn some shells on Windows '/' is automatically expanded. Use '//' instead."
        )),
    }
}

/// `--line-buffered` / `--block-buffered` (the last one wins).
fn buffering(cli: &Cli) -> Option<bool> {
    if cli.line_buffered {
        Some(true)
    } else if cli.block_buffered {
        Some(false)
    } else {
        None
    }
}

/// A size with an optional K, M or G suffix (ripgrep's parser and
/// messages), for `flag`.
pub(crate) fn human_size(flag: &str, v: Option<&str>) -> anyhow::Result<Option<u64>> {
    let Some(v) = v else { return Ok(None) };
    let n = size_value(v).map_err(|why| anyhow!("error parsing flag {flag}: {why}"))?;
    Ok(Some(n))
}

/// Whether a size flag's value parses (as the parser checks each one given).
pub(crate) fn check_size(v: &str) -> Result<(), String> {
    size_value(v).map(drop)
}

fn size_value(v: &str) -> Result<u64, String> {
    grep_cli::parse_human_readable_size(v).map_err(|e| format!("invalid size: {e}"))
}

/// [`human_size`] as a `usize` (the regex size limits).
fn size(flag: &str, v: Option<&str>) -> anyhow::Result<Option<usize>> {
    human_size(flag, v)?
        .map(usize::try_from)
        .transpose()
        .map_err(|_| anyhow!("error parsing flag {flag}: size is too big"))
}

/// The engine the last of `-P`, `--no-pcre2`, `--auto-hybrid-regex`,
/// `--no-auto-hybrid-regex` and `--engine` asked for.
fn regex_engine(cli: &Cli) -> RegexEngine {
    if cli.pcre2 || cli.engine == Some(EngineArg::Pcre2) {
        RegexEngine::Pcre2
    } else if cli.auto_hybrid_regex {
        RegexEngine::Hybrid
    } else {
        RegexEngine::Default
    }
}

/// Whether a `--hyperlink-format` parses (as the parser checks it).
pub(crate) fn check_hyperlink_format(s: &str) -> Result<(), String> {
    s.parse::<HyperlinkFormat>()
        .map(drop)
        .map_err(|e| format!("invalid hyperlink format: {e}"))
}

/// `--hyperlink-format` with the host name (`--hostname-bin`) and WSL
/// prefix its variables may use.
fn hyperlink(cli: &Cli) -> anyhow::Result<HyperlinkConfig> {
    let format: HyperlinkFormat = match cli.hyperlink_format.as_deref() {
        Some(s) => s.parse().map_err(|e| {
            anyhow!("error parsing flag --hyperlink-format: invalid hyperlink format: {e}")
        })?,
        None => HyperlinkFormat::default(),
    };
    let mut env = HyperlinkEnvironment::new();
    if !format.is_empty() {
        env.host(hostname(cli.hostname_bin.as_deref()));
        if let Some(distro) = std::env::var_os("WSL_DISTRO_NAME").and_then(|d| d.into_string().ok())
        {
            env.wsl_prefix(Some(format!("wsl$/{distro}")));
        }
    }
    Ok(HyperlinkConfig::new(env, format))
}

/// The host name: the output of `--hostname-bin` (trimmed), else the
/// system's.
fn hostname(bin: Option<&std::path::Path>) -> Option<String> {
    let from_bin = bin.and_then(|bin| {
        let bin = grep_cli::resolve_binary(bin).ok()?;
        let mut cmd = std::process::Command::new(bin);
        cmd.stdin(std::process::Stdio::null());
        let rdr = grep_cli::CommandReader::new(&mut cmd).ok()?;
        let out = std::io::read_to_string(rdr).ok()?;
        let name = out.trim();
        (!name.is_empty()).then(|| name.to_string())
    });
    from_bin.or_else(|| grep_cli::hostname().ok()?.into_string().ok())
}
