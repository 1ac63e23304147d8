//! The OpenCL layer's errors: [`DeviceError`] (discovery, selection and
//! the sorted search's launches) and the [`cl`] / [`cl_err`] mappers that
//! turn an opencl3 `ClError` into a message naming the failed call.
//!
//! The literal engine carries plain `String`s (its failure policy prints
//! them once and falls back to the CPU); [`cl`] makes them. The sorted
//! search returns [`DeviceError`]s; [`cl_err`] makes them.

use std::fmt;

use opencl3::error_codes::ClError;

/// Environment variable naming the device to use (index or name substring).
pub const DEVICE_ENV: &str = "GSEARCH_OPENCL_DEVICE";

/// Why no device could be opened, or what failed on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceError {
    /// No OpenCL loader or no platform: use the CPU.
    NoOpenCl,
    /// Devices exist but none matches the selector.
    NoMatch {
        selector: String,
        available: Vec<String>,
    },
    /// An OpenCL call failed.
    Cl { what: String, code: i32 },
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::NoOpenCl => write!(f, "no OpenCL platform or device available"),
            DeviceError::NoMatch {
                selector,
                available,
            } => {
                write!(f, "no OpenCL device matches {selector:?}")?;
                if available.is_empty() {
                    write!(f, " (no devices)")
                } else {
                    write!(f, "; available: {}", available.join("; "))
                }
            }
            DeviceError::Cl { what, code } => write!(f, "OpenCL error {code} in {what}"),
        }
    }
}

impl std::error::Error for DeviceError {}

/// A failed OpenCL call as a message: "what: CL_NAME (code)".
pub(crate) fn cl(what: &'static str) -> impl Fn(ClError) -> String {
    move |e| format!("{what}: {e} ({})", e.0)
}

/// A failed OpenCL call as a [`DeviceError::Cl`] naming the call.
pub(crate) fn cl_err(what: impl Into<String>) -> impl FnOnce(ClError) -> DeviceError {
    let what = what.into();
    move |e| DeviceError::Cl { what, code: e.0 }
}
