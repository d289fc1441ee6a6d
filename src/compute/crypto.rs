//! Crypto throughput with one implementation linked into candor (aws-lc-rs,
//! AWS-LC underneath), so every host runs the same code: `openssl speed`
//! mixes the CPU with whichever OpenSSL the OS ships. Each event processes one
//! 16 KiB block (openssl speed's largest column), in place, with a key set up
//! once (as openssl speed does). The functions the benchmark times are the
//! ones the tests check against NIST and RFC vectors.

use super::runner::{measurement, params, run_timed, Headline};
use super::ComputeOptions;
use crate::result::ComputeMeasurement;
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey, AES_256,
};
use aws_lc_rs::iv::FixedLength;
use std::hint::black_box;

/// The aws-lc-rs crate version linked (Cargo.lock; a test keeps the two equal).
pub const AWS_LC_RS_VERSION: &str = "1.19.0";
/// Bytes per event: openssl speed's 16384-byte column.
pub const BLOCK: usize = 16384;

fn unspecified(what: &str) -> anyhow::Error {
    anyhow::anyhow!("aws-lc-rs: {what} failed")
}

/// AES-256-CBC encryption with a fixed key, no padding (whole blocks).
pub struct CbcEncrypt(EncryptingKey);

impl CbcEncrypt {
    pub fn new(key: &[u8; 32]) -> anyhow::Result<CbcEncrypt> {
        let key = UnboundCipherKey::new(&AES_256, key).map_err(|_| unspecified("AES key"))?;
        Ok(CbcEncrypt(
            EncryptingKey::cbc(key).map_err(|_| unspecified("CBC key"))?,
        ))
    }

    /// Encrypts `buf` (a multiple of 16 bytes) in place.
    pub fn apply(&self, iv: &[u8; 16], buf: &mut [u8]) -> anyhow::Result<()> {
        self.0
            .less_safe_encrypt(buf, EncryptionContext::Iv128(FixedLength::from(iv)))
            .map_err(|_| unspecified("AES-256-CBC encrypt"))?;
        Ok(())
    }
}

/// AES-256-CBC decryption with a fixed key, no padding.
pub struct CbcDecrypt(DecryptingKey);

impl CbcDecrypt {
    pub fn new(key: &[u8; 32]) -> anyhow::Result<CbcDecrypt> {
        let key = UnboundCipherKey::new(&AES_256, key).map_err(|_| unspecified("AES key"))?;
        Ok(CbcDecrypt(
            DecryptingKey::cbc(key).map_err(|_| unspecified("CBC key"))?,
        ))
    }

    /// Decrypts `buf` (a multiple of 16 bytes) in place.
    pub fn apply(&self, iv: &[u8; 16], buf: &mut [u8]) -> anyhow::Result<()> {
        self.0
            .decrypt(buf, DecryptionContext::Iv128(FixedLength::from(iv)))
            .map_err(|_| unspecified("AES-256-CBC decrypt"))?;
        Ok(())
    }
}

/// AES-256-GCM sealing (encrypt and authenticate).
pub struct GcmSeal(LessSafeKey);

impl GcmSeal {
    pub fn new(key: &[u8; 32]) -> anyhow::Result<GcmSeal> {
        let key = UnboundKey::new(&AES_256_GCM, key).map_err(|_| unspecified("GCM key"))?;
        Ok(GcmSeal(LessSafeKey::new(key)))
    }

    /// Encrypts `buf` in place and returns the 16-byte tag.
    pub fn apply(&self, nonce: [u8; 12], aad: &[u8], buf: &mut [u8]) -> anyhow::Result<[u8; 16]> {
        let tag = self
            .0
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad), buf)
            .map_err(|_| unspecified("AES-256-GCM seal"))?;
        let mut out = [0u8; 16];
        out.copy_from_slice(tag.as_ref());
        Ok(out)
    }
}

/// AES-256-CBC encryption of `buf` in place (for tests and one-off use).
pub fn aes256_cbc_encrypt(key: &[u8; 32], iv: &[u8; 16], buf: &mut [u8]) -> anyhow::Result<()> {
    CbcEncrypt::new(key)?.apply(iv, buf)
}

/// AES-256-CBC decryption of `buf` in place.
pub fn aes256_cbc_decrypt(key: &[u8; 32], iv: &[u8; 16], buf: &mut [u8]) -> anyhow::Result<()> {
    CbcDecrypt::new(key)?.apply(iv, buf)
}

/// AES-256-GCM: encrypts `buf` in place, returns the tag.
pub fn aes256_gcm_seal(
    key: &[u8; 32],
    nonce: [u8; 12],
    aad: &[u8],
    buf: &mut [u8],
) -> anyhow::Result<[u8; 16]> {
    GcmSeal::new(key)?.apply(nonce, aad, buf)
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, data);
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

/// A fixed, non-trivial key for the benchmark (the figure does not depend on it).
const KEY: [u8; 32] = *b"candor benchmark key, 32 bytes!!";
const IV: [u8; 16] = *b"candor bench iv!";

/// The tests in the order they run.
const TESTS: [&str; 4] = [
    "aes-256-cbc-encrypt",
    "aes-256-cbc-decrypt",
    "aes-256-gcm",
    "sha-256",
];

/// One thread's unit of work for a test: process one block, return its bytes.
fn work(test: &'static str, thread: u32) -> anyhow::Result<impl FnMut() -> anyhow::Result<u64>> {
    let mut buf = vec![0u8; BLOCK];
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2654435761).wrapping_add(thread) as u8;
    }
    let enc = CbcEncrypt::new(&KEY)?;
    let dec = CbcDecrypt::new(&KEY)?;
    let gcm = GcmSeal::new(&KEY)?;
    let mut counter: u64 = 0;
    Ok(move || {
        match test {
            "aes-256-cbc-encrypt" => enc.apply(&IV, &mut buf)?,
            "aes-256-cbc-decrypt" => dec.apply(&IV, &mut buf)?,
            "aes-256-gcm" => {
                // A fresh nonce per block, as a real sender must use.
                counter += 1;
                let mut nonce = [0u8; 12];
                nonce[..8].copy_from_slice(&counter.to_le_bytes());
                nonce[8..].copy_from_slice(&thread.to_le_bytes());
                black_box(gcm.apply(nonce, &[], &mut buf)?);
            }
            _ => {
                black_box(sha256(black_box(&buf)));
            }
        }
        black_box(&buf);
        Ok(BLOCK as u64)
    })
}

/// The instructions AWS-LC chooses its AES, GCM and SHA-256 code by, as
/// this CPU (or the emulator) offers them: on x86_64 CPUID (AES-NI,
/// PCLMULQDQ, AVX2, SHA), on ARM the kernel's HWCAP bits (the ARMv8 crypto
/// extensions: AES, PMULL, SHA-2), which is what AWS-LC reads at start-up
/// too. None offered: AWS-LC runs its constant-time software AES, 5 to 45
/// times slower (AES-NI masked with AWS-LC's `OPENSSL_ia32cap` on this
/// project's VM: CBC encryption 1,020 -> 189 MB/s, decryption 7,983 -> 180,
/// GCM 9,597 -> 340; BENCHMARKS.md), so a crypto gap between hosts may be
/// this and not speed.
pub fn cpu_crypto_instructions() -> Vec<&'static str> {
    let mut have = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        for (name, on) in [
            ("aes-ni", std::arch::is_x86_feature_detected!("aes")),
            (
                "pclmulqdq",
                std::arch::is_x86_feature_detected!("pclmulqdq"),
            ),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("sha-ni", std::arch::is_x86_feature_detected!("sha")),
        ] {
            if on {
                have.push(name);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        for (name, on) in [
            ("aes", std::arch::is_aarch64_feature_detected!("aes")),
            ("pmull", std::arch::is_aarch64_feature_detected!("pmull")),
            ("sha2", std::arch::is_aarch64_feature_detected!("sha2")),
        ] {
            if on {
                have.push(name);
            }
        }
    }
    #[cfg(target_arch = "arm")]
    {
        // SAFETY: getauxval reads the process's auxiliary vector; no pointers.
        let (hwcap, hwcap2) = unsafe {
            (
                libc::getauxval(libc::AT_HWCAP),
                libc::getauxval(libc::AT_HWCAP2),
            )
        };
        // Linux's arch/arm/include/uapi/asm/hwcap.h.
        const HWCAP_NEON: libc::c_ulong = 1 << 12;
        const HWCAP2_AES: libc::c_ulong = 1 << 0;
        const HWCAP2_PMULL: libc::c_ulong = 1 << 1;
        const HWCAP2_SHA2: libc::c_ulong = 1 << 3;
        for (name, on) in [
            ("neon", hwcap & HWCAP_NEON != 0),
            ("aes", hwcap2 & HWCAP2_AES != 0),
            ("pmull", hwcap2 & HWCAP2_PMULL != 0),
            ("sha2", hwcap2 & HWCAP2_SHA2 != 0),
        ] {
            if on {
                have.push(name);
            }
        }
    }
    have
}

/// The note that says which of AWS-LC's code paths the CPU's instructions choose.
fn instructions_note(have: &[&str]) -> String {
    let aes = have.iter().any(|i| *i == "aes-ni" || *i == "aes");
    let offered = if have.is_empty() {
        "none of the instructions AWS-LC looks for".to_string()
    } else {
        have.join(", ")
    };
    if aes {
        format!("the CPU offers {offered}: AWS-LC runs its AES and GCM on the AES instructions (hardware AES); a host without them runs software AES, 5 to 45 times slower, so a gap between hosts may be the instruction set, not the clock")
    } else {
        format!("the CPU offers {offered}, no AES instructions: AWS-LC runs its constant-time software AES, 5 to 45 times slower than on a CPU with them; this figure says more about the instruction set than about the clock")
    }
}

pub fn run(options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
    let library = format!(
        "aws-lc-rs {AWS_LC_RS_VERSION} (AWS-LC {})",
        aws_lc_rs::awslc_version()
    );
    let instructions = cpu_crypto_instructions();
    let mut out = Vec::new();
    for test in TESTS {
        for threads in options.threads.counts() {
            crate::cancel::check()?;
            let timed = run_timed(threads, options.runtime, |thread| work(test, thread))?;
            let reference = match test {
                "aes-256-cbc-encrypt" => "`openssl speed -evp aes-256-cbc -bytes 16384`",
                "aes-256-cbc-decrypt" => "`openssl speed -decrypt -evp aes-256-cbc -bytes 16384`",
                "aes-256-gcm" => "`openssl speed -evp aes-256-gcm -bytes 16384`",
                _ => "`openssl speed -evp sha256 -bytes 16384`",
            };
            out.push(measurement(
                test,
                options.runtime,
                params([
                    ("block_size", (BLOCK as u64).into()),
                    ("library", library.clone().into()),
                    ("cpu_crypto_instructions", instructions.join(" ").into()),
                ]),
                &timed,
                Headline::Bytes,
                1.0,
                vec![
                    format!("{library}, linked into candor: the same code on every host; compare with the 16384-byte column of {reference}, which measures the OS's OpenSSL"),
                    instructions_note(&instructions),
                ],
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note names the path the instructions choose, never a path the
    /// CPU cannot take.
    #[test]
    fn the_note_says_which_aes_path_runs() {
        assert!(instructions_note(&["aes", "pmull", "sha2"]).contains("hardware AES"));
        assert!(instructions_note(&["aes-ni", "avx2"]).contains("hardware AES"));
        let none = instructions_note(&[]);
        assert!(none.contains("software AES") && none.contains("none of the instructions"));
        assert!(instructions_note(&["neon"]).contains("no AES instructions"));
        // This CPU: what CPUID or HWCAP say is what the note says.
        let here = cpu_crypto_instructions();
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            here.contains(&"aes-ni"),
            std::fs::read_to_string("/proc/cpuinfo")
                .unwrap()
                .split_whitespace()
                .any(|w| w == "aes")
        );
        let _ = here;
    }

    #[test]
    fn version_matches_cargo_lock() {
        let lock = include_str!("../../Cargo.lock");
        let entry = format!(
            "name = \"aws-lc-rs\"\nversion = \"{}\"",
            super::AWS_LC_RS_VERSION
        );
        assert!(
            lock.contains(&entry),
            "update AWS_LC_RS_VERSION to match Cargo.lock"
        );
    }
}
