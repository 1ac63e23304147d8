//! On-disk cache of compiled program binaries.
//!
//! Location: `$XDG_CACHE_HOME/gsearch`, else `~/.cache/gsearch`. One file per
//! program, named by the hex key: a hash of (device name, driver version,
//! platform version, kernel source, build options), so a driver upgrade or a
//! kernel edit simply misses. Entry layout:
//!
//! ```text
//! magic "GSCLBIN1" | key (16 bytes) | binary length (u64 LE) | hash of binary (16 bytes) | binary
//! ```
//!
//! Entries are written atomically (temporary file in the same directory, then
//! rename). On load the magic, key, length and hash are all checked: a
//! corrupt, truncated or foreign entry reads as a miss and gets rebuilt. An
//! unwritable directory only means nothing is stored.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"GSCLBIN1";
/// The most entries the directory keeps (see [`ProgramCache::trim`]).
const MAX_ENTRIES: usize = 4096;
/// The most bytes its entries take.
const MAX_BYTES: u64 = 256 << 20;
const HEADER: usize = 8 + 16 + 8 + 16;

/// A 128-bit non-cryptographic hash (two FNV-1a 64 lanes with different
/// seeds and a final avalanche). Stable across builds and platforms, which
/// std's `DefaultHasher` does not promise.
#[derive(Clone)]
pub struct Hash128 {
    a: u64,
    b: u64,
}

impl Default for Hash128 {
    fn default() -> Self {
        Self::new()
    }
}

impl Hash128 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub fn new() -> Hash128 {
        Hash128 {
            a: 0xcbf2_9ce4_8422_2325,
            b: 0x9e37_79b9_7f4a_7c15,
        }
    }

    pub fn update(&mut self, bytes: &[u8]) -> &mut Self {
        for &x in bytes {
            self.a = (self.a ^ x as u64).wrapping_mul(Self::PRIME);
            self.b = (self.b ^ x as u64)
                .wrapping_mul(Self::PRIME)
                .rotate_left(23);
        }
        self
    }

    /// Adds a length-prefixed field (so ("ab","c") and ("a","bc") differ).
    pub fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.update(&(bytes.len() as u64).to_le_bytes());
        self.update(bytes)
    }

    pub fn finish(&self) -> [u8; 16] {
        fn mix(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        let a = mix(self.a ^ self.b.rotate_left(32));
        let b = mix(self.b ^ a);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&a.to_le_bytes());
        out[8..].copy_from_slice(&b.to_le_bytes());
        out
    }
}

/// Hash of a byte string.
pub fn hash128(bytes: &[u8]) -> [u8; 16] {
    Hash128::new().update(bytes).finish()
}

fn hex(k: &[u8; 16]) -> String {
    k.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where (and whether) program binaries are cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramCache {
    dir: Option<PathBuf>,
}

impl ProgramCache {
    /// The default location (`$XDG_CACHE_HOME/gsearch` or `~/.cache/gsearch`);
    /// disabled when neither variable gives an absolute path.
    pub fn default_location() -> ProgramCache {
        let xdg = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        let dir = xdg
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .map(|h| h.join(".cache"))
            })
            .map(|d| d.join("gsearch"));
        ProgramCache { dir }
    }

    /// A cache in `dir` (tests).
    pub fn at(dir: impl Into<PathBuf>) -> ProgramCache {
        ProgramCache {
            dir: Some(dir.into()),
        }
    }

    /// No caching at all.
    pub fn disabled() -> ProgramCache {
        ProgramCache { dir: None }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key of a program build.
    pub fn key(
        device_name: &str,
        driver_version: &str,
        platform_version: &str,
        source: &str,
        options: &str,
    ) -> [u8; 16] {
        Hash128::new()
            .field(b"gsearch program cache v1")
            .field(device_name.as_bytes())
            .field(driver_version.as_bytes())
            .field(platform_version.as_bytes())
            .field(source.as_bytes())
            .field(options.as_bytes())
            .finish()
    }

    /// The file an entry lives in.
    pub fn path(&self, key: &[u8; 16]) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{}.bin", hex(key))))
    }

    /// The cached binary for `key`, if an intact entry exists; its
    /// modification time is moved to now, so that [`ProgramCache::trim`]
    /// drops the entries used least recently.
    pub fn load(&self, key: &[u8; 16]) -> Option<Vec<u8>> {
        let path = self.path(key)?;
        let bytes = fs::read(&path).ok()?;
        let body = decode(&bytes, key)?;
        if let Ok(f) = fs::File::options().append(true).open(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Some(body)
    }

    /// Bounds the directory: past [`MAX_ENTRIES`] entries or [`MAX_BYTES`],
    /// the least recently used go until three quarters of both are left.
    /// Each distinct pattern set stores its program or DFA tables (5 KB to
    /// 5 MB), and nothing else ever removed them: 2,583 entries, 43 MB,
    /// after one day of tests and random runs here. Asked after a store
    /// (a compile, which costs far more than this listing).
    fn trim(&self, dir: &Path) {
        let Ok(read) = fs::read_dir(dir) else { return };
        let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = read
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((meta.modified().ok()?, meta.len(), e.path()))
            })
            .collect();
        let mut bytes: u64 = entries.iter().map(|e| e.1).sum();
        if entries.len() <= MAX_ENTRIES && bytes <= MAX_BYTES {
            return;
        }
        entries.sort_by_key(|e| e.0);
        let mut count = entries.len();
        for (_, len, path) in entries {
            if count <= MAX_ENTRIES / 4 * 3 && bytes <= MAX_BYTES / 4 * 3 {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                count -= 1;
                bytes = bytes.saturating_sub(len);
            }
        }
    }

    /// Stores `binary` under `key`; false when it could not be written
    /// (which is harmless: the next run compiles again).
    pub fn store(&self, key: &[u8; 16], binary: &[u8]) -> bool {
        let (Some(dir), Some(path)) = (self.dir.as_ref(), self.path(key)) else {
            return false;
        };
        if fs::create_dir_all(dir).is_err() {
            return false;
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = dir.join(format!(
            ".{}.{}.{}.tmp",
            hex(key),
            std::process::id(),
            nanos
        ));
        let ok = (|| -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&encode(key, binary))?;
            f.sync_all()?;
            fs::rename(&tmp, &path)
        })();
        if ok.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        self.trim(dir);
        ok.is_ok()
    }
}

fn encode(key: &[u8; 16], binary: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER + binary.len());
    v.extend_from_slice(MAGIC);
    v.extend_from_slice(key);
    v.extend_from_slice(&(binary.len() as u64).to_le_bytes());
    v.extend_from_slice(&hash128(binary));
    v.extend_from_slice(binary);
    v
}

fn decode(bytes: &[u8], key: &[u8; 16]) -> Option<Vec<u8>> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || &bytes[8..24] != key {
        return None;
    }
    let len = u64::from_le_bytes(bytes[24..32].try_into().ok()?);
    let body = &bytes[HEADER..];
    if body.len() as u64 != len || len == 0 || hash128(body)[..] != bytes[32..48] {
        return None;
    }
    Some(body.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let c = ProgramCache::at(dir.path().join("sub"));
        let k = ProgramCache::key("dev", "drv", "plat", "src", "-D X");
        assert!(c.load(&k).is_none());
        assert!(c.store(&k, b"binary bytes"));
        assert_eq!(c.load(&k).unwrap(), b"binary bytes");
        // truncated
        let p = c.path(&k).unwrap();
        let full = fs::read(&p).unwrap();
        fs::write(&p, &full[..full.len() - 1]).unwrap();
        assert!(c.load(&k).is_none());
        // flipped byte
        let mut bad = full.clone();
        *bad.last_mut().unwrap() ^= 1;
        fs::write(&p, &bad).unwrap();
        assert!(c.load(&k).is_none());
        // foreign entry (another key's file under this name)
        let k2 = ProgramCache::key("dev2", "drv", "plat", "src", "-D X");
        fs::write(&p, encode(&k2, b"binary bytes")).unwrap();
        assert!(c.load(&k).is_none());
        assert_ne!(k, k2);
    }

    #[test]
    fn unwritable_dir_is_harmless() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        fs::write(&file, b"x").unwrap();
        let c = ProgramCache::at(file.join("below-a-file"));
        let k = hash128(b"k");
        assert!(!c.store(&k, b"bin"));
        assert!(c.load(&k).is_none());
        assert!(!ProgramCache::disabled().store(&k, b"bin"));
    }

    /// Past the bound, the entries used least recently go first.
    #[test]
    fn the_least_recently_used_entries_go() {
        let dir = tempfile::tempdir().unwrap();
        let c = ProgramCache::at(dir.path());
        let keys: Vec<[u8; 16]> = (0..MAX_ENTRIES + 1)
            .map(|i| hash128(&i.to_le_bytes()))
            .collect();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, k) in keys[..MAX_ENTRIES].iter().enumerate() {
            let path = c.path(k).unwrap();
            fs::write(&path, encode(k, b"bin")).unwrap();
            let age = old + std::time::Duration::from_secs(i as u64);
            fs::File::options()
                .append(true)
                .open(&path)
                .unwrap()
                .set_modified(age)
                .unwrap();
        }
        assert!(c.load(&keys[0]).is_some(), "used now");
        assert!(c.store(&keys[MAX_ENTRIES], b"bin"));
        let left = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(left, MAX_ENTRIES / 4 * 3);
        assert!(c.load(&keys[0]).is_some(), "the entry used last stays");
        assert!(c.load(&keys[MAX_ENTRIES]).is_some(), "the new one stays");
        assert!(c.load(&keys[1]).is_none(), "the oldest went");
    }

    #[test]
    fn field_boundaries_matter() {
        let a = Hash128::new().field(b"ab").field(b"c").finish();
        let b = Hash128::new().field(b"a").field(b"bc").finish();
        assert_ne!(a, b);
    }
}
