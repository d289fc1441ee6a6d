//! What a worker's next operation is: a read or a write (by the mix),
//! where in the thread's region (at random, or the next bytes of the
//! region), and how long (one size, a split of sizes, a range), as fio
//! decides them.
//!
//! Random offsets are multiples of the job's alignment unit (fio's `ba`,
//! by default the smallest block size), drawn either independently (candor's
//! own jobs, fio's `norandommap`) or from a shuffle that visits every
//! offset once per pass (fio's default random map), or from a skewed
//! distribution (fio's `random_distribution`, distribution.rs). fio's offset modifier
//! (`rw=randread:8`: a new random offset every 8 operations; `rw=write:4k`:
//! 4 KiB skipped after every write) is kept here too.
//!
//! The common case (one block size, independent offsets) costs one modulo
//! and a few predictable branches per operation.

use super::buffer::Payload;
use super::distribution::Skewed;
use super::job::{BlockSizes, JobSpec, Modifier};

/// How long operations of one direction are.
#[derive(Debug, Clone)]
enum Lengths {
    Fixed(u32),
    /// Sizes with cumulative shares in percent (the last is 100).
    Split {
        lens: Vec<u32>,
        cumulative: Vec<u32>,
    },
    /// fio's bsrange: low + uniform(0, high), down to a multiple of low, at most high.
    Range {
        low: u64,
        high: u64,
    },
}

impl Lengths {
    fn of(sizes: &BlockSizes) -> Lengths {
        match sizes {
            BlockSizes::Fixed(b) => Lengths::Fixed(*b as u32),
            BlockSizes::Split(v) if v.len() == 1 => Lengths::Fixed(v[0].0 as u32),
            BlockSizes::Split(v) => {
                let mut sum = 0;
                let cumulative = v
                    .iter()
                    .map(|(_, p)| {
                        sum += p;
                        sum
                    })
                    .collect();
                Lengths::Split {
                    lens: v.iter().map(|(b, _)| *b as u32).collect(),
                    cumulative,
                }
            }
            BlockSizes::Range(lo, hi) if lo == hi => Lengths::Fixed(*lo as u32),
            BlockSizes::Range(lo, hi) => Lengths::Range {
                low: *lo,
                high: *hi,
            },
        }
    }

    #[inline]
    fn pick(&self, rng: &mut Payload) -> u32 {
        match self {
            Lengths::Fixed(len) => *len,
            Lengths::Split { lens, cumulative } => {
                let r = (rng.next_u64() % 100) as u32;
                let i = cumulative
                    .iter()
                    .position(|c| r < *c)
                    .unwrap_or(lens.len() - 1);
                lens[i]
            }
            Lengths::Range { low, high } => {
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let len = low + (u * *high as f64) as u64;
                (len - len % low).min(*high) as u32
            }
        }
    }

    fn is_fixed(&self) -> bool {
        matches!(self, Lengths::Fixed(_))
    }

    /// The shortest operation of this direction.
    fn shortest(&self) -> u64 {
        match self {
            Lengths::Fixed(len) => u64::from(*len),
            Lengths::Split { lens, .. } => lens.iter().copied().min().map_or(1, u64::from),
            Lengths::Range { low, .. } => *low,
        }
        .max(1)
    }
}

/// A bijection of [0, 2^bits), the smallest power of two holding `n`
/// values, built from steps that are each one-to-one on `bits`-bit numbers
/// (xor with a key, multiply by an odd key, xor with the number shifted
/// right, add a key). The random map walks it in counter order; the
/// distributions (`distribution.rs`) walk a fixed one from a rank.
#[derive(Debug, Clone)]
pub(super) struct Bijection {
    mask: u64,
    shift: u32,
    /// keys[0] and keys[2] are odd.
    keys: [u64; 3],
}

impl Bijection {
    /// For values below `n` (at least 1), with `keys` (made odd where a
    /// step multiplies).
    pub(super) fn new(n: u64, keys: [u64; 3]) -> Bijection {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        Bijection {
            mask: if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
            shift: (bits / 2).max(1),
            keys: [keys[0] | 1, keys[1], keys[2] | 1],
        }
    }

    /// The largest value the bijection covers.
    fn mask(&self) -> u64 {
        self.mask
    }

    #[inline]
    pub(super) fn permute(&self, x: u64) -> u64 {
        let m = self.mask;
        let mut x = (x ^ self.keys[1]) & m;
        x = x.wrapping_mul(self.keys[0]) & m;
        x ^= x >> self.shift;
        x = x.wrapping_add(self.keys[1] >> 7) & m;
        x = x.wrapping_mul(self.keys[2]) & m;
        x ^ (x >> self.shift)
    }

    /// A one-to-one map of [0, n) for `x < n`: the bijection applied
    /// until it lands below `n` (cycle walking).
    #[inline]
    pub(super) fn below(&self, n: u64, x: u64) -> u64 {
        let mut x = x;
        loop {
            x = self.permute(x);
            if x < n {
                return x;
            }
        }
    }
}

/// The random map: a [`Bijection`] with keys drawn per pass, walked in
/// counter order and skipping values past `n`: every offset once per pass,
/// in an order that looks random.
#[derive(Debug, Clone)]
struct Shuffle {
    n: u64,
    bijection: Bijection,
    counter: u64,
}

impl Shuffle {
    fn new(n: u64, rng: &mut Payload) -> Shuffle {
        let mut s = Shuffle {
            n: n.max(1),
            bijection: Bijection::new(n, [1, 0, 1]),
            counter: 0,
        };
        s.rekey(rng);
        s
    }

    fn rekey(&mut self, rng: &mut Payload) {
        self.bijection = Bijection::new(self.n, [rng.next_u64(), rng.next_u64(), rng.next_u64()]);
        self.counter = 0;
    }

    #[inline]
    fn next(&mut self, rng: &mut Payload) -> u64 {
        loop {
            if self.counter > self.bijection.mask() {
                self.rekey(rng);
            }
            let x = self.bijection.permute(self.counter);
            self.counter += 1;
            if x < self.n {
                return x;
            }
        }
    }
}

/// How random offsets are drawn.
#[derive(Debug, Clone)]
enum Order {
    Independent,
    Shuffled(Shuffle),
    /// Independent, but not uniform.
    Skewed(Skewed),
}

/// One operation to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Next {
    pub write: bool,
    /// Byte offset in the file.
    pub offset: u64,
    pub len: u32,
}

/// The pattern of one worker thread.
pub struct Pattern {
    mixed: bool,
    random: bool,
    write_only: bool,
    rwmixread: u64,
    /// Reads, writes.
    lengths: [Lengths; 2],
    /// Either direction can draw more than one size.
    variable: bool,
    /// The shortest operation of each direction (a write is never cut to a
    /// read's size: `bs=4k,8k` writes 8 KiB only).
    shortest: [u64; 2],
    /// The thread's region of its file: first byte and length.
    start: u64,
    len: u64,
    /// Random offsets: multiples of `unit`, `slots` of them fit the smallest operation.
    unit: u64,
    slots: u64,
    order: Order,
    /// Sequential: the next offset in the region.
    cursor: u64,
    /// Sequential: bytes the cursor moved over.
    moved: u64,
    /// The offset modifier: operations per random offset (1: none), and
    /// whether they repeat the offset (identical) or continue from it.
    per_offset: u32,
    identical: bool,
    hole: u64,
    /// Backwards sequential I/O: bytes back from the last operation's end.
    back: u64,
    /// The job ends by time, not bytes (backwards I/O restarts at 0 at the end).
    time_based: bool,
    run_left: u32,
    last: (u64, u32),
    /// One size, independent random offsets, no modifier: candor's own
    /// random jobs, which take the short path.
    plain_random: Option<u32>,
}

impl Pattern {
    /// The pattern of a thread whose region is `len` bytes from `start`;
    /// sequential jobs begin `first` bytes into it.
    pub fn new(job: &JobSpec, start: u64, len: u64, first: u64, rng: &mut Payload) -> Pattern {
        let sizes = job.sizes();
        let lengths = [Lengths::of(&sizes[0]), Lengths::of(&sizes[1])];
        let min_len = job.min_bs().max(1);
        let shortest = [lengths[0].shortest(), lengths[1].shortest()];
        let unit = job.unit();
        let slots = (len.saturating_sub(min_len) / unit + 1).max(1);
        let skewed = if job.rw.is_random() {
            Skewed::new(&job.distribution, slots, unit, rng)
        } else {
            None
        };
        let order = match skewed {
            Some(s) => Order::Skewed(s),
            None if job.random_map && job.rw.is_random() => {
                Order::Shuffled(Shuffle::new(slots, rng))
            }
            None => Order::Independent,
        };
        let (per_offset, identical, hole, back) = match job.modifier {
            Some(Modifier::Run(n)) => (n.max(1), false, 0, 0),
            Some(Modifier::Same(n)) => (n.max(1), true, 0, 0),
            Some(Modifier::Holes(b)) => (1, false, b, 0),
            Some(Modifier::Back(b)) => (1, false, 0, b),
            None => (1, false, 0, 0),
        };
        let region_units = (len / unit).max(1);
        let plain_random = match (&lengths[0], &lengths[1], &order) {
            (Lengths::Fixed(r), Lengths::Fixed(w), Order::Independent)
                if r == w && per_offset == 1 && job.rw.is_random() =>
            {
                Some(*r)
            }
            _ => None,
        };
        Pattern {
            plain_random,
            mixed: job.rw.is_mixed(),
            random: job.rw.is_random(),
            write_only: !job.rw.reads(),
            rwmixread: job.rwmixread as u64,
            variable: !(lengths[0].is_fixed() && lengths[1].is_fixed()),
            lengths,
            shortest,
            start,
            len,
            unit,
            slots,
            order,
            cursor: (first / unit % region_units) * unit,
            moved: 0,
            per_offset,
            identical,
            hole,
            back,
            time_based: job.byte_limit.is_none(),
            run_left: 0,
            last: (0, 0),
        }
    }

    /// Bytes the sequential cursor moved over so far.
    pub fn moved(&self) -> u64 {
        self.moved
    }

    /// The next operation.
    #[inline]
    pub fn next(&mut self, rng: &mut Payload) -> Next {
        let write = if self.mixed {
            rng.next_u64() % 100 >= self.rwmixread
        } else {
            self.write_only
        };
        if let Some(len) = self.plain_random {
            let offset = self.start + rng.next_u64() % self.slots * self.unit;
            return Next { write, offset, len };
        }
        let d = usize::from(write);
        let mut len = self.lengths[d].pick(rng);
        let offset = if self.random {
            self.random_offset(d, &mut len, rng)
        } else {
            self.sequential_offset(d, &mut len, rng)
        };
        Next {
            write,
            offset: self.start + offset,
            len,
        }
    }

    /// A size of direction `d` that fits `room` bytes: fio draws again until
    /// one fits, and the smallest always does.
    #[inline]
    fn fit(&self, d: usize, len: &mut u32, room: u64, rng: &mut Payload) {
        let mut tries = 0;
        while u64::from(*len) > room && tries <= 8 {
            *len = if tries < 8 {
                self.lengths[d].pick(rng)
            } else {
                self.shortest[d] as u32
            };
            tries += 1;
        }
    }

    #[inline]
    fn random_offset(&mut self, d: usize, len: &mut u32, rng: &mut Payload) -> u64 {
        if self.run_left > 0 {
            self.run_left -= 1;
            let (last, last_len) = self.last;
            let at = if self.identical {
                last
            } else {
                last + u64::from(last_len)
            };
            if at + u64::from(*len) <= self.len {
                self.last = (at, *len);
                return at;
            }
            // The run reached the region's end: a new random offset.
            self.run_left = 0;
        }
        let slot = match &mut self.order {
            Order::Independent => rng.next_u64() % self.slots,
            Order::Shuffled(s) => s.next(rng),
            Order::Skewed(s) => s.next(d == 1, rng),
        };
        let mut at = slot * self.unit;
        if at + self.shortest[d] > self.len {
            // Slots near the end fit the job's shortest operation, not
            // this direction's: its last slot that fits instead.
            at = self.len.saturating_sub(self.shortest[d]) / self.unit * self.unit;
        }
        if self.variable {
            self.fit(d, len, self.len - at, rng);
        }
        if self.per_offset > 1 {
            self.run_left = self.per_offset - 1;
            self.last = (at, *len);
        }
        at
    }

    /// Backwards sequential I/O as fio 3.33 moves (io_u.c,
    /// get_next_seq_offset): the next offset is the end of the last
    /// operation less `back`; the first operation (and one that follows an
    /// end at exactly `back`) is at 0, a step below 0 wraps to the region's
    /// end less `back`, and a time_based job whose operation ended at the
    /// region's end starts again at 0.
    #[inline]
    fn backward_offset(&mut self, len: u32) -> u64 {
        let mut at = self.cursor;
        if at + u64::from(len) > self.len {
            at = 0;
        }
        let end = at + u64::from(len);
        self.cursor = if self.time_based && end >= self.len {
            0
        } else if end >= self.back {
            end - self.back
        } else {
            self.len.saturating_sub(self.back)
        };
        self.moved += u64::from(len);
        at
    }

    #[inline]
    fn sequential_offset(&mut self, d: usize, len: &mut u32, rng: &mut Payload) -> u64 {
        if self.back > 0 {
            return self.backward_offset(*len);
        }
        let mut at = self.cursor;
        if at + u64::from(*len) > self.len {
            if self.variable && at + self.shortest[d] <= self.len {
                self.fit(d, len, self.len - at, rng);
            } else {
                // The end of the region: the next pass starts over.
                at = 0;
            }
        }
        self.cursor = at + u64::from(*len) + self.hole;
        if self.cursor >= self.len {
            self.cursor = 0;
        }
        self.moved += u64::from(*len);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Rw;

    fn draw(job: &JobSpec, len: u64, n: usize) -> Vec<Next> {
        let mut rng = Payload::new(9);
        let mut p = Pattern::new(job, 0, len, 0, &mut rng);
        (0..n).map(|_| p.next(&mut rng)).collect()
    }

    #[test]
    fn a_shuffle_visits_every_offset_once_per_pass() {
        for n in [1u64, 2, 3, 7, 64, 1000, 4097] {
            let mut rng = Payload::new(n);
            let mut s = Shuffle::new(n, &mut rng);
            for _pass in 0..2 {
                let mut seen: Vec<u64> = (0..n).map(|_| s.next(&mut rng)).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
            }
        }
    }

    #[test]
    fn random_map_covers_the_region_exactly_once() {
        let mut job = JobSpec::new(Rw::Randread, 4096, 1);
        job.random_map = true;
        let ops = draw(&job, 256 * 4096, 256);
        let mut offsets: Vec<u64> = ops.iter().map(|o| o.offset / 4096).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, (0..256).collect::<Vec<_>>());
        // Independent offsets repeat some blocks and miss others.
        job.random_map = false;
        let mut offsets: Vec<u64> = draw(&job, 256 * 4096, 256)
            .iter()
            .map(|o| o.offset / 4096)
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        assert!(offsets.len() < 256);
    }

    #[test]
    fn splits_ranges_and_direction_sizes() {
        let mut job = JobSpec::new(Rw::Randrw, 4096, 1);
        job.block_sizes = Some([
            BlockSizes::Split(vec![(4096, 25), (65536, 75)]),
            BlockSizes::Range(4096, 16384),
        ]);
        let ops = draw(&job, 64 << 20, 40_000);
        let reads: Vec<&Next> = ops.iter().filter(|o| !o.write).collect();
        let big = reads.iter().filter(|o| o.len == 65536).count() as f64 / reads.len() as f64;
        assert!((big - 0.75).abs() < 0.02, "64k share {big}");
        let writes: Vec<u32> = ops.iter().filter(|o| o.write).map(|o| o.len).collect();
        for size in [4096, 8192, 12288, 16384] {
            let share = writes.iter().filter(|l| **l == size).count() as f64 / writes.len() as f64;
            assert!((share - 0.25).abs() < 0.02, "{size}: {share}");
        }
        for o in &ops {
            assert_eq!(o.offset % 4096, 0);
            assert!(o.offset + u64::from(o.len) <= 64 << 20);
        }
    }

    #[test]
    fn a_direction_keeps_its_own_sizes_at_the_region_end() {
        // bs 4k/16k for reads, 8k for writes over a small region: the last
        // 4 KiB slot fits a read, never a write, which is not cut to 4 KiB.
        for random_map in [false, true] {
            let mut job = JobSpec::new(Rw::Randrw, 4096, 1);
            job.random_map = random_map;
            job.block_sizes = Some([
                BlockSizes::Split(vec![(4096, 50), (16384, 50)]),
                BlockSizes::Fixed(8192),
            ]);
            let ops = draw(&job, 64 << 10, 20_000);
            for o in &ops {
                assert!(o.offset + u64::from(o.len) <= 64 << 10, "{o:?}");
                if o.write {
                    assert_eq!(o.len, 8192, "{o:?}");
                }
            }
        }
    }

    #[test]
    fn offset_modifiers() {
        // rw=randread:4 : a new random offset every 4 operations, sequential between.
        let mut job = JobSpec::new(Rw::Randread, 4096, 1);
        job.modifier = Some(Modifier::Run(4));
        let ops = draw(&job, 1 << 30, 8);
        for i in [1, 2, 3, 5, 6, 7] {
            assert_eq!(ops[i].offset, ops[i - 1].offset + 4096);
        }
        job.modifier = Some(Modifier::Same(3));
        let ops = draw(&job, 1 << 30, 6);
        assert_eq!(
            (ops[0].offset, ops[1].offset),
            (ops[2].offset, ops[0].offset)
        );
        // rw=write:4k : 4 KiB skipped after every write.
        let mut job = JobSpec::new(Rw::Write, 4096, 1);
        job.modifier = Some(Modifier::Holes(4096));
        let ops = draw(&job, 64 * 4096, 4);
        let offsets: Vec<u64> = ops.iter().map(|o| o.offset).collect();
        assert_eq!(offsets, [0, 8192, 16384, 24576]);
    }

    #[test]
    fn sequential_wraps_at_the_region_end() {
        let job = JobSpec::new(Rw::Read, 4096, 1);
        let mut rng = Payload::new(1);
        let mut p = Pattern::new(&job, 1 << 20, 3 * 4096, 4096, &mut rng);
        let offsets: Vec<u64> = (0..4)
            .map(|_| p.next(&mut rng).offset - (1 << 20))
            .collect();
        assert_eq!(offsets, [4096, 8192, 0, 4096]);
        assert_eq!(p.moved(), 4 * 4096);
    }

    /// fio 3.33's offsets, in KiB, from its `write_iolog` on
    /// `[b] bs=4k rw=read:-N size=64k` (and `size=16k time_based` for the
    /// last), run in /var/tmp on 2026-12-07.
    #[test]
    fn backwards_offsets_are_fios() {
        let kib = |job: &JobSpec, len: u64, n: usize| -> Vec<u64> {
            draw(job, len, n).iter().map(|o| o.offset / 1024).collect()
        };
        let mut job = JobSpec::new(Rw::Read, 4096, 1);
        job.byte_limit = Some(64 << 10);
        for (back, fio) in [
            (
                8,
                vec![0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0],
            ),
            (4, vec![0; 16]),
            (
                12,
                vec![0, 52, 44, 36, 28, 20, 12, 4, 52, 44, 36, 28, 20, 12, 4, 52],
            ),
            (
                2,
                vec![0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30],
            ),
        ] {
            job.modifier = Some(Modifier::Back(back << 10));
            assert_eq!(kib(&job, 64 << 10, 16), fio, "-{back}k");
        }
        job.byte_limit = None;
        job.modifier = Some(Modifier::Back(2 << 10));
        assert_eq!(
            kib(&job, 16 << 10, 16),
            [0, 2, 4, 6, 8, 10, 12, 0, 2, 4, 6, 8, 10, 12, 0, 2],
            "time_based restarts at 0 after the region's end"
        );
    }
}
