//! [`KernelTimer`]: the small public API the kernel benchmark
//! (`gsearch-bench-kernels`) times the literal kernels with: one kernel
//! built for a set, run over device-resident text, timed by OpenCL
//! profiling events, next to a device-to-device copy of the same text;
//! also the DFA kernel for a regex set (`gsearch-bench-dfa`).

use std::time::Duration;

use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};

use crate::engine::LiteralSet;
use crate::engine::dfa_table::DfaSet;

use super::cache::ProgramCache;
use super::device::DeviceInfo;
use super::error::cl;
use super::gpu::{Gpu, GpuConfig};
use super::host::{alloc, time_copies, upload_padded};
use super::kernels::{KernelKind, PAD};

/// Result entries stored per run (more matches are counted, not stored).
const RESULT_CAP: usize = 1 << 20;

/// Text copied to the device once, padded for the kernels.
pub struct DeviceText {
    buf: Buffer<u8>,
    len: usize,
}

impl DeviceText {
    /// Bytes of text (the padding not counted).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One literal kernel built for one set, with its result buffers.
pub struct KernelTimer {
    gpu: Gpu,
    out: Buffer<u32>,
    count: Buffer<u32>,
}

impl KernelTimer {
    /// Builds `kind` for `set` on `info` (through the program cache), with
    /// work-groups of at most `work_group` and `iters` positions per
    /// work-item per block.
    pub fn new(
        info: &DeviceInfo,
        kind: KernelKind,
        set: &LiteralSet,
        work_group: Option<usize>,
        iters: usize,
    ) -> Result<KernelTimer, String> {
        let cfg = GpuConfig {
            cache: &ProgramCache::default_location(),
            work_group,
            iters,
            fault: None,
            dfa: None,
        };
        let gpu = Gpu::new(info, kind, &set.patterns, set.fold_ascii, &cfg)?;
        let out = alloc(gpu.context(), CL_MEM_READ_WRITE, RESULT_CAP)
            .map_err(cl("allocating the result buffer"))?;
        let count =
            alloc(gpu.context(), CL_MEM_READ_WRITE, 16).map_err(cl("allocating the counter"))?;
        Ok(KernelTimer { gpu, out, count })
    }

    /// Builds the DFA kernel (`dfa.cl`) for `set`'s groups on `info`, with
    /// work-groups of at most `work_group` (`GSEARCH_DFA_SEG` sets the
    /// bytes per work-item). Matches are candidate lines, once per group.
    pub fn new_dfa(
        info: &DeviceInfo,
        set: &DfaSet,
        work_group: Option<usize>,
    ) -> Result<KernelTimer, String> {
        let cfg = GpuConfig {
            cache: &ProgramCache::default_location(),
            work_group,
            iters: 1,
            fault: None,
            dfa: Some(set),
        };
        let gpu = Gpu::new(info, KernelKind::Dfa, &[], false, &cfg)?;
        let out = alloc(gpu.context(), CL_MEM_READ_WRITE, RESULT_CAP)
            .map_err(cl("allocating the result buffer"))?;
        let count =
            alloc(gpu.context(), CL_MEM_READ_WRITE, 16).map_err(cl("allocating the counter"))?;
        Ok(KernelTimer { gpu, out, count })
    }

    /// The work-group size the kernel was built for.
    pub fn work_group(&self) -> usize {
        self.gpu.geo.wg
    }

    /// Copies `text` to the device, followed by the kernels' padding.
    pub fn upload(&self, text: &[u8]) -> Result<DeviceText, String> {
        let buf = upload_padded(self.gpu.context(), CL_MEM_READ_ONLY, text, PAD)
            .map_err(cl("uploading the text"))?;
        Ok(DeviceText {
            buf,
            len: text.len(),
        })
    }

    /// One match-mode run: (kernel device time, match count).
    pub fn time_match(&mut self, text: &DeviceText) -> Result<(Duration, u64), String> {
        let (out, count) = (&self.out, &mut self.count);
        self.gpu
            .run_resident(&text.buf, text.len, out, RESULT_CAP, count)
    }

    /// One count-mode run (char16 only): (kernel device time, occurrences
    /// of all `npat` patterns together).
    pub fn time_count(
        &mut self,
        text: &DeviceText,
        npat: usize,
    ) -> Result<(Duration, u64), String> {
        let (d, v) = self
            .gpu
            .run_resident_count(&text.buf, text.len, &mut self.count, npat)?;
        Ok((d, v.iter().sum()))
    }

    /// Device times of `runs` device-to-device copies of `text` (after one
    /// warm-up copy).
    pub fn time_copies(&self, text: &DeviceText, runs: usize) -> Result<Vec<Duration>, String> {
        time_copies(
            self.gpu.context(),
            self.gpu.exec_queue(),
            &text.buf,
            text.len,
            runs,
        )
    }
}
