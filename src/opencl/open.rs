//! An opened OpenCL device for the sorted search ([`ClDevice`]): its own
//! context, an in-order profiling queue and, on first use, the default
//! on-device queue for device-side enqueue; and the choice of device.
//!
//! Selection order for [`open_device`]:
//! 1. the explicit selector, else the environment variable
//!    `GSEARCH_OPENCL_DEVICE`: a decimal index into [`all_devices`] or a
//!    case-insensitive substring of "platform name / device name";
//! 2. with no selector: the first GPU or accelerator, else the first device
//!    of any type (a CPU runtime such as PoCL or Intel's).
//!
//! "No OpenCL here" (no loader library, or a loader without drivers) is
//! reported as [`DeviceError::NoOpenCl`] so callers can fall back to the CPU.

use std::fmt;

use opencl3::command_queue::{
    CL_QUEUE_ON_DEVICE, CL_QUEUE_ON_DEVICE_DEFAULT, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    CommandQueue,
};
use opencl3::context::Context;
use opencl3::device::Device;

use super::device::{DeviceInfo, DeviceSelector, list_devices, pick};
use super::error::{DEVICE_ENV, DeviceError, cl_err};
use super::host::make_queue;

/// Every device of every platform, in loader order (an absent loader or
/// one without devices gives an empty list).
pub fn all_devices() -> Vec<DeviceInfo> {
    list_devices().unwrap_or_default()
}

/// Pick from `devices` by `selector` (an index, or a case-insensitive
/// substring of a platform, vendor or device name, see
/// [`pick`]), or, without one, a GPU or accelerator first
/// and else the first device.
pub fn select_device<'a>(
    devices: &'a [DeviceInfo],
    selector: Option<&str>,
) -> Result<&'a DeviceInfo, DeviceError> {
    if devices.is_empty() {
        return Err(DeviceError::NoOpenCl);
    }
    let given = selector.map(str::trim).filter(|s| !s.is_empty());
    let sel = given.map_or(DeviceSelector::Explicit, DeviceSelector::parse);
    pick(devices, &sel)
        .map(|i| &devices[i])
        .ok_or_else(|| DeviceError::NoMatch {
            selector: given.unwrap_or_default().to_string(),
            available: devices
                .iter()
                .map(|d| format!("{}: {}", d.index, d.label()))
                .collect(),
        })
}

/// An opened device: context plus an in-order host queue with profiling
/// enabled. `Send + Sync` (the opencl3 types it holds are).
pub struct ClDevice {
    pub info: DeviceInfo,
    pub device: Device,
    pub context: Context,
    /// In-order, profiling-enabled host queue.
    pub queue: CommandQueue,
    pub max_work_group_size: usize,
    pub local_mem_size: u64,
    pub max_alloc: u64,
    /// The default on-device queue, created on first use by
    /// [`ClDevice::ensure_device_queue`] for device-side enqueue.
    device_queue: std::sync::OnceLock<Result<CommandQueue, DeviceError>>,
}

impl fmt::Debug for ClDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClDevice")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ClDevice {
    /// Open one enumerated device.
    pub fn open(info: &DeviceInfo) -> Result<ClDevice, DeviceError> {
        let device = Device::new(info.id());
        let context = crate::sys::guard::around_foreign(|| Context::from_device(&device))
            .map_err(cl_err("clCreateContext"))?;
        let queue = make_queue(&context).map_err(cl_err("clCreateCommandQueue"))?;
        Ok(ClDevice {
            info: info.clone(),
            max_work_group_size: device.max_work_group_size().unwrap_or(64).max(1),
            local_mem_size: device.local_mem_size().unwrap_or(16 * 1024),
            max_alloc: device.max_mem_alloc_size().unwrap_or(128 << 20),
            device,
            context,
            queue,
            device_queue: std::sync::OnceLock::new(),
        })
    }

    /// "platform / device (type)", for `--stats` and messages.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.info.label(), self.info.kind())
    }

    /// Create (once) the default on-device queue that `enqueue_kernel`'s
    /// `get_default_queue()` returns. Fails on devices without device-side
    /// enqueue.
    pub fn ensure_device_queue(&self) -> Result<(), DeviceError> {
        if !self.info.device_enqueue {
            return Err(DeviceError::Cl {
                what: "device-side enqueue not supported".into(),
                code: -59, // CL_INVALID_OPERATION
            });
        }
        self.device_queue
            .get_or_init(|| {
                let size = self.device.queue_on_device_preferred_size().unwrap_or(0);
                // SAFETY: the device belongs to self.context.
                unsafe {
                    CommandQueue::create_with_properties(
                        &self.context,
                        self.info.id(),
                        CL_QUEUE_ON_DEVICE
                            | CL_QUEUE_ON_DEVICE_DEFAULT
                            | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                        size.min(u32::MAX as usize) as u32,
                    )
                }
                .map_err(cl_err(
                    "clCreateCommandQueueWithProperties(ON_DEVICE_DEFAULT)",
                ))
            })
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }
}

/// Open the device chosen by `selector`, else by `GSEARCH_OPENCL_DEVICE`,
/// else the preferred one (GPU/accelerator first).
pub fn open_device(selector: Option<&str>) -> Result<ClDevice, DeviceError> {
    let devices = all_devices();
    let env = std::env::var(DEVICE_ENV).ok();
    let sel = selector.or(env.as_deref());
    let info = select_device(&devices, sel)?;
    ClDevice::open(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencl3::device::{CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
    use opencl3::types::cl_device_type;

    fn fake(index: usize, platform: &str, name: &str, t: cl_device_type) -> DeviceInfo {
        DeviceInfo {
            index,
            platform: platform.into(),
            vendor: if platform.starts_with("Portable") {
                "The pocl project".into()
            } else {
                String::new()
            },
            platform_version: String::new(),
            name: name.into(),
            device_type: t,
            version: String::new(),
            c_version: String::new(),
            driver_version: String::new(),
            compute_units: 0,
            global_mem: 0,
            local_mem: 0,
            max_alloc: 0,
            max_work_group: 1,
            device_enqueue: false,
            device: Device::new(std::ptr::null_mut()),
        }
    }

    #[test]
    fn selection_rules() {
        let devs = vec![
            fake(
                0,
                "Portable Computing Language",
                "pthread-Intel(R) Xeon",
                CL_DEVICE_TYPE_CPU,
            ),
            fake(1, "NVIDIA CUDA", "NVIDIA H100", CL_DEVICE_TYPE_GPU),
            fake(2, "Intel(R) OpenCL", "Intel(R) Xeon", CL_DEVICE_TYPE_CPU),
        ];
        assert_eq!(select_device(&devs, None).unwrap().index, 1);
        assert_eq!(select_device(&devs, Some("2")).unwrap().index, 2);
        assert_eq!(select_device(&devs, Some("intel")).unwrap().index, 2);
        assert_eq!(select_device(&devs, Some("pocl")).unwrap().index, 0);
        assert_eq!(select_device(&devs, Some("h100")).unwrap().index, 1);
        assert_eq!(select_device(&devs, Some("xeon")).unwrap().index, 0);
        assert_eq!(select_device(&devs, Some("portable")).unwrap().index, 0);
        assert_eq!(select_device(&devs, Some(" ")).unwrap().index, 1);
        assert!(matches!(
            select_device(&devs, Some("9")),
            Err(DeviceError::NoMatch { .. })
        ));
        assert_eq!(select_device(&[], None).unwrap_err(), DeviceError::NoOpenCl);
        let cpus = &devs[..1];
        assert_eq!(select_device(cpus, None).unwrap().index, 0);
    }
}
