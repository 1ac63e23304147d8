//! The second stage of argument handling: raw flags become validated,
//! derived settings (ripgrep's defaults for tty vs pipe, which printer, how
//! many threads, where to search). Reading pattern files happens here too,
//! since it decides whether standard input is still free to search.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::bail;

use crate::cli::input::InputOptions;
use crate::cli::order::BinaryFlag;
use crate::cli::walkcfg::WalkConfig;
use crate::cli::{Cli, ColorArg, EngineArg};

/// What the search prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputMode {
    Standard,
    Count,
    CountMatches,
    FilesWithMatches,
    FilesWithoutMatch,
    Json,
}

/// How files that look binary (a NUL byte) are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryMode {
    /// Files found while walking stop at the first NUL; explicit files are
    /// searched with NUL as a line end (ripgrep's default).
    Auto,
    /// `--binary`: walked files are searched like explicit ones.
    SearchAndSuppress,
    /// `-a`: no binary detection.
    AsText,
}

/// Case handling of the patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseMode {
    Sensitive,
    Insensitive,
    Smart,
}

/// Word or line boundaries around every match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    None,
    Word,
    Line,
}

/// Everything the search needs, decided once.
#[derive(Clone, Debug)]
pub struct Config {
    pub patterns: Vec<String>,
    /// Where each pattern came from, for reporting a bad rule on its own.
    pub pattern_origins: PatternOrigins,
    pub fixed_strings: bool,
    pub case: CaseMode,
    pub boundary: Boundary,
    /// A line's answer can depend on the bytes before it: Unicode half word
    /// boundaries, which `-w` adds (ripgrep's word matcher) and a pattern
    /// may spell out (`\b{start-half}`); see `matcher::lines::reads_before`.
    pub line_context: bool,
    pub invert: bool,
    pub max_count: Option<u64>,
    pub mode: OutputMode,
    pub quiet: bool,
    pub include_zero: bool,
    pub line_number: bool,
    pub with_filename: bool,
    pub heading: bool,
    pub byte_offset: bool,
    pub column: bool,
    pub only_matching: bool,
    pub replace: Option<Vec<u8>>,
    pub vimgrep: bool,
    pub before: usize,
    pub after: usize,
    pub context_separator: Option<Vec<u8>>,
    pub file_separator: Option<Vec<u8>>,
    pub color: termcolor::ColorChoice,
    pub null: bool,
    pub stats: bool,
    pub sort_path: bool,
    pub threads: usize,
    /// `threads` is ripgrep's default (no `-j`, several files), which a
    /// CPU-bound matcher may widen to every core (`cpu::search_cpu`).
    pub threads_default: bool,
    /// `-j N` (N > 0) as given: the most cores any part of the run may
    /// keep busy (`sys::limit_cores`).
    pub threads_given: Option<usize>,
    pub binary: BinaryMode,
    /// Files are searched through memory maps (decided once, as ripgrep
    /// decides: `--mmap`, or at most 10 paths that are all files).
    pub use_mmap: bool,
    /// `--no-mmap`: no file is mapped, not even the big files of a
    /// multiline search that `use_mmap` leaves to reads
    /// (`search::haystack`).
    pub no_mmap: bool,
    pub paths: Vec<PathBuf>,
    pub implicit_path: bool,
    pub is_one_file: bool,
    pub is_terminal_stdout: bool,
    pub engine: EngineArg,
    pub opencl_device: Option<String>,
    pub verify: bool,
    pub quit_after_match: bool,

    // ---- input: multiline, encodings, compressed files, preprocessors ----
    pub input: InputOptions,
    // ---- flags-walk ----
    /// Sorting, type changes, more globs and ignore-file settings.
    pub walk: WalkConfig,
    /// The walk's types and globs, built from `walk`.
    pub filters: crate::cli::walkcfg::Filters,
    // ---- flags-output group: line handling, output and regex options ----
    pub out: crate::cli::output_opts::OutputOpts,
    /// `--no-messages`, `--no-ignore-messages`.
    pub no_messages: bool,
    pub no_ignore_messages: bool,
}

impl Config {
    /// Validates the flags and reads pattern files.
    pub fn from_cli(mut cli: Cli) -> anyhow::Result<Config> {
        let out = crate::cli::output_opts::OutputOpts::from_cli(&cli)?;
        let mut stdin_consumed = false;
        let (patterns, pattern_origins) = take_patterns(&mut cli, &mut stdin_consumed)?;
        let (paths, implicit_path, is_one_file) = take_paths(&mut cli, stdin_consumed)?;
        let is_terminal_stdout = std::io::stdout().is_terminal();
        let mode = final_mode(&cli);
        let binary = binary_mode(&cli);
        let walk = WalkConfig::from_cli(&mut cli)?;
        let heading = if cli.heading {
            !cli.vimgrep
        } else {
            !cli.no_heading && !cli.vimgrep && is_terminal_stdout
        };
        let column = either(cli.column, cli.no_column, cli.vimgrep);
        let (before, after) = context(&cli);
        let context_separator = (!cli.no_context_separator)
            .then(|| unescape(cli.context_separator.as_deref().unwrap_or("--")));
        let file_separator = match mode {
            OutputMode::Standard if heading => Some(Vec::new()),
            OutputMode::Standard if before > 0 || after > 0 => context_separator.clone(),
            _ => None,
        };
        let only_stdin = paths.len() == 1 && paths[0] == Path::new("-");
        let line_number = line_number(&cli, mode, is_terminal_stdout, only_stdin, column);
        let with_filename = either(
            cli.with_filename,
            cli.no_filename,
            cli.vimgrep || !is_one_file,
        );
        let sort_path = walk.sort_path();
        let one_thread = walk.sort.is_some() || is_one_file;
        let threads_default = !one_thread && cli.threads.is_none_or(|n| n == 0);
        let threads = threads(&cli, one_thread);
        let use_mmap =
            !cli.no_mmap && (cli.mmap || (paths.len() <= 10 && paths.iter().all(|p| p.is_file())));
        // Before the --pre-glob globs (`InputOptions`), as ripgrep builds them.
        let filters = walk.filters()?;
        let input = InputOptions::from_cli(&cli)?;
        let boundary = boundary(&cli);
        let line_context = (boundary == Boundary::Word && !out.no_unicode)
            || patterns.iter().any(|p| p.contains("start-half"));
        Ok(Config {
            patterns,
            pattern_origins,
            fixed_strings: cli.fixed_strings,
            case: case_mode(&cli),
            boundary,
            line_context,
            invert: cli.invert_match,
            max_count: cli.max_count,
            mode,
            quiet: cli.quiet,
            include_zero: cli.include_zero,
            line_number,
            with_filename,
            heading,
            byte_offset: cli.byte_offset,
            column,
            only_matching: cli.only_matching,
            replace: cli.replace.as_ref().map(|r| r.as_bytes().to_vec()),
            vimgrep: cli.vimgrep,
            before,
            after,
            context_separator,
            file_separator,
            color: color(&cli, is_terminal_stdout),
            null: cli.null,
            stats: cli.stats,
            sort_path,
            threads,
            threads_default,
            threads_given: cli.threads.filter(|&n| n > 0),
            binary,
            use_mmap,
            no_mmap: cli.no_mmap,
            paths,
            implicit_path,
            is_one_file,
            is_terminal_stdout,
            engine: match cli.engine {
                Some(e @ (EngineArg::Cpu | EngineArg::Opencl)) => e,
                _ => EngineArg::Auto,
            },
            opencl_device: cli.opencl_device,
            verify: cli.verify,
            quit_after_match: cli.quiet && !cli.stats && mode != OutputMode::Json,
            input,
            walk,
            filters,
            out,
            no_messages: cli.no_messages,
            no_ignore_messages: cli.no_ignore_messages,
        })
    }

    /// Whether the search needs ripgrep's searcher on the CPU: input
    /// decoded, decompressed, preprocessed or multiline (`-U`, `-E`, `-z`,
    /// `--pre`), or options only it honours (`--crlf`, `--passthru`...).
    pub fn needs_cpu_searcher(&self) -> bool {
        self.input.needs_searcher() || self.out.needs_cpu_searcher()
    }

    /// Whether `-i` was given (not smart case): `--sorted` compares keys
    /// with ASCII case folding then.
    pub fn case_insensitive_flag(&self) -> bool {
        self.case == CaseMode::Insensitive
    }

    /// `-l` or `--files-without-match`: a file's answer is whether it
    /// matches at all, so its first matching line settles it.
    pub fn lists_files(&self) -> bool {
        matches!(
            self.mode,
            OutputMode::FilesWithMatches | OutputMode::FilesWithoutMatch
        )
    }

    /// Whether ripgrep would search at all: `-m 0` never reports a match,
    /// nor does an empty pattern list (`-f /dev/null`) unless inverted.
    /// ripgrep then prints nothing, not even `--json`'s summary or
    /// `--files-without-match` lines, and exits 1.
    pub fn matches_possible(&self) -> bool {
        self.max_count != Some(0) && (self.invert || !self.patterns.is_empty())
    }
}

/// A yes/no pair of flags: the one given wins, else `default`.
fn either(yes: bool, no: bool, default: bool) -> bool {
    if yes {
        true
    } else if no {
        false
    } else {
        default
    }
}

/// The output mode after ripgrep's adjustments: `--count-matches` with
/// `-v` counts lines, `-c` with `-o` counts matches.
fn final_mode(cli: &Cli) -> OutputMode {
    match output_mode(cli) {
        OutputMode::CountMatches if cli.invert_match => OutputMode::Count,
        OutputMode::Count if cli.only_matching => OutputMode::CountMatches,
        mode => mode,
    }
}

/// `--color`, with `auto` meaning colour only on a terminal.
fn color(cli: &Cli, is_terminal_stdout: bool) -> termcolor::ColorChoice {
    match cli.color {
        Some(ColorArg::Always) => termcolor::ColorChoice::Always,
        Some(ColorArg::Ansi) => termcolor::ColorChoice::AlwaysAnsi,
        Some(ColorArg::Never) => termcolor::ColorChoice::Never,
        Some(ColorArg::Auto) | None if is_terminal_stdout => termcolor::ColorChoice::Auto,
        _ => termcolor::ColorChoice::Never,
    }
}

/// Search threads: one when sorting by path or searching one file, else
/// `-j`, else ripgrep's default of the cores up to 12.
fn threads(cli: &Cli, one_thread: bool) -> usize {
    match cli.threads {
        _ if one_thread => 1,
        Some(n) if n > 0 => n,
        _ => crate::sys::cores().min(12),
    }
}

/// The value paired with the first flag set in `flags`, else `none`.
fn first_given<T: Copy>(flags: &[(bool, T)], none: T) -> T {
    flags.iter().find(|(set, _)| *set).map_or(none, |&(_, v)| v)
}

/// `-i` / `-S` / neither (the last given wins, by clap's overrides).
fn case_mode(cli: &Cli) -> CaseMode {
    let flags = [
        (cli.ignore_case, CaseMode::Insensitive),
        (cli.smart_case, CaseMode::Smart),
    ];
    first_given(&flags, CaseMode::Sensitive)
}

/// `-w` / `-x` / neither.
fn boundary(cli: &Cli) -> Boundary {
    let flags = [
        (cli.word_regexp, Boundary::Word),
        (cli.line_regexp, Boundary::Line),
    ];
    first_given(&flags, Boundary::None)
}

fn output_mode(cli: &Cli) -> OutputMode {
    let flags = [
        (cli.json, OutputMode::Json),
        (cli.count, OutputMode::Count),
        (cli.count_matches, OutputMode::CountMatches),
        (cli.files_with_matches, OutputMode::FilesWithMatches),
        (cli.files_without_match, OutputMode::FilesWithoutMatch),
    ];
    first_given(&flags, OutputMode::Standard)
}

/// The binary mode, from the flags applied in order (`-u`, `--binary`,
/// `-a`: `cli::order::Filters`).
fn binary_mode(cli: &Cli) -> BinaryMode {
    match cli.walk_order.filters.binary {
        BinaryFlag::Auto => BinaryMode::Auto,
        BinaryFlag::SearchAndSuppress => BinaryMode::SearchAndSuppress,
        BinaryFlag::AsText => BinaryMode::AsText,
    }
}

/// `-A`/`-B` win over `-C` whatever their order, as in ripgrep.
fn context(cli: &Cli) -> (usize, usize) {
    let both = cli.context.unwrap_or(0);
    (
        cli.before_context.unwrap_or(both),
        cli.after_context.unwrap_or(both),
    )
}

fn line_number(
    cli: &Cli,
    mode: OutputMode,
    is_terminal_stdout: bool,
    only_stdin: bool,
    column: bool,
) -> bool {
    if cli.line_number {
        return true;
    }
    if cli.no_line_number || cli.quiet {
        return false;
    }
    match mode {
        OutputMode::Json => true,
        OutputMode::Standard => (is_terminal_stdout && !only_stdin) || column || cli.vimgrep,
        _ => false,
    }
}

/// Handles the escapes ripgrep accepts in separators (`\t`, `\n`, `\x7F`...).
fn unescape(s: &str) -> Vec<u8> {
    grep_cli::unescape(s)
}

/// The patterns and where each came from.
/// Where each pattern came from: `-e 2` for the second `-e`, `rules.txt:17`
/// for a pattern file's line. Kept as numbers and named only when an
/// error needs the name (formatting 100,000 names up front cost 40 ms).
#[derive(Clone, Debug, Default)]
pub struct PatternOrigins {
    /// The pattern files' names, as shown.
    files: Vec<String>,
    /// Each pattern's source (0: `-e`; k: `files[k - 1]`) and its number
    /// there, from 1.
    each: Vec<(u32, u32)>,
}

impl PatternOrigins {
    /// The name of pattern `i`'s origin (`pattern` for the one positional
    /// pattern).
    pub fn name(&self, i: usize) -> String {
        match self.each.get(i) {
            None => "pattern".to_string(),
            Some(&(0, n)) => format!("-e {n}"),
            Some(&(k, n)) => format!("{}:{n}", self.files[k as usize - 1]),
        }
    }

    fn push(&mut self, source: usize, index: usize) {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        self.each.push((n(source), n(index + 1)));
    }
}

type Patterns = (Vec<String>, PatternOrigins);

fn take_patterns(cli: &mut Cli, stdin_consumed: &mut bool) -> anyhow::Result<Patterns> {
    if cli.files {
        // `--files` searches nothing: every positional argument is a path.
        return Ok((Vec::new(), PatternOrigins::default()));
    }
    if cli.regexp.is_empty() && cli.file.is_empty() {
        if cli.positional.is_empty() {
            bail!("gsearch requires at least one pattern to execute a search");
        }
        let first = cli.positional.remove(0);
        let Ok(pat) = first.into_string() else {
            bail!("pattern given is not valid UTF-8")
        };
        return Ok((vec![pat], PatternOrigins::default()));
    }
    let (mut patterns, mut origins) = (Vec::new(), PatternOrigins::default());
    let (regexps, files) = (
        std::mem::take(&mut cli.regexp),
        std::mem::take(&mut cli.file),
    );
    // Patterns in the order their flags were given, as ripgrep keeps them.
    let mut flags = std::mem::take(&mut cli.walk_order.pattern_flags);
    if flags.len() != regexps.len() + files.len() {
        flags = [vec![true; regexps.len()], vec![false; files.len()]].concat();
    }
    let (mut regexps, mut files) = (regexps.into_iter().enumerate(), files.into_iter());
    for from_e in flags {
        if from_e {
            if let Some((i, p)) = regexps.next() {
                patterns.push(p);
                origins.push(0, i);
            }
            continue;
        }
        let Some(path) = files.next() else { continue };
        let (list, name) = read_pattern_file(&path, stdin_consumed)?;
        origins.files.push(name);
        let source = origins.files.len();
        for (i, p) in list.into_iter().enumerate() {
            patterns.push(p);
            origins.push(source, i);
        }
    }
    // `--sorted` de-duplicates its keys itself (after sorting them, on all
    // cores); hashing a million keys here would cost more than the lookup.
    if !cli.sorted {
        dedup(&mut patterns, &mut origins.each);
    }
    Ok((patterns, origins))
}

/// The patterns of `-f PATH` (`-` reads standard input, once) and the
/// name errors give the file.
fn read_pattern_file(
    path: &Path,
    stdin_consumed: &mut bool,
) -> anyhow::Result<(Vec<String>, String)> {
    if path != Path::new("-") {
        return Ok((
            grep_cli::patterns_from_path(path)?,
            path.display().to_string(),
        ));
    }
    if *stdin_consumed {
        bail!("error reading -f/--file from stdin: stdin has already been consumed");
    }
    *stdin_consumed = true;
    Ok((grep_cli::patterns_from_stdin()?, "<stdin>".to_string()))
}

/// Keeps the first of equal patterns (and its origin).
fn dedup(patterns: &mut Vec<String>, origins: &mut Vec<(u32, u32)>) {
    let mut seen = std::collections::HashSet::with_capacity(patterns.len());
    let keep: Vec<bool> = patterns.iter().map(|p| seen.insert(p.as_str())).collect();
    drop(seen);
    if keep.iter().all(|&k| k) {
        return;
    }
    let mut k = keep.iter();
    patterns.retain(|_| k.next() == Some(&true));
    let mut k = keep.iter();
    origins.retain(|_| k.next() == Some(&true));
}

fn take_paths(cli: &mut Cli, stdin_consumed: bool) -> anyhow::Result<(Vec<PathBuf>, bool, bool)> {
    let paths: Vec<PathBuf> = cli.positional.drain(..).map(PathBuf::from).collect();
    if !paths.is_empty() {
        if stdin_consumed && paths.iter().any(|p| p == Path::new("-")) {
            bail!("error: attempted to read patterns from stdin while also searching stdin");
        }
        let one = paths.len() == 1 && (paths[0] == Path::new("-") || !paths[0].is_dir());
        return Ok((paths, false, one));
    }
    if !grep_cli::is_readable_stdin() || stdin_consumed || cli.files {
        Ok((vec![PathBuf::from("./")], true, false))
    } else {
        Ok((vec![PathBuf::from("-")], true, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal patterns keep the first one's origin; names follow the source.
    #[test]
    fn origins_are_named_after_dedup() {
        let mut o = PatternOrigins {
            files: vec!["rules.txt".into(), "<stdin>".into()],
            ..PatternOrigins::default()
        };
        let mut p: Vec<String> = ["a", "b", "a", "c", "b"].map(String::from).into();
        for (source, i) in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 4)] {
            o.push(source, i);
        }
        dedup(&mut p, &mut o.each);
        assert_eq!(p, ["a", "b", "c"]);
        let names: Vec<String> = (0..4).map(|i| o.name(i)).collect();
        assert_eq!(names, ["-e 1", "-e 2", "rules.txt:2", "pattern"]);
        assert_eq!(PatternOrigins::default().name(0), "pattern");
    }
}
