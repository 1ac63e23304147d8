//! The gsearch binary: parse flags, answer the modes that need no search,
//! compile the plan, search, and turn the outcome into ripgrep's exit codes.

use std::io::Write;
use std::process::ExitCode;

use gsearch::cli::config::Config;
use gsearch::matcher::plan::Plan;
use gsearch::search::{choose, cpu};
use gsearch::sys::messages;

fn main() -> ExitCode {
    let status = match try_main() {
        Ok(status) => status,
        Err(err) => {
            // A closed pipe ends the run quietly, as for any Unix filter.
            let broken_pipe = err.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if !broken_pipe {
                messages::eprint_locked(format_args!("{err:#}"));
            }
            if broken_pipe { 0 } else { 2 }
        }
    };
    if gsearch::opencl::driver_loaded() || gsearch::search::hybrid::device_detached() {
        end_leaving_driver_teardown(status);
    }
    ExitCode::from(status)
}

fn try_main() -> anyhow::Result<u8> {
    gsearch::sys::trace::start();
    // Memory maps of files that shrink under us are reported, not fatal.
    gsearch::sys::guard::install();
    let mut cli = match gsearch::cli::parse::from_env()? {
        gsearch::cli::parse::Parsed::Run(cli) => *cli,
        gsearch::cli::parse::Parsed::Exit(code) => return Ok(code),
        gsearch::cli::parse::Parsed::VersionLong => {
            let devices = gsearch::opencl::version_line();
            println!("{}{devices}", gsearch::cli::version::long());
            return Ok(0);
        }
    };
    if cli.pcre2_version {
        println!("{}", gsearch::cli::version::pcre2());
        return Ok(0);
    }
    if let Some(kind) = cli.generate {
        let text = gsearch::cli::generate::generate(kind)?;
        std::io::stdout().write_all(&text)?;
        return Ok(0);
    }
    if cli.type_list {
        gsearch::walk::type_list(&mut cli, &mut std::io::stdout().lock())?;
        return Ok(0);
    }
    if cli.list_devices {
        print!("{}", gsearch::opencl::list_devices_text());
        return Ok(0);
    }
    let (sorted, files) = (cli.sorted, cli.files);
    let mut cfg = Config::from_cli(cli)?;
    if let Some(n) = cfg.threads_given {
        gsearch::sys::limit_cores(n);
    }
    gsearch::matcher::spec::resolve_engine(&mut cfg);
    messages::configure(!cfg.no_messages, !cfg.no_ignore_messages);
    if files {
        let any = gsearch::walk::list_files(&cfg)?;
        return Ok(exit_status(any, cfg.quiet));
    }
    if let Some(n) = choose::gpus_to_start(&cfg, sorted) {
        // SAFETY: no thread has been started yet: the plan's, the walk's
        // and the devices' all come later.
        if let Some(list) = unsafe { gsearch::opencl::start_only_gpus(n) } {
            gsearch::sys::trace::mark(&format!("CUDA_VISIBLE_DEVICES={list}"));
        }
    }
    if sorted {
        return gsearch::search::lookup::run(&cfg);
    }
    // The regex compiles on its own thread while the device starts.
    gsearch::sys::trace::mark("flags and pattern files read");
    let pending = Plan::start(&cfg);
    let matched = if !cfg.matches_possible() {
        // ripgrep does not even compile the patterns for `-m 0`.
        if cfg.max_count != Some(0) {
            pending.finish()?;
        }
        false
    } else if let Some((path, size)) = hybrid_candidate(&cfg, pending.literals()) {
        let listing = gsearch::search::hybrid::list_ahead(&cfg, pending.literals(), size);
        let plan = pending.finish()?;
        match fallen_back_to_pcre2(&cfg, &plan) {
            Some(cfg) => cpu::search_cpu(&cfg, &plan)?,
            None => gsearch::search::hybrid::search(&cfg, &plan, &path, listing)?,
        }
    } else {
        let opening = choose::open(&cfg, pending.literals());
        gsearch::sys::trace::mark("engine chosen (or left to the cost model)");
        // A bad pattern is reported before a missing device, as before.
        let plan = pending.finish()?;
        gsearch::sys::trace::mark("plan finished");
        if let Some(cfg) = fallen_back_to_pcre2(&cfg, &plan) {
            return Ok(exit_status(cpu::search_cpu(&cfg, &plan)?, cfg.quiet));
        }
        let (engine, notes) = opening.settle(&cfg, &plan)?;
        match engine {
            Some(engine) => {
                let matched = gsearch::search::device::search(&cfg, &plan, &engine, &notes)?;
                // Its buffers, queues and context go with the process (see
                // `end_leaving_driver_teardown`): releasing them one by one
                // first would only add to the wait.
                std::mem::forget(engine);
                matched
            }
            None => {
                let notes: Vec<String> = notes
                    .into_iter()
                    .chain(gsearch::opencl::absent_note())
                    .collect();
                cpu::search_cpu_noted(&cfg, &plan, &notes)?
            }
        }
    };
    gsearch::sys::trace::mark("search done");
    Ok(exit_status(matched, cfg.quiet))
}

/// With `--engine auto`, a plan that PCRE2 took over when the default
/// engine failed to compile patterns it had parsed (a size limit): the
/// settings of a PCRE2 search, which runs on the CPU.
fn fallen_back_to_pcre2(cfg: &Config, plan: &Plan) -> Option<Config> {
    let mut cfg = (plan.pcre2.is_some() && !cfg.out.pcre2).then(|| cfg.clone())?;
    cfg.out.pcre2 = true;
    Some(cfg)
}

/// The one big file `auto` searches with the CPU and the device together
/// (not when the walk has something to report: the other drivers do that),
/// and its size.
fn hybrid_candidate(
    cfg: &Config,
    literals: Option<&gsearch::engine::LiteralSet>,
) -> Option<(std::path::PathBuf, u64)> {
    if cfg.engine != gsearch::cli::EngineArg::Auto || !gsearch::walk::silent_for_files(cfg) {
        return None;
    }
    let size = gsearch::walk::explicit_bytes(&cfg.paths)?;
    gsearch::search::hybrid::suits(cfg, literals, size).then(|| (cfg.paths[0].clone(), size))
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

/// Ends the process once the answer is out, leaving the OpenCL driver's
/// teardown to a child. Ending a process that created a context on an
/// NVIDIA GPU takes about 0.1 s in the kernel (the driver frees the
/// context and unpins its memory when the last descriptor to it closes),
/// as long as ripgrep needs for 0.5 GB. The output is flushed; then a
/// child, holding the same descriptors, waits for this process to be gone
/// and ends, so that the teardown runs after the user has the answer. A
/// device thread still inside the driver's start-up (`auto` finished on the
/// CPU first) ends with the process instead of being waited for.
fn end_leaving_driver_teardown(status: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    gsearch::sys::trace::mark("ending; the driver's teardown left to a child");
    let mut fds = [0; 2];
    // SAFETY: plain system calls on a local array. Between `fork` and
    // `_exit` the child calls only async-signal-safe functions (close,
    // read, _exit), as a child of a multi-threaded process must. Its read
    // returns when the parent's end closes the pipe's write side.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) == 0 && libc::fork() == 0 {
            libc::close(fds[1]);
            for fd in 0..3 {
                libc::close(fd);
            }
            let mut b = 0u8;
            while libc::read(fds[0], (&raw mut b).cast(), 1) < 0 {}
            libc::_exit(0);
        }
        libc::_exit(i32::from(status))
    }
}
