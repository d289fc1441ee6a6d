//! `sparse-file`: a test file with fewer allocated bytes than its size. Holes
//! read back as zeros without touching the medium ("completely fake, very
//! high IOPS"), so read figures from such a file are refused.

use super::{checked, not_checked};
use crate::result::{Finding, Run};
use crate::units::fmt_bytes;
use serde_json::json;

/// One finding per distinct sparse file that a job read from.
pub fn sparse_file(run: &Run) -> Vec<Finding> {
    let mut any = false;
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for d in run.disk() {
        let Some(f) = &d.file else { continue };
        if f.size == 0 {
            continue;
        }
        any = true;
        // st_blocks * 512 of a fully written file is at least its size (blocks round up).
        // A file whose blocks were counted late (ZFS) but that has no hole is not sparse.
        let sparse = f.allocated_bytes < f.size && f.no_holes != Some(true);
        if sparse && !seen.contains(&f.path) {
            seen.push(f.path.clone());
            let reads = run
                .disk()
                .filter(|o| o.file.as_ref().is_some_and(|g| g.path == f.path) && o.read.is_some())
                .count();
            out.push(checked(
                "sparse-file",
                Some(f.path.clone()),
                format!(
                    "{}: {} allocated of {} ({} read jobs): reads of holes return zeros without touching the disk",
                    f.path,
                    fmt_bytes(f.allocated_bytes),
                    fmt_bytes(f.size),
                    reads
                ),
                json!({
                    "path": f.path,
                    "size_bytes": f.size,
                    "allocated_bytes": f.allocated_bytes,
                    "read_jobs": reads,
                }),
            ));
        }
    }
    if !any {
        return vec![not_checked(
            "sparse-file",
            "the test file's allocation is not recorded: a sparse (fake-fast) file was not ruled out".into(),
            "test file size and allocated bytes",
        )];
    }
    out
}

/// `tmpfs`: a Run whose test directory was recorded on tmpfs or ramfs (an
/// imported or hand-made result: candor itself refuses to measure there).
pub fn tmpfs(run: &Run) -> Vec<Finding> {
    let unknown = |why: &str| {
        vec![not_checked(
            "tmpfs",
            format!("{why}: whether the disk figures measured RAM (tmpfs, ramfs) was not checked"),
            "the test directory's filesystem type or magic",
        )]
    };
    let Some(s) = &run.host.storage else {
        return unknown("the test directory's filesystem is not recorded");
    };
    let fs = s.fs_type.as_deref().unwrap_or("");
    let magic = s.fs_magic.as_deref().unwrap_or("");
    if fs.is_empty() && magic.is_empty() {
        return unknown(&format!("the filesystem of {} is not recorded", s.dir));
    }
    // TMPFS_MAGIC 0x01021994, RAMFS_MAGIC 0x858458f6.
    if fs == "tmpfs"
        || fs == "ramfs"
        || magic == "0x1021994"
        || magic == "0x01021994"
        || magic == "0x858458f6"
    {
        return vec![checked(
            "tmpfs",
            Some(s.dir.clone()),
            format!(
                "{} is on {}: the disk figures measured RAM",
                s.dir,
                if fs.is_empty() { magic } else { fs }
            ),
            json!({"dir": s.dir, "fs_type": s.fs_type, "fs_magic": s.fs_magic}),
        )];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::{FindingStatus, Severity};

    #[test]
    fn fires_on_holes_silent_when_allocated_not_checked_without_info() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 900000.0));
        assert!(sparse_file(&run).is_empty());
        dm(&mut run.measurements[0])
            .file
            .as_mut()
            .unwrap()
            .allocated_bytes = 4096;
        let f = sparse_file(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Refusal);
        assert_eq!(f[0].evidence["allocated_bytes"], 4096);
        dm(&mut run.measurements[0]).file = None;
        assert_eq!(sparse_file(&run)[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn tmpfs_recorded_in_a_run_is_a_refusal() {
        let mut run = run();
        // Unknown filesystem: not checked, never silence.
        assert_eq!(tmpfs(&run)[0].status, FindingStatus::NotChecked);
        run.host.storage = Some(crate::result::StorageFacts {
            dir: "/tmp".into(),
            fs_type: Some("tmpfs".into()),
            ..Default::default()
        });
        let f = tmpfs(&run);
        assert_eq!(f[0].severity, Severity::Refusal);
        run.host.storage.as_mut().unwrap().fs_type = Some("ext4".into());
        assert!(tmpfs(&run).is_empty());
    }
}
