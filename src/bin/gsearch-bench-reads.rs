//! How fast a machine can open, read and close every file of a tree, the
//! floor under a tree search, and what sharing one file descriptor table
//! between threads costs there (see `src/sys/fdtable.rs`).
//!
//! Usage: `gsearch-bench-reads TREE [RUNS] [THREADS...]`. The tree's
//! regular files (hidden ones left out, as a search leaves them) are listed
//! once; then each run reads all of them on N threads, taking files from
//! one counter, in three ways: threads sharing the process's table
//! (`shared`), threads that each call `unshare(CLONE_FILES)` first
//! (`own-table`), and N processes (`processes`). Each file is read as a
//! search reads it: 64 KiB at a time until its end or a chunk with a NUL
//! byte (binary detection stops there). Prints the wall time of each run.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const CHUNK: usize = 64 << 10;

fn list(dir: &Path, out: &mut Vec<CString>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        if e.file_name().as_bytes().starts_with(b".") {
            continue;
        }
        if ft.is_dir() {
            list(&e.path(), out);
        } else if ft.is_file() {
            out.push(CString::new(e.path().as_os_str().as_bytes()).expect("no NUL in a path"));
        }
    }
}

/// Opens, reads (as described above) and closes one file; returns the
/// bytes read.
fn read_one(path: &CString, buf: &mut [u8]) -> usize {
    // SAFETY: `path` is a NUL-terminated string that outlives the call.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return 0;
    }
    let mut total = 0;
    loop {
        // SAFETY: `buf` is writable for `buf.len()` bytes.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        total += n as usize;
        if memchr::memchr(0, &buf[..n as usize]).is_some() {
            break;
        }
    }
    // SAFETY: `fd` was opened above and is closed once.
    unsafe { libc::close(fd) };
    total
}

#[derive(Clone, Copy)]
enum Mode {
    Shared,
    OwnTable,
    Processes,
}

/// Reads every file on `n` workers; returns the bytes read (0 for
/// processes, which do not report theirs).
fn run(files: &[CString], n: usize, mode: Mode) -> usize {
    if let Mode::Processes = mode {
        let mut kids = Vec::new();
        for k in 0..n {
            // SAFETY: the child only reads files and leaves with `_exit`,
            // never returning into code that assumed one process.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                let mut buf = vec![0u8; CHUNK];
                files.iter().skip(k).step_by(n).for_each(|f| {
                    read_one(f, &mut buf);
                });
                // SAFETY: ends the child without running the parent's
                // exit handlers.
                unsafe { libc::_exit(0) };
            }
            kids.push(pid);
        }
        for pid in kids {
            let mut status = 0;
            // SAFETY: waits for a child of ours; `status` is writable.
            unsafe { libc::waitpid(pid, &mut status, 0) };
        }
        return 0;
    }
    let next = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| {
                if let Mode::OwnTable = mode {
                    // SAFETY: as in `fdtable::own_table`.
                    unsafe { libc::unshare(libc::CLONE_FILES) };
                }
                let mut buf = vec![0u8; CHUNK];
                let mut mine = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    mine += read_one(f, &mut buf);
                }
                total.fetch_add(mine, Ordering::Relaxed);
            });
        }
    });
    total.into_inner()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(tree) = args.get(1) else {
        eprintln!("usage: gsearch-bench-reads TREE [RUNS] [THREADS...]");
        std::process::exit(2);
    };
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mut threads: Vec<usize> = args[3.min(args.len())..]
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    if threads.is_empty() {
        threads = vec![std::thread::available_parallelism().map_or(1, |n| n.get())];
    }
    let mut files = Vec::new();
    list(&PathBuf::from(tree), &mut files);
    println!("{} files under {tree}", files.len());
    // One pass to bring the tree into the page cache.
    let bytes = run(&files, threads[0], Mode::Shared);
    println!("{} MB read per pass", bytes >> 20);
    // Runs of the three ways in turns, so that drift hits them alike.
    let modes = [
        ("shared", Mode::Shared),
        ("own-table", Mode::OwnTable),
        ("processes", Mode::Processes),
    ];
    for &n in &threads {
        let mut times = vec![Vec::new(); modes.len()];
        for _ in 0..runs {
            for (k, &(_, mode)) in modes.iter().enumerate() {
                let t = Instant::now();
                run(&files, n, mode);
                times[k].push(format!("{:.1}", t.elapsed().as_secs_f64() * 1e3));
            }
        }
        for ((name, _), t) in modes.iter().zip(times) {
            println!("{n:3} {name:10} ms: {}", t.join(" "));
        }
    }
}
