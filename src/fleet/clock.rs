//! The offset of a host's clock from the controller's, measured over the
//! ssh control session as NTP does: the controller notes when it asked,
//! the host answers with its time, and the answer is taken to describe the
//! middle of the round trip. Of several readings the one with the shortest
//! round trip is kept (the least queueing), and half of its round trip is
//! the uncertainty: the true offset lies within ± that much.
//!
//! Why it matters: each Run's timestamps come from its host's clock. To say
//! which hosts ran at the same time, or to line a Run up with the
//! provider's incident log, the offsets must be known; a host whose clock
//! is minutes off is also worth knowing about for its own sake.

use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A host's clock against the controller's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockOffset {
    /// Host clock minus controller clock, nanoseconds (positive: the host is ahead).
    pub offset_ns: i64,
    /// Half the round trip of the reading used: the offset is ± this.
    pub uncertainty_ns: u64,
    /// Readings taken.
    pub samples: u32,
}

/// The offset from readings: (sent at, round trip, host's answer in
/// seconds since the epoch). None without a usable reading.
pub fn estimate(readings: &[(SystemTime, Duration, f64)]) -> Option<ClockOffset> {
    let (sent, rtt, host) = readings
        .iter()
        .filter(|(_, _, h)| h.is_finite() && *h > 0.0)
        .min_by_key(|(_, rtt, _)| *rtt)?;
    let sent_ns = sent.duration_since(UNIX_EPOCH).ok()?.as_nanos() as i128;
    let mid = sent_ns + (rtt.as_nanos() as i128) / 2;
    // f64 seconds keep about 0.2 us at today's epoch: far below any ssh round trip.
    let host_ns = (host * 1e9).round() as i128;
    Some(ClockOffset {
        offset_ns: (host_ns - mid).clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        uncertainty_ns: (rtt.as_nanos() / 2) as u64,
        samples: readings.len() as u32,
    })
}

/// The controller's own clock: whether the kernel says it is synchronised
/// (NTP, chrony, systemd-timesyncd) and its estimated error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ControllerClock {
    /// The kernel's STA_UNSYNC flag is clear.
    pub synchronized: bool,
    /// The kernel's maximum error estimate, microseconds.
    pub max_error_us: i64,
    /// The kernel's estimated error, microseconds.
    pub est_error_us: i64,
}

impl ControllerClock {
    /// Not read off Linux (FreeBSD's `ntp_adjtime`, Windows's `w32tm` are
    /// not ported): the clock's state is then unknown, never guessed.
    #[cfg(not(target_os = "linux"))]
    pub fn read() -> Option<ControllerClock> {
        None
    }

    /// Reads the kernel's view with `adjtimex` in read-only mode.
    #[cfg(target_os = "linux")]
    pub fn read() -> Option<ControllerClock> {
        // SAFETY: timex is plain data; modes = 0 only reads.
        let mut tx: libc::timex = unsafe { std::mem::zeroed() };
        let state = unsafe { libc::adjtimex(&mut tx) };
        if state < 0 {
            return None;
        }
        Some(ControllerClock {
            synchronized: state != libc::TIME_ERROR && tx.status & libc::STA_UNSYNC == 0,
            max_error_us: tx.maxerror as i64,
            est_error_us: tx.esterror as i64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_round_trip_wins() {
        let t = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let ms = Duration::from_millis;
        // The host is 2.5 s ahead; the fast reading says so within 1 ms.
        let readings = [
            (t, ms(40), 1_800_000_002.5 + 0.030),
            (t + ms(100), ms(2), 1_800_000_002.6 + 0.001),
            (t + ms(200), ms(10), 1_800_000_002.7 + 0.001),
        ];
        let o = estimate(&readings).unwrap();
        assert!((o.offset_ns - 2_500_000_000).abs() < 1_000_000, "{o:?}");
        assert_eq!(o.uncertainty_ns, 1_000_000);
        assert_eq!(o.samples, 3);
        assert!(estimate(&[]).is_none());
        assert!(estimate(&[(t, ms(1), f64::NAN)]).is_none());
    }

    #[test]
    fn controller_clock_reads() {
        assert!(ControllerClock::read().is_some());
    }
}
