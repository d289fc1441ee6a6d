//! The candor binary that goes to the hosts. It must run on any x86_64
//! Linux, whatever its libc: a statically linked executable (no ELF
//! interpreter; `contrib/build-static.sh` builds one). When the running
//! candor is such a binary, it pushes itself, so the controller and every
//! host run the same build by construction. Otherwise it uses `--binary`,
//! or the static build beside this one (`target/x86_64-unknown-linux-gnu/
//! release/candor`, where the build script puts it), and says which.
//!
//! Its sha256 names it in the hosts' cache (`~/.cache/candor/bin/
//! candor-<sha256>`): the same bytes are never uploaded twice to a host
//! that keeps its cache (`--keep-binary`), and different builds never mix.

use crate::error::usage;
use aws_lc_rs::digest;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The binary to push.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Binary {
    /// Where it is on the controller.
    pub path: PathBuf,
    /// How it was chosen: `this candor`, `--binary`, or `the static build beside this candor`.
    pub chosen: String,
    /// Hex sha256 of its bytes.
    pub sha256: String,
    pub bytes: u64,
    /// False for a dynamically linked binary given with `--binary` (it runs
    /// only where the same shared libraries are).
    pub is_static: bool,
}

/// What an ELF header says about a file.
#[derive(Debug, PartialEq, Eq)]
pub enum Elf {
    /// x86_64 executable without an interpreter: runs on any x86_64 Linux.
    StaticX86_64,
    /// x86_64 executable that needs the dynamic loader (and this machine's libc).
    DynamicX86_64,
    /// An ELF file for another machine or of another kind, or not ELF at all.
    Other(String),
}

/// Reads the ELF header and program headers.
pub fn inspect(bytes: &[u8]) -> Elf {
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    if bytes.get(0..4) != Some(b"\x7fELF") {
        return Elf::Other("not an ELF executable".into());
    }
    if bytes.get(4) != Some(&2) || bytes.get(5) != Some(&1) {
        return Elf::Other("not a 64-bit little-endian ELF file".into());
    }
    match u16_at(18) {
        Some(62) => {}
        Some(m) => return Elf::Other(format!("an ELF file for machine {m}, not x86_64")),
        None => return Elf::Other("a truncated ELF file".into()),
    }
    if !matches!(u16_at(16), Some(2 | 3)) {
        return Elf::Other("an ELF file that is not an executable".into());
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(32), u16_at(54), u16_at(56)) else {
        return Elf::Other("a truncated ELF file".into());
    };
    for i in 0..phnum as usize {
        let at = phoff as usize + i * phentsize as usize;
        match u32_at(at) {
            // PT_INTERP: the file names its dynamic loader.
            Some(3) => return Elf::DynamicX86_64,
            Some(_) => {}
            None => return Elf::Other("a truncated ELF file".into()),
        }
    }
    Elf::StaticX86_64
}

/// Reads the header (program headers sit near the start of any executable
/// a linker writes) and hashes the file as a stream: a 60 MB debug build
/// does not sit in the controller's memory for the whole fleet run.
fn load(path: &Path, chosen: &str) -> anyhow::Result<(Binary, Elf)> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| usage(format!("--binary {}: cannot read: {e}", path.display()));
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut ctx = digest::Context::new(&digest::SHA256);
    let mut head: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(cannot)?;
        if n == 0 {
            break;
        }
        if head.len() < HEADER_BYTES {
            let take = n.min(HEADER_BYTES - head.len());
            head.extend_from_slice(&buf[..take]);
        }
        ctx.update(&buf[..n]);
        bytes += n as u64;
    }
    let elf = inspect(&head);
    let sha256 = ctx
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((
        Binary {
            path: path.to_path_buf(),
            chosen: chosen.to_string(),
            sha256,
            bytes,
            is_static: elf == Elf::StaticX86_64,
        },
        elf,
    ))
}

/// How much of the file `inspect` sees.
const HEADER_BYTES: usize = 64 << 10;

/// The static build `contrib/build-static.sh` makes, seen from a candor in
/// `target/{debug,release}/`.
fn beside(exe: &Path) -> Option<PathBuf> {
    let target_dir = exe.parent()?.parent()?;
    let p = target_dir.join("x86_64-unknown-linux-gnu/release/candor");
    p.is_file().then_some(p)
}

/// Chooses the binary (see the module comment). A `--binary` that is not
/// an x86_64 executable is refused; a dynamic one is accepted with a
/// warning, because the user chose it; nothing usable is a usage error
/// that says how to get one.
pub fn locate(explicit: Option<&Path>) -> anyhow::Result<(Binary, Vec<String>)> {
    let mut notes = Vec::new();
    if let Some(p) = explicit {
        let (b, elf) = load(p, "--binary")?;
        match elf {
            Elf::StaticX86_64 => {}
            Elf::DynamicX86_64 => notes.push(format!(
                "--binary {} is dynamically linked: it runs only on hosts with the same shared libraries (build a static one with contrib/build-static.sh)",
                p.display()
            )),
            Elf::Other(why) => {
                return Err(usage(format!("--binary {}: {why}; candor fleet pushes an x86_64 Linux executable", p.display())))
            }
        }
        return Ok((b, notes));
    }
    let exe = std::fs::read_link("/proc/self/exe")
        .map_err(|e| anyhow::anyhow!("cannot find this candor's executable: {e}"))?;
    let (me, elf) = load(Path::new("/proc/self/exe"), "this candor")?;
    if elf == Elf::StaticX86_64 {
        return Ok((Binary { path: exe, ..me }, notes));
    }
    if let Some(p) = beside(&exe) {
        let (b, elf) = load(&p, "the static build beside this candor")?;
        if elf == Elf::StaticX86_64 {
            notes.push(format!(
                "this candor is dynamically linked; pushing the static build {} (rebuild it with contrib/build-static.sh when the source changes)",
                p.display()
            ));
            return Ok((b, notes));
        }
    }
    Err(usage(format!(
        "this candor ({}) is dynamically linked and would not run on hosts with another libc; build a static one with contrib/build-static.sh and run that, or pass --binary PATH",
        exe.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 header with `phnum` program headers of the given types.
    fn elf(machine: u16, types: &[u32]) -> Vec<u8> {
        let mut b = vec![0u8; 64 + 56 * types.len()];
        b[0..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[16..18].copy_from_slice(&2u16.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[32..40].copy_from_slice(&64u64.to_le_bytes());
        b[54..56].copy_from_slice(&56u16.to_le_bytes());
        b[56..58].copy_from_slice(&(types.len() as u16).to_le_bytes());
        for (i, t) in types.iter().enumerate() {
            b[64 + 56 * i..68 + 56 * i].copy_from_slice(&t.to_le_bytes());
        }
        b
    }

    #[test]
    fn static_dynamic_and_foreign() {
        assert_eq!(inspect(&elf(62, &[6, 1, 1])), Elf::StaticX86_64);
        assert_eq!(inspect(&elf(62, &[6, 3, 1])), Elf::DynamicX86_64);
        assert!(matches!(inspect(&elf(183, &[1])), Elf::Other(w) if w.contains("183")));
        assert!(matches!(inspect(b"#!/bin/sh\n"), Elf::Other(_)));
        let mut cut = elf(62, &[1, 1]);
        cut.truncate(100);
        assert!(matches!(inspect(&cut), Elf::Other(w) if w.contains("truncated")));
        // The test binary itself is an ordinary dynamic build.
        let me = std::fs::read("/proc/self/exe").unwrap();
        assert_eq!(inspect(&me), Elf::DynamicX86_64);
    }

    #[test]
    fn sha256_is_hex_of_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("abc");
        std::fs::write(&f, b"abc").unwrap();
        let (b, elf) = load(&f, "--binary").unwrap();
        assert_eq!(
            b.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!((b.bytes, b.is_static), (3, false));
        assert!(matches!(elf, Elf::Other(_)));
    }

    #[test]
    fn explicit_binaries_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("x.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let e = locate(Some(&script)).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(e.to_string().contains("not an ELF"), "{e}");
        let (b, notes) = locate(Some(Path::new("/proc/self/exe"))).unwrap();
        assert!(!b.is_static);
        assert!(notes[0].contains("dynamically linked"));
    }
}
