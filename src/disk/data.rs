//! What a job writes: fresh incompressible random bytes (candor's own
//! jobs, and fio's `refill_buffers`), or what a job file asks for instead:
//! compressible blocks (`buffer_compress_percentage`) or zeros
//! (`zero_buffers`). On storage that compresses or deduplicates, this
//! decides the figure: the Run records it, and the finding
//! `job-compressible-data` says a figure on such data is not the medium's.

use super::buffer::Payload;

/// The bytes of each written block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteContent {
    /// Fresh pseudo-random bytes for every write: nothing to compress.
    #[default]
    Random,
    /// fio's `buffer_compress_percentage`: each chunk of `chunk` bytes is
    /// random for its first (100 - percent) % and zeros after, a fresh
    /// random part per chunk (fio 3.33, io_u.c fill_io_buffer and
    /// lib/rand.c __fill_random_buf_percentage).
    Compressible { percent: u8, chunk: u32 },
    /// fio's `zero_buffers` (and `buffer_compress_percentage=100`): zeros.
    Zeros,
}

impl WriteContent {
    /// Fills a block about to be written.
    #[inline]
    pub fn fill(&self, payload: &mut Payload, bytes: &mut [u8]) {
        match *self {
            WriteContent::Random => payload.fill(bytes),
            WriteContent::Zeros => bytes.fill(0),
            WriteContent::Compressible { percent, chunk } => {
                for piece in bytes.chunks_mut(chunk.max(1) as usize) {
                    let random = piece.len() * usize::from(100 - percent.min(100)) / 100;
                    let (head, tail) = piece.split_at_mut(random);
                    payload.fill(head);
                    tail.fill(0);
                }
            }
        }
    }

    /// In words, for the Run and `--parse-only`.
    pub fn describe(&self) -> String {
        match self {
            WriteContent::Random => "fresh random data (incompressible)".into(),
            WriteContent::Zeros => "zeros (compress and deduplicate to almost nothing)".into(),
            WriteContent::Compressible { percent, chunk } => format!(
                "{percent} % compressible: each {chunk}-byte chunk random for its first {} % and zeros after",
                100 - percent
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(data: &WriteContent) -> f64 {
        let mut bytes = vec![0xffu8; 4 << 20];
        let mut p = Payload::new(3);
        for block in bytes.chunks_mut(4096) {
            data.fill(&mut p, block);
        }
        let packed = zstd::bulk::compress(&bytes, 3).unwrap();
        packed.len() as f64 / bytes.len() as f64
    }

    #[test]
    fn compressible_data_compresses_as_asked() {
        // zstd -3 on 4 MiB written as 4 KiB blocks.
        let half = ratio(&WriteContent::Compressible {
            percent: 50,
            chunk: 512,
        });
        assert!((0.48..0.56).contains(&half), "{half}");
        let most = ratio(&WriteContent::Compressible {
            percent: 90,
            chunk: 4096,
        });
        assert!((0.09..0.13).contains(&most), "{most}");
        assert!(ratio(&WriteContent::Random) > 0.99);
        assert!(ratio(&WriteContent::Zeros) < 0.001);
    }
}
