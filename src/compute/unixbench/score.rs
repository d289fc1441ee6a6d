//! How UnixBench combines passes and builds its index (its `Run` script's
//! `combinePassResults` and `indexResults`, restated): the worst third of the
//! passes (the lowest counts) is dropped, the rest are combined by their
//! geometric mean; a test's index is its score over the baseline times 10;
//! the System Benchmarks Index is the geometric mean of the tests' indexes.

use super::catalogue::Test;

/// The combined score of a test's pass scores, and how many passes it kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Combined {
    pub score: f64,
    pub kept: usize,
    pub dropped: usize,
}

/// Drops the lowest `n / 3` scores (integer division), then the geometric
/// mean of the rest. None when nothing is left or a kept score is not positive.
pub fn combine(pass_scores: &[f64]) -> Option<Combined> {
    let mut sorted: Vec<f64> = pass_scores.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let dropped = sorted.len() / 3;
    let kept = &sorted[dropped..];
    if kept.is_empty() || kept.iter().any(|s| !(*s > 0.0 && s.is_finite())) {
        return None;
    }
    let log_sum: f64 = kept.iter().map(|s| s.ln()).sum();
    Some(Combined {
        score: (log_sum / kept.len() as f64).exp(),
        kept: kept.len(),
        dropped,
    })
}

/// A test's index: score / baseline x 10.
pub fn test_index(test: &Test, score: f64) -> f64 {
    score / test.baseline * 10.0
}

/// The geometric mean of the indexes (UnixBench leaves out ratios at or
/// below 0.000001 from the sum but still counts them; so does this).
pub fn overall_index(indexes: &[f64]) -> Option<f64> {
    if indexes.is_empty() {
        return None;
    }
    let sum: f64 = indexes
        .iter()
        .map(|i| i / 10.0)
        .filter(|r| *r > 0.000001)
        .map(f64::ln)
        .sum();
    Some((sum / indexes.len() as f64).exp() * 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::unixbench::catalogue::find;

    #[test]
    fn the_worst_third_is_dropped() {
        // 10 passes: the 3 lowest go, whatever their order.
        let scores = [
            5.0, 100.0, 1.0, 100.0, 100.0, 100.0, 2.0, 100.0, 100.0, 100.0,
        ];
        let c = combine(&scores).unwrap();
        assert_eq!((c.kept, c.dropped), (7, 3));
        assert!((c.score - 100.0).abs() < 1e-9);
        // 3 passes: the lowest goes, the other two by geometric mean.
        let c = combine(&[1.0, 4.0, 16.0]).unwrap();
        assert_eq!((c.kept, c.dropped), (2, 1));
        assert!((c.score - 8.0).abs() < 1e-9);
        // 1 or 2 passes: nothing dropped.
        assert!((combine(&[3.0]).unwrap().score - 3.0).abs() < 1e-12);
        assert_eq!(combine(&[2.0, 8.0]).unwrap().dropped, 0);
        assert!(combine(&[]).is_none());
        assert!(combine(&[0.0, 1.0]).is_none());
    }

    #[test]
    fn index_against_george() {
        let syscall = find("syscall").unwrap();
        assert!((test_index(syscall, 15000.0) - 10.0).abs() < 1e-9);
        assert!((test_index(syscall, 1_500_000.0) - 1000.0).abs() < 1e-6);
        let i = overall_index(&[10.0, 1000.0]).unwrap();
        assert!((i - 100.0).abs() < 1e-9);
        assert!(overall_index(&[]).is_none());
    }
}
