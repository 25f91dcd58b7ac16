//! Histogram buckets: which bucket a value falls in, and the bucket's bounds and labels,
//! exactly as bpftrace numbers and prints them. The interpreter and the device read-back
//! use [`log2_bucket`] and [`lhist_bucket`]; the printers use the rest.
//!
//! `hist(x, k)` (bpftrace ≥ 0.20, codegen `createLog2Function`, labels from
//! `hist_index_label` in `src/output.cpp`): index 0 holds negative values; then each power
//! of two is split into `N = 2^k` buckets; the first `2N` buckets hold one value each
//! (index `i` holds `i - 1`); bucket `i > 2N` holds `[lower(i), lower(i + 1))` where
//! `lower(i) = 2^((i-1 >> k) - 1) * (N + ((i-1) & (N-1)))`. For plain `hist(x)` (`k = 0`):
//! `(..., 0)`, `[0]`, `[1]`, `[2, 4)`, `[4, 8)`, … , `[4E, 8E)` (index 64).
//!
//! `lhist(x, min, max, step)` (codegen `createLinearFunction`): index 0 below `min`,
//! `1 + (x - min) / step` within, and `1 + (max - min) / step` for `x > max`.

pub use warptrace_ir::MAX_HIST_BITS;

fn clamp_bits(bits: u32) -> u32 {
    bits.min(MAX_HIST_BITS)
}

/// The `hist(x, bits)` bucket index of `value`: [`warptrace_ir::hist_bucket`], the one
/// definition device read-back and printers share. bpftrace casts the argument to a
/// 64-bit signed integer first, so an unsigned value of 2^63 or more (e.g. `u64::MAX`)
/// counts as negative and lands in bucket 0: pass `value as i64` to reproduce that.
pub fn log2_bucket(value: i64, bits: u32) -> usize {
    warptrace_ir::hist_bucket(value, bits) as usize
}

/// How many buckets a `hist(x, bits)` can use: one past the index of `i64::MAX`.
pub fn log2_bucket_count(bits: u32) -> usize {
    log2_bucket(i64::MAX, bits) + 1
}

/// The first value of the range that starts at bucket index `index` (`index ≥ 1`), as
/// `hist_index_label` computes it for `index - 1`; `None` for bucket 0 (no lower bound).
/// Returns `u64` because the bound one past the last bucket is 2^63.
pub fn log2_lower_bound(index: usize, bits: u32) -> Option<u64> {
    let k = clamp_bits(bits);
    let n = 1u64 << k;
    let idx = u64::try_from(index.checked_sub(1)?).ok()?;
    if idx < n {
        return Some(idx);
    }
    let power = (idx >> k) - 1;
    let sub = idx & (n - 1);
    1u64.checked_shl(u32::try_from(power).ok()?)?
        .checked_mul(n + sub)
}

/// The text label of the bound that starts bucket `index` (`index > 2^(bits+1)`): the
/// value with a `K`/`M`/`G`/`T`/`P`/`E` suffix for each factor 2^10 (`16K`, `1M`, `8E`),
/// as bpftrace's `hist_index_label(index - 1, k)`.
fn log2_label(index: usize, bits: u32) -> String {
    let k = clamp_bits(bits);
    let n = 1u64 << k;
    let idx = index.saturating_sub(1) as u64;
    let mut power = (idx >> k).saturating_sub(1);
    let sub = idx & (n - 1);
    let decade = power / 10;
    power -= 10 * decade;
    let mantissa = (1u64 << power) * (n + sub);
    match b" KMGTPE".get(decade as usize) {
        Some(b' ') | None => mantissa.to_string(),
        Some(&s) => format!("{mantissa}{}", s as char),
    }
}

/// The row header of log2 bucket `index` in text output: `(..., 0)`, `[0]`, `[1]`,
/// `[2, 4)`, `[16K, 32K)` (bpftrace `TextOutput::hist_to_str`).
pub fn log2_header(index: usize, bits: u32) -> String {
    let n2 = 2usize << clamp_bits(bits);
    if index == 0 {
        "(..., 0)".to_string()
    } else if index <= n2 {
        format!("[{}]", index - 1)
    } else {
        format!(
            "[{}, {})",
            log2_label(index, bits),
            log2_label(index + 1, bits)
        )
    }
}

/// The `lhist(x, min, max, step)` bucket index of `value` (bpftrace's
/// `createLinearFunction`; [`warptrace_ir::lhist_bucket`]; `step` must be positive, which
/// the language checks). Note `x == max` and any `x` past
/// the last full step land in the last bucket, `[max, ...)`.
pub fn lhist_bucket(value: i64, min: i64, max: i64, step: i64) -> usize {
    warptrace_ir::lhist_bucket(value, min, max, step) as usize
}

/// How many buckets an `lhist(x, min, max, step)` uses: the steps plus the below-`min`
/// and at-or-above-`max` buckets.
pub fn lhist_bucket_count(min: i64, max: i64, step: i64) -> usize {
    lhist_bucket(max, min, max, step) + 1
}

/// A bound in lhist text output: with a step that is a multiple of 1024, multiples of
/// 2^20 print as `NM` and of 2^10 as `NK` (bpftrace `lhist_index_label`).
fn lhist_label(number: i128, step: i64) -> String {
    const KILO: i128 = 1024;
    const MEGA: i128 = 1024 * 1024;
    if i128::from(step) % KILO != 0 || number == 0 {
        number.to_string()
    } else if number % MEGA == 0 {
        format!("{}M", number / MEGA)
    } else if number % KILO == 0 {
        format!("{}K", number / KILO)
    } else {
        number.to_string()
    }
}

/// The row header of lhist bucket `index` in text output: `(..., min)`, `[lo, hi)`,
/// `[max, ...)` (bpftrace `TextOutput::lhist_to_str`).
pub fn lhist_header(index: usize, min: i64, max: i64, step: i64) -> String {
    let last = lhist_bucket_count(min, max, step) - 1;
    let step_w = i128::from(step.max(1));
    let i = index as i128;
    if index == 0 {
        format!("(..., {})", lhist_label(i128::from(min), step))
    } else if index == last {
        format!("[{}, ...)", lhist_label(i128::from(max), step))
    } else {
        let lo = (i - 1) * step_w + i128::from(min);
        let hi = i * step_w + i128::from(min);
        format!("[{}, {})", lhist_label(lo, step), lhist_label(hi, step))
    }
}

/// The inclusive `(min, max)` of lhist bucket `index` for JSON: `(None, min - 1)` below,
/// `(max, None)` above (bpftrace `JsonOutput::lhist_to_str`).
pub(crate) fn lhist_json_bounds(
    index: usize,
    min: i64,
    max: i64,
    step: i64,
) -> (Option<i128>, Option<i128>) {
    let last = lhist_bucket_count(min, max, step) - 1;
    let step_w = i128::from(step.max(1));
    let i = index as i128;
    if index == 0 {
        (None, Some(i128::from(min) - 1))
    } else if index == last {
        (Some(i128::from(max)), None)
    } else {
        let lo = (i - 1) * step_w + i128::from(min);
        (Some(lo), Some(lo + step_w - 1))
    }
}

/// The inclusive `(min, max)` of log2 bucket `index` for JSON: `(None, -1)` for the
/// negative bucket (bpftrace `JsonOutput::hist_to_str`).
pub(crate) fn log2_json_bounds(index: usize, bits: u32) -> (Option<i128>, Option<i128>) {
    if index == 0 {
        return (None, Some(-1));
    }
    let lo = log2_lower_bound(index, bits).map(i128::from);
    let hi = log2_lower_bound(index + 1, bits).map(|b| i128::from(b) - 1);
    (lo, hi)
}

/// The first and last nonzero entries of `counts[..len]` (bpftrace `hist_prepare` /
/// `lhist_prepare`: leading and trailing empty buckets are not printed, inner ones are).
pub(crate) fn nonzero_range(counts: &[u64]) -> Option<(usize, usize)> {
    let first = counts.iter().position(|&c| c > 0)?;
    let last = counts.iter().rposition(|&c| c > 0)?;
    Some((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_bucket_boundaries() {
        assert_eq!(log2_bucket(-1, 0), 0);
        assert_eq!(log2_bucket(i64::MIN, 0), 0);
        assert_eq!(log2_bucket(0, 0), 1);
        assert_eq!(log2_bucket(1, 0), 2);
        assert_eq!(log2_bucket(2, 0), 3);
        assert_eq!(log2_bucket(3, 0), 3);
        assert_eq!(log2_bucket(4, 0), 4);
        assert_eq!(log2_bucket(7, 0), 4);
        assert_eq!(log2_bucket(8, 0), 5);
        assert_eq!(log2_bucket(5, 0), 4);
        assert_eq!(log2_bucket(100, 0), 8);
        assert_eq!(log2_bucket(16 * 1024, 0), 16);
        // u64::MAX reinterpreted as int64 is -1: bpftrace's negative bucket.
        assert_eq!(log2_bucket(u64::MAX as i64, 0), 0);
        assert_eq!(log2_bucket(i64::MAX, 0), 64);
        assert_eq!(log2_bucket_count(0), 65);
    }

    #[test]
    fn log2_bucket_with_bits() {
        // k = 2: N = 4; 0..=7 one value each (indexes 1..=8).
        assert_eq!(log2_bucket(7, 2), 8);
        assert_eq!(log2_bucket(8, 2), 9);
        assert_eq!(log2_bucket(9, 2), 9);
        assert_eq!(log2_bucket(10, 2), 10);
        // bpftrace's own example: index 27 starts at 224, so 224 is in bucket 28.
        assert_eq!(log2_lower_bound(28, 2), Some(224));
        assert_eq!(log2_bucket(224, 2), 28);
        assert_eq!(log2_bucket(223, 2), 27);
        // Every bucket's lower bound maps back to that bucket.
        for bits in 0..=MAX_HIST_BITS {
            for index in 1..log2_bucket_count(bits) {
                let lo = log2_lower_bound(index, bits).expect("bound");
                let lo = i64::try_from(lo).expect("fits");
                assert_eq!(log2_bucket(lo, bits), index, "bits {bits} index {index}");
                assert_eq!(log2_bucket(lo - 1, bits), index - 1);
            }
        }
        assert_eq!(
            log2_bucket(i64::MAX, 9),
            log2_bucket(i64::MAX, MAX_HIST_BITS)
        );
    }

    #[test]
    fn log2_headers() {
        let h = |v: i64| log2_header(log2_bucket(v, 0), 0);
        assert_eq!(h(-5), "(..., 0)");
        assert_eq!(h(0), "[0]");
        assert_eq!(h(1), "[1]");
        assert_eq!(h(3), "[2, 4)");
        assert_eq!(h(1000), "[512, 1K)");
        assert_eq!(h(20_000), "[16K, 32K)");
        assert_eq!(h(1 << 20), "[1M, 2M)");
        assert_eq!(h(3 << 30), "[2G, 4G)");
        assert_eq!(h(i64::MAX), "[4E, 8E)");
        assert_eq!(log2_header(log2_bucket(224, 2), 2), "[224, 256)");
        assert_eq!(log2_header(log2_bucket(5, 2), 2), "[5]");
    }

    #[test]
    fn lhist_buckets() {
        assert_eq!(lhist_bucket(-1, 0, 100, 10), 0);
        assert_eq!(lhist_bucket(0, 0, 100, 10), 1);
        assert_eq!(lhist_bucket(9, 0, 100, 10), 1);
        assert_eq!(lhist_bucket(10, 0, 100, 10), 2);
        assert_eq!(lhist_bucket(99, 0, 100, 10), 10);
        assert_eq!(lhist_bucket(100, 0, 100, 10), 11);
        assert_eq!(lhist_bucket(i64::MAX, 0, 100, 10), 11);
        assert_eq!(lhist_bucket(i64::MIN, 0, 100, 10), 0);
        assert_eq!(lhist_bucket_count(0, 100, 10), 12);
        assert_eq!(lhist_header(0, 0, 100, 10), "(..., 0)");
        assert_eq!(lhist_header(1, 0, 100, 10), "[0, 10)");
        assert_eq!(lhist_header(11, 0, 100, 10), "[100, ...)");
        assert_eq!(lhist_header(2, 0, 4096, 1024), "[1K, 2K)");
        assert_eq!(lhist_header(1, 0, 2 << 20, 1 << 20), "[0, 1M)");
        // Steps that are not multiples of 1024 print plain numbers.
        assert_eq!(lhist_header(2, 0, 4096, 1000), "[1000, 2000)");
    }
}
