//! The control file's size: at least 2x RAM (and a few GiB, and 2x the
//! main file), bounded by free space with the safety margin; an explicit
//! size is taken as given when it fits. Pure: tested on made-up machines.

use super::super::presets::ControlRequest;
use crate::units::fmt_bytes;
use serde::{Deserialize, Serialize};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The smallest control file `auto` will make ("never less than a few GiB":
/// a small control file excludes only small caches, so the comparison would
/// prove little). A user's explicit `--control-size` may go below it (tests,
/// tiny disks).
pub const MIN_CONTROL: u64 = 4 * GIB;

/// The control file: the read tests again on a file larger than RAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlPlan {
    /// What was asked for: `auto`, `off` or a size.
    pub requested: String,
    /// The control file's size (bytes) when the series runs.
    pub size: Option<u64>,
    /// Why the series does not run (absent when it runs).
    #[serde(default)]
    pub reason: Option<String>,
    /// What the size means when it is not the rule's (bounded by free space).
    #[serde(default)]
    pub note: Option<String>,
    /// The sizing rule, in words.
    pub rule: String,
    /// The bytes each sequential control test may read: the control file
    /// shared among them (every pass), so that no control read comes back
    /// to bytes an earlier one read (a cache smaller than the file would
    /// serve those). Absent in plans made before it was kept.
    #[serde(default)]
    pub seq_share: Option<u64>,
}

/// The sizing rule, as stored in the plan.
pub const CONTROL_RULE: &str = "auto: at least 2x this machine's RAM, at least 4 GiB and 2x the main file, \
bounded by free space minus the main file and the safety margin. A drop on the control file is evidence \
of a cache; equal results exclude only caches smaller than the control file";

/// The control file's size, or why there is none (Ok(None, reason)).
/// An explicit size that cannot work is the user's error (Err).
pub fn control_size(
    request: ControlRequest,
    main_size: u64,
    ram: Option<u64>,
    free: Option<u64>,
    margin: u64,
) -> Result<ControlDecision, String> {
    let room = free.map(|f| f.saturating_sub(margin).saturating_sub(main_size));
    match request {
        ControlRequest::Off => Ok(ControlDecision::skip("--control-size off")),
        ControlRequest::Size(size) => {
            if size <= main_size {
                return Err(format!(
                    "--control-size {} must be larger than the main file (--size {})",
                    fmt_bytes(size),
                    fmt_bytes(main_size)
                ));
            }
            if let (Some(room), Some(free)) = (room, free) {
                if size > room {
                    return Err(format!(
                        "--control-size {} does not fit: {} free, minus the main file ({}) and the safety margin ({}) leaves {}",
                        fmt_bytes(size),
                        fmt_bytes(free),
                        fmt_bytes(main_size),
                        fmt_bytes(margin),
                        fmt_bytes(room)
                    ));
                }
            }
            let note = ram.filter(|r| size < 2 * r).map(|r| {
                format!(
                    "--control-size {} is less than 2x RAM ({}): the control series excludes only caches smaller than {}",
                    fmt_bytes(size),
                    fmt_bytes(2 * r),
                    fmt_bytes(size)
                )
            });
            Ok(ControlDecision {
                size: Some(size),
                reason: None,
                note,
            })
        }
        ControlRequest::Auto => {
            let Some(ram) = ram else {
                return Ok(ControlDecision::skip(
                    "RAM size unknown (/proc/meminfo unreadable): give --control-size SIZE",
                ));
            };
            let Some(room) = room else {
                return Ok(ControlDecision::skip(
                    "free space of the test directory unknown: give --control-size SIZE",
                ));
            };
            let floor = MIN_CONTROL.max(2 * main_size);
            let wanted = (2 * ram).max(floor);
            if room >= wanted {
                return Ok(ControlDecision {
                    size: Some(round_mib(wanted)),
                    reason: None,
                    note: None,
                });
            }
            if room >= floor {
                let size = round_mib(room);
                return Ok(ControlDecision {
                    size: Some(size),
                    reason: None,
                    note: Some(format!(
                        "bounded by free space: {} instead of 2x RAM ({}); it excludes only caches smaller than {}",
                        fmt_bytes(size),
                        fmt_bytes(wanted),
                        fmt_bytes(size)
                    )),
                });
            }
            Ok(ControlDecision::skip(format!(
                "not enough free space: the control file needs at least {} (2x RAM would be {}), \
                 but {} free minus the main file ({}) and the safety margin ({}) leaves {}",
                fmt_bytes(floor),
                fmt_bytes(wanted),
                fmt_bytes(free.unwrap_or(0)),
                fmt_bytes(main_size),
                fmt_bytes(margin),
                fmt_bytes(room)
            )))
        }
    }
}

/// The control file's size when it is made, minutes after the plan: the
/// planned size, or, when other processes took free space meanwhile, what
/// fits now (`room_now`: free space minus the safety margin; the main file
/// exists already), with a note saying so, as long as that is still at
/// least the rule's floor (or the planned size, if smaller). The battery
/// used to fail there after its first pass; the margin is never eaten into.
pub fn size_now(
    planned: u64,
    main_size: u64,
    room_now: u64,
    align: u64,
) -> Result<(u64, Option<String>), String> {
    if planned <= room_now {
        return Ok((planned, None));
    }
    let floor = planned.min(MIN_CONTROL.max(2 * main_size));
    let fitted = round_mib(room_now) / align.max(1) * align.max(1);
    if fitted >= floor && fitted > main_size {
        return Ok((
            fitted,
            Some(format!(
                "the control file is {} instead of the planned {}: free space shrank while candor ran \
                 (other processes wrote to the disk); it excludes only caches smaller than {}",
                fmt_bytes(fitted),
                fmt_bytes(planned),
                fmt_bytes(fitted)
            )),
        ));
    }
    Err(format!(
        "the control file ({} planned, at least {}) no longer fits: free space shrank while candor ran \
         and {} is left above the safety margin (--control-size off leaves the series out)",
        fmt_bytes(planned),
        fmt_bytes(floor),
        fmt_bytes(room_now)
    ))
}

/// The outcome of the control sizing rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlDecision {
    pub size: Option<u64>,
    /// Why there is no control series.
    pub reason: Option<String>,
    /// What a bounded size means.
    pub note: Option<String>,
}

impl ControlDecision {
    fn skip(reason: impl Into<String>) -> ControlDecision {
        ControlDecision {
            size: None,
            reason: Some(reason.into()),
            note: None,
        }
    }
}

fn round_mib(bytes: u64) -> u64 {
    bytes / MIB * MIB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_file_shrinks_when_free_space_did() {
        // It still fits: as planned.
        assert_eq!(
            size_now(40 * GIB, GIB, 41 * GIB, 4096),
            Ok((40 * GIB, None))
        );
        // Others wrote 2 GiB since the plan: 38 GiB, said so.
        let (size, note) = size_now(40 * GIB, GIB, 38 * GIB + 12345, 4096).unwrap();
        assert_eq!(size, 38 * GIB);
        assert!(note
            .unwrap()
            .starts_with("the control file is 38 GiB instead of the planned 40 GiB"));
        // Below the floor (4 GiB, 2x the main file): refused, with the way out.
        let e = size_now(40 * GIB, GIB, 3 * GIB, 4096).unwrap_err();
        assert!(
            e.contains("no longer fits") && e.contains("--control-size off"),
            "{e}"
        );
        // A size below the rule's floor (an explicit one) is its own floor.
        assert!(size_now(3 * GIB, GIB, 2 * GIB + 1, 4096).is_err());
        assert_eq!(size_now(3 * GIB, GIB, 3 * GIB, 4096).unwrap().0, 3 * GIB);
    }

    #[test]
    fn control_sizing_rule() {
        let auto = ControlRequest::Auto;
        // Plenty of room: 2x RAM.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(200 * GIB), GIB).unwrap();
        assert_eq!((d.size, d.reason, d.note), (Some(48 * GIB), None, None));
        // Small RAM: never below 4 GiB.
        let d = control_size(auto, GIB, Some(GIB), Some(200 * GIB), GIB).unwrap();
        assert_eq!(d.size, Some(MIN_CONTROL));
        // Bounded by free space: 20 GiB - 1 GiB margin - 1 GiB main = 18 GiB.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(20 * GIB), GIB).unwrap();
        assert_eq!(d.size, Some(18 * GIB));
        assert!(d
            .note
            .unwrap()
            .starts_with("bounded by free space: 18 GiB instead of 2x RAM (48 GiB)"));
        // No space: skipped, and the reason says why with the numbers.
        let d = control_size(auto, GIB, Some(24 * GIB), Some(5 * GIB), GIB).unwrap();
        assert_eq!(d.size, None);
        let why = d.reason.unwrap();
        assert!(
            why.starts_with("not enough free space: the control file needs at least 4 GiB"),
            "{why}"
        );
        assert!(why.ends_with("leaves 3 GiB"), "{why}");
        // Unknown RAM or free space: skipped, never guessed.
        assert!(control_size(auto, GIB, None, Some(GIB), 0)
            .unwrap()
            .size
            .is_none());
        assert!(control_size(auto, GIB, Some(GIB), None, 0)
            .unwrap()
            .size
            .is_none());
        // The user's size is taken as given, even below 4 GiB, with a note below 2x RAM.
        let d = control_size(
            ControlRequest::Size(2 * GIB),
            GIB,
            Some(24 * GIB),
            Some(200 * GIB),
            GIB,
        )
        .unwrap();
        assert_eq!(d.size, Some(2 * GIB));
        assert!(d.note.unwrap().contains("less than 2x RAM"));
        // ... unless it does not fit.
        let e = control_size(
            ControlRequest::Size(50 * GIB),
            GIB,
            Some(GIB),
            Some(20 * GIB),
            GIB,
        )
        .unwrap_err();
        assert!(e.starts_with("--control-size 50 GiB does not fit"), "{e}");
        assert_eq!(
            control_size(ControlRequest::Off, GIB, None, None, 0)
                .unwrap()
                .size,
            None
        );
    }
}
