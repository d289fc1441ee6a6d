//! Aligned I/O buffers filled with seeded pseudo-random bytes. O_DIRECT
//! needs aligned memory; random bytes keep compression below from shrinking
//! what candor writes, and per-write stamps keep dedup from merging blocks.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Dedup engines compare blocks of 4 KiB (VDO) or larger (ZFS records); a
/// unique stamp at the start of every 4 KiB makes every written block unique.
const STAMP_EVERY: usize = 4096;

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
/// seed gives the same bytes on every host).
pub struct Payload {
    rng: Xoshiro256PlusPlus,
    counter: u64,
}

impl Payload {
    pub fn new(seed: u64) -> Payload {
        Payload {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            counter: 0,
        }
    }

    /// Fills the slice with pseudo-random bytes.
    pub fn fill(&mut self, bytes: &mut [u8]) {
        self.rng.fill_bytes(bytes);
    }

    /// Makes a buffer unique before it is written again: a counter and a
    /// random word at the start of every 4 KiB (or of the block, if smaller).
    #[inline]
    pub fn stamp(&mut self, block: &mut [u8]) {
        let step = STAMP_EVERY.min(block.len()).max(16);
        let mut at = 0;
        while at + 16 <= block.len() {
            self.counter = self.counter.wrapping_add(1);
            block[at..at + 8].copy_from_slice(&self.counter.to_le_bytes());
            block[at + 8..at + 16].copy_from_slice(&self.rng.next_u64().to_le_bytes());
            at += step;
        }
    }

    /// The next raw random word (offsets, read/write mix).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
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
    fn same_seed_same_bytes_and_stamps_differ() {
        let mut a = vec![0u8; 8192];
        let mut b = vec![0u8; 8192];
        Payload::new(1).fill(&mut a);
        Payload::new(1).fill(&mut b);
        assert_eq!(a, b);
        let mut p = Payload::new(2);
        let before = a.clone();
        p.stamp(&mut a);
        assert_ne!(a[..16], before[..16]);
        assert_ne!(a[4096..4112], before[4096..4112]);
        assert_eq!(a[16..4096], before[16..4096]);
    }
}
