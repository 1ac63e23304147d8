//! Device discovery and selection: which OpenCL devices exist, and which one
//! a [`DeviceSelector`] picks. Nothing here creates a context.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use opencl3::device::{
    CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, Device,
};
use opencl3::platform::{Platform, get_platforms};

/// How to choose a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSelector {
    /// A GPU (first in listing order, PoCL's platform last), else an
    /// accelerator; never a CPU-type device (PoCL, Intel CPU runtime).
    /// What `auto` uses.
    Auto,
    /// What an explicit `--engine opencl` uses: Auto's choice, else the first
    /// device of any type (so CPU runtimes serve when there is no GPU).
    Explicit,
    /// The n-th device, counting across all platforms in listing order (the
    /// index `--list-devices` shows).
    Index(usize),
    /// The first device whose platform or device name contains this
    /// (case-insensitive).
    Name(String),
    /// Every device of every type (`all`); as one device, the first.
    All,
}

impl DeviceSelector {
    /// Parses a user string (`GSEARCH_OPENCL_DEVICE`, `--device`): `auto`,
    /// `explicit` (also `any`), `all`, a decimal index, otherwise a name
    /// substring.
    pub fn parse(s: &str) -> DeviceSelector {
        let t = s.trim();
        match t.to_ascii_lowercase().as_str() {
            "auto" | "" => DeviceSelector::Auto,
            "explicit" | "any" => DeviceSelector::Explicit,
            "all" => DeviceSelector::All,
            _ => match t.parse::<usize>() {
                Ok(i) => DeviceSelector::Index(i),
                Err(_) => DeviceSelector::Name(t.to_string()),
            },
        }
    }

    /// Parses a list (`0,1`, `nvidia,nvidia`, `all`): one selector per
    /// comma-separated entry; an empty list is `auto`.
    pub fn parse_list(s: &str) -> Vec<DeviceSelector> {
        let v: Vec<DeviceSelector> = s
            .split(',')
            .filter(|e| !e.trim().is_empty())
            .map(DeviceSelector::parse)
            .collect();
        if v.is_empty() {
            vec![DeviceSelector::Auto]
        } else {
            v
        }
    }

    /// How errors name it.
    fn describe(&self) -> String {
        match self {
            DeviceSelector::Auto => "auto (no GPU or accelerator)".to_string(),
            DeviceSelector::Explicit => "any".to_string(),
            DeviceSelector::Index(i) => format!("index {i}"),
            DeviceSelector::Name(n) => format!("name {n:?}"),
            DeviceSelector::All => "all".to_string(),
        }
    }
}

/// What one device reports (the `--list-devices` line).
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Index across all platforms in listing order.
    pub index: usize,
    pub platform: String,
    /// The platform's vendor ("The pocl project", "Intel(R) Corporation").
    pub vendor: String,
    pub platform_version: String,
    pub name: String,
    /// `CL_DEVICE_TYPE_*` bits.
    pub device_type: u64,
    /// `CL_DEVICE_VERSION`, e.g. "OpenCL 3.0 CUDA".
    pub version: String,
    /// `CL_DEVICE_OPENCL_C_VERSION`.
    pub c_version: String,
    pub driver_version: String,
    pub compute_units: u32,
    pub global_mem: u64,
    pub local_mem: u64,
    pub max_alloc: u64,
    pub max_work_group: usize,
    /// Device-side enqueue (OpenCL 2.x, or 3.0 reporting it).
    pub device_enqueue: bool,
    pub(crate) device: Device,
}

impl DeviceInfo {
    /// The OpenCL handle of the device.
    pub fn id(&self) -> opencl3::types::cl_device_id {
        self.device.id()
    }

    /// "platform / device", as `--list-devices` shows it.
    pub fn label(&self) -> String {
        format!("{} / {}", self.platform, self.name)
    }

    /// "gpu", "accelerator", "cpu" or "other".
    pub fn kind(&self) -> &'static str {
        if self.is_gpu() {
            "gpu"
        } else if self.is_accelerator() {
            "accelerator"
        } else if self.device_type & CL_DEVICE_TYPE_CPU != 0 {
            "cpu"
        } else {
            "other"
        }
    }

    pub fn is_gpu(&self) -> bool {
        self.device_type & CL_DEVICE_TYPE_GPU != 0
    }

    pub fn is_accelerator(&self) -> bool {
        self.device_type & CL_DEVICE_TYPE_ACCELERATOR != 0
    }

    /// "GPU", "CPU", "ACCELERATOR", ... joined with '+'.
    pub fn type_name(&self) -> String {
        let mut v = Vec::new();
        if self.device_type & CL_DEVICE_TYPE_GPU != 0 {
            v.push("GPU");
        }
        if self.device_type & CL_DEVICE_TYPE_CPU != 0 {
            v.push("CPU");
        }
        if self.device_type & CL_DEVICE_TYPE_ACCELERATOR != 0 {
            v.push("ACCELERATOR");
        }
        if v.is_empty() {
            v.push("OTHER");
        }
        v.join("+")
    }
}

/// Why no device could be listed or selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscoveryError {
    /// No `libOpenCL.so.1` (or it failed to load).
    NoRuntime,
    /// The loader is there but no platform / no device.
    NoDevice,
    /// Devices exist but the selector matches none of them.
    NoMatch(String),
}

impl std::fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiscoveryError::NoRuntime => write!(f, "no OpenCL runtime (libOpenCL.so.1) found"),
            DiscoveryError::NoDevice => write!(f, "no OpenCL device found"),
            DiscoveryError::NoMatch(m) => write!(f, "no OpenCL device matches {m}"),
        }
    }
}

/// True when the OpenCL loader library can be loaded (never crashes).
pub fn runtime_available() -> bool {
    cl3::is_opencl_runtime_available()
}

fn major_version(v: &str) -> u32 {
    // "OpenCL 3.0 CUDA" -> 3
    v.split_whitespace()
        .nth(1)
        .and_then(|s| s.split('.').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn device_info(
    index: usize,
    platform: &str,
    vendor: &str,
    platform_version: &str,
    d: Device,
) -> DeviceInfo {
    let version = d.version().unwrap_or_default();
    let major = major_version(&version);
    let device_enqueue = match major {
        0 | 1 => false,
        2 => d.queue_on_device_max_size().map(|s| s > 0).unwrap_or(false),
        // OpenCL 3.0 reports it: bit 0 is CL_DEVICE_QUEUE_SUPPORTED.
        _ => d
            .device_enqueue_capabilities()
            .map(|c| c & 1 != 0)
            .unwrap_or(false),
    };
    DeviceInfo {
        index,
        platform: platform.to_string(),
        vendor: vendor.to_string(),
        platform_version: platform_version.to_string(),
        name: d.name().unwrap_or_else(|_| "?".into()).trim().to_string(),
        device_type: d.dev_type().unwrap_or(0),
        version: version.trim().to_string(),
        c_version: d.opencl_c_version().unwrap_or_default().trim().to_string(),
        driver_version: d.driver_version().unwrap_or_default().trim().to_string(),
        compute_units: d.max_compute_units().unwrap_or(0),
        global_mem: d.global_mem_size().unwrap_or(0),
        local_mem: d.local_mem_size().unwrap_or(0),
        max_alloc: d.max_mem_alloc_size().unwrap_or(0),
        max_work_group: d.max_work_group_size().unwrap_or(1),
        device_enqueue,
        device: d,
    }
}

static DRIVER_LOADED: AtomicBool = AtomicBool::new(false);

/// Whether this process has asked the OpenCL loader for its platforms
/// (which loads and starts every driver it names): `main` then leaves the
/// drivers' teardown to a child process.
pub fn driver_loaded() -> bool {
    DRIVER_LOADED.load(Ordering::Acquire)
}

/// Counts the drivers as loaded before a thread is sent to list the
/// devices ([`driver_loaded`]): should `main` end before that thread asks
/// the loader, it still ends without running the process's exit handlers
/// under a driver starting.
pub fn driver_loading() {
    DRIVER_LOADED.store(true, Ordering::Release);
}

/// Has the NVIDIA driver start only its first `n` GPUs, when this process
/// has not loaded the driver yet and the user has not set
/// `CUDA_VISIBLE_DEVICES` (which the driver honours, and which stays the way
/// to choose them). Listing the OpenCL platforms starts every GPU the
/// driver sees, one after the other, before any of them can work: 0.21 s
/// per GPU on the host of four H200s (0.90-0.96 s with all four, 0.21 s
/// with one visible). Returns the value set.
///
/// # Safety
/// Sets an environment variable: no other thread may be running (one that
/// reads the environment through libc meanwhile would race).
pub unsafe fn start_only_gpus(n: usize) -> Option<String> {
    if driver_loaded() || n == 0 || std::env::var_os("CUDA_VISIBLE_DEVICES").is_some() {
        return None;
    }
    let list: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let list = list.join(",");
    // SAFETY: the caller guarantees that this thread is the only one.
    unsafe { std::env::set_var("CUDA_VISIBLE_DEVICES", &list) };
    super::absent::visible_set_here();
    Some(list)
}

/// The devices of one platform (indexed from 0; the caller renumbers).
fn platform_devices(p: &Platform) -> Vec<DeviceInfo> {
    let pname = p.name().unwrap_or_else(|_| "?".into()).trim().to_string();
    let pver = p.version().unwrap_or_default().trim().to_string();
    let vendor = p.vendor().unwrap_or_default().trim().to_string();
    // A platform without devices answers CL_DEVICE_NOT_FOUND: skip it.
    // (PoCL starts its devices here, and its LLVM takes SIGBUS.)
    let ids =
        crate::sys::guard::around_foreign(|| p.get_devices(CL_DEVICE_TYPE_ALL)).unwrap_or_default();
    let devs = ids
        .into_iter()
        .enumerate()
        .map(|(i, id)| device_info(i, &pname, &vendor, &pver, Device::new(id)))
        .collect();
    crate::sys::trace::mark(&format!("devices of {pname} listed"));
    devs
}

/// Every device of every platform, in listing order.
pub fn list_devices() -> Result<Vec<DeviceInfo>, DiscoveryError> {
    devices(false)
}

/// With `gpus`, the GPUs found without asking PoCL for its devices, when
/// the other platforms have some; otherwise, or when none has,
/// [`list_devices`]'s answer. PoCL starts its CPU device when asked for
/// devices: 10-60 ms on the H100 machine, at the start of every run that
/// has a GPU to search with.
fn devices(gpus: bool) -> Result<Vec<DeviceInfo>, DiscoveryError> {
    if !runtime_available() {
        return Err(DiscoveryError::NoRuntime);
    }
    DRIVER_LOADED.store(true, Ordering::Release);
    let platforms =
        crate::sys::guard::around_foreign(get_platforms).map_err(|_| DiscoveryError::NoDevice)?;
    crate::sys::trace::mark("OpenCL platforms listed");
    // (Listing the platforms starts every driver: that is where the time
    // goes, 30-300 ms on the H100 machine, ~30 ms when another process has
    // the GPU open; their devices take ~10 ms more.)
    // Each platform's devices, asked once: with `gpus` every platform
    // other than PoCL's first.
    let mut asked: Vec<Option<Vec<DeviceInfo>>> = vec![None; platforms.len()];
    if gpus {
        let is_pocl = |p: &Platform| p.vendor().is_ok_and(|v| v.contains("pocl"));
        let (mut index, mut found) = (0, Vec::new());
        for (p, slot) in platforms.iter().zip(&mut asked) {
            if is_pocl(p) {
                continue;
            }
            let devs = platform_devices(p);
            // Counting the platforms asked (PoCL's devices, if listed
            // before, would shift `--list-devices`' numbers).
            found.extend(devs.iter().filter(|d| d.is_gpu()).cloned().map(|mut d| {
                d.index += index;
                d
            }));
            index += devs.len();
            *slot = Some(devs);
        }
        if !found.is_empty() {
            super::absent::record(true);
            return Ok(found);
        }
    }
    let mut out: Vec<DeviceInfo> = platforms
        .iter()
        .zip(asked)
        .flat_map(|(p, devs)| devs.unwrap_or_else(|| platform_devices(p)))
        .collect();
    for (i, d) in out.iter_mut().enumerate() {
        d.index = i;
    }
    super::absent::record(out.iter().any(|d| d.is_gpu() || d.is_accelerator()));
    if out.is_empty() {
        return Err(DiscoveryError::NoDevice);
    }
    Ok(out)
}

/// True when some platform has some device (integration tests use it to
/// decide whether to run or skip).
pub fn has_any_device() -> bool {
    list_devices().map(|v| !v.is_empty()).unwrap_or(false)
}

/// The index into `devs` that `sel` picks.
pub fn pick(devs: &[DeviceInfo], sel: &DeviceSelector) -> Option<usize> {
    let auto = || {
        devs.iter()
            .position(DeviceInfo::is_gpu)
            .or_else(|| devs.iter().position(DeviceInfo::is_accelerator))
    };
    match sel {
        DeviceSelector::Auto => auto(),
        DeviceSelector::Explicit | DeviceSelector::All => {
            auto().or(if devs.is_empty() { None } else { Some(0) })
        }
        DeviceSelector::Index(i) => (*i < devs.len()).then_some(*i),
        DeviceSelector::Name(n) => {
            // Platforms and vendors first ("intel", "pocl", "nvidia"), then
            // device names ("h100"): PoCL's device names mention the host
            // CPU's vendor, which must not shadow that vendor's platform.
            let n = n.to_lowercase();
            let has = |s: &str| s.to_lowercase().contains(&n);
            devs.iter()
                .position(|d| has(&d.platform) || has(&d.vendor))
                .or_else(|| devs.iter().position(|d| has(&d.name)))
        }
    }
}

/// The indices into `devs` that a list of selectors picks, in the list's
/// order, each device once: `auto` and `any` every GPU and accelerator
/// (`any`, when there is none, device 0), `all` every device, an index that
/// device, a name the first device it matches that the list has not
/// already taken (so `pocl,pocl` is two PoCL devices). Empty when some
/// entry matches nothing new.
pub fn pick_all(devs: &[DeviceInfo], sels: &[DeviceSelector]) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::new();
    for sel in sels {
        let fresh = |i: &usize| !out.contains(i);
        let found: Vec<usize> = match sel {
            DeviceSelector::Auto | DeviceSelector::Explicit => {
                let accel: Vec<usize> = (0..devs.len())
                    .filter(|&i| devs[i].is_gpu() || devs[i].is_accelerator())
                    .collect();
                match (accel.is_empty(), sel) {
                    (true, DeviceSelector::Explicit) => pick(devs, sel).into_iter().collect(),
                    _ => accel,
                }
            }
            DeviceSelector::All => (0..devs.len()).collect(),
            DeviceSelector::Index(_) => pick(devs, sel).into_iter().collect(),
            DeviceSelector::Name(n) => {
                let n = n.to_lowercase();
                let has = |s: &str| s.to_lowercase().contains(&n);
                let by = |f: &dyn Fn(&DeviceInfo) -> bool| {
                    (0..devs.len()).find(|i| fresh(i) && f(&devs[*i]))
                };
                by(&|d| has(&d.platform) || has(&d.vendor))
                    .or_else(|| by(&|d| has(&d.name)))
                    .into_iter()
                    .collect()
            }
        };
        let new: Vec<usize> = found.into_iter().filter(|i| fresh(i)).collect();
        if new.is_empty() && !matches!(sel, DeviceSelector::Index(i) if out.contains(i)) {
            return Err(sel.describe());
        }
        out.extend(new);
    }
    Ok(out)
}

/// Whether `sels` may be answered from the GPUs alone (PoCL's CPU device
/// never asked for; see [`devices`]).
fn gpus_suffice(sels: &[DeviceSelector]) -> bool {
    sels.iter()
        .all(|s| matches!(s, DeviceSelector::Auto | DeviceSelector::Explicit))
}

/// Lists the devices and picks one.
pub fn select(sel: &DeviceSelector) -> Result<DeviceInfo, DiscoveryError> {
    // Auto and Explicit take the first GPU; PoCL's is looked at last.
    let devs = devices(gpus_suffice(std::slice::from_ref(sel)))?;
    match pick(&devs, sel) {
        Some(i) => Ok(devs[i].clone()),
        None => Err(DiscoveryError::NoMatch(sel.describe())),
    }
}

/// Lists the devices and picks every device of a list ([`pick_all`]).
pub fn select_all(sels: &[DeviceSelector]) -> Result<Vec<DeviceInfo>, DiscoveryError> {
    let devs = devices(gpus_suffice(sels))?;
    let picked = pick_all(&devs, sels).map_err(DiscoveryError::NoMatch)?;
    Ok(picked.into_iter().map(|i| devs[i].clone()).collect())
}

fn mib(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
    } else if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.0} KiB", b as f64 / 1024.0)
    }
}

/// Every platform and device, one block per device; `*` marks the devices
/// `auto` would use. Says plainly when there is no runtime or no device.
pub fn list_devices_text() -> String {
    let devs = match list_devices() {
        Ok(d) => d,
        Err(DiscoveryError::NoRuntime) => {
            return "No OpenCL runtime: libOpenCL.so.1 could not be loaded; \
                    gsearch searches on the CPU.\n"
                .to_string();
        }
        Err(_) => {
            return "OpenCL runtime found, but no OpenCL platform or device; \
                    gsearch searches on the CPU.\n"
                .to_string();
        }
    };
    let auto = pick_all(&devs, &[DeviceSelector::Auto]).unwrap_or_default();
    let mut s = String::new();
    for d in &devs {
        let mark = if auto.contains(&d.index) { "*" } else { " " };
        let _ = writeln!(s, "{mark}{:>2}  {} / {}", d.index, d.platform, d.name);
        let _ = writeln!(
            s,
            "     type {}, {}, {}, driver {}",
            d.type_name(),
            d.version,
            d.c_version,
            d.driver_version
        );
        let _ = writeln!(
            s,
            "     {} compute units, global memory {}, local memory {}, max allocation {}, \
             device-side enqueue {}",
            d.compute_units,
            mib(d.global_mem),
            mib(d.local_mem),
            mib(d.max_alloc),
            if d.device_enqueue { "yes" } else { "no" }
        );
    }
    match auto.len() {
        1 => s.push_str("* = the device `auto` uses\n"),
        n if n > 1 => s.push_str("* = the devices `auto` uses, all of them together\n"),
        _ => s.push_str(
            "No GPU or accelerator: `auto` searches on the CPU \
             (an explicit OpenCL engine uses device 0).\n",
        ),
    }
    s
}

/// One line for `--version`: the OpenCL devices gsearch sees, marking
/// those `auto` uses. Without an OpenCL runtime it costs one failed
/// `dlopen`.
pub fn version_line() -> String {
    let devs = match list_devices() {
        Ok(d) if !d.is_empty() => d,
        Err(DiscoveryError::NoRuntime) => {
            return "OpenCL: no runtime (libOpenCL.so.1 not found), searches run on the CPU"
                .to_string();
        }
        _ => return "OpenCL: no platform or device, searches run on the CPU".to_string(),
    };
    let auto = pick_all(&devs, &[DeviceSelector::Auto]).unwrap_or_default();
    let named: Vec<String> = devs
        .iter()
        .map(|d| {
            let used = if auto.contains(&d.index) {
                ", auto"
            } else {
                ""
            };
            format!("{} {} ({}{used})", d.index, d.name, d.type_name())
        })
        .collect();
    let cpu = if auto.is_empty() {
        "; auto searches on the CPU"
    } else {
        ""
    };
    format!("OpenCL: {}{cpu}", named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_selectors() {
        assert_eq!(DeviceSelector::parse("auto"), DeviceSelector::Auto);
        assert_eq!(DeviceSelector::parse(" 2 "), DeviceSelector::Index(2));
        assert_eq!(DeviceSelector::parse("any"), DeviceSelector::Explicit);
        assert_eq!(
            DeviceSelector::parse("H100"),
            DeviceSelector::Name("H100".into())
        );
        assert_eq!(DeviceSelector::parse("ALL"), DeviceSelector::All);
        assert_eq!(
            DeviceSelector::parse_list("0, 1"),
            vec![DeviceSelector::Index(0), DeviceSelector::Index(1)]
        );
        assert_eq!(DeviceSelector::parse_list(" "), vec![DeviceSelector::Auto]);
        assert_eq!(
            DeviceSelector::parse_list("pocl,2"),
            vec![
                DeviceSelector::Name("pocl".into()),
                DeviceSelector::Index(2)
            ]
        );
    }

    #[test]
    fn versions() {
        assert_eq!(major_version("OpenCL 3.0 CUDA"), 3);
        assert_eq!(major_version("OpenCL 1.2 pocl"), 1);
        assert_eq!(major_version("garbage"), 1);
    }

    #[test]
    fn listing_never_panics() {
        let t = list_devices_text();
        assert!(!t.is_empty());
    }

    #[test]
    fn listing_leaves_the_sigbus_guard_in_place() {
        // PoCL's LLVM installs its own SIGBUS handler when PoCL lists its
        // devices (see `sys::guard`).
        let _alone = crate::sys::guard::exclusive();
        let listed = list_devices();
        // (Without a device nothing is listed and nothing can take SIGBUS:
        // a failure only where a device is required.)
        if std::env::var("GSEARCH_REQUIRE_OPENCL").as_deref() == Ok("1") {
            listed.expect("an OpenCL device (GSEARCH_REQUIRE_OPENCL=1)");
        }
        assert!(crate::sys::guard::in_place());
    }
}
