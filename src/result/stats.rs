//! Medians and spread across passes: the figure of a metric is the median of
//! its passes, and the spread is always kept beside it.

use serde::{Deserialize, Serialize};

/// The median of the values (mean of the middle two for an even count); None when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// A metric over passes: median, min, max and max/min.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// max / min (1.0 = identical passes); None when min is 0.
    pub ratio: Option<f64>,
    /// How many passes.
    pub n: usize,
}

impl Spread {
    /// The spread of the values; None when there are none.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let median = median(values)?;
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Spread {
            median,
            min,
            max,
            ratio: (min > 0.0).then(|| max / min),
            n: values.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn spread() {
        let s = Spread::of(&[4269.0, 4365.0, 2901.0]).unwrap();
        assert_eq!(s.median, 4269.0);
        assert_eq!(s.min, 2901.0);
        assert_eq!(s.max, 4365.0);
        assert!((s.ratio.unwrap() - 1.5047).abs() < 1e-3);
        assert_eq!(Spread::of(&[0.0, 1.0]).unwrap().ratio, None);
    }
}
