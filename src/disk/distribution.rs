//! Where random offsets land when they are not uniform: fio's
//! `random_distribution` (zipf, pareto, normal, zoned, zoned_abs), so a job
//! that models a cache's hot set hits the same share of its blocks under
//! candor as under fio.
//!
//! Each model follows fio 3.33's (lib/zipf.c, lib/gauss.c, io_u.c): the
//! same formulas give the same shape, while the random numbers are
//! candor's own, so the offsets are not fio's one for one. zipf, pareto and
//! normal draw a rank (0 the hottest) and scatter it over the region with a
//! fixed one-to-one map, as fio scatters with a hash, so the hot blocks are
//! spread over the file rather than packed at its start; a centre moves
//! the scattered ranks round the region, as fio's does. zoned draws a zone
//! by its share of accesses, then a uniform block inside it.
//!
//! fio draws every non-uniform offset independently: it turns its random
//! map off for them (init.c), and so does candor.

use super::buffer::Payload;
use super::pattern::Bijection;

/// fio's default zipf theta and pareto power (fio.h).
const ZIPF_THETA: f64 = 1.1;
const PARETO_H: f64 = 0.2;
/// fio sums the zipf normaliser over at most this many ranks (a larger
/// region shares the last rank's remainder out, as fio does).
const ZIPF_MAX_TERMS: u64 = 10_000_000;
/// fio's normal: the mean of this many uniform draws.
const GAUSS_DRAWS: u64 = 12;
/// fio accepts at most this many zones.
const MAX_ZONES: usize = 256;

/// One zone: its share of the accesses (percent) and its size (percent of
/// the region for `zoned`, bytes for `zoned_abs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    pub access: u32,
    pub size: u64,
}

/// How random offsets are spread (fio's `random_distribution`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Distribution {
    /// Every block alike (fio's `random`, the default).
    #[default]
    Uniform,
    /// Zipf with exponent `theta`; `center` in [0, 1] places the hottest
    /// rank (fio: random when not given).
    Zipf { theta: f64, center: Option<f64> },
    /// Pareto with power `h` in (0, 1).
    Pareto { h: f64, center: Option<f64> },
    /// fio's "normal": the mean of 12 uniform draws over the region, plus a
    /// uniform jitter as wide as `dev` percent of it.
    Normal { dev: f64, center: Option<f64> },
    /// Zones for reads and writes (fio's `zoned`, or `zoned_abs` when
    /// `absolute`: sizes in bytes).
    Zoned {
        absolute: bool,
        zones: [Vec<Zone>; 2],
    },
}

impl Distribution {
    /// fio's value (`zipf:1.2`, `normal`, `zoned:60/10:40/90`), with fio's
    /// defaults and its checks; `size` reads a `zoned_abs` size (`20g`).
    /// Errors are fio's reasons.
    pub fn parse(
        text: &str,
        size: &dyn Fn(&str) -> Result<u64, String>,
    ) -> Result<Distribution, String> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (text, None),
        };
        let kind = match name {
            "random" => return Ok(Distribution::Uniform),
            "zoned" | "zoned_abs" => {
                let rest = rest.ok_or_else(|| format!("{name} needs zones, as in {name}:60/10:40/90"))?;
                return zoned(rest, name == "zoned_abs", size);
            }
            "zipf" | "pareto" | "normal" => name,
            _ => {
                return Err(format!(
                    "'{name}' is not a distribution fio knows (random, zipf, pareto, normal, zoned, zoned_abs)"
                ))
            }
        };
        let (mut value, mut center) = (
            match kind {
                "zipf" => ZIPF_THETA,
                "pareto" => PARETO_H,
                _ => 0.0,
            },
            None,
        );
        if let Some(rest) = rest {
            let (v, c) = match rest.split_once(':') {
                Some((v, c)) => (v, Some(c)),
                None => (rest, None),
            };
            let float = |s: &str| {
                s.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| {
                        format!("'{s}' is not a number (fio: random postfix parsing failed)")
                    })
            };
            value = float(v)?;
            center = c.map(float).transpose()?;
        }
        if let Some(c) = center {
            if !(0.0..=1.0).contains(&c) {
                return Err(format!(
                    "the distribution centre {c} is out of range (0 <= center <= 1.0)"
                ));
            }
        }
        match kind {
            "zipf" if value == 1.0 => Err("zipf theta must be different than 1.0".into()),
            "zipf" => Ok(Distribution::Zipf {
                theta: value,
                center,
            }),
            "pareto" if value <= 0.0 || value >= 1.0 => Err(format!(
                "pareto power {value} is out of range (0 < input < 1.0)"
            )),
            "pareto" => Ok(Distribution::Pareto { h: value, center }),
            _ if !(0.0..100.0).contains(&value) => Err(format!(
                "normal deviation {value} is out of range (0 <= input < 100.0)"
            )),
            _ => Ok(Distribution::Normal { dev: value, center }),
        }
    }

    pub fn is_uniform(&self) -> bool {
        matches!(self, Distribution::Uniform)
    }

    /// fio's spelling, every default written out (`zipf:1.1`), so the
    /// printed fio command and the Run say what ran.
    pub fn fio(&self) -> String {
        let with_center = |name: &str, v: f64, c: &Option<f64>| match c {
            Some(c) => format!("{name}:{v}:{c}"),
            None => format!("{name}:{v}"),
        };
        match self {
            Distribution::Uniform => "random".into(),
            Distribution::Zipf { theta, center } => with_center("zipf", *theta, center),
            Distribution::Pareto { h, center } => with_center("pareto", *h, center),
            Distribution::Normal { dev, center } => with_center("normal", *dev, center),
            Distribution::Zoned { absolute, zones } => {
                let one = |z: &[Zone]| {
                    z.iter()
                        .map(|z| format!("{}/{}", z.access, z.size))
                        .collect::<Vec<_>>()
                        .join(":")
                };
                let name = if *absolute { "zoned_abs" } else { "zoned" };
                if zones[0] == zones[1] {
                    format!("{name}:{}", one(&zones[0]))
                } else {
                    format!("{name}:{},{}", one(&zones[0]), one(&zones[1]))
                }
            }
        }
    }

    /// Whether a job of pattern `rw` on a region of `size` bytes can use
    /// this distribution: one that is not uniform spreads random offsets
    /// (a sequential job has none), and `zoned_abs` zones must fit.
    pub fn check_for(&self, rw: &crate::result::Rw, size: u64) -> Result<(), String> {
        if !rw.is_random() && !self.is_uniform() {
            return Err(format!(
                "--rw {rw} is sequential; a distribution spreads random offsets"
            ));
        }
        if self.absolute_span().is_some_and(|s| s > size) {
            return Err("the zones span more than --size".to_string());
        }
        Ok(())
    }

    /// `zoned_abs` only: the bytes its largest direction's zones span,
    /// which must fit the region (fio: "zoned_abs sizes exceed file size").
    pub fn absolute_span(&self) -> Option<u64> {
        match self {
            Distribution::Zoned {
                absolute: true,
                zones,
            } => zones
                .iter()
                .map(|z| z.iter().map(|z| z.size).sum::<u64>())
                .max(),
            _ => None,
        }
    }
}

/// fio's zone list: `access/size` entries joined by `:`, one list for
/// all directions or `reads,writes[,trims]`. A `zoned` size left out (or
/// 0) shares what the others leave of 100 %; the accesses must add to 100.
fn zoned(
    text: &str,
    absolute: bool,
    size: &dyn Fn(&str) -> Result<u64, String>,
) -> Result<Distribution, String> {
    let lists: Vec<&str> = text.split(',').collect();
    let one = |list: &str| -> Result<Vec<Zone>, String> {
        let mut zones = Vec::new();
        let mut missing = 0;
        for entry in list.split(':') {
            if entry.is_empty() {
                break;
            }
            if zones.len() == MAX_ZONES {
                return Err(format!("more than fio's {MAX_ZONES} zones"));
            }
            let (access, sz) = match entry.split_once('/') {
                Some((a, s)) => (a, Some(s)),
                None => (entry, None),
            };
            let access: u32 = access
                .trim()
                .parse()
                .map_err(|_| format!("'{access}' is not a percentage of accesses"))?;
            let sz = match (sz, absolute) {
                (Some(s), true) => size(s.trim())?,
                (None, true) => 0,
                // fio reads an empty size as 0, a size left to share.
                (Some(s), false) if s.trim().is_empty() => 0,
                (Some(s), false) => {
                    let p: u64 = s
                        .trim()
                        .parse()
                        .map_err(|_| format!("'{s}' is not a percentage of the region"))?;
                    p.min(100)
                }
                (None, false) => 0,
            };
            if !absolute && sz == 0 {
                missing += 1;
            }
            zones.push(Zone { access, size: sz });
        }
        if zones.is_empty() {
            return Err("no zones".into());
        }
        let access: u32 = zones.iter().map(|z| z.access).sum();
        let sized: u64 = zones.iter().map(|z| z.size).sum();
        if access > 100 || (!absolute && sized > 100) {
            return Err("zone percentages add to more than 100%".into());
        }
        if access < 100 {
            return Err(format!(
                "the zones' access percentages add to {access}, not 100"
            ));
        }
        let left = if absolute { 0 } else { 100 - sized };
        if let Some(share) = left.checked_div(missing) {
            for z in zones.iter_mut().filter(|z| z.size == 0) {
                z.size = share;
            }
        }
        Ok(zones)
    };
    let reads = one(lists[0])?;
    let writes = match lists.get(1) {
        Some(w) if !w.is_empty() => one(w)?,
        _ => reads.clone(),
    };
    Ok(Distribution::Zoned {
        absolute,
        zones: [reads, writes],
    })
}

/// A uniform number in [0, 1).
#[inline]
fn unit_f64(rng: &mut Payload) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A fixed one-to-one map of [0, n): the random map's bijection
/// (`pattern::Bijection`) with fixed keys, cycle-walked below n. It
/// spreads ranks over the region as fio's hash does, and like that hash it
/// is the same for every thread and job: jobs on one region with the same
/// centre (or normal's none) share their hot blocks, as under fio.
#[derive(Debug, Clone)]
struct Scatter {
    n: u64,
    bijection: Bijection,
}

impl Scatter {
    fn new(n: u64) -> Scatter {
        let n = n.max(1);
        Scatter {
            n,
            // Odd multipliers and a mask from fio's and splitmix's constants.
            bijection: Bijection::new(
                n,
                [
                    0x9e37_79b9_7f4a_7c15,
                    0xbf58_476d_1ce4_e5b9,
                    0x94d0_49bb_1331_11eb,
                ],
            ),
        }
    }

    #[inline]
    fn map(&self, x: u64) -> u64 {
        self.bijection.below(self.n, x)
    }
}

/// The model's state for one region of `n` blocks.
#[derive(Debug, Clone)]
enum Model {
    Zipf {
        theta: f64,
        zetan: f64,
        eta: f64,
        alpha: f64,
    },
    Pareto {
        power: f64,
    },
    Normal {
        /// The jitter's width in blocks (0: none).
        width: u64,
    },
    /// For reads and writes: per percentile 1..=100 of accesses, the
    /// zone's first block and its length in blocks.
    Zoned([Vec<(u64, u64)>; 2]),
}

/// Draws the block of each random operation from a distribution.
#[derive(Debug, Clone)]
pub struct Skewed {
    n: u64,
    model: Model,
    scatter: Scatter,
    /// Added to the scattered rank: fio's centre (or a random turn).
    turn: u64,
}

impl Skewed {
    /// A generator over `n` blocks of `unit` bytes, keyed from `rng`; `None`
    /// for the uniform distribution (the caller's own path).
    pub fn new(dist: &Distribution, n: u64, unit: u64, rng: &mut Payload) -> Option<Skewed> {
        let n = n.max(1);
        // Rank 0 stays at 0 (fio's hash keeps 0 too), so the hottest block
        // sits at the centre; the others are scattered over the rest.
        let scatter = Scatter::new(n - 1);
        let random_turn = rng.next_u64() % n;
        let at = |c: &Option<f64>, default: u64| match c {
            Some(c) => ((c * n as f64) as u64).min(n - 1),
            None => default,
        };
        let (model, turn) = match dist {
            Distribution::Uniform => return None,
            Distribution::Zipf { theta, center } => {
                let terms = n.min(ZIPF_MAX_TERMS);
                let zetan: f64 = (1..=terms).map(|i| (1.0 / i as f64).powf(*theta)).sum();
                let zeta2 = 1.0 + 0.5f64.powf(*theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                (
                    Model::Zipf {
                        theta: *theta,
                        zetan,
                        eta,
                        alpha: 1.0 / (1.0 - theta),
                    },
                    at(center, random_turn),
                )
            }
            Distribution::Pareto { h, center } => (
                Model::Pareto {
                    power: h.ln() / (1.0 - h).ln(),
                },
                at(center, random_turn),
            ),
            Distribution::Normal { dev, center } => {
                let width = if *dev == 0.0 {
                    0
                } else {
                    ((n as f64 * dev / 100.0).ceil() as u64).min(n / 2)
                };
                // fio centres the bell at 0.5 and moves it by (centre - 0.5).
                let turn = match center {
                    Some(c) => ((c - 0.5) * n as f64).rem_euclid(n as f64) as u64 % n,
                    None => 0,
                };
                (Model::Normal { width }, turn)
            }
            Distribution::Zoned { absolute, zones } => {
                let table = |zones: &[Zone]| {
                    let mut per = Vec::with_capacity(100);
                    let (mut first, mut bytes, mut pct) = (0u64, 0u64, 0u64);
                    for z in zones {
                        let end = if *absolute {
                            bytes += z.size;
                            (bytes / unit).min(n)
                        } else {
                            pct += z.size;
                            n * pct.min(100) / 100
                        };
                        let start = if *absolute {
                            first.min(n)
                        } else {
                            n * (pct - z.size.min(pct)) / 100
                        };
                        for _ in 0..z.access {
                            per.push((start, end.saturating_sub(start)));
                        }
                        first = end;
                    }
                    per.resize(100, (0, n));
                    per
                };
                (Model::Zoned([table(&zones[0]), table(&zones[1])]), 0)
            }
        };
        Some(Skewed {
            n,
            model,
            scatter,
            turn,
        })
    }

    /// The block of the next operation, in [0, n).
    #[inline]
    pub fn next(&mut self, write: bool, rng: &mut Payload) -> u64 {
        let n = self.n;
        let rank = match &self.model {
            Model::Zipf {
                theta,
                zetan,
                eta,
                alpha,
            } => {
                // Gray et al.'s approximation, as fio computes it.
                let u = unit_f64(rng);
                let z = u * zetan;
                if z < 1.0 {
                    0
                } else if z < 1.0 + 0.5f64.powf(*theta) {
                    1
                } else {
                    let v = (n as f64 * (eta * u - eta + 1.0).powf(*alpha)) as u64;
                    v.min(n - 1)
                }
            }
            Model::Pareto { power } => ((n - 1) as f64 * unit_f64(rng).powf(*power)) as u64,
            Model::Normal { width } => {
                let sum: u64 = (0..GAUSS_DRAWS).map(|_| rng.next_u64() % (n + 1)).sum();
                let mean = sum.div_ceil(GAUSS_DRAWS);
                let mut v = mean as i64;
                if *width > 0 {
                    let mut dev = (unit_f64(rng) * *width as f64) as i64 - (*width / 2) as i64;
                    while dev != 0 && (v + dev < 0 || v + dev >= n as i64) {
                        dev /= 2;
                    }
                    v += dev;
                }
                (v.max(0) as u64).min(n - 1)
            }
            Model::Zoned(tables) => {
                let (start, len) = tables[usize::from(write)][(rng.next_u64() % 100) as usize];
                return if len == 0 {
                    start.min(n - 1)
                } else {
                    start + rng.next_u64() % len
                };
            }
        };
        let block = match rank.min(n - 1) {
            0 => 0,
            r => 1 + self.scatter.map(r - 1),
        };
        (block + self.turn) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Distribution, String> {
        Distribution::parse(text, &|s: &str| {
            crate::units::parse_size(s).map_err(|e| e.to_string())
        })
    }

    #[test]
    fn a_distribution_fits_only_random_jobs_within_their_size() {
        use crate::result::Rw;
        let zipf = parse("zipf:1.2").unwrap();
        assert!(zipf.check_for(&Rw::Randread, 1 << 20).is_ok());
        let e = zipf.check_for(&Rw::Read, 1 << 20).unwrap_err();
        assert!(e.contains("sequential"), "{e}");
        assert!(parse("random")
            .unwrap()
            .check_for(&Rw::Read, 1 << 20)
            .is_ok());
        let zones = parse("zoned_abs:50/4m:50/4m").unwrap();
        assert!(zones.check_for(&Rw::Randread, 8 << 20).is_ok());
        let e = zones.check_for(&Rw::Randread, 4 << 20).unwrap_err();
        assert!(e.contains("span more than"), "{e}");
    }

    /// The share of `draws` that land in the hottest `frac` of the `n` blocks.
    fn hot_share(counts: &[u64], frac: f64) -> f64 {
        let mut c = counts.to_vec();
        c.sort_unstable_by(|a, b| b.cmp(a));
        let k = ((c.len() as f64 * frac).ceil() as usize).max(1);
        c[..k].iter().sum::<u64>() as f64 / c.iter().sum::<u64>() as f64
    }

    fn counts(dist: &str, n: u64, draws: usize, write: bool) -> Vec<u64> {
        let mut rng = Payload::new(42);
        let mut s = Skewed::new(&parse(dist).unwrap(), n, 4096, &mut rng).unwrap();
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            c[s.next(write, &mut rng) as usize] += 1;
        }
        c
    }

    #[test]
    fn fio_values_defaults_and_errors() {
        assert_eq!(
            parse("zipf").unwrap(),
            Distribution::Zipf {
                theta: 1.1,
                center: None
            }
        );
        assert_eq!(parse("pareto").unwrap().fio(), "pareto:0.2");
        assert_eq!(parse("normal").unwrap().fio(), "normal:0");
        assert_eq!(parse("zipf:1.2:0.25").unwrap().fio(), "zipf:1.2:0.25");
        assert_eq!(parse("random").unwrap(), Distribution::Uniform);
        assert!(parse("zipf:1").unwrap_err().contains("different than 1.0"));
        assert!(parse("pareto:1").unwrap_err().contains("0 < input < 1.0"));
        assert!(parse("pareto:0").is_err());
        assert!(parse("normal:100").unwrap_err().contains("< 100.0"));
        assert!(parse("zipf:1.2:1.5").unwrap_err().contains("center"));
        assert!(parse("zipf:x").is_err());
        assert!(parse("gauss").unwrap_err().contains("not a distribution"));
        // Zones: a missing size shares the rest; accesses must add to 100.
        let z = parse("zoned:60/10:30/20:10").unwrap();
        assert_eq!(z.fio(), "zoned:60/10:30/20:10/70");
        // fio's examples/rand-zones.fio leaves the last size empty.
        assert_eq!(
            parse("zoned:50/5:30/15:20/").unwrap().fio(),
            "zoned:50/5:30/15:20/80"
        );
        assert!(parse("zoned:60/10:30/20")
            .unwrap_err()
            .contains("add to 90"));
        assert!(parse("zoned:60/50:50/60")
            .unwrap_err()
            .contains("more than 100"));
        assert_eq!(
            parse("zoned_abs:60/1m:40/3m").unwrap().absolute_span(),
            Some(4 << 20)
        );
        assert_eq!(
            parse("zoned:50/50:50/50,100/100").unwrap().fio(),
            "zoned:50/50:50/50,100/100"
        );
    }

    /// The closed form of fio's zipf approximation: a rank below r has
    /// probability about H(r, theta) / H(n, theta), the generalised harmonic
    /// numbers; the hottest 1 % and 10 % of blocks get that share.
    #[test]
    fn zipf_hot_shares_follow_the_harmonic_numbers() {
        let n = 16_384u64;
        let c = counts("zipf:1.2", n, 400_000, false);
        let h = |r: u64| (1..=r).map(|i| (i as f64).powf(-1.2)).sum::<f64>();
        for frac in [0.01, 0.1] {
            let want = h((n as f64 * frac).ceil() as u64) / h(n);
            let got = hot_share(&c, frac);
            assert!((got - want).abs() < 0.04, "{frac}: {got} vs {want}");
        }
        // Uniform draws put about 1 % into the hottest 1 %: far below.
        assert!(hot_share(&c, 0.01) > 0.5);
    }

    /// pareto: rank = (n-1) u^p, so P(rank < x n) = x^(1/p); with h = 0.2,
    /// p = ln 0.2 / ln 0.8 and the hottest 10 % draw 0.1^(1/p) ~ 0.57... of I/O.
    #[test]
    fn pareto_hot_share_is_the_closed_form() {
        let h: f64 = 0.2;
        let p = h.ln() / (1.0 - h).ln();
        let c = counts("pareto:0.2", 16_384, 400_000, false);
        for frac in [0.01f64, 0.1, 0.2] {
            let want = frac.powf(1.0 / p);
            let got = hot_share(&c, frac);
            assert!((got - want).abs() < 0.02, "{frac}: {got} vs {want}");
        }
    }

    /// normal: the mean of 12 uniforms has standard deviation n/12, so the
    /// hottest 10 % of blocks (the bell's middle, ±n/20 = ±0.6 sd) draw
    /// about 45 % (2 Phi(0.6) - 1); the jitter of normal:10 widens it.
    #[test]
    fn normal_is_a_bell_of_width_n_over_12() {
        let n = 16_384u64;
        let c = counts("normal", n, 400_000, false);
        let got = hot_share(&c, 0.1);
        assert!((got - 0.4515).abs() < 0.02, "{got}");
        let wide = hot_share(&counts("normal:30", n, 400_000, false), 0.1);
        assert!(wide < got - 0.05, "{wide} vs {got}");
    }

    #[test]
    fn zones_get_their_shares_uniformly_within() {
        let n = 1000u64;
        let c = counts("zoned:60/10:30/20:10/70,100/100", n, 200_000, false);
        let share = |a: usize, b: usize| c[a..b].iter().sum::<u64>() as f64 / 200_000.0;
        assert!((share(0, 100) - 0.6).abs() < 0.01);
        assert!((share(100, 300) - 0.3).abs() < 0.01);
        assert!((share(300, 1000) - 0.1).abs() < 0.01);
        // Writes have their own single zone: uniform over the region.
        let w = counts("zoned:60/10:30/20:10/70,100/100", n, 200_000, true);
        let first = w[0..100].iter().sum::<u64>() as f64 / 200_000.0;
        assert!((first - 0.1).abs() < 0.01, "{first}");
        // zoned_abs: 4 KiB blocks, 80 % into the first 40 KiB (10 blocks).
        let a = counts("zoned_abs:80/40k:20/4m", n, 100_000, false);
        let hot = a[0..10].iter().sum::<u64>() as f64 / 100_000.0;
        assert!((hot - 0.8).abs() < 0.01, "{hot}");
    }

    /// As under fio, threads with a centre share their hottest block; without
    /// one, each turns the ranks by its own random amount.
    #[test]
    fn a_centre_gives_threads_one_hot_set() {
        let hottest = |dist: &str, seed: u64| {
            let mut rng = Payload::new(seed);
            let mut s = Skewed::new(&parse(dist).unwrap(), 4096, 4096, &mut rng).unwrap();
            let mut c = vec![0u32; 4096];
            for _ in 0..20_000 {
                c[s.next(false, &mut rng) as usize] += 1;
            }
            (0..4096).max_by_key(|i| c[*i]).unwrap()
        };
        assert_eq!(hottest("zipf:1.2:0.5", 1), 2048);
        assert_eq!(hottest("zipf:1.2:0.5", 2), 2048);
        assert_ne!(hottest("zipf:1.2", 1), hottest("zipf:1.2", 2));
    }

    #[test]
    fn scatter_is_one_to_one() {
        for n in [1u64, 5, 1000, 4096, 5000] {
            let s = Scatter::new(n);
            let mut seen: Vec<u64> = (0..n).map(|x| s.map(x)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }
}
