//! What a verifying job (fio's `verify=`) found when it read back what it
//! wrote: how many blocks it checked, how many were not what was written,
//! and the first of those as evidence.

use serde::{Deserialize, Serialize};

/// Bad blocks a job keeps as evidence (all are counted).
pub const KEPT_BAD: usize = 8;

/// A job's read-back check.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct VerifyRecord {
    /// fio's name of the checksum (`crc32c`, `md5`, `sha256`, `meta`).
    pub algorithm: String,
    /// `verify_only`: the job wrote nothing and checked what an earlier run
    /// of it wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only: bool,
    pub blocks_checked: u64,
    pub bytes_checked: u64,
    pub blocks_bad: u64,
    /// The first bad blocks (at most 8 per job); all are counted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_bad: Vec<BadBlock>,
}

/// A block read back that is not what was written: where, and the first
/// part of it that differs.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct BadBlock {
    /// Byte offset in the job's file or device.
    pub offset: u64,
    pub len: u64,
    /// The job's clone (thread) that wrote it.
    #[serde(default)]
    pub thread: u32,
    /// `magic`, `length`, `offset`, `algorithm`, `writer` or `checksum`.
    pub field: String,
    pub wanted: String,
    pub got: String,
}
