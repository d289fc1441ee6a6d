//! fio's file and directory engines (engines/fileoperations.c): no data
//! moves; each operation of the job is one system call on one file or
//! directory of its own, timed. `filecreate` opens each file with O_CREAT,
//! `filestat` stats it, `filedelete` unlinks it; `dircreate`, `dirstat` and
//! `dirdelete` do the same with directories (fio after 3.33). What such a
//! job measures is the filesystem's metadata path, not the medium.
//!
//! As in fio, a job's thread has `nrfiles` names, `JOB.THREAD.N`, one
//! operation each in order; the files a stat or delete needs are made
//! before the common start (fio lays them out first), outside the measured
//! interval. candor puts them in a directory of its own inside the job's
//! (`.candor-meta-PID`, shared by the run's jobs there as fio's directory
//! is), creates only new names (O_EXCL, never following a link), and
//! removes what it made when the thread ends.

use std::path::PathBuf;

/// Which of fio's metadata engines, and its system call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaOp {
    FileCreate,
    FileStat(StatType),
    FileDelete,
    DirCreate,
    DirStat(StatType),
    DirDelete,
}

/// fio's `stat_type` (filestat and dirstat): the call each stat makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatType {
    Stat,
    Lstat,
    Statx,
}

impl StatType {
    pub fn parse(word: &str) -> Option<StatType> {
        match word {
            "stat" => Some(StatType::Stat),
            "lstat" => Some(StatType::Lstat),
            "statx" => Some(StatType::Statx),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            StatType::Stat => "stat",
            StatType::Lstat => "lstat",
            StatType::Statx => "statx",
        }
    }
}

impl MetaOp {
    /// The engine's name as fio spells it.
    pub fn fio_name(self) -> &'static str {
        match self {
            MetaOp::FileCreate => "filecreate",
            MetaOp::FileStat(_) => "filestat",
            MetaOp::FileDelete => "filedelete",
            MetaOp::DirCreate => "dircreate",
            MetaOp::DirStat(_) => "dirstat",
            MetaOp::DirDelete => "dirdelete",
        }
    }

    /// The engine fio names `name`, with `stat_type` for the stat engines.
    pub fn from_fio(name: &str, stat: StatType) -> Option<MetaOp> {
        Some(match name {
            "filecreate" => MetaOp::FileCreate,
            "filestat" => MetaOp::FileStat(stat),
            "filedelete" => MetaOp::FileDelete,
            "dircreate" => MetaOp::DirCreate,
            "dirstat" => MetaOp::DirStat(stat),
            "dirdelete" => MetaOp::DirDelete,
            _ => return None,
        })
    }

    pub fn on_dirs(self) -> bool {
        matches!(
            self,
            MetaOp::DirCreate | MetaOp::DirStat(_) | MetaOp::DirDelete
        )
    }

    /// The names must exist before the job starts (fio lays them out).
    pub fn needs_setup(self) -> bool {
        !matches!(self, MetaOp::FileCreate | MetaOp::DirCreate)
    }

    /// The system call each operation makes, in words.
    fn call(self) -> String {
        match self {
            MetaOp::FileCreate => "open(O_CREAT) and close".to_string(),
            MetaOp::FileStat(t) | MetaOp::DirStat(t) => format!("{}()", t.as_str()),
            MetaOp::FileDelete => "unlink()".to_string(),
            MetaOp::DirCreate => "mkdir()".to_string(),
            MetaOp::DirDelete => "rmdir()".to_string(),
        }
    }
}

/// A metadata job: the engine, how many names each thread has, the names'
/// stem (fio's job name) and the directory they go in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub op: MetaOp,
    pub nrfiles: u64,
    pub name: String,
    pub dir: PathBuf,
}

impl Metadata {
    /// For the Run: what each operation was.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} {} per thread, one {} each, in {}",
            self.op.fio_name(),
            self.nrfiles,
            if self.op.on_dirs() {
                "directories"
            } else {
                "files"
            },
            self.op.call(),
            self.dir.display()
        )
    }
}
