//! The byte form of a [`DfaSet`] (the device engine's on-disk cache of
//! tables, `opencl::dfa`): little-endian `u32`s, every group as
//!
//! ```text
//! patterns (count, then indexes) | classes (256 bytes) | nclasses | states
//! | start | local (0 or 1) | near (0 or 1) | entries (count, then entries)
//! ```
//!
//! after the group count, and then the factors (count, then each as its
//! length and bytes). [`from_bytes`] checks every field against the
//! others (class numbers below the class count, every entry a state of its
//! own table, local tables within `u16` reach), so a damaged or foreign
//! entry reads as `None`, never as tables the kernel would run off.

use super::dfa_table::{BuildInfo, DfaGroup, DfaSet, MATCH16, MATCH32};

/// `set`'s tables as bytes.
pub fn to_bytes(set: &DfaSet) -> Vec<u8> {
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    put(&mut out, set.groups.len() as u32);
    for g in &set.groups {
        put(&mut out, g.patterns.len() as u32);
        for &p in &g.patterns {
            put(&mut out, p as u32);
        }
        out.extend_from_slice(&g.classes);
        put(&mut out, g.nclasses);
        put(&mut out, g.states);
        put(&mut out, g.start);
        put(&mut out, u32::from(g.local));
        put(&mut out, u32::from(g.near));
        put(&mut out, g.table.len() as u32);
        for &e in &g.table {
            put(&mut out, e);
        }
    }
    put(&mut out, set.factors.len() as u32);
    for f in &set.factors {
        put(&mut out, f.len() as u32);
        out.extend_from_slice(f);
    }
    out
}

/// A reader of little-endian fields that fails at the end of the bytes.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (a, b) = self.bytes.split_at(n);
        self.bytes = b;
        Some(a)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// A count of items of `size` bytes that the rest can hold.
    fn count(&mut self, size: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.checked_mul(size)? <= self.bytes.len()).then_some(n)
    }
}

/// The tables written by [`to_bytes`] for a spec of `patterns` patterns;
/// `None` when the bytes are not such tables.
pub fn from_bytes(bytes: &[u8], patterns: usize) -> Option<DfaSet> {
    let mut r = Reader { bytes };
    let n = r.count(1)?;
    let mut groups = Vec::with_capacity(n);
    for _ in 0..n {
        groups.push(group(&mut r, patterns)?);
    }
    let nf = r.count(4)?;
    let factors = (0..nf)
        .map(|_| {
            let len = r.count(1)?;
            Some(r.take(len)?.to_vec())
        })
        .collect::<Option<Vec<Vec<u8>>>>()?;
    // The full groups first, the near ones after, and factors for them.
    let full = groups.iter().take_while(|g| !g.near).count();
    let near = groups.len() - full;
    let ordered = groups[full..].iter().all(|g| g.near);
    (r.bytes.is_empty() && ordered && (near > 0) != factors.is_empty())
        .then(|| DfaSet::new(groups, factors, BuildInfo::default()))
}

fn group(r: &mut Reader<'_>, patterns: usize) -> Option<DfaGroup> {
    let np = r.count(4)?;
    let pats = (0..np)
        .map(|_| r.u32().map(|p| p as usize).filter(|&p| p < patterns))
        .collect::<Option<Vec<usize>>>()?;
    let classes: [u8; 256] = r.take(256)?.try_into().ok()?;
    let (nclasses, states, start, local) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
    let near = r.u32()?;
    let ne = r.count(4)?;
    let table = (0..ne).map(|_| r.u32()).collect::<Option<Vec<u32>>>()?;
    let g = DfaGroup {
        patterns: pats,
        classes,
        nclasses,
        states,
        start,
        table,
        local: local == 1,
        near: near == 1,
    };
    (local <= 1 && near <= 1 && consistent(&g)).then_some(g)
}

/// Whether `g`'s fields agree: the kernel may follow every entry.
fn consistent(g: &DfaGroup) -> bool {
    let nc = g.nclasses as usize;
    let len = g.table.len();
    let flag = if g.local { MATCH16 } else { MATCH32 };
    let state = |x: u32| (x as usize) < len && (x as usize).is_multiple_of(nc);
    (1..=256).contains(&nc)
        && !g.patterns.is_empty()
        && Some(len) == (g.states as usize).checked_mul(nc)
        && (!g.local || len <= 0x8000)
        && g.classes.iter().all(|&c| (c as usize) < nc)
        && state(g.start)
        && g.table.iter().all(|&e| {
            let x = e & !flag;
            state(x) && (!g.local || x < MATCH16)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dfa_table::{DfaLimits, DfaSpec, NearMode};

    /// A full group (`x{2,5}y`) and near groups (factors `ab`, `zq`).
    fn sample() -> DfaSet {
        let spec = DfaSpec {
            patterns: vec![r"ab[0-9]{3}".into(), r"(?i)zq\w+".into(), "x{2,5}y".into()],
            fixed_strings: false,
            case_insensitive: false,
            factors: vec![Some(vec![b"ab".to_vec()]), Some(vec![b"zq".to_vec()]), None],
        };
        let s = DfaSet::build_mode(
            &spec,
            DfaLimits::for_local_mem(1 << 10),
            1,
            NearMode::Always,
        );
        let s = s.unwrap();
        assert!(s.near_groups() > 0 && s.full_groups() > 0);
        s
    }

    #[test]
    fn round_trip() {
        let s = sample();
        let b = to_bytes(&s);
        let t = from_bytes(&b, 3).expect("tables");
        assert_eq!(to_bytes(&t), b);
        let hay = b"ab123\nzzz\nZQa\nxxy\nzqb\n";
        assert_eq!(t.candidate_lines(hay), s.candidate_lines(hay));
    }

    #[test]
    fn damage_reads_as_none() {
        let b = to_bytes(&sample());
        for cut in [0, 3, 4, 100, b.len() - 1] {
            assert!(from_bytes(&b[..cut], 3).is_none(), "cut {cut}");
        }
        let mut longer = b.clone();
        longer.push(0);
        assert!(from_bytes(&longer, 3).is_none());
        // A pattern index past the spec's patterns.
        assert!(from_bytes(&b, 1).is_none());
        // Any flipped byte either reads as None or as consistent tables.
        for i in (0..b.len()).step_by(7) {
            let mut x = b.clone();
            x[i] ^= 0xA5;
            if let Some(t) = from_bytes(&x, 3) {
                assert!(t.groups.iter().all(consistent));
            }
        }
    }
}
