//! Which block sizes can tell a bandwidth limiter from a path's own ceiling
//! when a plateau is already reached one request at a time.
//!
//! One request at a time costs a path a fixed time (submission, interrupt,
//! the round trip to the host) plus its bytes at the path's rate, so a
//! medium's QD1 bandwidth approaches its ceiling like a hyperbola and
//! reaches it only where the bytes outweigh the fixed cost. A token bucket
//! does not add its delay to the request's (a request waits only for the
//! tokens that the device time did not cover), so below a limiter's
//! setting every block size past a small knee runs at the setting exactly,
//! one request at a time. Large blocks reaching a plateau at QD1 are
//! therefore what both do; small blocks doing so is what only a limiter does.
//!
//! Where "small" ends is measured, not modelled: on this project's VM
//! (virtio, KVM; candor sweeps of 2 s points, 2026-12-05) random reads at
//! QD1 gave 842-915 MB/s at 64 KiB against a path ceiling of 1.66-1.72 GB/s,
//! while 256 KiB at QD1 gave 1,369 MB/s in one sweep and 1,974 MB/s (above
//! 1 MiB's 1,719) in the next: large requests on a virtual path follow no
//! fixed-cost model closely enough to judge, and a sweep that put 256 KiB
//! and 1 MiB at QD1 on one level was read as a cap (a false alarm on a
//! clean disk). No medium candor met serves random blocks of 64 KiB or less
//! at its ceiling one at a time: an SSD or NVMe device pays tens of
//! microseconds per request against 13-120 us for 64 KiB of bytes at
//! 0.5-5 GB/s, a disk pays a seek, a network volume a round trip. Under a
//! 50 MB/s cgroup throttle 64 KiB at QD1 ran at the setting (49.6 MB/s).

/// The largest block at which reaching a bandwidth plateau at QD1, or a
/// queue depth that buys nothing, is a limiter's fingerprint.
pub const SMALL_BLOCK: u64 = 64 << 10;

/// True when `bs`-byte random requests one at a time cannot fill a path on
/// their own, so that a plateau reached there is a limiter's sign.
/// Sequential requests never tell: readahead and a disk's track buffer
/// serve them ahead of the queue.
pub fn too_small_to_fill(bs: u64, random: bool) -> bool {
    random && bs <= SMALL_BLOCK
}
