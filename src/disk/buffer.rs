//! Aligned I/O buffers filled with seeded pseudo-random bytes. O_DIRECT
//! needs aligned memory; fresh random bytes for every write keep compression
//! and dedup below from shrinking what candor writes.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// A heap buffer with a chosen alignment, freed on drop.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes aligned to `align` (a power of two).
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(1), align.max(8)).expect("valid layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        self.layout.size() == 0
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr points to len initialised (zeroed at least) bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated with exactly this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// The payload generator: xoshiro256++ (a specified algorithm, so the same
/// seed gives the same bytes on every host). Offsets and choices come from
/// one generator; bulk data from four interleaved ones ([`Lanes`]).
pub struct Payload {
    rng: Xoshiro256PlusPlus,
    lanes: Lanes,
}

impl Payload {
    pub fn new(seed: u64) -> Payload {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let lanes = Lanes::new(&mut rng);
        Payload { rng, lanes }
    }

    /// Fills the slice with new pseudo-random bytes: the test file, and every
    /// block before it is written. Changing a few bytes per block (fio's
    /// default "scramble") is not enough: a layer that compresses records
    /// larger than a block, or deduplicates sectors, finds the rest repeated
    /// and stores less than candor wrote.
    #[inline]
    pub fn fill(&mut self, bytes: &mut [u8]) {
        self.lanes.fill(bytes);
    }

    /// The next raw random word (offsets, read/write mix).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// Four independent xoshiro256++ generators stepped side by side, so the
/// CPU works on four dependency chains at once: 7-8 GB/s per core on the
/// project's VM (BENCHMARKS.md), enough to refresh every written block.
struct Lanes {
    s: [[u64; 4]; 4],
}

impl Lanes {
    fn new(seeder: &mut Xoshiro256PlusPlus) -> Lanes {
        let mut s = [[0u64; 4]; 4];
        for lane in 0..4 {
            let mut g = Xoshiro256PlusPlus::seed_from_u64(seeder.next_u64());
            for word in s.iter_mut() {
                word[lane] = g.next_u64();
            }
        }
        Lanes { s }
    }

    #[inline(always)]
    fn next4(&mut self) -> [u64; 4] {
        let [s0, s1, s2, s3] = &mut self.s;
        let mut out = [0u64; 4];
        for l in 0..4 {
            out[l] = s0[l]
                .wrapping_add(s3[l])
                .rotate_left(23)
                .wrapping_add(s0[l]);
            let t = s1[l] << 17;
            s2[l] ^= s0[l];
            s3[l] ^= s1[l];
            s1[l] ^= s2[l];
            s0[l] ^= s3[l];
            s2[l] ^= t;
            s3[l] = s3[l].rotate_left(45);
        }
        out
    }

    fn fill(&mut self, bytes: &mut [u8]) {
        let mut chunks = bytes.chunks_exact_mut(32);
        for chunk in &mut chunks {
            let v = self.next4();
            for (dst, w) in chunk.chunks_exact_mut(8).zip(v) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let v = self.next4();
            let mut tail = [0u8; 32];
            for (dst, w) in tail.chunks_exact_mut(8).zip(v) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
            rest.copy_from_slice(&tail[..rest.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_random() {
        let mut b = AlignedBuf::new(1 << 16, 4096);
        assert_eq!(b.as_mut_ptr() as usize % 4096, 0);
        let mut p = Payload::new(7);
        p.fill(b.as_mut_slice());
        let zeros = b.as_slice().iter().filter(|&&x| x == 0).count();
        assert!(zeros < 1024, "random bytes, not zeros ({zeros} zero bytes)");
    }

    #[test]
    fn same_seed_same_bytes_and_refreshes_differ() {
        let mut a = vec![0u8; 8192 + 5];
        let mut b = vec![0u8; 8192 + 5];
        Payload::new(1).fill(&mut a);
        Payload::new(1).fill(&mut b);
        assert_eq!(a, b);
        let mut p = Payload::new(2);
        let before = a.clone();
        p.fill(&mut a);
        // Every 16-byte piece changes (equal pieces by chance: 2^-128).
        for (x, y) in a.chunks(16).zip(before.chunks(16)) {
            assert_ne!(x, y);
        }
    }
}
