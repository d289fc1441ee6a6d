//! Verified writes (fio's `verify=`): every block a verifying job writes
//! starts with a header (magic, length, offset, the writing thread and
//! its write number, the algorithm, a checksum of the rest of the block),
//! the last write of each offset is remembered, and after the job's
//! writes each remembered block is read back and checked. A device that
//! returns other data than was written is found here.
//!
//! The header is candor's own layout, not fio's: candor checks what candor
//! wrote (fio checks what fio wrote).

use super::buffer::AlignedBuf;
use super::checksum::{Crc32c, Md5};
use super::platform::Raw;
use crate::result::BadBlock;
use std::collections::BTreeMap;

/// The checksum a verified block carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyAlg {
    Crc32c,
    Md5,
    Sha256,
    /// The header's fields only (fio's `meta`): offset, length, writer.
    Meta,
}

impl VerifyAlg {
    /// fio's name.
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyAlg::Crc32c => "crc32c",
            VerifyAlg::Md5 => "md5",
            VerifyAlg::Sha256 => "sha256",
            VerifyAlg::Meta => "meta",
        }
    }

    /// fio's `verify=` value (`crc32c-intel` is fio's synonym of crc32c).
    pub fn from_fio(name: &str) -> Option<VerifyAlg> {
        Some(match name {
            "crc32c" | "crc32c-intel" => VerifyAlg::Crc32c,
            "md5" => VerifyAlg::Md5,
            "sha256" => VerifyAlg::Sha256,
            "meta" => VerifyAlg::Meta,
            _ => return None,
        })
    }

    fn code(self) -> u8 {
        match self {
            VerifyAlg::Crc32c => 1,
            VerifyAlg::Md5 => 2,
            VerifyAlg::Sha256 => 3,
            VerifyAlg::Meta => 4,
        }
    }

    /// Bytes of the checksum in the header.
    fn sum_len(self) -> usize {
        match self {
            VerifyAlg::Crc32c => 4,
            VerifyAlg::Md5 => 16,
            VerifyAlg::Sha256 => 32,
            VerifyAlg::Meta => 0,
        }
    }

    /// The checksum of a block: its header's fields and its data, the
    /// checksum field itself left out.
    fn sum(self, block: &[u8]) -> [u8; 32] {
        let (fields, data) = (&block[..SUM_AT], &block[HEADER_BYTES..]);
        let mut out = [0u8; 32];
        match self {
            VerifyAlg::Crc32c => {
                let mut c = Crc32c::new();
                c.update(fields);
                c.update(data);
                out[..4].copy_from_slice(&c.finish().to_le_bytes());
            }
            VerifyAlg::Md5 => {
                let mut m = Md5::new();
                m.update(fields);
                m.update(data);
                out[..16].copy_from_slice(&m.finish());
            }
            VerifyAlg::Sha256 => {
                let mut c = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
                c.update(fields);
                c.update(data);
                out.copy_from_slice(c.finish().as_ref());
            }
            VerifyAlg::Meta => {}
        }
        out
    }
}

/// A job's verify settings (fio's `verify`, `do_verify`, `verify_only`,
/// `verify_fatal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verify {
    pub alg: VerifyAlg,
    /// Read back and check the job's writes once they are done (`do_verify`).
    pub after_writes: bool,
    /// Write nothing: check what an earlier run of the same job wrote
    /// (`verify_only`): its writes are drawn again without I/O.
    pub only: bool,
    /// Stop checking at the first bad block (`verify_fatal`).
    pub fatal: bool,
}

/// The header at the start of each verified block.
pub const HEADER_BYTES: usize = 64;
const MAGIC: [u8; 4] = *b"CNDV";
/// Where the checksum starts; the fields before it are summed.
const SUM_AT: usize = 32;
/// Bad blocks kept as evidence per job (all are counted).
pub use crate::result::VERIFY_KEPT_BAD as KEPT_BAD;
/// What one remembered write costs in memory, for the plan's memory check:
/// a B-tree entry of 8 + 16 bytes with its share of a node (about 2x).
pub const BYTES_PER_WRITE: u64 = 64;

/// Who wrote a block, and where: what its header must say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenBlock {
    pub offset: u64,
    pub len: u32,
    pub thread: u32,
    /// The thread's write number (0 for its first write).
    pub seq: u64,
}

/// Writes the header of `w` at the start of `block` (`w.len` bytes, the
/// payload already in place) and its checksum.
pub fn stamp(block: &mut [u8], alg: VerifyAlg, w: &WrittenBlock) {
    let block = &mut block[..w.len as usize];
    block[0..4].copy_from_slice(&MAGIC);
    block[4..8].copy_from_slice(&w.len.to_le_bytes());
    block[8..16].copy_from_slice(&w.offset.to_le_bytes());
    block[16..24].copy_from_slice(&w.seq.to_le_bytes());
    block[24..28].copy_from_slice(&w.thread.to_le_bytes());
    block[28] = alg.code();
    block[29..32].fill(0);
    let sum = alg.sum(block);
    block[SUM_AT..HEADER_BYTES].copy_from_slice(&sum);
}

/// Checks a block read back against what was written there: the first
/// field that differs, with what was wanted and what was found.
pub fn check(block: &[u8], alg: VerifyAlg, w: &WrittenBlock) -> Result<(), BadBlock> {
    let bad = |field: &str, wanted: String, got: String| BadBlock {
        offset: w.offset,
        len: u64::from(w.len),
        thread: w.thread,
        field: field.to_string(),
        wanted,
        got,
    };
    let u32_at = |i: usize| u32::from_le_bytes(block[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(block[i..i + 8].try_into().expect("8 bytes"));
    if block[0..4] != MAGIC {
        return Err(bad("magic", hex(&MAGIC), hex(&block[0..4])));
    }
    if u32_at(4) != w.len {
        return Err(bad("length", w.len.to_string(), u32_at(4).to_string()));
    }
    if u64_at(8) != w.offset {
        return Err(bad("offset", w.offset.to_string(), u64_at(8).to_string()));
    }
    if block[28] != alg.code() {
        return Err(bad(
            "algorithm",
            alg.as_str().to_string(),
            format!("code {}", block[28]),
        ));
    }
    if (u32_at(24), u64_at(16)) != (w.thread, w.seq) {
        return Err(bad(
            "writer",
            format!("thread {} write {}", w.thread, w.seq),
            format!(
                "thread {} write {} (another write's block)",
                u32_at(24),
                u64_at(16)
            ),
        ));
    }
    let n = alg.sum_len();
    let sum = alg.sum(block);
    if block[SUM_AT..SUM_AT + n] != sum[..n] {
        return Err(bad(
            "checksum",
            format!("{} {}", alg.as_str(), hex(&block[SUM_AT..SUM_AT + n])),
            format!("{} {} (of the data read)", alg.as_str(), hex(&sum[..n])),
        ));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The last write of each offset, as fio's io log keeps them: a later
/// write replaces every earlier one it overlaps, even in part (fio drops
/// the older piece whole). Entries never overlap, so a thread's map holds
/// at most its region's length over the smallest block size.
#[derive(Debug, Default)]
pub struct LastWrites {
    /// Offset -> (length, write number).
    map: BTreeMap<u64, (u32, u64)>,
}

impl LastWrites {
    pub fn record(&mut self, offset: u64, len: u32, seq: u64) {
        let end = offset + u64::from(len);
        // Entries that start before `end` and reach past `offset` overlap.
        loop {
            let last_before_end = self.map.range(..end).next_back();
            let Some((start, l)) = last_before_end.map(|(&s, &(l, _))| (s, l)) else {
                break;
            };
            if start + u64::from(l) <= offset {
                break;
            }
            self.map.remove(&start);
        }
        self.map.insert(offset, (len, seq));
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Each remembered write of `thread`, in offset order.
    pub fn blocks(&self, thread: u32) -> impl Iterator<Item = WrittenBlock> + '_ {
        self.map
            .iter()
            .map(move |(&offset, &(len, seq))| WrittenBlock {
                offset,
                len,
                thread,
                seq,
            })
    }
}

/// What one thread's check found.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub checked: u64,
    pub bytes: u64,
    pub bad: u64,
    /// The first bad blocks (at most `KEPT_BAD`).
    pub first_bad: Vec<BadBlock>,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.checked += other.checked;
        self.bytes += other.bytes;
        self.bad += other.bad;
        for b in other.first_bad {
            if self.first_bad.len() < KEPT_BAD {
                self.first_bad.push(b);
            }
        }
    }

    fn found(&mut self, b: BadBlock) {
        self.bad += 1;
        if self.first_bad.len() < KEPT_BAD {
            self.first_bad.push(b);
        }
    }
}

/// Reads back every block in `writes` from `fd` (one `pread` each, into
/// `buf`, aligned for O_DIRECT) and checks it. Stops at the first bad
/// block when `fatal`, and at a signal; a read that fails is an error.
pub fn check_all(
    fd: Raw,
    alg: VerifyAlg,
    thread: u32,
    writes: &LastWrites,
    buf: &mut AlignedBuf,
    fatal: bool,
) -> anyhow::Result<Tally> {
    let mut tally = Tally::default();
    for w in writes.blocks(thread) {
        if crate::cancel::cancelled() {
            break;
        }
        let len = w.len as usize;
        let block = &mut buf.as_mut_slice()[..len];
        read_exact_at(fd, block, w.offset).map_err(|e| {
            anyhow::anyhow!(
                "verify: reading back {len} bytes at offset {}: {e}",
                w.offset
            )
        })?;
        tally.checked += 1;
        tally.bytes += len as u64;
        if let Err(b) = check(block, alg, &w) {
            tally.found(b);
            if fatal {
                break;
            }
        }
    }
    Ok(tally)
}

/// Positioned reads until `block` is full; a short read at the end of the file is an error.
fn read_exact_at(fd: Raw, block: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < block.len() {
        let n = super::platform::read_at(fd, &mut block[done..], offset + done as u64)?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("short read: {done} of {} bytes", block.len()),
            ));
        }
        done += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::buffer::Payload;

    fn block(alg: VerifyAlg, w: &WrittenBlock) -> Vec<u8> {
        let mut b = vec![0u8; w.len as usize];
        Payload::new(w.seq).fill(&mut b);
        stamp(&mut b, alg, w);
        b
    }

    const W: WrittenBlock = WrittenBlock {
        offset: 8192,
        len: 4096,
        thread: 1,
        seq: 7,
    };

    #[test]
    fn a_clean_block_passes_under_every_algorithm() {
        for alg in [
            VerifyAlg::Crc32c,
            VerifyAlg::Md5,
            VerifyAlg::Sha256,
            VerifyAlg::Meta,
        ] {
            assert_eq!(check(&block(alg, &W), alg, &W), Ok(()), "{}", alg.as_str());
        }
    }

    #[test]
    fn a_changed_byte_is_found_and_named() {
        for alg in [VerifyAlg::Crc32c, VerifyAlg::Md5, VerifyAlg::Sha256] {
            let mut b = block(alg, &W);
            b[3000] ^= 1;
            let bad = check(&b, alg, &W).unwrap_err();
            assert_eq!(bad.field, "checksum", "{}", alg.as_str());
            assert_eq!((bad.offset, bad.len), (8192, 4096));
            assert_ne!(bad.wanted, bad.got);
        }
        // A changed header field is named before the checksum.
        let mut b = block(VerifyAlg::Crc32c, &W);
        b[8] ^= 0x10;
        let bad = check(&b, VerifyAlg::Crc32c, &W).unwrap_err();
        assert_eq!(bad.field, "offset");
        assert_eq!(bad.got, (8192 ^ 0x10).to_string());
        // Zeros (a block never written, or discarded) fail on the magic.
        let zeros = vec![0u8; 4096];
        assert_eq!(
            check(&zeros, VerifyAlg::Meta, &W).unwrap_err().field,
            "magic"
        );
        // A block from another write at this offset (stale data) is found.
        let older = block(VerifyAlg::Crc32c, &WrittenBlock { seq: 3, ..W });
        let bad = check(&older, VerifyAlg::Crc32c, &W).unwrap_err();
        assert_eq!(bad.field, "writer");
        // A block written for another offset, returned here (misdirected).
        let elsewhere = block(VerifyAlg::Sha256, &WrittenBlock { offset: 0, ..W });
        assert_eq!(
            check(&elsewhere, VerifyAlg::Sha256, &W).unwrap_err().field,
            "offset"
        );
    }

    #[test]
    fn later_writes_replace_what_they_overlap() {
        let mut m = LastWrites::default();
        m.record(0, 4096, 0);
        m.record(4096, 4096, 1);
        m.record(8192, 4096, 2);
        // The same offset again: replaced.
        m.record(4096, 4096, 3);
        assert_eq!(m.len(), 3);
        // Overlapping the end of one and the start of another: both go.
        m.record(2048, 4096, 4);
        let seen: Vec<(u64, u32, u64)> = m.blocks(0).map(|w| (w.offset, w.len, w.seq)).collect();
        assert_eq!(seen, vec![(2048, 4096, 4), (8192, 4096, 2)]);
        // A large write swallows every smaller one inside it.
        m.record(0, 16384, 5);
        let seen: Vec<(u64, u64)> = m.blocks(0).map(|w| (w.offset, w.seq)).collect();
        assert_eq!(seen, vec![(0, 5)]);
        // Adjacent writes do not overlap.
        m.record(16384, 512, 6);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn a_file_read_back_counts_checked_and_bad() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("candor-verify-unit-{}", std::process::id()));
        let mut f = std::fs::File::create_new(&dir).unwrap();
        let mut writes = LastWrites::default();
        for i in 0..8u64 {
            let w = WrittenBlock {
                offset: i * 4096,
                len: 4096,
                thread: 0,
                seq: i,
            };
            let mut b = block(VerifyAlg::Crc32c, &w);
            if i == 5 {
                b[100] ^= 0xff;
            }
            f.write_all(&b).unwrap();
            writes.record(w.offset, w.len, w.seq);
        }
        let mut buf = AlignedBuf::new(4096, 4096);
        // The engines' handle (a descriptor on Unix, a HANDLE on Windows),
        // closed before the file is removed: Windows refuses to delete an
        // open file that was not opened for deletion.
        let handle: crate::disk::platform::Handle = f.into();
        let fd = crate::disk::platform::raw(&handle);
        let t = check_all(fd, VerifyAlg::Crc32c, 0, &writes, &mut buf, false);
        let fatal = check_all(fd, VerifyAlg::Crc32c, 0, &writes, &mut buf, true);
        drop(handle);
        std::fs::remove_file(&dir).unwrap();
        let t = t.unwrap();
        assert_eq!((t.checked, t.bad, t.bytes), (8, 1, 8 * 4096));
        assert_eq!(t.first_bad[0].offset, 5 * 4096);
        assert_eq!(t.first_bad[0].field, "checksum");
        let fatal = fatal.unwrap();
        assert_eq!(
            (fatal.checked, fatal.bad),
            (6, 1),
            "stops at the first bad block"
        );
    }
}
