//! The SIGBUS guard: memory maps never kill the process.
//!
//! Reading a page of a file mapping that lies past the end of the file (the
//! file shrank after it was mapped) raises SIGBUS, whose default action
//! kills the process; ripgrep accepts that risk. gsearch maps files only
//! through [`GuardedMap`], which registers the mapped range in a fixed-size,
//! lock-free registry. The SIGBUS handler installed by [`install`] looks the
//! faulting address up in that registry; when it lies inside a registered
//! map, the handler maps anonymous zero pages (read-only) over the rest of
//! that map, marks the map as faulted and returns, so the interrupted read
//! resumes and sees NUL bytes where the vanished data was. The map's user
//! asks [`GuardedMap::faulted`] after its search and reports the file
//! ([`SHRANK`]) instead of trusting what it read. Any other SIGBUS (not in a
//! registered map, or sent by `kill`) goes to the handler that was there
//! before (Rust's stack-overflow reporter) or gets the default action,
//! exactly as without the guard.
//!
//! OpenCL runtimes install SIGBUS handlers of their own: PoCL's LLVM when
//! PoCL lists its devices, Intel's CPU runtime at its first build, both with
//! `SA_RESETHAND`. Such a handler restores the one it replaced before the
//! fault repeats, but a second thread faulting meanwhile meets the default
//! action and kills the process (seen once in the library tests: two
//! threads reading a shrunk map after another test had listed PoCL's
//! devices). Code that calls into a runtime where it may do this (listing
//! platforms and devices, context creation, program builds) runs inside
//! [`around_foreign`], which puts the guard's handler back afterwards. The
//! window that remains is the runtime's call itself.
//!
//! Async-signal safety: the handler touches only atomics of a static array
//! (no allocation, no locks) and makes the `mmap`, `sigaction` and `raise`
//! system calls. (`mmap` is not on POSIX's async-signal-safe list, but on
//! Linux it is a plain system call with no user-space state, which is what
//! matters for safety inside a handler.)

use std::cell::UnsafeCell;
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};

/// How a shrunk file is reported (after `PATH: `).
pub const SHRANK: &str = "file changed while it was being searched (it shrank)";

/// The error [`GuardedMap`] users return for a map that faulted.
pub fn shrank_error() -> io::Error {
    io::Error::other(SHRANK)
}

/// Maps that can be registered at once. Each search thread holds at most
/// one map at a time, so this is far more than gsearch needs; when it is
/// full, [`GuardedMap::map`] says so and the caller reads the file instead.
const SLOTS: usize = 256;

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const ACTIVE: u8 = 2;

struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    end: AtomicUsize,
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            state: AtomicU8::new(FREE),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }
}

static REGISTRY: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);
static FAULTS: AtomicU64 = AtomicU64::new(0);

/// The SIGBUS action that was in place before ours (written once, inside
/// `INSTALL`, before our handler can run; only read afterwards).
struct OldAction(UnsafeCell<Option<libc::sigaction>>);
// SAFETY: written once under `Once` before the handler is installed, read
// only afterwards (by the handler), so there is never a concurrent write.
unsafe impl Sync for OldAction {}
static OLD: OldAction = OldAction(UnsafeCell::new(None));

/// Installs the SIGBUS handler (once per process; later calls do nothing).
/// Returns whether the guard is active. Called at the start of `main`, and
/// by [`GuardedMap::map`] so library users are covered too.
pub fn install() -> bool {
    INSTALL.call_once(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::SeqCst);
        }
        // SAFETY: a zeroed sigaction is a valid value for the query to
        // fill. Reading the old action into our static happens before the
        // new handler is installed, so the handler never sees a partial
        // write.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return;
            }
            *OLD.0.get() = Some(old);
            if libc::sigaction(libc::SIGBUS, &our_action(), std::ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::SeqCst);
            }
        }
    });
    INSTALLED.load(Ordering::SeqCst)
}

/// The guard's SIGBUS action.
fn our_action() -> libc::sigaction {
    // SAFETY: a zeroed sigaction is a valid value (no flags, empty mask);
    // the handler, flags and mask are filled in below.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = on_sigbus;
    sa.sa_sigaction = handler as usize;
    sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
    // SAFETY: sigemptyset only writes the mask it is given.
    unsafe { libc::sigemptyset(&mut sa.sa_mask) };
    sa
}

/// Runs `f`, a call into an OpenCL runtime that may install its own SIGBUS
/// handler (see the module's text), then puts the guard's handler back if
/// it was replaced. The handler that was there before gsearch's (`OLD`)
/// stays the one a fault outside the maps goes to.
pub fn around_foreign<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(test)]
    let _alone = (!HELD.get()).then(lock_foreign);
    let r = f();
    reassert();
    r
}

/// Installs the guard's handler again when another took its place.
fn reassert() {
    if INSTALLED.load(Ordering::SeqCst)
        && !in_place()
        // SAFETY: installs a valid action for SIGBUS, which the guard owns
        // since `install`; nothing else is changed.
        && unsafe { libc::sigaction(libc::SIGBUS, &our_action(), std::ptr::null_mut()) } == 0
    {
        crate::sys::trace::mark("guard: SIGBUS handler taken back from the OpenCL runtime");
    }
}

/// Whether SIGBUS's action is the guard's handler.
pub fn in_place() -> bool {
    // SAFETY: a zeroed sigaction is a valid value for the query to fill;
    // the query changes nothing.
    unsafe {
        let mut now: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut now) == 0
            && now.sa_sigaction == our_action().sa_sigaction
    }
}

/// Held in test builds by [`around_foreign`] (the tests' OpenCL calls one
/// at a time: a runtime that installs its handler in one thread's call
/// while another's has returned would undo that one's reassertion) and by
/// a test that shrinks a mapped file or checks the handler
/// ([`exclusive`]), so that no runtime swaps it meanwhile.
#[cfg(test)]
static FOREIGN: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
thread_local! {
    /// Whether this thread holds [`FOREIGN`] through [`exclusive`].
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
fn lock_foreign() -> std::sync::MutexGuard<'static, ()> {
    FOREIGN.lock().unwrap_or_else(|e| e.into_inner())
}

/// What [`exclusive`] returns: the lock, held until it is dropped.
#[cfg(test)]
pub struct Exclusive {
    _lock: std::sync::MutexGuard<'static, ()>,
}

#[cfg(test)]
impl Drop for Exclusive {
    fn drop(&mut self) {
        HELD.set(false);
    }
}

/// For a test that shrinks a mapped file or checks the handler: no other
/// thread's OpenCL call that may replace the handler runs while the
/// returned lock is held (this thread's own do), and the guard's handler
/// is in place.
#[cfg(test)]
pub fn exclusive() -> Exclusive {
    let g = lock_foreign();
    HELD.set(true);
    install();
    reassert();
    Exclusive { _lock: g }
}

/// How many faults the guard has absorbed in this process (tests, `--stats`).
pub fn faults() -> u64 {
    FAULTS.load(Ordering::Relaxed)
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t for an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let code = unsafe { (*info).si_code };
    // Only faults the kernel raised (si_code > 0) can be a read of a map;
    // a SIGBUS sent by kill/raise is never ours to absorb.
    if code > 0 {
        for slot in REGISTRY.iter() {
            if slot.state.load(Ordering::Acquire) != ACTIVE {
                continue;
            }
            let start = slot.start.load(Ordering::Relaxed);
            let end = slot.end.load(Ordering::Relaxed);
            if addr < start || addr >= end {
                continue;
            }
            let page = PAGE.load(Ordering::Relaxed);
            let from = addr & !(page - 1);
            let to = end.div_ceil(page) * page;
            // SAFETY: [from, to) lies inside the registered map, which the
            // faulting thread is reading right now (it cannot be unmapped:
            // the map is unregistered before it is unmapped, and only its
            // owner reads it). MAP_FIXED replaces those file pages with
            // anonymous zero pages, read-only like the map; the rest of
            // the process never sees the difference except the zeros, and
            // the later munmap of the whole map removes them too.
            let p = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    to - from,
                    libc::PROT_READ,
                    libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                break;
            }
            slot.faulted.store(true, Ordering::Release);
            FAULTS.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    chain(sig, info, ctx);
}

/// Hands a SIGBUS that is not ours to the previous handler, or to the
/// default action.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: OLD was written before this handler was installed.
    let old = unsafe { *OLD.0.get() };
    if let Some(old) = old {
        let h = old.sa_sigaction;
        if h != libc::SIG_DFL && h != libc::SIG_IGN {
            if old.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the previous handler was installed with
                // SA_SIGINFO, so this is its signature.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(h) };
                f(sig, info, ctx);
            } else {
                // SAFETY: a plain handler takes the signal number only.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
                f(sig);
            }
            return;
        }
    }
    // SAFETY: sigaction and raise are async-signal-safe. With the default
    // action back in place, the raised SIGBUS (pending until we return,
    // since SIGBUS is blocked inside its own handler) kills the process,
    // and a faulting instruction that re-executes would do the same.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
        libc::raise(libc::SIGBUS);
    }
}

/// A read-only memory map of a whole file, covered by the SIGBUS guard for
/// as long as it lives.
pub struct GuardedMap {
    map: memmap2::Mmap,
    slot: usize,
}

impl GuardedMap {
    /// Maps `file` read-only (with the sequential-read hint grep-searcher
    /// gives its maps). `Ok(None)` when the guard cannot cover a map (the
    /// handler could not be installed, or the registry is full): the caller
    /// then reads the file instead. `Err` when mapping itself fails (e.g. a
    /// FIFO or a device file): the caller reads the file instead, too.
    pub fn map(file: &File) -> io::Result<Option<GuardedMap>> {
        if !install() {
            return Ok(None);
        }
        // SAFETY: the map is read-only and never outlives `GuardedMap`. The
        // one hazard of file maps for a reader (SIGBUS when the file shrinks
        // under it) is what the registration below covers: the range is
        // registered before any byte is read and unregistered (in Drop)
        // before it is unmapped. Other processes' writes can change the
        // bytes we read, which at worst yields a wrong line for a file that
        // changed during the search, never undefined behaviour of our own
        // (we never create `&mut` to the map, and reads are plain loads).
        let map = unsafe { memmap2::Mmap::map(file)? };
        let start = map.as_ptr() as usize;
        let end = start + map.len();
        let Some(slot) = claim() else {
            return Ok(None);
        };
        let s = &REGISTRY[slot];
        s.start.store(start, Ordering::Relaxed);
        s.end.store(end, Ordering::Relaxed);
        s.faulted.store(false, Ordering::Relaxed);
        s.state.store(ACTIVE, Ordering::Release);
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Some(GuardedMap { map, slot }))
    }

    /// Drops the pages of `range` from this process's resident set (they
    /// stay in the page cache, and a later read maps them again): a worker
    /// done with a part of a big file keeps the peak RSS to what is being
    /// searched, not the whole file. Errors are ignored (only a hint).
    pub fn release(&self, range: std::ops::Range<usize>) {
        let range = range.start.min(self.map.len())..range.end.min(self.map.len());
        if range.is_empty() {
            return;
        }
        // SAFETY: the map is a read-only file mapping: MADV_DONTNEED only
        // unmaps its pages, and a later load maps the file's bytes again
        // (no private copy exists that could be lost), so every reference
        // into the map stays valid and reads the same file. The range lies
        // inside the map (clamped above).
        let _ = unsafe {
            self.map.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                range.start,
                range.len(),
            )
        };
    }

    /// Asks the kernel to start reading `range` of the file into the page
    /// cache (`MADV_WILLNEED`: for a file map, the file's own readahead of
    /// those bytes, queued without waiting for it). Errors are ignored
    /// (only a hint). `pipeline::readahead` keeps these reads ahead of the
    /// searching threads on a file that is not in the page cache.
    pub fn will_need(&self, range: std::ops::Range<usize>) {
        let range = range.start.min(self.map.len())..range.end.min(self.map.len());
        if !range.is_empty() {
            let _ = self
                .map
                .advise_range(memmap2::Advice::WillNeed, range.start, range.len());
        }
    }

    /// The share of `probes` sampled pages, spread evenly over the map, that
    /// are in the page cache (`mincore(2)`, which looks without reading).
    /// `None` when `mincore` fails.
    pub fn resident_share(&self, probes: usize) -> Option<f64> {
        let page = PAGE.load(Ordering::Relaxed);
        let pages = self.map.len().div_ceil(page);
        let probes = probes.clamp(1, pages.max(1));
        if self.map.is_empty() {
            return Some(1.0);
        }
        let mut resident = 0;
        for k in 0..probes {
            let at = (pages * k / probes) * page;
            let mut vec = 0u8;
            // SAFETY: `at` is a page-aligned offset inside the map (the map
            // starts page-aligned and `at / page < pages`), so the one page
            // asked about lies in our mapping; mincore only reads the page
            // tables and the page cache (never the file's bytes, so no
            // fault, and no SIGBUS) and writes one byte into `vec`.
            let r = unsafe {
                libc::mincore(
                    self.map.as_ptr().add(at) as *mut libc::c_void,
                    1,
                    &mut vec as *mut u8 as *mut _,
                )
            };
            if r != 0 {
                return None;
            }
            resident += usize::from(vec & 1);
        }
        Some(resident as f64 / probes as f64)
    }

    /// Whether a read of this map faulted (the file shrank under it): the
    /// bytes past the fault read as NUL, so what was found is not to be
    /// trusted and the file is reported with [`SHRANK`].
    pub fn faulted(&self) -> bool {
        REGISTRY[self.slot].faulted.load(Ordering::Acquire)
    }
}

fn claim() -> Option<usize> {
    REGISTRY.iter().position(|s| {
        s.state
            .compare_exchange(FREE, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })
}

impl Deref for GuardedMap {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        // Unregistered before the map field is dropped (unmapped), so the
        // handler never touches an address range that is no longer ours.
        REGISTRY[self.slot].state.store(FREE, Ordering::Release);
    }
}

/// How far a thread reads past pages before releasing them.
pub const RELEASE_STEP: usize = 32 << 20;

/// Releases the pages of a map (see [`GuardedMap::release`]) behind a
/// reader that moves forward, every [`RELEASE_STEP`] bytes.
pub struct Releaser<'a> {
    map: Option<&'a GuardedMap>,
    from: usize,
}

impl<'a> Releaser<'a> {
    pub fn new(map: Option<&'a GuardedMap>, from: usize) -> Releaser<'a> {
        Releaser { map, from }
    }

    /// Everything before `upto` has been read.
    pub fn passed(&mut self, upto: usize) {
        if let Some(m) = self.map
            && upto > self.from + RELEASE_STEP
        {
            m.release(self.from..upto);
            self.from = upto;
        }
    }

    /// Done: releases the rest up to `upto`.
    pub fn finish(self, upto: usize) {
        if let Some(m) = self.map {
            m.release(self.from..upto.max(self.from));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_map_whose_file_shrinks_reads_zeros_and_reports_it() {
        let _alone = exclusive();
        let page = PAGE.load(Ordering::Relaxed).max(4096);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![b'a'; page * 4]).unwrap();
        f.flush().unwrap();
        let file = File::open(f.path()).unwrap();
        let map = GuardedMap::map(&file).unwrap().expect("guard active");
        assert_eq!(map[0], b'a');
        assert!(!map.faulted());
        f.as_file().set_len(page as u64).unwrap();
        // Pages past the new end fault; the guard answers with zeros.
        let tail: u64 = map[page..].iter().map(|&b| b as u64).sum();
        assert_eq!(tail, 0);
        assert_eq!(map[0], b'a');
        assert!(map.faulted());
        drop(map);
        // The slot is free again and a fresh map starts clean.
        let file = File::open(f.path()).unwrap();
        let map = GuardedMap::map(&file).unwrap().unwrap();
        assert!(!map.faulted());
        assert_eq!(map.len(), page);
    }

    #[test]
    fn a_handler_that_a_runtime_installs_is_replaced() {
        // (`around_foreign` keeps the tests that shrink maps out meanwhile.)
        install();
        extern "C" fn foreign(_: libc::c_int) {}
        let replaced = around_foreign(|| {
            // SAFETY: a zeroed sigaction with a plain handler is valid; the
            // guard's handler is put back before this test reads a map.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = foreign as extern "C" fn(libc::c_int) as usize;
                sa.sa_flags = libc::SA_RESETHAND;
                libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
            }
            !in_place()
        });
        assert!(replaced);
        assert!(in_place());
    }

    #[test]
    fn maps_of_many_threads_are_tracked_apart() {
        let _alone = exclusive();
        let page = PAGE.load(Ordering::Relaxed).max(4096);
        std::thread::scope(|s| {
            for i in 0..8 {
                s.spawn(move || {
                    let mut f = tempfile::NamedTempFile::new().unwrap();
                    f.write_all(&vec![b'x'; page * 3]).unwrap();
                    f.flush().unwrap();
                    let file = File::open(f.path()).unwrap();
                    let map = GuardedMap::map(&file).unwrap().unwrap();
                    if i % 2 == 0 {
                        f.as_file().set_len(0).unwrap();
                        assert_eq!(map[page * 2], 0);
                        assert!(map.faulted());
                    } else {
                        assert_eq!(map[page * 2], b'x');
                        assert!(!map.faulted());
                    }
                });
            }
        });
    }
}
