//! Sorting the match offsets a device returns: unordered `u32` positions
//! (work-groups append in any order), often millions per batch. An LSD
//! radix sort (three passes of 11 bits) costs a few nanoseconds per offset
//! where a comparison sort costs tens, which matters when a pattern list
//! matches most lines.

/// `offsets` sorted ascending, without duplicates, widened to `u64`.
pub fn sorted_distinct(mut offsets: Vec<u32>) -> Vec<u64> {
    if offsets.len() < 4096 {
        offsets.sort_unstable();
    } else {
        radix_sort(&mut offsets);
    }
    let mut out = Vec::with_capacity(offsets.len());
    let mut last = None;
    for o in offsets {
        if last != Some(o) {
            out.push(u64::from(o));
            last = Some(o);
        }
    }
    out
}

/// Sorts `v` ascending: least significant digit first, 11 bits per pass,
/// skipping passes whose digit is the same for every element.
fn radix_sort(v: &mut Vec<u32>) {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    let mut counts = [[0usize; BUCKETS]; 3];
    for &x in v.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[((x >> (pass as u32 * BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    let mut tmp = vec![0u32; v.len()];
    for (pass, c) in counts.iter_mut().enumerate() {
        if c.contains(&v.len()) {
            continue;
        }
        let mut sum = 0;
        for n in c.iter_mut() {
            let k = *n;
            *n = sum;
            sum += k;
        }
        let shift = pass as u32 * BITS;
        for &x in v.iter() {
            let d = ((x >> shift) as usize) & (BUCKETS - 1);
            tmp[c[d]] = x;
            c[d] += 1;
        }
        std::mem::swap(v, &mut tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn equals_a_comparison_sort(v in proptest::collection::vec(any::<u32>(), 0..20_000),
                                    small in any::<bool>()) {
            // Small values leave the upper digits constant (skipped passes).
            let v: Vec<u32> = if small { v.iter().map(|x| x % 3000).collect() } else { v };
            let mut want: Vec<u64> = v.iter().map(|&x| u64::from(x)).collect();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(sorted_distinct(v), want);
        }
    }
}
