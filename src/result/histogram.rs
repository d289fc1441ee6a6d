//! The latency histogram as a Run stores it: HDR, 1 ns to an hour at three
//! significant digits, serialised in HdrHistogram's V2 deflate format and
//! base64, so histograms from candor's engine and from fio imports can be
//! merged later.

use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

/// Latencies are tracked up to an hour (longer ones are clamped there).
pub const HIGHEST_NS: u64 = 3_600_000_000_000;

/// An empty latency histogram with the Run's bounds and precision.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_NS, 3).expect("valid histogram bounds")
}

/// The histogram in HDR's V2 deflate format, base64.
pub fn encode(hist: &Histogram<u64>) -> Option<String> {
    let mut raw = Vec::new();
    V2DeflateSerializer::new().serialize(hist, &mut raw).ok()?;
    Some(base64(&raw))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(TABLE[(n >> shift & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known() {
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
    }

    #[test]
    fn encodes_a_histogram() {
        let mut h = latency_histogram();
        h.record(1000).unwrap();
        let text = encode(&h).unwrap();
        assert!(!text.is_empty() && text.len() % 4 == 0);
    }
}
