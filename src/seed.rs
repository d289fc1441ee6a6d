//! Random seeds: a fresh one per run (different every time unless the user
//! gives `--seed`; the seed is recorded in the Run so a run can be repeated
//! exactly), and SplitMix64 to derive well-mixed seeds from it.

/// A seed from the clock and the pid, well mixed.
pub fn fresh() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    splitmix64(nanos ^ (u64::from(std::process::id()) << 32))
}

/// SplitMix64: spreads a seed into well-mixed bits.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
