//! The metadata engines' operations (fio's filecreate, filestat,
//! filedelete, dircreate, dirstat, dirdelete; `disk/metadata.rs` says what
//! each is): one system call per operation on a name of the thread's own,
//! in candor's directory inside the job's.

use super::{Completion, Engine, Op};
use crate::disk::metadata::{MetaOp, Metadata, StatType};
use std::collections::HashMap;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The run's own directory in each job directory, and how many threads use it.
fn private_dirs() -> &'static Mutex<HashMap<PathBuf, usize>> {
    static DIRS: OnceLock<Mutex<HashMap<PathBuf, usize>>> = OnceLock::new();
    DIRS.get_or_init(Default::default)
}

/// Enters the run's directory in `dir` (made by the first thread to enter).
fn enter(dir: &Path) -> io::Result<PathBuf> {
    let private = dir.join(format!(".candor-meta-{}", std::process::id()));
    let mut dirs = private_dirs().lock().unwrap_or_else(|p| p.into_inner());
    let users = dirs.entry(private.clone()).or_insert(0);
    if *users == 0 {
        std::fs::create_dir(&private)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", private.display())))?;
    }
    *users += 1;
    Ok(private)
}

/// Leaves it; the last thread out removes it.
fn leave(private: &Path) {
    let mut dirs = private_dirs().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(users) = dirs.get_mut(private) {
        *users -= 1;
        if *users == 0 {
            dirs.remove(private);
            let _ = std::fs::remove_dir(private);
        }
    }
}

fn c_path(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).expect("candor's names hold no NUL")
}

fn last_error() -> i64 {
    -(io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO) as i64)
}

/// One thread's names and the operation it makes on each.
pub struct MetaEngine {
    op: MetaOp,
    private: PathBuf,
    names: Vec<PathBuf>,
    /// Which names candor made and still exist (removed when it ends).
    made: Vec<bool>,
    /// The region's first byte and the block: operation i is at start + i x bs.
    start: u64,
    bs: u64,
}

impl MetaEngine {
    /// The names of thread `thread`, made first when the operation needs
    /// them (files of `bs` bytes, directories of mode 0700, as fio's
    /// layout and setup_dirs make them).
    pub fn new(m: &Metadata, thread: u32, start: u64, bs: u64) -> io::Result<MetaEngine> {
        let private = enter(&m.dir)?;
        let names = (0..m.nrfiles)
            .map(|n| private.join(format!("{}.{thread}.{n}", m.name)))
            .collect();
        let mut engine = MetaEngine {
            op: m.op,
            private,
            names,
            made: vec![false; m.nrfiles as usize],
            start,
            bs,
        };
        if m.op.needs_setup() {
            let block = vec![0u8; bs as usize];
            for i in 0..engine.names.len() {
                let path = &engine.names[i];
                let made = if m.op.on_dirs() {
                    std::fs::DirBuilder::new().mode_0700().create(path)
                } else {
                    create_new(path, &block)
                };
                made.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
                engine.made[i] = true;
            }
        }
        Ok(engine)
    }

    /// Operation `i`: the kernel's answer, 0 or -errno.
    fn operate(&mut self, i: usize) -> i64 {
        let path = c_path(&self.names[i]);
        // SAFETY: `path` is a NUL-terminated string that outlives each call;
        // the stat buffers are written by the kernel only.
        let ret = unsafe {
            match self.op {
                MetaOp::FileCreate => {
                    let fd = libc::open(
                        path.as_ptr(),
                        libc::O_CREAT
                            | libc::O_EXCL
                            | libc::O_RDWR
                            | libc::O_NOFOLLOW
                            | libc::O_CLOEXEC,
                        0o600,
                    );
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    fd.min(0)
                }
                MetaOp::FileStat(t) | MetaOp::DirStat(t) => {
                    let mut st: libc::stat = std::mem::zeroed();
                    match t {
                        StatType::Stat => libc::stat(path.as_ptr(), &mut st),
                        StatType::Lstat => libc::lstat(path.as_ptr(), &mut st),
                        StatType::Statx => statx(&path),
                    }
                }
                MetaOp::FileDelete => libc::unlink(path.as_ptr()),
                // fio passes S_IFDIR as the mode (fio_mkdir(name, S_IFDIR)):
                // mkdir keeps only its permission bits, none.
                MetaOp::DirCreate => libc::mkdir(path.as_ptr(), libc::S_IFDIR),
                MetaOp::DirDelete => libc::rmdir(path.as_ptr()),
            }
        };
        if ret < 0 {
            return last_error();
        }
        match self.op {
            MetaOp::FileCreate | MetaOp::DirCreate => self.made[i] = true,
            MetaOp::FileDelete | MetaOp::DirDelete => self.made[i] = false,
            _ => {}
        }
        0
    }
}

#[cfg(target_os = "linux")]
unsafe fn statx(path: &CString) -> libc::c_int {
    let mut stx: libc::statx = std::mem::zeroed();
    libc::statx(libc::AT_FDCWD, path.as_ptr(), 0, libc::STATX_ALL, &mut stx)
}

#[cfg(not(target_os = "linux"))]
unsafe fn statx(path: &CString) -> libc::c_int {
    let mut st: libc::stat = std::mem::zeroed();
    libc::stat(path.as_ptr(), &mut st)
}

/// A new file of `block`'s bytes: never an existing name, never through a link.
fn create_new(path: &Path, block: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(path)?;
    f.write_all(block)
}

trait Mode0700 {
    fn mode_0700(&mut self) -> &mut Self;
}

impl Mode0700 for std::fs::DirBuilder {
    fn mode_0700(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(0o700)
    }
}

impl Engine for MetaEngine {
    fn name(&self) -> &'static str {
        self.op.fio_name()
    }

    fn submit_and_reap(
        &mut self,
        new_ops: &[Op],
        _min_complete: usize,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        for op in new_ops {
            let i = ((op.offset - self.start) / self.bs) as usize;
            let result = match i < self.names.len() {
                true => match self.operate(i) {
                    0 => i64::from(op.len),
                    err => err,
                },
                false => -(libc::EINVAL as i64),
            };
            out.push(Completion {
                slot: op.slot,
                result,
            });
        }
        Ok(())
    }
}

impl Drop for MetaEngine {
    fn drop(&mut self) {
        for (path, made) in self.names.iter().zip(&self.made) {
            if *made {
                let _ = match self.op.on_dirs() {
                    true => std::fs::remove_dir(path),
                    false => std::fs::remove_file(path),
                };
            }
        }
        leave(&self.private);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(i: u64) -> Op {
        Op {
            kind: super::super::OpKind::Read,
            slot: 0,
            offset: i * 4096,
            len: 4096,
            buf: std::ptr::null_mut(),
        }
    }

    #[test]
    fn each_engine_does_its_call_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for op_kind in [
            MetaOp::FileCreate,
            MetaOp::FileStat(StatType::Statx),
            MetaOp::FileDelete,
            MetaOp::DirCreate,
            MetaOp::DirStat(StatType::Lstat),
            MetaOp::DirDelete,
        ] {
            let m = Metadata {
                op: op_kind,
                nrfiles: 3,
                name: "t".into(),
                dir: dir.path().to_path_buf(),
            };
            let mut e = MetaEngine::new(&m, 0, 0, 4096).unwrap();
            let mut out = Vec::new();
            e.submit_and_reap(&[op(0), op(1), op(2)], 3, &mut out)
                .unwrap();
            assert!(out.iter().all(|c| c.result == 4096), "{op_kind:?}: {out:?}");
            let there = e
                .names
                .iter()
                .filter(|p| p.symlink_metadata().is_ok())
                .count();
            let expected = match op_kind {
                MetaOp::FileDelete | MetaOp::DirDelete => 0,
                _ => 3,
            };
            assert_eq!(there, expected, "{op_kind:?}");
            if op_kind == MetaOp::DirCreate {
                use std::os::unix::fs::PermissionsExt;
                let mode = e.names[0].metadata().unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0, "fio's dircreate makes mode 0");
            }
            // A fourth operation has no name: an error, never a guess.
            let mut out = Vec::new();
            e.submit_and_reap(&[op(3)], 1, &mut out).unwrap();
            assert!(out[0].result < 0);
            drop(e);
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "{op_kind:?}"
            );
        }
    }

    #[test]
    fn an_existing_name_is_an_error_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let m = Metadata {
            op: MetaOp::FileCreate,
            nrfiles: 1,
            name: "t".into(),
            dir: dir.path().to_path_buf(),
        };
        let mut e = MetaEngine::new(&m, 0, 0, 4096).unwrap();
        std::fs::write(&e.names[0], b"theirs").unwrap();
        let mut out = Vec::new();
        e.submit_and_reap(&[op(0)], 1, &mut out).unwrap();
        assert_eq!(out[0].result, -(libc::EEXIST as i64));
        assert_eq!(std::fs::read(&e.names[0]).unwrap(), b"theirs");
        let theirs = e.names[0].clone();
        std::fs::remove_file(theirs).unwrap();
    }
}
