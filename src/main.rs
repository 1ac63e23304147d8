//! The gsearch binary: parse flags, answer the modes that need no search,
//! compile the plan, search, and turn the outcome into ripgrep's exit codes.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use gsearch::cli::Cli;
use gsearch::config::Config;
use gsearch::plan::Plan;
use gsearch::{choose, messages, run};

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe ends the run quietly, as for any Unix filter.
            for cause in err.chain() {
                if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                    if io.kind() == std::io::ErrorKind::BrokenPipe {
                        return ExitCode::from(0);
                    }
                }
            }
            messages::eprint_locked(format_args!("{err:#}"));
            exit_if_detached(2);
            ExitCode::from(2)
        }
    }
}

fn try_main() -> anyhow::Result<ExitCode> {
    gsearch::trace::start();
    // Memory maps of files that shrink under us are reported, not fatal.
    gsearch::guard::install();
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return Ok(ExitCode::from(code));
        }
    };
    let cli = Cli::from_arg_matches(&matches)?;
    if let Some(kind) = cli.generate {
        let text = gsearch::generate::generate(kind)?;
        std::io::stdout().write_all(&text)?;
        return Ok(ExitCode::from(0));
    }
    if cli.type_list {
        gsearch::walk::type_list(&mut std::io::stdout().lock())?;
        return Ok(ExitCode::from(0));
    }
    if cli.list_devices {
        print!("{}", gsearch::opencl::list_devices_text());
        return Ok(ExitCode::from(0));
    }
    let (sorted, files) = (cli.sorted, cli.files);
    let cfg = Config::from_cli(cli)?;
    if files {
        let any = gsearch::walk::list_files(&cfg)?;
        return Ok(exit_code(any, cfg.quiet));
    }
    if sorted {
        return gsearch::lookup::run(&cfg);
    }
    // The regex compiles on its own thread while the device starts.
    gsearch::trace::mark("flags and pattern files read");
    let pending = Plan::start(&cfg);
    let matched = if !cfg.matches_possible() {
        pending.finish()?;
        false
    } else if let Some(path) = hybrid_candidate(&cfg, pending.literals()) {
        let plan = pending.finish()?;
        let matched = gsearch::hybrid::search(&cfg, &plan, &path)?;
        exit_if_detached(exit_status(matched, cfg.quiet));
        matched
    } else {
        let engine = choose::engine(&cfg, pending.literals());
        gsearch::trace::mark("engine chosen");
        // A bad pattern is reported before a missing device, as before.
        let plan = pending.finish()?;
        gsearch::trace::mark("plan finished");
        match engine? {
            Some(engine) => {
                let matched = gsearch::offload::search(&cfg, &plan, &engine)?;
                gsearch::trace::mark("device search done");
                drop(engine);
                gsearch::trace::mark("device engine released");
                if std::env::var_os("GSEARCH_EXIT_CHILD").is_some() {
                    exit_leaving_teardown(exit_status(matched, cfg.quiet));
                }
                matched
            }
            None => run::search_cpu(&cfg, &plan)?,
        }
    };
    gsearch::trace::mark("search done");
    Ok(exit_code(matched, cfg.quiet))
}

/// The one big file `auto` searches with the CPU and the device together.
fn hybrid_candidate(
    cfg: &Config,
    literals: Option<&gsearch::engine::LiteralSet>,
) -> Option<std::path::PathBuf> {
    if cfg.engine != gsearch::cli::EngineArg::Auto {
        return None;
    }
    let size = gsearch::offload::explicit_bytes(&cfg.paths)?;
    gsearch::hybrid::suits(cfg, literals, size).then(|| cfg.paths[0].clone())
}

/// ripgrep's rule: 0 when something matched (and, unless `-q`, nothing
/// failed), 2 when something failed, 1 otherwise.
fn exit_status(matched: bool, quiet: bool) -> u8 {
    if matched && (quiet || !messages::errored()) {
        0
    } else if messages::errored() {
        2
    } else {
        1
    }
}

fn exit_code(matched: bool, quiet: bool) -> ExitCode {
    ExitCode::from(exit_status(matched, quiet))
}

/// EXPERIMENT: the process ends at once while a child holding the same
/// file descriptors (the driver's) waits for it to be gone and then ends,
/// so the driver's teardown runs in the child.
fn exit_leaving_teardown(status: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let mut fds = [0; 2];
    // SAFETY: plain system calls on a local array; the child calls only
    // async-signal-safe functions (close, read, _exit) before ending.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) == 0 && libc::fork() == 0 {
            libc::close(fds[1]);
            libc::close(0);
            libc::close(1);
            libc::close(2);
            let mut b = 0u8;
            libc::read(fds[0], (&raw mut b).cast(), 1);
            libc::_exit(0);
        }
        gsearch::trace::mark("parent exits");
        libc::_exit(i32::from(status))
    }
}

/// When `auto`'s device thread is still inside the OpenCL driver's start-up
/// (the CPU searched everything first), ends the process now with `status`
/// instead of waiting for the driver or running its teardown under that
/// thread. The answer is complete: only output buffers are flushed.
fn exit_if_detached(status: u8) {
    if gsearch::hybrid::device_detached() {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: `_exit` ends the process at once; everything printed was
        // flushed above, and no file is being written.
        unsafe { libc::_exit(i32::from(status)) };
    }
}
