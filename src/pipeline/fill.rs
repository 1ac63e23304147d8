//! Reading a big file's bytes into staging buffers with several threads:
//! one thread cannot copy from the page cache as fast as a GPU consumes
//! (on the H100 machine the 8 GiB stream is bound by this copy, ~25 GB/s
//! with 8 threads, ~13 GB/s with 4). The threads are started once and kept
//! for the process's life: starting and joining 8 of them for every 32 MiB
//! batch cost 150-260 µs a batch, a tenth of the batch's fill time.

use std::fs::File;
use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::{Mutex, OnceLock, PoisonError};

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

use crate::sys::{FILL_PIECE as PIECE, fill_threads};

/// What one piece's reader answers: the piece's index, the bytes read, the
/// error that stopped it, whether a NUL was seen.
type Answer = (usize, usize, Option<io::Error>, bool);

/// One piece of a parallel read, handed to a pool thread.
struct Piece {
    fd: RawFd,
    ptr: *mut u8,
    len: usize,
    offset: u64,
    index: usize,
    answer: Sender<Answer>,
}

// SAFETY: a piece is a disjoint part of a buffer that `pread_parallel`
// keeps borrowed until every piece's `answer` sender is gone, and of a
// file it keeps borrowed as long; only the one thread that received the
// piece touches those bytes.
unsafe impl Send for Piece {}

/// The fill threads and their queue (`rx` is kept to start more).
struct Pool {
    tx: Sender<Piece>,
    rx: Receiver<Piece>,
    started: Mutex<usize>,
}

fn the_pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = unbounded::<Piece>();
        Pool {
            tx,
            rx,
            started: Mutex::new(0),
        }
    })
}

/// Starts pool threads until `want` run; how many do.
fn grow(want: usize) -> usize {
    let pool = the_pool();
    let mut started = pool.started.lock().unwrap_or_else(PoisonError::into_inner);
    while *started < want {
        let rx = pool.rx.clone();
        let spawned = std::thread::Builder::new()
            .name("gsearch-fill".into())
            .spawn(move || rx.iter().for_each(read_piece));
        if spawned.is_err() {
            break;
        }
        *started += 1;
    }
    *started
}

/// The pool's queue, with at least [`fill_threads`] threads; `None` when
/// no thread could be started.
fn pool() -> Option<&'static Sender<Piece>> {
    (grow(fill_threads()) > 0).then(|| &the_pool().tx)
}

/// `readers` fill at once (several devices on one queue): the pool grows
/// to [`fill_threads`] threads for each, up to the cores, so that each
/// read goes as fast as one alone.
pub(crate) fn widen(readers: usize) {
    let per = fill_threads();
    grow((per * readers).min(crate::sys::cores().max(per)));
}

fn read_piece(p: Piece) {
    // SAFETY: see `Piece`: the bytes are this piece's alone and stay
    // borrowed by the caller until `p.answer` is dropped, after the read.
    let buf = unsafe { std::slice::from_raw_parts_mut(p.ptr, p.len) };
    // SAFETY: the descriptor belongs to a `File` the caller keeps open
    // until the answer; `ManuallyDrop` leaves closing it to that owner.
    let file = ManuallyDrop::new(unsafe { File::from_raw_fd(p.fd) });
    let (n, e, z) = pread_scan(&file, buf, p.offset);
    let _ = p.answer.send((p.index, n, e, z));
}

/// Reads `buf.len()` bytes at `offset` with the pool's threads (pieces of
/// at least 4 MiB), and checks the bytes for NUL while they are hot.
/// Returns the bytes read (a short count only at end of file or on error),
/// the first error, and whether a NUL was seen.
pub(crate) fn pread_parallel(
    f: &File,
    buf: &mut [u8],
    offset: u64,
) -> (usize, Option<io::Error>, bool) {
    let threads = fill_threads();
    let pool = match pool() {
        Some(p) if buf.len() > PIECE && threads > 1 => p,
        _ => return pread_scan(f, buf, offset),
    };
    let per = buf.len().div_ceil(threads).max(PIECE);
    let pieces = buf.len().div_ceil(per);
    let (answer, answers) = bounded::<Answer>(pieces);
    for (i, part) in buf.chunks_mut(per).enumerate() {
        let piece = Piece {
            fd: f.as_raw_fd(),
            ptr: part.as_mut_ptr(),
            len: part.len(),
            offset: offset + (i * per) as u64,
            index: i,
            answer: answer.clone(),
        };
        // A piece the queue refuses comes back and is dropped here.
        let _ = pool.send(piece);
    }
    drop(answer);
    // Every sender is gone once each piece was answered or dropped (a
    // thread that panicked drops its piece): only then is `buf` free.
    let mut got: Vec<Answer> = answers.iter().collect();
    got.sort_unstable_by_key(|a| a.0);
    let (mut total, mut err, mut nul) = (0, None, false);
    for (i, n, e, z) in got.iter_mut().map(|a| (a.0, a.1, a.2.take(), a.3)) {
        // Bytes count only up to the first short piece (end of file).
        if total == i * per {
            total += n;
            nul |= z;
        }
        if err.is_none() {
            err = e;
        }
    }
    if got.len() < pieces && err.is_none() {
        err = Some(io::Error::other("a reader thread failed"));
    }
    (total, err, nul)
}

/// [`pread_full`] in steps small enough to stay in the core's cache, each
/// step checked for NUL right after it is read (until one is found), so
/// the check costs no second pass over memory.
fn pread_scan(f: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>, bool) {
    const STEP: usize = 512 << 10;
    let (mut n, mut nul) = (0, false);
    while n < buf.len() {
        let end = (n + STEP).min(buf.len());
        let (k, e) = pread_full(f, &mut buf[n..end], offset + n as u64);
        nul = nul || memchr::memchr(0, &buf[n..n + k]).is_some();
        n += k;
        if e.is_some() || n < end {
            return (n, e, nul);
        }
    }
    (n, None, nul)
}

/// Reads at `offset` until `buf` is full or end of file.
fn pread_full(f: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>) {
    use std::os::unix::fs::FileExt;
    fill_with(buf, |b, n| f.read_at(b, offset + n as u64))
}

/// Reads from the file's position until `buf` is full or end of file.
pub(crate) fn read_full(mut f: &File, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    use std::io::Read;
    fill_with(buf, |b, _| f.read(b))
}

/// Calls `read(rest of buf, bytes so far)` until `buf` is full or it
/// answers 0 (retrying interruptions): the bytes read and the error that
/// stopped it, if any.
fn fill_with(
    buf: &mut [u8],
    mut read: impl FnMut(&mut [u8], usize) -> io::Result<usize>,
) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match read(&mut buf[n..], n) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Whole reads, a read running past the end, a NUL in one piece only,
    /// and several callers at once sharing the pool.
    #[test]
    fn parallel_reads_equal_the_file() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let len = 3 * PIECE + 12_345;
        let data: Vec<u8> = (0..len).map(|i| b'a' + (i % 23) as u8).collect();
        f.write_all(&data).unwrap();
        let mut with_nul = data.clone();
        with_nul[2 * PIECE + 7] = 0;
        let mut g = tempfile::NamedTempFile::new().unwrap();
        g.write_all(&with_nul).unwrap();
        let (file, nul_file) = (f.reopen().unwrap(), g.reopen().unwrap());
        std::thread::scope(|s| {
            for t in 0..4 {
                let (file, nul_file, data) = (&file, &nul_file, &data);
                s.spawn(move || {
                    for from in [0, 1, PIECE as u64 - 3, 5 + t] {
                        let mut buf = vec![0u8; len];
                        let (n, e, z) = pread_parallel(file, &mut buf, from);
                        let want = &data[from as usize..];
                        assert!(e.is_none());
                        assert_eq!((n, &buf[..n], z), (want.len(), want, false));
                    }
                    let mut buf = vec![0u8; len];
                    let (n, e, z) = pread_parallel(nul_file, &mut buf, 0);
                    assert!(e.is_none());
                    assert_eq!((n, z), (len, true));
                    let (n, _, z) = pread_parallel(nul_file, &mut buf[..PIECE + 9], 0);
                    assert_eq!((n, z), (PIECE + 9, false));
                });
            }
        });
    }
}
