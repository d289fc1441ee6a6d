//! What each operation of a job is: `rw` and its modifier, block sizes,
//! alignment, the read/write mix, and how offsets are drawn.

use super::{kb_base, Lowering, MAX_BS};
use crate::disk::{BlockSizes, Distribution, JobSpec, Modifier, Rw};
use crate::fio::jobfile::parse::{Setting, Value};
use crate::fio::jobfile::value;
use crate::fio::jobfile::JobFileError;

impl Lowering<'_> {
    /// `rw=` and its offset modifier (`randread:8`, `write:4k`).
    pub(super) fn pattern(&mut self) -> Result<(Rw, Option<(String, Setting)>), JobFileError> {
        let Some((text, s)) = self.text("rw") else {
            return Ok((Rw::Read, None));
        };
        let (name, modifier) = match text.split_once(':') {
            Some((n, m)) => (n, Some(m.to_string())),
            None => (text, None),
        };
        let rw = Rw::parse(name);
        if !rw.is_runnable() {
            let known = ["trim", "randtrim", "trimwrite", "randtrimwrite"];
            return Err(Self::bad(
                s,
                if known.contains(&name) {
                    format!("'{name}' trims, which candor does not do")
                } else {
                    format!("'{name}' is not an I/O pattern fio knows (read, write, rw, randread, randwrite, randrw, ...)")
                },
            ));
        }
        Ok((rw, modifier.map(|m| (m, s.clone()))))
    }

    pub(super) fn modifier(
        &mut self,
        modifier: Option<(String, Setting)>,
        rw: &Rw,
        min_bs: u64,
    ) -> Result<Option<Modifier>, JobFileError> {
        let Some((text, s)) = modifier else {
            return Ok(None);
        };
        let kb = kb_base(self.job);
        if let Some(back) = text.strip_prefix('-').filter(|_| !rw.is_random()) {
            // fio (io_u.c, get_next_seq_offset) adds the negative step after
            // each block, wrapping to the region's end: backwards or
            // overlapping sequential I/O.
            let n = value::number(back, kb).map_err(|e| Self::bad(&s, e))?;
            let offset = self.number("offset").is_some_and(|(o, _)| o > 0)
                || (self.number("offset_increment").is_some_and(|(o, _)| o > 0)
                    && self.number("numjobs").is_some_and(|(j, _)| j > 1));
            if offset {
                // fio's first backwards step from a non-zero offset starts
                // from the region's size, not its end (io_u.c).
                self.refuse(&s, &format!("backwards I/O ({n} bytes back) from an offset: fio's first step from a non-zero offset starts from a position candor does not reproduce; give offset=0"))?;
                return Ok(None);
            }
            return Ok((n > 0).then_some(Modifier::Back(n)));
        }
        let n = value::number(&text, kb).map_err(|e| Self::bad(&s, e))?;
        if rw.is_random() {
            let identical = match self.text("rw_sequencer") {
                None | Some(("sequential", _)) => false,
                Some(("identical", _)) => true,
                Some((other, rs)) => {
                    return Err(Self::bad(
                        rs,
                        format!("'{other}' is not a sequencer (sequential, identical)"),
                    ))
                }
            };
            let n = u32::try_from(n).map_err(|_| Self::bad(&s, "the modifier is too large"))?;
            Ok((n > 1).then_some(if identical {
                Modifier::Same(n)
            } else {
                Modifier::Run(n)
            }))
        } else {
            if n % min_bs != 0 {
                return Err(Self::bad(
                    &s,
                    format!("a hole of {n} bytes is not a multiple of the {min_bs}-byte block"),
                ));
            }
            Ok((n > 0).then_some(Modifier::Holes(n)))
        }
    }

    /// Block sizes for reads and writes from `bs`, `bsrange` and
    /// `bssplit`, the one fio reads last winning as it does in fio (with
    /// one exception fio mixes, refused).
    pub(super) fn block_sizes(&mut self, rw: &Rw) -> Result<[BlockSizes; 2], JobFileError> {
        let mut sizes = [BlockSizes::Fixed(4096), BlockSizes::Fixed(4096)];
        let mut split_seen: Option<Setting> = None;
        let ordered: Vec<&Setting> = self
            .job
            .inherited
            .iter()
            .chain(self.job.own.iter())
            .filter(|s| matches!(s.def.name, "bs" | "bsrange" | "bssplit"))
            .collect();
        for s in ordered {
            for (d, size) in sizes.iter_mut().enumerate() {
                match &s.value {
                    Value::Numbers(v) => {
                        if let Some(b) = v[d] {
                            *size = BlockSizes::Fixed(b);
                        }
                    }
                    Value::Range(v) => {
                        if let Some((lo, hi)) = v[d] {
                            if split_seen.is_some() {
                                return Err(Self::bad(
                                    s,
                                    "bsrange after bssplit: fio then draws the split's sizes within the range; set one of the two",
                                ));
                            }
                            *size = BlockSizes::Range(lo, hi);
                        }
                    }
                    Value::Split(v) => {
                        if let Some(split) = &v[d] {
                            *size = BlockSizes::Split(split.clone());
                            split_seen = Some(s.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        for (d, size) in sizes.iter().enumerate() {
            let used = if d == 0 { rw.reads() } else { rw.writes() };
            let setting = self
                .get("bssplit")
                .or_else(|| self.get("bsrange"))
                .or_else(|| self.get("bs"));
            let bad = |why: String| match setting {
                Some(s) => Self::bad(s, why),
                None => JobFileError::at(&self.job.pos, why),
            };
            if used && size.min() == 0 {
                return Err(bad("a block size of 0".into()));
            }
            if used && size.max() > MAX_BS {
                return Err(bad(format!(
                    "a block size of {} is above candor's limit of 256 MiB",
                    size.max()
                )));
            }
            if let BlockSizes::Range(lo, hi) = size {
                if used && hi % lo != 0 {
                    return Err(bad(format!(
                        "the range {lo}-{hi}: fio gives its top size a share that differs from the others when it is not a multiple of the bottom one; give multiples"
                    )));
                }
            }
        }
        Ok(sizes)
    }

    /// fio's `ba`: one alignment for the directions the job issues.
    pub(super) fn align(&mut self, rw: &Rw) -> Result<Option<u64>, JobFileError> {
        let Some(s) = self.get("ba") else {
            return Ok(None);
        };
        let Value::Numbers(v) = &s.value else {
            return Ok(None);
        };
        let used: Vec<u64> = [(rw.reads(), v[0]), (rw.writes(), v[1])]
            .into_iter()
            .filter_map(|(u, a)| if u { a } else { None })
            .collect();
        if used.windows(2).any(|w| w[0] != w[1]) {
            return Err(Self::bad(
                s,
                "different alignments for reads and writes are not supported",
            ));
        }
        match used.first() {
            Some(0) => Err(Self::bad(s, "an alignment of 0")),
            other => Ok(other.copied()),
        }
    }

    pub(super) fn mix(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        // rwmixread and rwmixwrite set one share: the later line wins.
        let read = self.number("rwmixread");
        let write = self.number("rwmixwrite");
        let pick = match (read, write) {
            (Some(r), Some(w)) if w.1.pos.line > r.1.pos.line || w.1.pos.file != r.1.pos.file => {
                Some((100u64.checked_sub(w.0), w.1))
            }
            (Some(r), _) => Some((Some(r.0), r.1)),
            (None, Some(w)) => Some((100u64.checked_sub(w.0), w.1)),
            (None, None) => None,
        };
        if let Some((share, s)) = pick {
            match share {
                Some(v) if v <= 100 => spec.rwmixread = v as u32,
                _ => return Err(Self::bad(s, "out of range (0-100)")),
            }
        }
        Ok(())
    }

    pub(super) fn randomness(
        &mut self,
        spec: &mut JobSpec,
        fresh: u64,
    ) -> Result<(), JobFileError> {
        spec.random_map = !self.flag("norandommap");
        if let Some((dist, s)) = self.text("random_distribution") {
            let kb = kb_base(self.job);
            let size = |t: &str| value::number(t, kb).map_err(|e| e.to_string());
            spec.distribution = Distribution::parse(dist, &size).map_err(|e| Self::bad(s, e))?;
            if !spec.distribution.is_uniform() {
                // fio (init.c) turns the random map off for a skewed distribution.
                spec.random_map = false;
            }
        }
        if let Some(s) = self.get("percentage_random") {
            if let Value::Numbers(v) = &s.value {
                if v.iter().flatten().any(|p| *p != 100) {
                    let s = s.clone();
                    self.refuse(&s, "candor's jobs are wholly random or wholly sequential")?;
                }
            }
        }
        spec.seed = match (self.number("randseed"), self.get("randrepeat")) {
            (Some((seed, _)), _) => seed,
            (None, Some(r)) if r.value.as_bool() == Some(true) => {
                // Asked to repeat: the same offsets on every run of this job
                // file (candor's sequence, not fio's).
                self.notes.push(
                    "randrepeat=1: the same offsets on every run (candor's own sequence, seeded from the section name; fio's differs)".to_string(),
                );
                name_seed(&self.job.section)
            }
            _ => fresh,
        };
        Ok(())
    }
}

/// The seed of a job that asks for repeatable offsets: from its name, so
/// every run of the job file draws the same ones.
pub(super) fn name_seed(section: &str) -> u64 {
    section.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
