//! What a job's writes carry: `buffer_compress_percentage` with
//! `buffer_compress_chunk`, and `zero_buffers`, as fio 3.33 fills its
//! buffers (init.c fixup_options: 100 % compressible is zero_buffers, any
//! other percentage turns refill_buffers on; io_u.c fill_io_buffer: chunks
//! of buffer_compress_chunk, at most the smallest write, 0 meaning the
//! smallest write).

use super::Lowering;
use crate::disk::data::WriteContent;
use crate::fio::jobfile::JobFileError;

impl Lowering<'_> {
    pub(super) fn write_data(&mut self, min_write: u64) -> Result<WriteContent, JobFileError> {
        let percent = match self.number("buffer_compress_percentage") {
            Some((p, s)) if p > 100 => return Err(Self::bad(s, "out of range (0-100)")),
            Some((p, _)) => p as u8,
            None => 0,
        };
        if percent == 100 || (percent == 0 && self.flag("zero_buffers")) {
            return Ok(WriteContent::Zeros);
        }
        if percent == 0 {
            return Ok(WriteContent::Random);
        }
        let chunk = match self.number("buffer_compress_chunk").map_or(512, |(c, _)| c) {
            0 => min_write,
            c => c.min(min_write),
        };
        Ok(WriteContent::Compressible {
            percent,
            chunk: u32::try_from(chunk).unwrap_or(u32::MAX),
        })
    }
}
