//! The named disk profiles of the battery, in CrystalDiskMark's vocabulary
//! (every user already knows `SEQ1M Q8T1`), plus FSYNC4K (what a database
//! commit feels), MIX70 (a busy OLTP database) and RW75 QD64 (the one-liner
//! of many public blog tables, kept so users can compare with them).
//!
//! A profile is a name; a `DiskTest` is one job of it (the read or the
//! write half of `SEQ1M Q8T1`, or the whole of `MIX70`). Tests are plain
//! data so that the plan stored in a Run can be read back by `--resume`.

use crate::result::Rw;
use serde::{Deserialize, Serialize};

/// One disk job of the battery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskTest {
    /// The profile (`SEQ1M Q8T1`, `FSYNC4K`); stored in each measurement.
    pub profile: String,
    /// fio's `rw`: `read`, `write`, `randread`, `randwrite`, `randrw`.
    pub rw: Rw,
    /// Percentage of reads for `randrw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwmixread: Option<u32>,
    /// Block size in bytes.
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Sync after every N writes (0: never).
    #[serde(default)]
    pub fsync: u32,
}

impl DiskTest {
    fn new(profile: &str, rw: Rw, bs: u64, iodepth: u32, numjobs: u32) -> DiskTest {
        DiskTest {
            profile: profile.to_string(),
            rw,
            rwmixread: None,
            bs,
            iodepth,
            numjobs,
            fsync: 0,
        }
    }

    /// A test that only reads: these are repeated on the control file.
    pub fn is_read_only(&self) -> bool {
        self.rw.is_read_only()
    }

    /// `SEQ1M Q8T1 read`, `RND4K Q1T1 write`, or the profile alone when the
    /// profile has a single test (`FSYNC4K`, `MIX70`).
    pub fn label(&self) -> String {
        let halves = self.fsync == 0 && self.rw.is_pure();
        match &self.rw {
            rw if halves && rw.reads() => format!("{} read", self.profile),
            _ if halves => format!("{} write", self.profile),
            _ => self.profile.clone(),
        }
    }
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// Every profile name this build knows, in battery order.
pub const PROFILE_NAMES: [&str; 9] = [
    "SEQ1M Q8T1",
    "SEQ1M Q1T1",
    "SEQ128K Q32T1",
    "RND4K Q32T1",
    "RND4K Q32T16",
    "RND4K Q1T1",
    "FSYNC4K",
    "MIX70",
    "RW75 QD64",
];

/// The tests of a named profile (read before write), None for an unknown name.
pub fn profile(name: &str) -> Option<Vec<DiskTest>> {
    let pair = |seq: bool, bs: u64, qd: u32, threads: u32| {
        let (r, w) = if seq {
            (Rw::Read, Rw::Write)
        } else {
            (Rw::Randread, Rw::Randwrite)
        };
        vec![
            DiskTest::new(name, r, bs, qd, threads),
            DiskTest::new(name, w, bs, qd, threads),
        ]
    };
    Some(match name {
        "SEQ1M Q8T1" => pair(true, MIB, 8, 1),
        "SEQ1M Q1T1" => pair(true, MIB, 1, 1),
        "SEQ128K Q32T1" => pair(true, 128 * KIB, 32, 1),
        "RND4K Q32T1" => pair(false, 4 * KIB, 32, 1),
        "RND4K Q32T16" => pair(false, 4 * KIB, 32, 16),
        "RND4K Q1T1" => pair(false, 4 * KIB, 1, 1),
        "FSYNC4K" => {
            let mut t = DiskTest::new(name, Rw::Randwrite, 4 * KIB, 1, 1);
            t.fsync = 1;
            vec![t]
        }
        "MIX70" => {
            let mut t = DiskTest::new(name, Rw::Randrw, 4 * KIB, 16, 1);
            t.rwmixread = Some(70);
            vec![t]
        }
        "RW75 QD64" => {
            let mut t = DiskTest::new(name, Rw::Randrw, 4 * KIB, 64, 1);
            t.rwmixread = Some(75);
            vec![t]
        }
        _ => return None,
    })
}

/// The tests of several profiles, in the order given.
pub fn tests_of(names: &[&str]) -> Vec<DiskTest> {
    names
        .iter()
        .flat_map(|n| profile(n).unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_tests() {
        for name in PROFILE_NAMES {
            let tests = profile(name).unwrap();
            assert!(!tests.is_empty(), "{name}");
            assert!(tests.iter().all(|t| t.profile == name));
        }
        assert_eq!(profile("SEQ2M"), None);
    }

    #[test]
    fn shapes_match_the_names() {
        let seq = profile("SEQ1M Q8T1").unwrap();
        assert_eq!(
            (
                seq[0].rw.as_str(),
                seq[0].bs,
                seq[0].iodepth,
                seq[0].numjobs
            ),
            ("read", 1 << 20, 8, 1)
        );
        assert_eq!(seq[1].rw, Rw::Write);
        assert_eq!(seq[0].label(), "SEQ1M Q8T1 read");
        let rnd = profile("RND4K Q32T16").unwrap();
        assert_eq!(
            (rnd[0].rw.as_str(), rnd[0].bs, rnd[0].numjobs),
            ("randread", 4096, 16)
        );
        let fsync = &profile("FSYNC4K").unwrap()[0];
        assert_eq!(
            (fsync.rw.as_str(), fsync.iodepth, fsync.fsync),
            ("randwrite", 1, 1)
        );
        assert_eq!(fsync.label(), "FSYNC4K");
        let mix = &profile("MIX70").unwrap()[0];
        assert_eq!((mix.rwmixread, mix.iodepth), (Some(70), 16));
        let rw75 = &profile("RW75 QD64").unwrap()[0];
        assert_eq!((rw75.rwmixread, rw75.iodepth), (Some(75), 64));
        assert!(!mix.is_read_only() && !fsync.is_read_only() && rnd[0].is_read_only());
    }
}
