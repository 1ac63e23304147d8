//! `--generate`: the man page and shell completions, from the clap
//! definition in `cli/args.rs` (the committed copies in `man/` and
//! `completions/` are checked against this output by a test).
//!
//! The man page's ENVIRONMENT and EXIT STATUS sections are written here and
//! nowhere else in the code: [`ENVIRONMENT`] and [`EXIT_STATUS`]. The table
//! "Environment variables" in ARCHITECTURE.md repeats the names with the
//! module that reads each one; change both together.

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{Roff, bold, italic, roman};

use crate::cli::{Cli, GenerateArg};

/// Who sets an environment variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// Anyone running gsearch.
    User,
    /// Someone measuring gsearch: changes speed, never output.
    Tuning,
    /// The test suite: reaches code paths small inputs would not.
    Tests,
    /// Read by the test harness or the benchmark programs and scripts, not
    /// by the `gsearch` binary.
    Harness,
}

/// One environment variable of the man page.
pub struct EnvVar {
    pub name: &'static str,
    pub audience: Audience,
    /// What setting it does.
    pub text: &'static str,
    /// What happens when it is unset.
    pub default: &'static str,
}

const fn var(
    name: &'static str,
    audience: Audience,
    text: &'static str,
    default: &'static str,
) -> EnvVar {
    EnvVar {
        name,
        audience,
        text,
        default,
    }
}

use Audience::{Harness, Tests, Tuning, User};

/// Every environment variable gsearch, its tests and its benchmarks read.
pub const ENVIRONMENT: &[EnvVar] = &[
    var(
        "GSEARCH_CONFIG_PATH",
        User,
        "A file of arguments, one per line (blank lines and lines starting with # skipped), \
         put before the command line's; --no-config skips it. A file that cannot be read is \
         reported and the search goes on.",
        "no file",
    ),
    var(
        "RIPGREP_CONFIG_PATH",
        User,
        "Read as GSEARCH_CONFIG_PATH when that is unset, so a ripgrep user's configuration \
         carries over.",
        "no file",
    ),
    var(
        "GSEARCH_ENGINE",
        User,
        "The engine when --engine is not given: auto, cpu or opencl (see --engine).",
        "auto",
    ),
    var(
        "GSEARCH_OPENCL_DEVICE",
        User,
        "The OpenCL devices when --opencl-device is not given, comma-separated: an index as \
         --list-devices prints it, or part of a platform or device name (case does not \
         matter; each entry takes the first such device not already listed), all (every \
         device); auto and any are also accepted. Every device listed takes batches from \
         one queue.",
        "every GPU and accelerator; with --engine opencl, device 0 when there is none",
    ),
    var(
        "GSEARCH_TRACE",
        User,
        "Any value but empty or 0 prints one line on standard error per start-up milestone \
         (flags read, OpenCL loaded, context, programs, staging memory) and per pipeline \
         stage of each device stream, with the time since start.",
        "off",
    ),
    var(
        "CUDA_VISIBLE_DEVICES",
        User,
        "NVIDIA's: the GPUs its driver starts, which gsearch leaves as set. Unset, gsearch \
         sets it before loading the driver to the first GPUs, as many as the search can use: \
         those --opencl-device lists when every entry is nvidia, one for --sorted, and by \
         default (every GPU) on files one up to 8.4 GB and two above. The driver starts \
         each GPU it sees before any can work, about 0.2 s each.",
        "set by gsearch as said; left unset for trees, device indexes and --engine cpu",
    ),
    var(
        "XDG_CACHE_HOME",
        User,
        "Compiled OpenCL programs are kept in $XDG_CACHE_HOME/gsearch, one file per device, \
         driver, kernel and build options, so only a machine's first run compiles them, \
         and the memo of a listing that found no GPU or accelerator, which spares auto \
         the drivers' start for a day. A relative path is ignored; a directory that \
         cannot be written only means nothing is kept.",
        "$HOME/.cache/gsearch; no cache when HOME is not an absolute path either",
    ),
    var(
        "NO_COLOR",
        User,
        "With --color auto (the default) on a terminal, any value turns colors off. \
         --color always and --color ansi ignore it.",
        "colors on a terminal",
    ),
    var(
        "TERM",
        User,
        "With --color auto on a terminal, colors are used only when TERM is set and is not \
         dumb.",
        "unset, which means no colors with --color auto",
    ),
    var(
        "GSEARCH_BATCH_BYTES",
        Tests,
        "Bytes of one staging batch of the device engine (files are packed into batches; \
         bigger files are cut into chunks of this size). Tests set a few bytes so that \
         matches and lines cross batch and chunk boundaries. Lowered to what the device \
         can allocate.",
        "33554432 (32 MiB), or 4 MiB for each fill thread where that is more (64 MiB with \
         16 fill threads)",
    ),
    var(
        "GSEARCH_SLOTS",
        Tuning,
        "Number of pinned staging buffers the device pipeline rotates through; three or \
         more keep two batches in flight while one is being filled.",
        "3",
    ),
    var(
        "GSEARCH_FILL_THREADS",
        Tuning,
        "Threads that copy a big file into staging buffers.",
        "the number of cores up to 8; beyond 16 cores, half of them, at most 16",
    ),
    var(
        "GSEARCH_KERNEL",
        Tests,
        "Forces the device kernel: naive, 3phase, char16 or many, when that kernel can \
         take the pattern set.",
        "chosen from the number and lengths of the patterns",
    ),
    var(
        "GSEARCH_KERNEL_OPTS",
        Tuning,
        "Extra OpenCL build options appended when the search kernel is compiled (kernel \
         variants).",
        "none",
    ),
    var(
        "GSEARCH_CHAR16_FILTER",
        Tests,
        "Forces the first-stage filter of the char16 kernel: direct, bitmap, nibble or \
         nibble2.",
        "nibble2 for up to 4 keys on NVIDIA, else direct compares while few, else the bitmap",
    ),
    var(
        "GSEARCH_CHAR16_PRMT",
        Tests,
        "1 builds the char16 kernel with NVIDIA inline PTX on any device (the build falls \
         back to the portable filters where it fails); 0 never uses it.",
        "used on NVIDIA platforms only",
    ),
    var(
        "GSEARCH_MANY_CLASSES",
        Tuning,
        "At most this many (1 to 6) hashed prefix-length classes in the many-literal kernel.",
        "chosen from the pattern lengths",
    ),
    var(
        "GSEARCH_MANY_GROUPS_PER_CU",
        Tuning,
        "Work-groups per compute unit for the many-literal kernel.",
        "32",
    ),
    var(
        "GSEARCH_MANY_STAGE2",
        Tuning,
        "batched tests the second filter for 16 positions at once; any other value tests \
         one candidate at a time.",
        "batched when the first filter is crowded",
    ),
    var(
        "GSEARCH_AUTO_MIN_BYTES",
        Tests,
        "Input size in bytes from which --engine auto considers a device: 1 GiB, or for a \
         rule set on one file (which its cost model weighs) 64 MiB per core for each 200 \
         rules, from 128 MiB for 200 rules on 2 cores; this value sets both.",
        "1073741824 (1 GiB); 64 MiB per core and 200 rules for a rule set on one file",
    ),
    var(
        "GSEARCH_HYBRID_CHUNK",
        Tests,
        "Bytes per chunk of the queue that CPU threads and the device share when auto \
         searches one big file with both (the first is GSEARCH_HYBRID_FIRST).",
        "33554432 (32 MiB)",
    ),
    var(
        "GSEARCH_HYBRID_FIRST",
        Tests,
        "Bytes of that queue's first chunk (the next ones double up to the chunk size), \
         which a CPU thread searches while a regex's device starts, so the first lines need \
         not wait for it; 0 makes it as big as the others.",
        "262144 (256 KiB)",
    ),
    var(
        "GSEARCH_SEGMENT",
        Tests,
        "Largest segment in bytes when every core searches one big file (segments start \
         at 8 KiB and double up to it); -n output waits in memory for at most \
         32 segments (2 x cores + 2 on more than 15 cores).",
        "262144 (256 KiB; a rule set's 4 MiB)",
    ),
    var(
        "GSEARCH_BIGFILE_MIN_BYTES",
        Tests,
        "File size in bytes from which one file is searched by every core.",
        "33554432 (32 MiB; 4 MiB for a rule set or PCRE2)",
    ),
    var(
        "GSEARCH_DEVICE_STARTUP_MS",
        Tests,
        "The device start-up in milliseconds that auto's cost model assumes on one big \
         file: the device starts only when the CPU's pace, timed on the file's first MiB, \
         leaves more than twice this to do. Tests set 0 to start it at once.",
        "400",
    ),
    var(
        "GSEARCH_DFA_SEG",
        Tuning,
        "Bytes of text per work-item of the DFA kernel (regexes on the device).",
        "128",
    ),
    var(
        "GSEARCH_DFA_SPAN",
        Tests,
        "Bytes the DFA kernel walks past a work-item's segment to finish a line; a line \
         still undecided there is a candidate the CPU decides.",
        "1024",
    ),
    var(
        "GSEARCH_DFA_LOCAL_BYTES",
        Tests,
        "Local memory in bytes the DFA tables of one group may use; 0 puts every table in \
         global memory.",
        "the device's local memory, at most 64 KiB",
    ),
    var(
        "GSEARCH_DFA_GROUP_BYTES",
        Tuning,
        "Bytes one DFA group's table may take; past the local memory the group lives in \
         global memory (fewer, bigger groups, slower to build).",
        "the local memory's size",
    ),
    var(
        "GSEARCH_DFA_THREADS",
        Tuning,
        "Threads that build the DFA tables of a regex search on the device.",
        "every core",
    ),
    var(
        "GSEARCH_DFA_NEAR",
        Tuning,
        "Near groups: patterns with literal factors run on the device only on the lines \
         holding a factor. 0 never, 1 whenever some pattern has factors.",
        "when they fill two DFA groups or more",
    ),
    var(
        "GSEARCH_HYBRID_READ",
        Tuning,
        "pread makes those CPU threads read their chunks into a small buffer instead of \
         through the file's memory map.",
        "the memory map",
    ),
    var(
        "GSEARCH_READAHEAD_MIB",
        Tuning,
        "On a big file that is not in the page cache, how many MiB past the searching \
         threads the kernel is asked to read ahead; 0 turns read-ahead off (the file is \
         then read by page faults, one part per core).",
        "128",
    ),
    var(
        "GSEARCH_SORTED_METHOD",
        Tests,
        "Forces the device lookup of --sorted: binary, eytzinger, blocked, blocked-fused, \
         nary-host, nary-local or nary-enqueue (the nary ones take :N, segments per pass), \
         when the device supports it.",
        "blocked for sorted keys when the device runs it, else binary",
    ),
    var(
        "GSEARCH_SORTED_KPT",
        Tuning,
        "Keys per work-item (1 to 16) of the blocked --sorted lookup.",
        "4",
    ),
    var(
        "GSEARCH_SORTED_BLOCK",
        Tuning,
        "Bytes of file between two samples of the index --sorted builds on the device path.",
        "the file size divided by four samples per key, at least 65536 samples",
    ),
    var(
        "GSEARCH_FAULT",
        Tests,
        "Makes the device engine fail on purpose: build, alloc, enqueue, lost or slowstart, \
         optionally @N for the N-th batch (from 0) and :D for only the D-th device listed \
         (from 0). Tests use it to show that no match is \
         lost and one warning is printed. Never set it otherwise.",
        "no fault",
    ),
    var(
        "GSEARCH_REQUIRE_OPENCL",
        Harness,
        "1 makes the tests fail instead of skipping their device half when no OpenCL device \
         is found (CI sets it).",
        "skip",
    ),
    var(
        "GSEARCH_REQUIRE_DEVICE_ENQUEUE",
        Harness,
        "1 makes the --sorted tests fail when no device supports device-side enqueue.",
        "skip",
    ),
    var(
        "GSEARCH_TEST_BIN",
        Harness,
        "The binary the command-line tests run, e.g. ripgrep to check the expected output.",
        "this build of gsearch",
    ),
    var(
        "GSEARCH_TEST_RG",
        Harness,
        "A ripgrep binary the big-file command-line tests also run, to compare its output \
         with gsearch's.",
        "no comparison",
    ),
    var(
        "GSEARCH_DIFF_CASES",
        Harness,
        "Cases of the long differential test (cargo test --test reliability -- --ignored).",
        "3000",
    ),
    var(
        "GSEARCH_DIFF_SEED",
        Harness,
        "Random seed of the long differential test.",
        "a fixed seed",
    ),
    var(
        "GSEARCH_BENCH_SIZE",
        Harness,
        "Text size of gsearch-bench-kernels, gsearch-bench-many and gsearch-bench-dfa \
         (1G, 64M, 512K or bytes; --size).",
        "1G; 256M for gsearch-bench-dfa",
    ),
    var(
        "GSEARCH_BENCH_RUNS",
        Harness,
        "Runs per measurement of gsearch-bench-kernels, gsearch-bench-many, \
         gsearch-bench-dfa and gsearch-bench-sorted (--runs).",
        "5; 10 for gsearch-bench-sorted",
    ),
    var(
        "GSEARCH_BENCH_WG",
        Harness,
        "Work-group size cap of gsearch-bench-kernels, gsearch-bench-many and \
         gsearch-bench-dfa (--wg).",
        "256, lowered to what the device allows",
    ),
    var(
        "GSEARCH_BENCH_ITERS",
        Harness,
        "Start positions per work-item per block in gsearch-bench-kernels.",
        "64",
    ),
    var(
        "GSEARCH_BENCH_N",
        Harness,
        "Elements of the sorted array of gsearch-bench-sorted.",
        "33554431",
    ),
    var(
        "GSEARCH_MANY_OPTS",
        Harness,
        "Extra build options of the many-literal kernel in gsearch-bench-many and its tests \
         (gsearch itself uses GSEARCH_KERNEL_OPTS).",
        "none",
    ),
    var(
        "GSEARCH_COMMIT",
        Harness,
        "The commit scripts/bench and scripts/bench-gpu name in their results.",
        "the checkout's HEAD",
    ),
    var(
        "GSEARCH_ICD_DIR",
        Harness,
        "Where scripts/intel-opencl-env.sh writes its OpenCL vendor directory.",
        "$XDG_CACHE_HOME/gsearch/opencl-vendors",
    ),
    var(
        "GSEARCH_NO_PIP",
        Harness,
        "1 stops scripts/intel-opencl-env.sh from installing missing Python packages.",
        "install them",
    ),
];

/// The EXIT STATUS section: the status, then what it means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "A line matched (or, with --files, a file would be searched), and no error \
         occurred; with -q, a match alone gives 0 even if errors occurred. --help, \
         --version, --type-list, --list-devices and --generate also exit 0.",
    ),
    ("1", "No line matched, and no error occurred."),
    (
        "2",
        "An error occurred (an unreadable file, a bad pattern or flag, a device that \
         --engine opencl could not start, a difference found by --verify) and -q did not \
         see a match. An unreadable file does not stop the search of the others.",
    ),
];

/// What follows the statuses.
pub const EXIT_STATUS_NOTE: &str = "A closed standard output (gsearch ... | head) is not an \
     error: gsearch stops quietly and exits with 0 or 1 as ripgrep would, by whether a file \
     counted as matched before the pipe closed (a file whose output met the closed pipe does \
     not count when one thread searches). A closed standard error ends the run with 0.";

/// The text `--generate KIND` prints.
pub fn generate(kind: GenerateArg) -> anyhow::Result<Vec<u8>> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    match kind {
        GenerateArg::Man => man(cmd, &mut out)?,
        GenerateArg::CompleteBash => complete(Shell::Bash, &mut cmd, &mut out),
        GenerateArg::CompleteZsh => complete(Shell::Zsh, &mut cmd, &mut out),
        GenerateArg::CompleteFish => complete(Shell::Fish, &mut cmd, &mut out),
        GenerateArg::CompletePowershell => complete(Shell::PowerShell, &mut cmd, &mut out),
    }
    Ok(out)
}

fn complete(shell: Shell, cmd: &mut clap::Command, out: &mut Vec<u8>) {
    clap_complete::generate(shell, cmd, "gsearch", out);
}

/// clap_mangen's page with EXIT STATUS and ENVIRONMENT inserted after
/// OPTIONS (before VERSION, where clap_mangen ends).
fn man(cmd: clap::Command, out: &mut Vec<u8>) -> anyhow::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    let page = String::from_utf8(page)?;
    let extra = extra_sections();
    let at = page.find("\n.SH VERSION\n").map_or(page.len(), |i| i + 1);
    out.extend_from_slice(&page.as_bytes()[..at]);
    out.extend_from_slice(extra.as_bytes());
    out.extend_from_slice(&page.as_bytes()[at..]);
    Ok(())
}

/// The two sections as roff, without the preamble the full page already has.
fn extra_sections() -> String {
    let mut r = Roff::new();
    r.control("SH", ["EXIT STATUS"]);
    for (code, text) in EXIT_STATUS {
        r.control("TP", []).text([bold(*code)]).text([roman(*text)]);
    }
    r.control("PP", []).text([roman(EXIT_STATUS_NOTE)]);

    r.control("SH", ["ENVIRONMENT"]);
    r.text([roman(
        "A flag wins over the variable that stands for it. Only the first group is meant \
         for everyday use; the others exist for tests and measurements: they change how \
         gsearch searches, never which lines it reports.",
    )]);
    let groups = [
        (User, "For users"),
        (Tuning, "Tuning (benchmarks)"),
        (Tests, "Tests only (also used for tuning)"),
        (
            Harness,
            "Read by the test suite, benchmark programs and scripts, not by gsearch",
        ),
    ];
    for (audience, title) in groups {
        r.control("SS", [title]);
        for v in ENVIRONMENT.iter().filter(|v| v.audience == audience) {
            r.control("TP", []).text([bold(v.name)]);
            r.text([roman(v.text)]);
            r.text([italic("Default: "), roman(v.default), roman(".")]);
        }
    }
    let full = r.render();
    let preamble = Roff::new().render();
    full.strip_prefix(&preamble).unwrap_or(&full).to_string()
}
