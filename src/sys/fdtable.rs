//! A file descriptor table of its own for each search thread of a walk.
//!
//! The threads of a process share one table, and every open and close
//! takes its lock, and every read of a file opened there takes a reference
//! on the file (a thread alone in its table skips both). A tree search
//! opens, reads and closes each file, and on the GPU machine (16 cores, a
//! 6.18 kernel) 16 threads reading the 68,841 files of the site-packages
//! tree took 78-85 ms, no faster than 8 threads, while 16 processes took
//! 38-52 ms, as did 16 threads that each called `unshare(CLONE_FILES)`
//! first (`gsearch-bench-reads`; `bench/results/2026-11-24-h100-run10-walk.txt`).
//!
//! [`own_table`] gives the calling thread a copy of the table, once. What
//! a thread opens afterwards exists in its table only, so it must be a
//! thread that closes what it opens and passes no descriptor on: a walk's
//! search thread searching one file at a time. It is called when the
//! thread is about to search a file, when the walker holds nothing open
//! for it (the walker reads a directory and closes it in one step), so no
//! descriptor of this thread is left behind in the shared table. The copy
//! also holds whatever the other threads had open at that moment; those
//! references go when the thread ends, with its table.

use std::cell::Cell;

thread_local! {
    static OWN: Cell<bool> = const { Cell::new(false) };
}

/// Gives the calling thread its own file descriptor table, the first time
/// it is called on that thread (Linux; elsewhere, and where a sandbox
/// refuses it, the table stays shared and nothing else changes).
pub fn own_table() {
    OWN.with(|own| {
        if own.replace(true) {
            return;
        }
        #[cfg(target_os = "linux")]
        // SAFETY: `unshare(CLONE_FILES)` touches no memory of ours; it only
        // replaces this thread's descriptor table by a copy, and every
        // descriptor number valid before stays valid on this thread.
        unsafe {
            libc::unshare(libc::CLONE_FILES);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A file opened on a thread with its own table reads, and closes,
    /// there; the descriptors open before (standard streams, a file of the
    /// main thread) still work on both sides.
    #[test]
    fn files_work_on_a_thread_with_its_own_table() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a");
        std::fs::write(&p, b"hello\n").unwrap();
        let mut before = std::fs::File::open(&p).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                own_table();
                own_table();
                let mut s = String::new();
                std::fs::File::open(&p)
                    .unwrap()
                    .read_to_string(&mut s)
                    .unwrap();
                assert_eq!(s, "hello\n");
                std::io::stderr().write_all(b"").unwrap();
            });
        });
        let mut s = String::new();
        before.read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello\n");
    }

    /// The table is the thread's own: a descriptor it opens after
    /// `own_table` does not exist on the main thread. (Descriptor 900 is
    /// far above what the other tests of this process hold.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_with_its_own_table_opens_outside_the_shared_one() {
        const FD: i32 = 900;
        use std::os::fd::AsRawFd;
        let open_here = || {
            // SAFETY: F_GETFD reads a flag of a descriptor number; no memory.
            unsafe { libc::fcntl(FD, libc::F_GETFD) != -1 }
        };
        assert!(!open_here());
        let (opened, seen) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|s| {
            s.spawn(|| {
                own_table();
                let f = std::fs::File::open("/proc/self/stat").unwrap();
                // SAFETY: duplicates a descriptor this thread holds onto
                // `FD`, unused here, and closes it below.
                assert_eq!(unsafe { libc::dup2(f.as_raw_fd(), FD) }, FD);
                assert!(open_here());
                opened.wait();
                seen.wait();
                // SAFETY: `FD` is this thread's duplicate, closed once.
                unsafe { libc::close(FD) };
            });
            opened.wait();
            let shared = open_here();
            seen.wait();
            assert!(!shared, "the thread's descriptor is in the shared table");
        });
    }
}
