//! What the last listing of the OpenCL devices found when it found no GPU
//! and no accelerator: `auto` lists the devices only to find one, and the
//! listing loads and starts every driver the loader names, which on a
//! machine with only CPU runtimes is all cost (PoCL: 65-75 ms on the 2-core
//! machine, before the first byte of a big file is searched). A listing
//! that finds none stores a memo in the program cache's directory
//! ([`ProgramCache`]); `auto` then skips the listing while the memo holds.
//!
//! The memo holds for a day, and only for the same OpenCL setup: its key
//! hashes the loader's vendor files (their names, contents and times), the
//! environment variables the loaders and drivers read, the boot's id and
//! the times of `/dev` and `/dev/dri` (a driver loaded since adds device
//! nodes). A listing that finds a GPU or an accelerator drops it;
//! `--engine opencl`, `--opencl-device` and `--list-devices` always list
//! (the last stores or drops the memo as any listing does).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use super::cache::{Hash128, ProgramCache};

/// How long a memo holds.
pub const MEMO_LIFE: Duration = Duration::from_secs(24 * 3600);

/// What the memo's entry holds.
const MEMO: &[u8] = b"no GPU or accelerator";

/// Prefixes of the environment variables that change which devices the
/// OpenCL loaders and drivers show.
const ENV_PREFIXES: &[&str] = &[
    "OCL_",
    "OPENCL_",
    "POCL_",
    "CUDA_",
    "NVIDIA_",
    "ROCR_",
    "HIP_",
    "GPU_",
    "ZE_",
    "LD_LIBRARY_PATH",
];

/// `CUDA_VISIBLE_DEVICES` was set by this process (`start_only_gpus`),
/// not by the user: it is not part of the setup the key describes.
static VISIBLE_SET_HERE: AtomicBool = AtomicBool::new(false);

/// Notes that this process set `CUDA_VISIBLE_DEVICES` itself.
pub fn visible_set_here() {
    VISIBLE_SET_HERE.store(true, Ordering::Release);
}

/// A listing was spared by the memo: `--stats` says so.
static SPARED: AtomicBool = AtomicBool::new(false);

/// Whether a listing of this setup within [`MEMO_LIFE`] found no GPU and
/// no accelerator.
pub fn remembered() -> bool {
    let held = remembered_in(&ProgramCache::default_location(), &key());
    SPARED.fetch_or(held, Ordering::AcqRel);
    held
}

/// `--stats`' note when [`remembered`] spared this run a listing.
pub fn note() -> Option<String> {
    SPARED.load(Ordering::Acquire).then(|| {
        let path = ProgramCache::default_location().path(&key());
        format!(
            "device: not looked for (no GPU or accelerator at the last listing, {}; \
             `gsearch --list-devices` lists again)",
            path.map_or_else(|| "?".into(), |p| p.display().to_string())
        )
    })
}

/// Stores the memo after a listing that found no GPU and no accelerator
/// (`found` false), or drops it.
pub fn record(found: bool) {
    record_in(&ProgramCache::default_location(), &key(), found);
}

fn remembered_in(cache: &ProgramCache, key: &[u8; 16]) -> bool {
    let Some(path) = cache.path(key) else {
        return false;
    };
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < MEMO_LIFE);
    fresh && cache.load(key).is_some_and(|m| m == MEMO)
}

fn record_in(cache: &ProgramCache, key: &[u8; 16], found: bool) {
    if !found {
        cache.store(key, MEMO);
    } else if let Some(path) = cache.path(key) {
        let _ = std::fs::remove_file(path);
    }
}

/// The key of this machine's OpenCL setup as this process sees it.
fn key() -> [u8; 16] {
    let mut h = Hash128::new();
    h.field(b"gsearch devices absent v1");
    h.field(env!("CARGO_PKG_VERSION").as_bytes());
    hash_env(
        &mut h,
        std::env::vars_os(),
        VISIBLE_SET_HERE.load(Ordering::Acquire),
    );
    for dir in vendor_dirs() {
        hash_vendor_dir(&mut h, &dir);
    }
    h.field(&std::fs::read("/proc/sys/kernel/random/boot_id").unwrap_or_default());
    for node in ["/dev", "/dev/dri"] {
        h.field(&modified_nanos(Path::new(node)).to_le_bytes());
    }
    h.finish()
}

/// The variables of `vars` that [`ENV_PREFIXES`] name, in order of name;
/// `CUDA_VISIBLE_DEVICES` not when `set_here`.
fn hash_env(h: &mut Hash128, vars: impl Iterator<Item = (OsString, OsString)>, set_here: bool) {
    let mut kept: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            ENV_PREFIXES.iter().any(|p| k.starts_with(p))
                && !(set_here && k == "CUDA_VISIBLE_DEVICES")
        })
        .collect();
    kept.sort();
    for (k, v) in kept {
        h.field(k.as_encoded_bytes()).field(v.as_encoded_bytes());
    }
}

/// Where the loaders look for vendor files (`.icd`): `OCL_ICD_VENDORS`
/// (ocl-icd: a directory or one file), `OPENCL_VENDOR_PATH` (Khronos'
/// loader), else `/etc/OpenCL/vendors`. (`OCL_ICD_FILENAMES` is hashed with
/// the environment.)
fn vendor_dirs() -> Vec<PathBuf> {
    let named = ["OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from);
    let mut dirs: Vec<PathBuf> = named.collect();
    dirs.push(PathBuf::from("/etc/OpenCL/vendors"));
    dirs
}

/// Each entry's name, contents and time (a file given alone: that file).
fn hash_vendor_dir(h: &mut Hash128, dir: &Path) {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => vec![dir.to_path_buf()],
    };
    files.sort();
    for f in files {
        h.field(f.as_os_str().as_encoded_bytes());
        h.field(&std::fs::read(&f).unwrap_or_default());
        h.field(&modified_nanos(&f).to_le_bytes());
    }
}

fn modified_nanos(p: &Path) -> u128 {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_holds_until_a_device_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ProgramCache::at(dir.path());
        let key = [7u8; 16];
        assert!(!remembered_in(&cache, &key));
        record_in(&cache, &key, false);
        assert!(remembered_in(&cache, &key));
        assert!(!remembered_in(&cache, &[8u8; 16]));
        record_in(&cache, &key, true);
        assert!(!remembered_in(&cache, &key));
    }

    #[test]
    fn an_old_or_foreign_memo_does_not_hold() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ProgramCache::at(dir.path());
        let key = [9u8; 16];
        record_in(&cache, &key, false);
        let path = cache.path(&key).unwrap();
        let old = SystemTime::now() - MEMO_LIFE - Duration::from_secs(60);
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(old).unwrap();
        assert!(!remembered_in(&cache, &key));
        std::fs::write(&path, b"not a cache entry").unwrap();
        assert!(!remembered_in(&cache, &key));
        assert!(!remembered_in(&ProgramCache::disabled(), &key));
    }

    fn env_key(vars: &[(&str, &str)], set_here: bool) -> [u8; 16] {
        let mut h = Hash128::new();
        let vars = vars
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        hash_env(&mut h, vars, set_here);
        h.finish()
    }

    #[test]
    fn the_key_follows_the_drivers_environment_only() {
        let base = env_key(&[("HOME", "/root"), ("POCL_DEVICES", "pthread")], false);
        assert_eq!(base, env_key(&[("POCL_DEVICES", "pthread")], false));
        assert_ne!(base, env_key(&[("POCL_DEVICES", "cuda")], false));
        assert_ne!(
            base,
            env_key(
                &[("POCL_DEVICES", "pthread"), ("OCL_ICD_VENDORS", "/x")],
                false
            )
        );
        let visible = [("POCL_DEVICES", "pthread"), ("CUDA_VISIBLE_DEVICES", "0")];
        assert_ne!(base, env_key(&visible, false));
        assert_eq!(base, env_key(&visible, true));
    }

    #[test]
    fn the_key_follows_the_vendor_files() {
        let dir = tempfile::tempdir().unwrap();
        let hash = || {
            let mut h = Hash128::new();
            hash_vendor_dir(&mut h, dir.path());
            h.finish()
        };
        let empty = hash();
        std::fs::write(dir.path().join("pocl.icd"), b"libpocl.so.2\n").unwrap();
        let one = hash();
        assert_ne!(empty, one);
        std::fs::write(dir.path().join("nvidia.icd"), b"libnvidia-opencl.so.1\n").unwrap();
        assert_ne!(one, hash());
        assert_eq!(key(), key());
    }
}
