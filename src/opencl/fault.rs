//! Fault injection, FOR TESTS ONLY: `GSEARCH_FAULT=build|alloc|enqueue|lost`
//! (optionally `KIND@N`: fail at the N-th batch, counted from 0; default 0;
//! and `:D`: only on the D-th device of a search on several, counted from 0
//! in the order `--opencl-device` lists them; default every device) makes the OpenCL engine fail at that point exactly as a broken device
//! would, so tests can prove that no match is lost and that one warning is
//! printed. Never set it in production.
//!
//! - `build`: the program build fails (the engine starts degraded: CPU only)
//! - `alloc`: allocating the staging/device buffers fails
//! - `enqueue`: enqueueing batch N's kernel fails
//! - `lost`: reading batch N's results back fails (device lost), while
//!   later batches are already in flight
//! - `slowstart`: starting the device takes 3 s longer (a slow driver), so
//!   tests can see that `auto` does not wait for a device it never used,
//!   and (`slowstart:1`) that a search on several devices starts on the
//!   first one ready

/// Where to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Build,
    Alloc,
    Enqueue,
    Lost,
    SlowStart,
}

/// An injected fault: what fails, and at which batch (for enqueue/lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub at_batch: u64,
    /// Only this device of the engines a search opens (`None`: each).
    pub device: Option<usize>,
}

impl Fault {
    pub fn new(kind: FaultKind) -> Fault {
        Fault {
            kind,
            at_batch: 0,
            device: None,
        }
    }

    /// Parses `build`, `alloc`, `enqueue`, `lost`, `slowstart`, optionally
    /// `@N`, then optionally `:D`.
    pub fn parse(s: &str) -> Option<Fault> {
        let s = s.trim().to_ascii_lowercase();
        let (s, device) = match s.split_once(':') {
            Some((s, d)) => (s.to_string(), Some(d.parse().ok()?)),
            None => (s, None),
        };
        let (k, n) = match s.split_once('@') {
            Some((k, n)) => (k.to_string(), n.parse().ok()?),
            None => (s, 0),
        };
        let kind = match k.as_str() {
            "build" => FaultKind::Build,
            "alloc" => FaultKind::Alloc,
            "enqueue" => FaultKind::Enqueue,
            "lost" => FaultKind::Lost,
            "slowstart" => FaultKind::SlowStart,
            _ => return None,
        };
        Some(Fault {
            kind,
            at_batch: n,
            device,
        })
    }

    /// The fault as the `index`-th device of a search sees it.
    pub fn for_device(f: Option<Fault>, index: usize) -> Option<Fault> {
        f.filter(|x| x.device.is_none_or(|d| d == index))
    }

    /// `GSEARCH_FAULT`, if set and valid.
    pub fn from_env() -> Option<Fault> {
        std::env::var("GSEARCH_FAULT")
            .ok()
            .and_then(|s| Fault::parse(&s))
    }

    pub(crate) fn hits(f: Option<Fault>, kind: FaultKind, batch: u64) -> bool {
        matches!(f, Some(x) if x.kind == kind && x.at_batch == batch)
    }

    pub(crate) fn hits_any_batch(f: Option<Fault>, kind: FaultKind) -> bool {
        matches!(f, Some(x) if x.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        assert_eq!(Fault::parse("lost"), Some(Fault::new(FaultKind::Lost)));
        assert_eq!(
            Fault::parse("Enqueue@3"),
            Some(Fault {
                kind: FaultKind::Enqueue,
                at_batch: 3,
                device: None
            })
        );
        assert_eq!(
            Fault::parse("lost@2:1"),
            Some(Fault {
                kind: FaultKind::Lost,
                at_batch: 2,
                device: Some(1)
            })
        );
        assert_eq!(Fault::for_device(Fault::parse("lost:1"), 0), None);
        assert_eq!(Fault::parse("nope"), None);
        assert_eq!(Fault::parse("lost@x"), None);
    }
}
