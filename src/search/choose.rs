//! Which engine runs a search. `cpu` and `opencl` are what they say;
//! `auto` takes a GPU or accelerator (never a CPU-type OpenCL device) only
//! when the pattern set suits the device kernels and the input is big
//! enough to repay starting OpenCL (about a third of a second on an H100),
//! and otherwise never touches the OpenCL driver at all.

use anyhow::bail;

use crate::cli::EngineArg;
use crate::cli::config::Config;
use crate::engine::dfa_table::DfaSpec;
use crate::engine::{EngineError, LiteralSet};
use crate::matcher::plan::{Plan, is_case_insensitive, pattern_factors};
use crate::opencl::{DeviceSelector, OpenClEngine};
use crate::search::cost::gpus_worth_starting;
use crate::walk::explicit_bytes;

/// One engine per device, at least one.
pub type Engines = Vec<OpenClEngine>;

/// Input size from which `auto` starts a GPU without weighing it: about
/// what ripgrep searches in the time OpenCL takes to start.
pub const AUTO_MIN_BYTES: u64 = 1 << 30;

/// Input size from which `auto` weighs a device with its cost model
/// (`search::cost`: the CPU's pace timed on the file's first MiB) for a
/// rule set on one file (the hybrid queue, [`hybrid_min_bytes`]), at
/// least: see [`auto_weighed_min_bytes`]. Below it the device cannot pay
/// even for the heaviest sets on few cores. (For lighter work the
/// measurement itself would show: 2,000 words over 105 MB on 2 cores, `|
/// head -1` 17 ms against 9 ms.)
pub const AUTO_WEIGHED_MIN_BYTES: u64 = 64 << 20;

/// [`AUTO_MIN_BYTES`], or `GSEARCH_AUTO_MIN_BYTES` (for tests, which need
/// the `auto` paths on small files).
pub fn auto_min_bytes() -> u64 {
    min_bytes_or(AUTO_MIN_BYTES)
}

/// The size from which `auto` gives one file to the hybrid queue
/// (`search::hybrid`), where the cost model weighs the device: for a rule
/// set (regexes, more than [`AUTO_MAX_DFA_PATTERNS`]) from
/// [`auto_weighed_min_bytes`] (less on fewer cores and for fewer rules),
/// as its search takes long enough for the measurement not to show; other
/// work from [`auto_min_bytes`], below which the CPU wins and the
/// measurement would delay a `| head -1` by milliseconds.
pub fn hybrid_min_bytes(cfg: &Config, literals: Option<&LiteralSet>) -> u64 {
    if literals.is_none() && cfg.patterns.len() > AUTO_MAX_DFA_PATTERNS {
        auto_weighed_min_bytes(crate::sys::cores(), cfg.patterns.len())
    } else {
        auto_min_bytes()
    }
}

/// The size from which `auto` weighs a device for a rule set of `rules`
/// patterns on one file on `cores` cores: 64 MiB per core for each 200
/// rules or part of them, from [`AUTO_WEIGHED_MIN_BYTES`] up to
/// [`AUTO_MIN_BYTES`] (128 MiB for 200 rules on 2 cores, 1 GiB from 16).
/// The CPU's time grows as the cores fall; the device's fixed costs (its
/// DFA groups, the compiles that confirm its candidates) grow with the
/// rules. H200 machine, 965 MB, against the CPU alone: 200 rules took
/// 0.23-0.29x its time on 2 cores, 0.45-0.67x on 8 (`| head -1`:
/// 1.6-2.0x); 1,000 rules 0.40x on 2 cores but 1.0-1.14x on 8, where they
/// now stay on the CPU. On 16 cores, 200 rules over 965 MB took 0.50-0.78 s
/// on the CPU and 0.57-0.63 s with the device. Or `GSEARCH_AUTO_MIN_BYTES`
/// (tests).
fn auto_weighed_min_bytes(cores: usize, rules: usize) -> u64 {
    let per_core = AUTO_MIN_BYTES / 16 * rules.div_ceil(200).max(1) as u64;
    min_bytes_or((per_core * cores as u64).clamp(AUTO_WEIGHED_MIN_BYTES, AUTO_MIN_BYTES))
}

fn min_bytes_or(default: u64) -> u64 {
    std::env::var("GSEARCH_AUTO_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The device engines to use for the plan's literal set (one per device
/// `--opencl-device` lists; `auto`: every GPU and accelerator), or `None`
/// for the CPU engine. Without a literal set the patterns are regexes: the device
/// runs them as DFAs that decide candidate lines (`OpenClEngine::new_dfa`),
/// unless a pattern's DFA is too big (then the CPU engine runs them).
pub fn engines(cfg: &Config, literals: Option<&LiteralSet>) -> anyhow::Result<Option<Engines>> {
    // Decoded, decompressed, preprocessed or multiline input, and options
    // only ripgrep's searcher honours (`--crlf`, `--passthru`...): the CPU
    // engine. Options of its printers (`-M`, `--colors`...) are the
    // finisher's, whatever found the lines.
    if cfg.needs_cpu_searcher() {
        return Ok(None);
    }
    let Some(set) = literals else {
        return dfa_engine(cfg);
    };
    match cfg.engine {
        EngineArg::Cpu => Ok(None),
        EngineArg::Opencl => {
            let sels = selectors(cfg, DeviceSelector::Explicit);
            match OpenClEngine::open_all(&sels, set, 0) {
                Ok(e) => Ok(Some(e)),
                Err(e) => bail!("the OpenCL engine is not available: {e}"),
            }
        }
        EngineArg::Auto | EngineArg::Default | EngineArg::Pcre2 => {
            if !auto_may_start_device(cfg) {
                return Ok(None);
            }
            let sels = selectors(cfg, DeviceSelector::Auto);
            Ok(unless_named(cfg, OpenClEngine::open_all(&sels, set, 0)))
        }
    }
}

/// The engines [`engines`] opens, or (`auto` with a literal set or a few
/// regexes on big explicit files) a choice left until the plan is
/// finished: [`Opening::settle`] then weighs the CPU's measured pace
/// against the device's and opens the devices only when they win. Opening
/// them beside the plan and leaving them when the CPU wins cost more than
/// the wait: 1,000 words over 8.68 GB took 0.325 s that way and the CPU
/// alone 0.252 s (two H200s, 32 cores), as the driver's start ran beside.
pub enum Opening {
    Now(anyhow::Result<Option<Engines>>),
    Weighed,
}

/// [`engines`], opened at once or (see [`Opening`]) once weighed.
pub fn open(cfg: &Config, literals: Option<&LiteralSet>) -> Opening {
    match weighed(cfg, literals) {
        true => Opening::Weighed,
        false => Opening::Now(engines(cfg, literals)),
    }
}

/// `auto` on big explicit files with a literal set the device searches
/// alone (not the hybrid's: see `hybrid::suits`): a big set, or any set
/// when no device was named (a named one is opened, and said to be
/// missing if it is). Only big sets were weighed once: one dense literal
/// over several files went to the device, which returns every occurrence
/// (H200 machine, `-c e` over 1.26 GB and 5 MB: 3.7-5.1 s against the
/// CPU's 66 ms; ripgrep 2.1 s). Or with regexes the DFA engine may take
/// ([`dfa_engine`]), no device named: opened unweighed, it took 1.5-2.5x
/// the CPU's time (H200 machine, 16 cores, three regexes without a
/// literal over 1.26 GB and 5 MB: 0.48-0.71 s against 0.23-0.33 s;
/// ripgrep 3.1-4.4 s).
fn weighed(cfg: &Config, literals: Option<&LiteralSet>) -> bool {
    let set = match literals {
        Some(set) => {
            set.patterns.len() >= crate::engine::hashed::HASHED_MIN_PATTERNS || !device_named(cfg)
        }
        None => !device_named(cfg) && cfg.patterns.len() <= AUTO_MAX_DFA_PATTERNS,
    };
    set && is_auto(cfg) && !cfg.needs_cpu_searcher() && auto_may_start_device(cfg)
}

/// Whether `auto` chooses the engine.
fn is_auto(cfg: &Config) -> bool {
    matches!(
        cfg.engine,
        EngineArg::Auto | EngineArg::Default | EngineArg::Pcre2
    )
}

impl Opening {
    /// The engines to search with (`None`: the CPU engine) and, when the
    /// cost model weighed them, why (for `--stats`).
    pub fn settle(
        self,
        cfg: &Config,
        plan: &Plan,
    ) -> anyhow::Result<(Option<Engines>, Vec<String>)> {
        if let Opening::Now(r) = self {
            return Ok((r?, Vec::new()));
        }
        // A file of this size is searched by every core (`bigfile`), as
        // several files are by the parallel walk.
        let threads = crate::sys::cores();
        let size = explicit_bytes(&cfg.paths).unwrap_or(0);
        // The pace is timed on the biggest file's first MiB.
        let probe = cfg
            .paths
            .iter()
            .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()));
        let probe = probe.unwrap_or(&cfg.paths[0]);
        match crate::search::cost::device_beats_cpu(probe, size, plan, threads) {
            Ok(why) => {
                let opened = engines(cfg, plan.literals.as_ref())?;
                // No device to open after all: the CPU, with nothing to say.
                let notes = match opened {
                    Some(_) => vec![format!("device: used ({why})")],
                    None => Vec::new(),
                };
                Ok((opened, notes))
            }
            Err(why) => Ok((None, vec![format!("device: not used ({why})")])),
        }
    }
}

/// The DFA engine for a regex plan, as [`engines`] decides for literals.
fn dfa_engine(cfg: &Config) -> anyhow::Result<Option<Engines>> {
    // Asked first: the spec parses every pattern for its factors (200
    // rules: 5 ms of a one-line file's 24).
    let auto_declines =
        || !auto_may_start_device(cfg) || cfg.patterns.len() > AUTO_MAX_DFA_PATTERNS;
    if cfg.engine == EngineArg::Cpu || is_auto(cfg) && auto_declines() {
        return Ok(None);
    }
    let Some(spec) = dfa_spec(cfg) else {
        return Ok(None);
    };
    // (`--engine cpu` returned above.)
    match cfg.engine {
        EngineArg::Opencl => {
            let sels = selectors(cfg, DeviceSelector::Explicit);
            match OpenClEngine::open_all_dfa(&sels, &spec, 0) {
                Ok(e) => Ok(Some(e)),
                // Too big a DFA (or a pattern the parser refuses, which
                // the exact matcher then reports): the CPU engine.
                Err(EngineError::Unsupported(_)) => Ok(None),
                Err(e) => bail!("the OpenCL engine is not available: {e}"),
            }
        }
        _ => {
            let sels = selectors(cfg, DeviceSelector::Auto);
            Ok(
                unless_named(cfg, OpenClEngine::open_all_dfa(&sels, &spec, 0)).filter(|e| {
                    e[0].dfa_set()
                        .is_some_and(|d| d.passes() <= AUTO_MAX_DFA_GROUPS)
                }),
            )
        }
    }
}

/// What the DFA kernel is to run for the regex patterns of `cfg`, or
/// `None` when they stay on the CPU. With `-w` the kernel runs the
/// patterns without their word boundaries: a line holding a match with
/// them holds one without, so the device's lines are candidates, which
/// the exact matcher decides in order, each with whether ripgrep's
/// searcher would see the line before it
/// (`matcher::offsets::OffsetMatcher`, `Plan::line_context`).
pub fn dfa_spec(cfg: &Config) -> Option<DfaSpec> {
    if !dfa_possible(cfg) {
        return None;
    }
    let case_insensitive = is_case_insensitive(cfg);
    let factors = if cfg.fixed_strings {
        Vec::new()
    } else {
        cfg.patterns
            .iter()
            .map(|p| pattern_factors(p, case_insensitive))
            .collect()
    };
    Some(DfaSpec {
        patterns: cfg.patterns.clone(),
        fixed_strings: cfg.fixed_strings,
        case_insensitive,
        factors,
    })
}

/// Whether [`dfa_spec`] gives a spec (without parsing every pattern for
/// its factors).
pub fn dfa_possible(cfg: &Config) -> bool {
    !cfg.patterns.is_empty()
}

/// `auto` runs regexes on the device only for one or two patterns: a set
/// of three or more is a rule set, which the CPU engine's rule matcher
/// (`matcher::rules`) answers faster. Measured on the H100 machine (16
/// cores, 1.93 GB page-cached, `bench/rules-gpu.py`): 15 rules took 0.78 s
/// on the CPU and 1.06 s on the device (DFA tables built in about 0.5 s,
/// 8 groups, kernel 391 ms), 200 rules 1.23 s and 7.8 s (tables 7 s).
/// Each DFA group is one more pass over the text. (One big file goes to
/// `search::hybrid` before this, where the CPU and the devices share it.)
const AUTO_MAX_DFA_PATTERNS: usize = 2;
const AUTO_MAX_DFA_GROUPS: usize = 8;

/// Whether `auto` may start a device at all: big explicit files (not
/// standard input) and a search that reads them whole.
fn auto_may_start_device(cfg: &Config) -> bool {
    let big = explicit_bytes(&cfg.paths).is_some_and(|n| n >= auto_min_bytes());
    big && !stops_early(cfg)
        && !cfg.paths.iter().any(|p| p.as_os_str() == "-")
        && auto_may_look_for_device(cfg)
}

/// Whether `auto` may list the devices to look for one: not when none
/// was named and the last listing of this machine's OpenCL setup found no
/// GPU and no accelerator (`opencl::absent`: listing starts every driver,
/// PoCL's CPU device included).
pub fn auto_may_look_for_device(cfg: &Config) -> bool {
    device_named(cfg) || !crate::opencl::no_gpu_remembered()
}

/// Whether the user named a device (`--opencl-device`,
/// `GSEARCH_OPENCL_DEVICE`).
fn device_named(cfg: &Config) -> bool {
    cfg.opencl_device
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty())
}

/// `auto`'s engine, or `None` for the CPU. A device the user named with
/// `--opencl-device` (or `GSEARCH_OPENCL_DEVICE`) that cannot serve is
/// said once on stderr; with no device named, the CPU takes over quietly.
fn unless_named<E: std::fmt::Display>(cfg: &Config, engine: Result<Engines, E>) -> Option<Engines> {
    match engine {
        Ok(e) => Some(e),
        Err(e) => {
            if device_named(cfg) {
                warn_named_device_unused(&e);
            }
            None
        }
    }
}

/// The warning when a device the user named cannot serve `auto`.
pub fn warn_named_device_unused(e: &dyn std::fmt::Display) {
    crate::sys::messages::eprint_locked(format_args!(
        "warning: the OpenCL device asked for is not used ({e}); searching on the CPU"
    ));
}

/// Searches that end a file at its first matching line (`-l`,
/// `--files-without-match`, `-q`) or after a few (`-m`): the CPU engine
/// stops reading there, as ripgrep does, while the device pipeline reads
/// whole files ahead of the answers. Light work, so `auto` keeps to the CPU.
fn stops_early(cfg: &Config) -> bool {
    cfg.quit_after_match || cfg.max_count.is_some() || cfg.lists_files()
}

/// How many NVIDIA GPUs the driver is to start (see
/// [`crate::opencl::start_only_gpus`]), when gsearch can tell before it
/// loads: as many as `--opencl-device` lists when every entry is `nvidia`;
/// one for `--sorted` (one device); for every GPU (the default), what the
/// input's size is worth ([`gpus_worth_starting`]) when the paths are files.
/// `None`: every GPU the driver sees (a tree, whose size the walk finds
/// later; indexes and other names, which count across every platform's
/// devices; searches that never open a device, whose preprocessors and
/// decompressors inherit the environment).
pub fn gpus_to_start(cfg: &Config, sorted: bool) -> Option<usize> {
    if cfg.engine == EngineArg::Cpu || (!sorted && cfg.needs_cpu_searcher()) {
        return None;
    }
    let sels = selectors(cfg, DeviceSelector::Auto);
    let nvidia = |s: &DeviceSelector| matches!(s, DeviceSelector::Name(n) if n.eq_ignore_ascii_case("nvidia"));
    let every_gpu = matches!(
        sels.as_slice(),
        [DeviceSelector::Auto | DeviceSelector::Explicit]
    );
    if sels.iter().all(nvidia) {
        Some(if sorted { 1 } else { sels.len() })
    } else if !every_gpu {
        None
    } else if sorted {
        Some(1)
    } else {
        explicit_bytes(&cfg.paths).map(gpus_worth_starting)
    }
}

/// The devices `--opencl-device` (or `GSEARCH_OPENCL_DEVICE`) lists, else
/// `default`.
pub fn selectors(cfg: &Config, default: DeviceSelector) -> Vec<DeviceSelector> {
    match cfg.opencl_device.as_deref() {
        Some(s) if !s.trim().is_empty() => DeviceSelector::parse_list(s),
        _ => vec![default],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(argv: &[&str]) -> Config {
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(argv);
        Config::from_cli(cli).unwrap()
    }

    #[test]
    fn gpus_to_start_follow_the_list_and_the_input() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), b"text\n").unwrap();
        let f = file.path().to_str().unwrap();
        let dir = file.path().parent().unwrap().to_str().unwrap();
        let gpus = |args: &[&str], sorted| {
            let argv: Vec<&str> = ["gsearch"].iter().chain(args).copied().collect();
            gpus_to_start(&config(&argv), sorted)
        };
        assert_eq!(
            gpus(&["--opencl-device", "nvidia,NVIDIA", "x", dir], false),
            Some(2)
        );
        assert_eq!(
            gpus(&["--opencl-device", "nvidia,nvidia", "x", f], true),
            Some(1)
        );
        // Every GPU: what a small file is worth; a tree's size is unknown.
        assert_eq!(gpus(&["--opencl-device", "auto", "x", f], false), Some(1));
        assert_eq!(gpus(&["--opencl-device", "auto", "x", dir], false), None);
        assert_eq!(gpus(&["--opencl-device", "auto", "x", dir], true), Some(1));
        // Indexes and other names count across platforms; the CPU engine
        // and a preprocessor's search never open a device.
        assert_eq!(gpus(&["--opencl-device", "0,1", "x", f], false), None);
        assert_eq!(
            gpus(&["--opencl-device", "nvidia,pocl", "x", f], false),
            None
        );
        let cpu = ["--engine", "cpu", "--opencl-device", "nvidia", "x", f];
        assert_eq!(gpus(&cpu, false), None);
        let pre = ["--pre", "cat", "--opencl-device", "nvidia", "x", f];
        assert_eq!(gpus(&pre, false), None);
    }

    #[test]
    fn a_rule_set_is_weighed_on_smaller_files_with_fewer_cores_and_rules() {
        if std::env::var_os("GSEARCH_AUTO_MIN_BYTES").is_some() {
            return;
        }
        assert_eq!(auto_weighed_min_bytes(1, 15), 64 << 20);
        assert_eq!(auto_weighed_min_bytes(2, 200), 128 << 20);
        assert_eq!(auto_weighed_min_bytes(8, 200), 512 << 20);
        assert_eq!(auto_weighed_min_bytes(16, 200), 1 << 30);
        assert_eq!(auto_weighed_min_bytes(64, 3), 1 << 30);
        // More rules, bigger files: 1,000 rules from 640 MiB on 2 cores,
        // on 8 cores from 1 GiB as any work.
        assert_eq!(auto_weighed_min_bytes(2, 1000), 640 << 20);
        assert_eq!(auto_weighed_min_bytes(8, 1000), 1 << 30);
    }
}
