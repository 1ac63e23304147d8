//! The command line, declared once with clap. Help, the man page and the
//! shell completions are all generated from this definition.
//!
//! Flags keep ripgrep's spelling and meaning. Where ripgrep lets the last of
//! several conflicting flags win (`-n`/`-N`, `-i`/`-s`/`-S`, `-c`/`-l`...),
//! the flags are declared to override each other so clap does the same.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgAction, Parser, ValueEnum};

/// Which engine runs the matcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// A GPU or accelerator when the work is big enough, else the CPU (the
    /// default); given, also ripgrep's `--engine auto`: PCRE2 for patterns
    /// the default engine cannot compile.
    Auto,
    /// Always the CPU engine.
    Cpu,
    /// Always an OpenCL device (a CPU-type device only when no other exists).
    Opencl,
    /// ripgrep's name for its default regex engine: gsearch's `auto`.
    Default,
    /// The PCRE2 engine (as `-P`): look-around and backreferences, on the
    /// CPU.
    Pcre2,
}

/// `--no-unicode`, `--unicode` and ripgrep's deprecated PCRE2 spellings of
/// them: the last one given wins.
const UNICODE_FLAGS: [&str; 4] = ["no_unicode", "unicode", "no_pcre2_unicode", "pcre2_unicode"];

/// When to use colors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Never,
    Auto,
    Always,
    Ansi,
}

/// How to sort results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// Sort by file path (searches with one thread).
    Path,
    /// Sort by the time each file was last modified.
    Modified,
    /// Sort by the time each file was last accessed.
    Accessed,
    /// Sort by the time each file was created.
    Created,
    /// No sorting (the default; searches in parallel).
    None,
}

/// What `--generate` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GenerateArg {
    Man,
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    CompletePowershell,
}

/// A path value taken as given, empty included (clap's own path parser
/// refuses an empty one; ripgrep reports it when it opens the file).
fn any_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

/// A flag's value that ripgrep refuses while parsing the flag, each time it
/// is given (even where a later flag overrides it), with ripgrep's reason.
#[derive(Debug)]
pub struct BadValue(pub String);

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadValue {}

/// The value as given, once `check` accepts it (a [`BadValue`] otherwise).
fn checked(
    check: fn(&str) -> Result<(), String>,
) -> impl clap::builder::TypedValueParser<Value = String> {
    use clap::builder::TypedValueParser;
    clap::builder::StringValueParser::new()
        .try_map(move |s| check(&s).map(|()| s).map_err(BadValue))
}

/// gsearch searches files for lines matching a pattern, like ripgrep, and
/// runs the matcher on a GPU through OpenCL when the work is big enough.
///
/// gsearch respects .gitignore, .ignore and .rgignore files, skips hidden
/// files and binary files found while walking, and gives ripgrep's output
/// byte for byte for every flag the two share.
#[derive(Debug, Parser)]
#[command(
    name = "gsearch",
    version,
    override_usage = "gsearch [OPTIONS] PATTERN [PATH ...]\n       gsearch [OPTIONS] -e PATTERN ... [PATH ...]\n       gsearch [OPTIONS] -f PATTERNFILE ... [PATH ...]\n       gsearch [OPTIONS] --sorted KEY FILE\n       gsearch [OPTIONS] --type-list | --list-devices | --generate KIND",
    args_override_self = true,
    disable_help_flag = true,
    disable_version_flag = true,
    max_term_width = 100
)]
pub struct Cli {
    /// A regular expression, then the files and directories to search.
    /// With -e or -f, every positional argument is a path.
    #[arg(value_name = "PATTERN / PATH", allow_hyphen_values = false)]
    pub positional: Vec<OsString>,

    // ---- patterns ----
    /// A pattern to search for; may be given many times (any may match).
    #[arg(short = 'e', long = "regexp", value_name = "PATTERN", action = ArgAction::Append, allow_hyphen_values = true, help_heading = "Input")]
    pub regexp: Vec<String>,
    /// Read patterns from a file, one per line ('-' reads standard input).
    #[arg(short = 'f', long = "file", value_name = "PATTERNFILE", action = ArgAction::Append, value_parser = any_path(), help_heading = "Input")]
    pub file: Vec<PathBuf>,

    /// Treat every pattern as a literal string, not a regular expression.
    #[arg(
        short = 'F',
        long,
        overrides_with = "no_fixed_strings",
        help_heading = "Search"
    )]
    pub fixed_strings: bool,
    #[arg(long, overrides_with = "fixed_strings", hide = true)]
    pub no_fixed_strings: bool,
    /// Search case-insensitively (Unicode simple case folding).
    #[arg(short = 'i', long, overrides_with_all = ["case_sensitive", "smart_case"], help_heading = "Search")]
    pub ignore_case: bool,
    /// Search case-insensitively unless a pattern holds an upper-case letter.
    #[arg(short = 'S', long, overrides_with_all = ["case_sensitive", "ignore_case"], help_heading = "Search")]
    pub smart_case: bool,
    /// Search case-sensitively (the default).
    #[arg(short = 's', long, overrides_with_all = ["ignore_case", "smart_case"], help_heading = "Search")]
    pub case_sensitive: bool,
    /// Only show matches surrounded by word boundaries.
    #[arg(
        short = 'w',
        long,
        overrides_with = "line_regexp",
        help_heading = "Search"
    )]
    pub word_regexp: bool,
    /// Only show matches surrounded by line boundaries.
    #[arg(
        short = 'x',
        long,
        overrides_with = "word_regexp",
        help_heading = "Search"
    )]
    pub line_regexp: bool,
    /// Show lines that do not match.
    #[arg(short = 'v', long, help_heading = "Search")]
    pub invert_match: bool,
    /// Stop reading a file after NUM matching lines.
    #[arg(short = 'm', long, value_name = "NUM", help_heading = "Search")]
    pub max_count: Option<u64>,
    /// Search binary files, suppressing their matches (no NUL check quits).
    #[arg(long, overrides_with = "text", help_heading = "Search")]
    pub binary: bool,
    /// Search binary files as if they were text.
    #[arg(short = 'a', long, overrides_with = "binary", help_heading = "Search")]
    pub text: bool,
    /// Search using memory maps when possible.
    #[arg(long, overrides_with = "no_mmap", help_heading = "Search")]
    pub mmap: bool,
    /// Never use memory maps.
    #[arg(long, overrides_with = "mmap", help_heading = "Search")]
    pub no_mmap: bool,
    /// The number of threads to search with (0 picks automatically); N also
    /// bounds the threads that split one big file or fill a device's buffers.
    #[arg(short = 'j', long, value_name = "NUM", help_heading = "Search")]
    pub threads: Option<usize>,

    // ---- output ----
    /// Show line numbers (1-based).
    #[arg(
        short = 'n',
        long,
        overrides_with = "no_line_number",
        help_heading = "Output"
    )]
    pub line_number: bool,
    /// Suppress line numbers.
    #[arg(
        short = 'N',
        long,
        overrides_with = "line_number",
        help_heading = "Output"
    )]
    pub no_line_number: bool,
    /// Print the file path with each matching line.
    #[arg(
        short = 'H',
        long,
        overrides_with = "no_filename",
        help_heading = "Output"
    )]
    pub with_filename: bool,
    /// Never print the file path with matches.
    #[arg(
        short = 'I',
        long,
        overrides_with = "with_filename",
        help_heading = "Output"
    )]
    pub no_filename: bool,
    /// Print the file path above its matches (the default on a terminal).
    #[arg(long, overrides_with = "no_heading", help_heading = "Output")]
    pub heading: bool,
    /// Print the file path on every matching line instead of above them.
    #[arg(long, overrides_with = "heading", help_heading = "Output")]
    pub no_heading: bool,
    /// Print the 0-based byte offset before each output line.
    #[arg(short = 'b', long, help_heading = "Output")]
    pub byte_offset: bool,
    /// Show the 1-based column of the first match (implies -n).
    #[arg(long, overrides_with = "no_column", help_heading = "Output")]
    pub column: bool,
    #[arg(long, overrides_with = "column", hide = true)]
    pub no_column: bool,
    /// Print only the matched parts of a line, each on its own line.
    #[arg(short = 'o', long, help_heading = "Output")]
    pub only_matching: bool,
    /// Replace every match with TEXT in the output (`$1`, `$name` refer to
    /// capture groups).
    #[arg(
        short = 'r',
        long,
        value_name = "TEXT",
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub replace: Option<String>,
    /// Lines of context to show after each match.
    #[arg(short = 'A', long, value_name = "NUM", help_heading = "Output")]
    pub after_context: Option<usize>,
    /// Lines of context to show before each match.
    #[arg(short = 'B', long, value_name = "NUM", help_heading = "Output")]
    pub before_context: Option<usize>,
    /// Lines of context to show before and after each match.
    #[arg(short = 'C', long, value_name = "NUM", help_heading = "Output")]
    pub context: Option<usize>,
    /// The string between non-adjacent groups of context lines.
    #[arg(
        long,
        value_name = "SEPARATOR",
        overrides_with = "no_context_separator",
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub context_separator: Option<String>,
    /// Print nothing between non-adjacent groups of context lines.
    #[arg(long, overrides_with = "context_separator", help_heading = "Output")]
    pub no_context_separator: bool,
    /// When to use colors.
    #[arg(long, value_name = "WHEN", value_enum, help_heading = "Output")]
    pub color: Option<ColorArg>,
    /// Follow file paths with a NUL byte instead of ':' or a newline.
    #[arg(short = '0', long, help_heading = "Output")]
    pub null: bool,
    /// Print one line per match as path:line:column:text.
    #[arg(long, help_heading = "Output")]
    pub vimgrep: bool,
    /// Print results as JSON Lines (ripgrep's messages).
    #[arg(long, overrides_with_all = ["count", "count_matches", "files_with_matches", "files_without_match"], help_heading = "Output modes")]
    pub json: bool,
    /// Print the number of matching lines per file.
    #[arg(short = 'c', long, overrides_with_all = ["json", "count_matches", "files_with_matches", "files_without_match"], help_heading = "Output modes")]
    pub count: bool,
    /// Print the number of matches per file.
    #[arg(long, overrides_with_all = ["json", "count", "files_with_matches", "files_without_match"], help_heading = "Output modes")]
    pub count_matches: bool,
    /// With -c or --count-matches, also print files with zero matches.
    #[arg(long, help_heading = "Output modes")]
    pub include_zero: bool,
    /// Print only the paths of files with at least one match.
    #[arg(short = 'l', long, overrides_with_all = ["json", "count", "count_matches", "files_without_match"], help_heading = "Output modes")]
    pub files_with_matches: bool,
    /// Print only the paths of files without a match.
    #[arg(long, overrides_with_all = ["json", "count", "count_matches", "files_with_matches"], help_heading = "Output modes")]
    pub files_without_match: bool,
    /// Print nothing; exit 0 at the first match.
    #[arg(short = 'q', long, help_heading = "Output modes")]
    pub quiet: bool,
    /// Print statistics (and which engine and device ran) at the end.
    #[arg(long, help_heading = "Output")]
    pub stats: bool,
    /// Sort results (path) or not (none).
    #[arg(long, value_name = "SORTBY", value_enum, help_heading = "Output")]
    pub sort: Option<SortArg>,

    // ---- input / walking ----
    /// Search hidden files and directories.
    #[arg(
        short = '.',
        long,
        overrides_with = "no_hidden",
        help_heading = "Filter"
    )]
    pub hidden: bool,
    #[arg(long, overrides_with = "hidden", hide = true)]
    pub no_hidden: bool,
    /// Do not respect .gitignore, .ignore or .rgignore files.
    #[arg(long, help_heading = "Filter")]
    pub no_ignore: bool,
    /// Include (or with '!', exclude) files and directories matching GLOB.
    #[arg(short = 'g', long = "glob", value_name = "GLOB", action = ArgAction::Append, allow_hyphen_values = true, help_heading = "Filter")]
    pub glob: Vec<String>,
    /// Respect .gitignore files even outside a git repository.
    #[arg(long, help_heading = "Filter")]
    pub no_require_git: bool,
    /// Only search files of type TYPE (see --type-list).
    #[arg(short = 't', long = "type", value_name = "TYPE", action = ArgAction::Append, help_heading = "Filter")]
    pub type_: Vec<String>,
    /// Do not search files of type TYPE.
    #[arg(short = 'T', long = "type-not", value_name = "TYPE", action = ArgAction::Append, help_heading = "Filter")]
    pub type_not: Vec<String>,
    /// Print each file that would be searched, without searching.
    #[arg(long, help_heading = "Other behaviors")]
    pub files: bool,
    /// Print every known file type and its globs, then exit.
    #[arg(long, help_heading = "Other behaviors")]
    pub type_list: bool,
    /// Follow symbolic links.
    #[arg(
        short = 'L',
        long,
        overrides_with = "no_follow",
        help_heading = "Filter"
    )]
    pub follow: bool,
    #[arg(long, overrides_with = "follow", hide = true)]
    pub no_follow: bool,
    /// Descend at most NUM directories below the paths given.
    #[arg(
        short = 'd',
        long,
        visible_alias = "maxdepth",
        value_name = "NUM",
        help_heading = "Filter"
    )]
    pub max_depth: Option<usize>,
    /// Search more: -u ignores ignore files, -uu also hidden files, -uuu
    /// also binary files.
    // One `true` per `-u`, so that each keeps its place on the command
    // line (see `cli::order::Filters`).
    #[arg(short = 'u', long = "unrestricted", action = ArgAction::Append, num_args = 0, default_missing_value = "true", help_heading = "Filter")]
    pub unrestricted: Vec<bool>,

    // ---- engines and devices ----
    /// Which engine runs the matcher.
    #[arg(
        long,
        value_enum,
        env = "GSEARCH_ENGINE",
        value_name = "ENGINE",
        help_heading = "Engine"
    )]
    pub engine: Option<EngineArg>,
    /// The OpenCL devices to use, comma-separated: indexes from --list-devices,
    /// parts of names (each the first such device not already listed), or
    /// all. Default: every GPU and accelerator; each takes batches from one
    /// queue. On NVIDIA only the GPUs a search can use are started (see
    /// CUDA_VISIBLE_DEVICES).
    #[arg(
        long,
        env = "GSEARCH_OPENCL_DEVICE",
        value_name = "N|NAME|all,...",
        help_heading = "Engine"
    )]
    pub opencl_device: Option<String>,
    /// List every OpenCL platform and device, marking the ones auto would use
    /// (and renew auto's memo of a machine without a GPU).
    #[arg(long, help_heading = "Engine")]
    pub list_devices: bool,
    /// Search again with the CPU engine and report any difference (exit 2).
    #[arg(long, help_heading = "Engine")]
    pub verify: bool,
    /// Look up lines starting with the keys in a bytewise-sorted file
    /// (like look(1), many keys at once).
    #[arg(long, help_heading = "Search")]
    pub sorted: bool,

    /// Print the man page or a shell completion script, then exit.
    #[arg(
        long,
        value_enum,
        value_name = "KIND",
        help_heading = "Other behaviors"
    )]
    pub generate: Option<GenerateArg>,

    // ---- input: multiline, encodings, compressed files, preprocessors ----
    /// Let matches span lines (a pattern may match line terminators).
    #[arg(
        short = 'U',
        long,
        overrides_with_all = ["no_multiline", "stop_on_nonmatch"],
        help_heading = "Search"
    )]
    pub multiline: bool,
    /// Matches never span lines (the default).
    #[arg(long, overrides_with = "multiline", help_heading = "Search")]
    pub no_multiline: bool,
    /// With -U, '.' matches line terminators too.
    #[arg(long, overrides_with = "no_multiline_dotall", help_heading = "Search")]
    pub multiline_dotall: bool,
    #[arg(long, overrides_with = "multiline_dotall", hide = true)]
    pub no_multiline_dotall: bool,
    /// The text encoding of files searched: auto (BOM sniffing, the
    /// default), none (raw bytes) or any WHATWG label (utf-16le, sjis...).
    #[arg(
        short = 'E',
        long,
        value_name = "ENCODING",
        value_parser = checked(crate::cli::input::check_encoding),
        overrides_with = "no_encoding",
        help_heading = "Search"
    )]
    pub encoding: Option<String>,
    #[arg(long, overrides_with = "encoding", hide = true)]
    pub no_encoding: bool,
    /// Search compressed files (gzip, bzip2, xz, lzma, lz4, zstd, brotli,
    /// .Z) through their decompressors found on PATH.
    #[arg(short = 'z', long, overrides_with_all = ["no_search_zip", "pre"], help_heading = "Search")]
    pub search_zip: bool,
    #[arg(long, overrides_with = "search_zip", hide = true)]
    pub no_search_zip: bool,
    /// Search the output of COMMAND run with each file's path as its
    /// argument (and the file as its standard input).
    #[arg(long, value_name = "COMMAND", overrides_with_all = ["no_pre", "search_zip"], help_heading = "Search")]
    pub pre: Option<OsString>,
    /// Run no preprocessor.
    #[arg(long, overrides_with = "pre", help_heading = "Search")]
    pub no_pre: bool,
    /// Only files matching GLOB go through --pre (may be given many times).
    #[arg(long, value_name = "GLOB", action = ArgAction::Append, allow_hyphen_values = true, help_heading = "Search")]
    pub pre_glob: Vec<String>,
    // ---- flags-walk: the config file, ripgrep's negations, walking and
    // filtering, logging ----
    /// Never read the configuration file named by GSEARCH_CONFIG_PATH (or
    /// RIPGREP_CONFIG_PATH).
    #[arg(long, help_heading = "Other behaviors")]
    pub no_config: bool,
    /// Print debug messages (why files are skipped...) on stderr.
    #[arg(long, overrides_with = "trace", help_heading = "Logging")]
    pub debug: bool,
    /// Print even more debug messages than --debug on stderr.
    #[arg(long, overrides_with = "debug", help_heading = "Logging")]
    pub trace: bool,
    /// Sort results in descending order (path, modified, accessed, created
    /// or none).
    #[arg(long, value_name = "SORTBY", value_enum, overrides_with_all = ["sort", "sort_files", "no_sort_files"], help_heading = "Output")]
    pub sortr: Option<SortArg>,
    /// Sort by path (deprecated: use --sort path).
    #[arg(long, hide = true, overrides_with_all = ["sort", "sortr", "no_sort_files"])]
    pub sort_files: bool,
    #[arg(long, hide = true, overrides_with_all = ["sort", "sortr", "sort_files"])]
    pub no_sort_files: bool,
    /// Add a file type definition, as NAME:GLOB or NAME:include:OTHER,...
    #[arg(long, value_name = "TYPESPEC", action = ArgAction::Append, help_heading = "Filter")]
    pub type_add: Vec<String>,
    /// Clear the globs of file type TYPE (before adding any).
    #[arg(long, value_name = "TYPE", action = ArgAction::Append, help_heading = "Filter")]
    pub type_clear: Vec<String>,
    /// Like -g, but the glob matches case-insensitively.
    #[arg(long, value_name = "GLOB", action = ArgAction::Append, allow_hyphen_values = true, help_heading = "Filter")]
    pub iglob: Vec<String>,
    /// Match every -g glob case-insensitively.
    #[arg(
        long,
        overrides_with = "no_glob_case_insensitive",
        help_heading = "Filter"
    )]
    pub glob_case_insensitive: bool,
    #[arg(long, overrides_with = "glob_case_insensitive", hide = true)]
    pub no_glob_case_insensitive: bool,
    /// Skip files larger than NUM bytes (suffixes K, M and G allowed).
    #[arg(
        long,
        value_name = "NUM+SUFFIX?",
        value_parser = checked(crate::cli::output_opts::check_size),
        help_heading = "Filter"
    )]
    pub max_filesize: Option<String>,
    /// Do not cross file system boundaries from each path given.
    #[arg(long, overrides_with = "no_one_file_system", help_heading = "Filter")]
    pub one_file_system: bool,
    #[arg(long, overrides_with = "one_file_system", hide = true)]
    pub no_one_file_system: bool,
    /// Read ignore rules (gitignore syntax) from PATH too; may be repeated.
    #[arg(long, value_name = "PATH", action = ArgAction::Append, value_parser = any_path(), help_heading = "Filter")]
    pub ignore_file: Vec<PathBuf>,
    /// Match the rules of ignore files case-insensitively.
    #[arg(
        long,
        overrides_with = "no_ignore_file_case_insensitive",
        help_heading = "Filter"
    )]
    pub ignore_file_case_insensitive: bool,
    #[arg(long, overrides_with = "ignore_file_case_insensitive", hide = true)]
    pub no_ignore_file_case_insensitive: bool,
    /// Do not respect .ignore and .rgignore files.
    #[arg(long, overrides_with = "ignore_dot", help_heading = "Filter")]
    pub no_ignore_dot: bool,
    #[arg(long, overrides_with = "no_ignore_dot", hide = true)]
    pub ignore_dot: bool,
    /// Do not respect .git/info/exclude.
    #[arg(long, overrides_with = "ignore_exclude", help_heading = "Filter")]
    pub no_ignore_exclude: bool,
    #[arg(long, overrides_with = "no_ignore_exclude", hide = true)]
    pub ignore_exclude: bool,
    /// Ignore every --ignore-file (even after --no-ignore).
    #[arg(long, overrides_with = "ignore_files", help_heading = "Filter")]
    pub no_ignore_files: bool,
    #[arg(long, overrides_with = "no_ignore_files", hide = true)]
    pub ignore_files: bool,
    /// Do not respect git's global ignore file (core.excludesFile).
    #[arg(long, overrides_with = "ignore_global", help_heading = "Filter")]
    pub no_ignore_global: bool,
    #[arg(long, overrides_with = "no_ignore_global", hide = true)]
    pub ignore_global: bool,
    /// Do not respect ignore files in the parent directories.
    #[arg(long, overrides_with = "ignore_parent", help_heading = "Filter")]
    pub no_ignore_parent: bool,
    #[arg(long, overrides_with = "no_ignore_parent", hide = true)]
    pub ignore_parent: bool,
    /// Do not respect git's ignore files (.gitignore, exclude, global).
    #[arg(long, overrides_with = "ignore_vcs", help_heading = "Filter")]
    pub no_ignore_vcs: bool,
    #[arg(long, overrides_with = "no_ignore_vcs", hide = true)]
    pub ignore_vcs: bool,
    #[arg(long = "ignore", overrides_with = "no_ignore", hide = true)]
    pub ignore_on: bool,
    #[arg(long, overrides_with = "no_require_git", hide = true)]
    pub require_git: bool,
    #[arg(long, overrides_with_all = ["binary", "text", "no_text"], hide = true)]
    pub no_binary: bool,
    #[arg(long, overrides_with_all = ["binary", "text", "no_binary"], hide = true)]
    pub no_text: bool,
    // ---- flags-output group: line handling, output and regex options ----
    /// Treat CRLF as a line terminator ('$' matches before '\r\n').
    #[arg(long, overrides_with_all = ["no_crlf", "null_data"], help_heading = "Search")]
    pub crlf: bool,
    #[arg(long, overrides_with = "crlf", hide = true)]
    pub no_crlf: bool,
    /// Use NUL as the line terminator (and search binary data as text).
    #[arg(long, overrides_with = "crlf", help_heading = "Search")]
    pub null_data: bool,
    /// Print every line, matching or not (context that never ends).
    #[arg(long, visible_alias = "passthrough", overrides_with_all = ["after_context", "before_context", "context"], help_heading = "Output")]
    pub passthru: bool,
    /// Trim leading ASCII whitespace from every printed line.
    #[arg(long, overrides_with = "no_trim", help_heading = "Output")]
    pub trim: bool,
    #[arg(long, overrides_with = "trim", hide = true)]
    pub no_trim: bool,
    /// Omit lines longer than NUM bytes (0: no limit).
    #[arg(
        short = 'M',
        long,
        value_name = "NUM",
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub max_columns: Option<String>,
    /// With -M, print a preview of long lines instead of omitting them.
    #[arg(
        long,
        overrides_with = "no_max_columns_preview",
        help_heading = "Output"
    )]
    pub max_columns_preview: bool,
    #[arg(long, overrides_with = "max_columns_preview", hide = true)]
    pub no_max_columns_preview: bool,
    /// Stop reading a file at the first non-matching line after a match
    /// (overrides -U, as -U overrides it).
    #[arg(long, overrides_with = "multiline", help_heading = "Search")]
    pub stop_on_nonmatch: bool,
    /// Color settings, `{type}:{attribute}:{value}` (`{type}:none` clears).
    #[arg(
        long,
        value_name = "COLOR_SPEC",
        action = ArgAction::Append,
        value_parser = checked(crate::cli::output_opts::check_color_spec),
        help_heading = "Output"
    )]
    pub colors: Vec<String>,
    /// The string between the fields of a context line (default '-').
    #[arg(
        long,
        value_name = "SEPARATOR",
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub field_context_separator: Option<String>,
    /// The string between the fields of a matching line (default ':').
    #[arg(
        long,
        value_name = "SEPARATOR",
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub field_match_separator: Option<String>,
    /// The path separator to print (one byte).
    #[arg(
        long,
        value_name = "SEPARATOR",
        value_parser = checked(crate::cli::output_opts::check_path_separator),
        allow_hyphen_values = true,
        help_heading = "Output"
    )]
    pub path_separator: Option<String>,
    /// Print paths as hyperlinks of this format (or an alias: default, file,
    /// vscode...).
    #[arg(
        long,
        value_name = "FORMAT",
        value_parser = checked(crate::cli::output_opts::check_hyperlink_format),
        help_heading = "Output"
    )]
    pub hyperlink_format: Option<String>,
    /// A program that prints the host name for hyperlinks' `{host}`.
    #[arg(long, value_name = "COMMAND", value_parser = any_path(), help_heading = "Output")]
    pub hostname_bin: Option<PathBuf>,
    /// Flush output after every line.
    #[arg(long, overrides_with_all = ["no_line_buffered", "block_buffered"], help_heading = "Output")]
    pub line_buffered: bool,
    #[arg(long, overrides_with = "line_buffered", hide = true)]
    pub no_line_buffered: bool,
    /// Flush output only when a buffer fills.
    #[arg(long, overrides_with_all = ["no_block_buffered", "line_buffered"], help_heading = "Output")]
    pub block_buffered: bool,
    #[arg(long, overrides_with = "block_buffered", hide = true)]
    pub no_block_buffered: bool,
    /// Alias of --color always --heading --line-number.
    #[arg(short = 'p', long, help_heading = "Output")]
    pub pretty: bool,
    /// Suppress error messages (the exit status is unchanged).
    #[arg(long, overrides_with = "messages", help_heading = "Logging")]
    pub no_messages: bool,
    #[arg(long, overrides_with = "no_messages", hide = true)]
    pub messages: bool,
    /// Suppress messages about ignore files that cannot be parsed.
    #[arg(long, overrides_with = "ignore_messages", help_heading = "Logging")]
    pub no_ignore_messages: bool,
    #[arg(long, overrides_with = "no_ignore_messages", hide = true)]
    pub ignore_messages: bool,
    /// The size limit of a compiled regex (NUM with K, M or G).
    #[arg(
        long,
        value_name = "NUM+SUFFIX?",
        value_parser = checked(crate::cli::output_opts::check_size),
        allow_hyphen_values = true,
        help_heading = "Search"
    )]
    pub regex_size_limit: Option<String>,
    /// The size limit of the regex DFA cache (NUM with K, M or G).
    #[arg(
        long,
        value_name = "NUM+SUFFIX?",
        value_parser = checked(crate::cli::output_opts::check_size),
        allow_hyphen_values = true,
        help_heading = "Search"
    )]
    pub dfa_size_limit: Option<String>,
    /// Disable Unicode mode of every pattern.
    #[arg(long, overrides_with_all = UNICODE_FLAGS, help_heading = "Search")]
    pub no_unicode: bool,
    #[arg(long, overrides_with_all = UNICODE_FLAGS, hide = true)]
    pub unicode: bool,
    /// Use PCRE2 for patterns the default engine cannot compile (as
    /// ripgrep's `--engine auto`).
    #[arg(long, overrides_with_all = ["no_auto_hybrid_regex", "pcre2", "no_pcre2"], help_heading = "Engine")]
    pub auto_hybrid_regex: bool,
    #[arg(long, overrides_with_all = ["auto_hybrid_regex", "pcre2", "no_pcre2"], hide = true)]
    pub no_auto_hybrid_regex: bool,
    /// Search with PCRE2: look-around, backreferences and the rest of
    /// Perl's syntax. PCRE2 runs on the CPU only.
    #[arg(short = 'P', long, overrides_with_all = ["no_pcre2", "auto_hybrid_regex", "no_auto_hybrid_regex"], help_heading = "Engine")]
    pub pcre2: bool,
    #[arg(long, overrides_with_all = ["pcre2", "auto_hybrid_regex", "no_auto_hybrid_regex"], hide = true)]
    pub no_pcre2: bool,
    // The negations of output flags (the last one given wins).
    #[arg(long, overrides_with = "byte_offset", hide = true)]
    pub no_byte_offset: bool,
    #[arg(long, overrides_with = "include_zero", hide = true)]
    pub no_include_zero: bool,
    #[arg(long, overrides_with = "invert_match", hide = true)]
    pub no_invert_match: bool,
    #[arg(long, overrides_with = "json", hide = true)]
    pub no_json: bool,
    #[arg(long, overrides_with = "stats", hide = true)]
    pub no_stats: bool,
    /// The order-sensitive flags, in command-line order (filled from the
    /// matches by `cli::parse`).
    #[arg(skip)]
    pub walk_order: crate::cli::order::WalkOrder,
    /// Print the version of PCRE2 (the `-P` engine) and whether its JIT
    /// compiler is available.
    #[arg(long, help_heading = "Other behaviors")]
    pub pcre2_version: bool,
    /// Print help (-h a summary, --help in full).
    #[arg(short = 'h', long, help_heading = "Other behaviors")]
    pub help: bool,
    /// Print the version (-V the number, --version also the build's
    /// features and the OpenCL devices gsearch sees).
    #[arg(short = 'V', long, help_heading = "Other behaviors")]
    pub version: bool,
    /// ripgrep's deprecated spelling of `--no-unicode` (for every engine).
    #[arg(long, overrides_with_all = UNICODE_FLAGS, hide = true)]
    pub no_pcre2_unicode: bool,
    #[arg(long, overrides_with_all = UNICODE_FLAGS, hide = true)]
    pub pcre2_unicode: bool,
}
