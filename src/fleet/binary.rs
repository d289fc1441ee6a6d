//! The candor binaries that go to the hosts, one per architecture. Each
//! must run on any Linux of its architecture, whatever its libc: a
//! statically linked executable (no ELF interpreter; `contrib/build-static.sh
//! --target TRIPLE` builds one). A fleet may mix x86_64, aarch64 and armv7
//! hosts: each host's architecture is read from `uname -sm` when it logs in,
//! and it gets that architecture's binary, chosen in this order:
//!
//! 1. `--binary ARCH=PATH`, or `--binary PATH` for the ELF file's own architecture;
//! 2. the running candor, when it is static and of that architecture, so the
//!    controller and the hosts run the same build by construction;
//! 3. the static build beside this candor (`target/TRIPLE/release/candor`,
//!    where the build script puts it, seen from `target/{debug,release}/`).
//!
//! The `--binary` files are checked (ELF machine, class) before any host is
//! contacted; a binary is hashed only when a host of its architecture asks
//! for it, once per architecture. A host whose architecture has no binary
//! gets a one-line cause that says how to make one, and the others go on.
//!
//! Its sha256 names a binary in the hosts' cache (`~/.cache/candor/bin/
//! candor-<sha256>`): the same bytes are never uploaded twice to a host
//! that keeps its cache (`--keep-binary`), and different builds never mix.

use crate::error::usage;
use aws_lc_rs::digest;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// An architecture candor has a static build for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arch {
    X86_64,
    Aarch64,
    /// 32-bit ARM, hard float (armhf): the boards of the old forum tables.
    Armv7,
}

impl Arch {
    pub const ALL: [Arch; 3] = [Arch::X86_64, Arch::Aarch64, Arch::Armv7];

    /// The name used in flags, fleet.json and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Armv7 => "armv7",
        }
    }

    /// The Rust target `contrib/build-static.sh --target` builds for it.
    pub fn triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-unknown-linux-gnu",
            Arch::Aarch64 => "aarch64-unknown-linux-gnu",
            Arch::Armv7 => "armv7-unknown-linux-gnueabihf",
        }
    }

    /// ELF `e_machine`: EM_X86_64, EM_AARCH64, EM_ARM.
    fn elf_machine(self) -> u16 {
        match self {
            Arch::X86_64 => 62,
            Arch::Aarch64 => 183,
            Arch::Armv7 => 40,
        }
    }

    fn from_elf_machine(machine: u16) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.elf_machine() == machine)
    }

    /// True for the 64-bit architectures (ELFCLASS64 executables).
    fn is_64_bit(self) -> bool {
        !matches!(self, Arch::Armv7)
    }

    /// The architecture of a `uname -m` value. `armv8l` is a 32-bit
    /// userland on a 64-bit ARM kernel: it runs armv7 code. Older ARM
    /// (armv6l, armv5tel) has no build: armv7's instructions do not run there.
    pub fn from_uname(machine: &str) -> Option<Arch> {
        match machine {
            "x86_64" | "amd64" => Some(Arch::X86_64),
            "aarch64" | "arm64" => Some(Arch::Aarch64),
            "armhf" | "armv8l" => Some(Arch::Armv7),
            m if m.starts_with("armv7") => Some(Arch::Armv7),
            _ => None,
        }
    }

    /// The architecture named before `=` in `--binary ARCH=PATH`: candor's
    /// names, uname's and Debian's.
    pub fn from_flag(name: &str) -> Option<Arch> {
        match name.to_ascii_lowercase().as_str() {
            "x86_64" | "amd64" | "x86-64" => Some(Arch::X86_64),
            "aarch64" | "arm64" => Some(Arch::Aarch64),
            "armv7" | "armv7l" | "armhf" | "arm" => Some(Arch::Armv7),
            _ => None,
        }
    }

    /// The architecture this candor was compiled for, if it has a build.
    pub fn this_build() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Aarch64),
            "arm" => Some(Arch::Armv7),
            _ => None,
        }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A host's architecture from its `uname -sm` line, or the one-line cause
/// why candor has nothing to run there.
pub fn host_arch(system: &str) -> Result<Arch, String> {
    let (kernel, machine) = system.trim().split_once(' ').unwrap_or((system.trim(), ""));
    if kernel != "Linux" {
        return Err(format!(
            "the host is '{}'; candor runs on Linux only",
            system.trim()
        ));
    }
    Arch::from_uname(machine.trim()).ok_or_else(|| {
        format!(
            "the host is '{}'; candor has static builds for Linux on x86_64, aarch64 and armv7 only",
            system.trim()
        )
    })
}

/// A binary chosen for the hosts of one architecture.
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
    /// The architecture it is for (`x86_64`, `aarch64`, `armv7`); absent
    /// in fleet.json files written before fleets mixed architectures.
    #[serde(default)]
    pub arch: Option<String>,
}

/// What an ELF header says about an executable candor can push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elf {
    pub arch: Arch,
    /// No PT_INTERP program header: it needs no dynamic loader and no libc
    /// of the host's.
    pub is_static: bool,
}

/// Reads the ELF header and program headers (ELF32 for ARM, ELF64 for the
/// others; little-endian). Err is why the file is not an executable for
/// one of candor's architectures, as a phrase.
pub fn inspect(bytes: &[u8]) -> Result<Elf, String> {
    let truncated = || "a truncated ELF file".to_string();
    let u16_at = |o: usize| {
        bytes
            .get(o..o.checked_add(2)?)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o.checked_add(4)?)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o.checked_add(8)?)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    if bytes.get(0..4) != Some(b"\x7fELF") {
        return Err("not an ELF executable".into());
    }
    let elf64 = match bytes.get(4) {
        Some(1) => false,
        Some(2) => true,
        Some(c) => return Err(format!("an ELF file of unknown class {c}")),
        None => return Err(truncated()),
    };
    if bytes.get(5) != Some(&1) {
        return Err("a big-endian ELF file (candor's builds are little-endian)".into());
    }
    let machine = u16_at(18).ok_or_else(truncated)?;
    let arch = Arch::from_elf_machine(machine).ok_or_else(|| {
        format!("an ELF file for machine {machine}, not x86_64 (62), aarch64 (183) or ARM (40)")
    })?;
    if arch.is_64_bit() != elf64 {
        return Err(format!(
            "a {}-bit ELF file for {arch}, whose executables are {}-bit",
            if elf64 { 64 } else { 32 },
            if arch.is_64_bit() { 64 } else { 32 }
        ));
    }
    if !matches!(u16_at(16), Some(2 | 3)) {
        return Err("an ELF file that is not an executable".into());
    }
    // e_phoff, e_phentsize, e_phnum: their offsets differ between the classes.
    let (phoff, phentsize, phnum) = if elf64 {
        (u64_at(32), u16_at(54), u16_at(56))
    } else {
        (u32_at(28).map(u64::from), u16_at(42), u16_at(44))
    };
    let (Some(phoff), Some(phentsize), Some(phnum)) = (phoff, phentsize, phnum) else {
        return Err(truncated());
    };
    let phoff = usize::try_from(phoff).map_err(|_| truncated())?;
    for i in 0..phnum as usize {
        let at = (i * phentsize as usize)
            .checked_add(phoff)
            .ok_or_else(truncated)?;
        match u32_at(at) {
            // PT_INTERP: the file names its dynamic loader.
            Some(3) => {
                return Ok(Elf {
                    arch,
                    is_static: false,
                })
            }
            Some(_) => {}
            None => return Err(truncated()),
        }
    }
    Ok(Elf {
        arch,
        is_static: true,
    })
}

/// How much of the file `inspect` sees (program headers sit near the start
/// of any executable a linker writes).
const HEADER_BYTES: usize = 64 << 10;

/// The first `HEADER_BYTES` of a file.
fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// Reads the header and hashes the file as a stream: a 60 MB debug build
/// does not sit in the controller's memory for the whole fleet run.
pub fn load(path: &Path, chosen: &str) -> std::io::Result<(Binary, Result<Elf, String>)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut ctx = digest::Context::new(&digest::SHA256);
    let mut head: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf)?;
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
    let binary = Binary {
        path: path.to_path_buf(),
        chosen: chosen.to_string(),
        sha256,
        bytes,
        is_static: elf.as_ref().is_ok_and(|e| e.is_static),
        arch: elf.as_ref().ok().map(|e| e.arch.name().to_string()),
    };
    Ok((binary, elf))
}

/// One `--binary` flag: `ARCH=PATH`, or `PATH` (for its ELF's architecture).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryFlag {
    pub arch: Option<Arch>,
    pub path: PathBuf,
}

impl BinaryFlag {
    /// Reads a `--binary` value. A value that names an existing file is a
    /// path even if it holds `=`; otherwise a word without `/` before the
    /// first `=` is an architecture, and an unknown one is refused.
    pub fn parse(value: &str) -> anyhow::Result<BinaryFlag> {
        if let Some((name, path)) = value.split_once('=') {
            if !name.contains('/') && !Path::new(value).exists() {
                let arch = Arch::from_flag(name).ok_or_else(|| {
                    usage(format!(
                        "--binary {value}: unknown architecture '{name}' (x86_64, aarch64, armv7)"
                    ))
                })?;
                if path.is_empty() {
                    return Err(usage(format!("--binary {value}: no path after '='")));
                }
                return Ok(BinaryFlag {
                    arch: Some(arch),
                    path: PathBuf::from(path),
                });
            }
        }
        if value.is_empty() {
            return Err(usage("--binary: an empty path"));
        }
        Ok(BinaryFlag {
            arch: None,
            path: PathBuf::from(value),
        })
    }

    fn describe(&self) -> String {
        match self.arch {
            Some(a) => format!("--binary {a}={}", self.path.display()),
            None => format!("--binary {}", self.path.display()),
        }
    }
}

/// Where each architecture's binary comes from, and the ones loaded so far.
#[derive(Debug)]
pub struct Binaries {
    /// The `--binary` files, header checked, by architecture.
    explicit: BTreeMap<Arch, PathBuf>,
    /// The running candor (its real path) when it is a static build, and its architecture.
    this_static: Option<(PathBuf, Arch)>,
    /// The running candor's path, for the static builds beside it.
    exe: PathBuf,
    /// Each architecture's binary (or why there is none), decided the first
    /// time a host of that architecture asks.
    chosen: [OnceLock<Result<Binary, String>>; 3],
    /// Notes from choosing them (a dynamic `--binary`, a build beside this one).
    notes: Mutex<Vec<String>>,
}

impl Binaries {
    /// Checks the `--binary` flags (readable, an ELF executable of the
    /// architecture given, one per architecture) and finds the running
    /// candor; nothing is hashed yet. Returns notes to print now. When no
    /// architecture can have a binary at all, that is a usage error that
    /// says how to get one, before any host is contacted.
    pub fn prepare(flags: &[BinaryFlag]) -> anyhow::Result<(Binaries, Vec<String>)> {
        let mut notes = Vec::new();
        let mut explicit: BTreeMap<Arch, PathBuf> = BTreeMap::new();
        for f in flags {
            let head = read_head(&f.path)
                .map_err(|e| usage(format!("{}: cannot read: {e}", f.describe())))?;
            let elf = inspect(&head).map_err(|why| {
                usage(format!(
                    "{}: {why}; candor fleet pushes a Linux executable for x86_64, aarch64 or armv7",
                    f.describe()
                ))
            })?;
            if let Some(given) = f.arch {
                if given != elf.arch {
                    return Err(usage(format!(
                        "{}: an executable for {}, not {given}",
                        f.describe(),
                        elf.arch
                    )));
                }
            }
            if let Some(other) = explicit.get(&elf.arch) {
                return Err(usage(format!(
                    "--binary: two binaries for {} ({} and {}); give one per architecture",
                    elf.arch,
                    other.display(),
                    f.path.display()
                )));
            }
            if !elf.is_static {
                notes.push(format!(
                    "{} is dynamically linked: it runs only on hosts with the same shared libraries (build a static one with contrib/build-static.sh{})",
                    f.describe(),
                    target_flag(elf.arch)
                ));
            }
            explicit.insert(elf.arch, f.path.clone());
        }
        let exe = std::fs::read_link("/proc/self/exe")
            .map_err(|e| anyhow::anyhow!("cannot find this candor's executable: {e}"))?;
        let this_static = read_head(Path::new("/proc/self/exe"))
            .ok()
            .and_then(|h| inspect(&h).ok())
            .filter(|e| e.is_static)
            .map(|e| (exe.clone(), e.arch));
        let binaries = Binaries {
            explicit,
            this_static,
            exe,
            chosen: Default::default(),
            notes: Mutex::new(Vec::new()),
        };
        let any = Arch::ALL.into_iter().any(|a| {
            binaries.explicit.contains_key(&a)
                || binaries.this_static.as_ref().is_some_and(|t| t.1 == a)
                || beside(&binaries.exe, a).is_some()
        });
        if !any {
            return Err(usage(format!(
                "this candor ({}) is dynamically linked and would not run on hosts with another libc; build a static one with contrib/build-static.sh [--target TRIPLE] and run that, or pass --binary [ARCH=]PATH",
                binaries.exe.display()
            )));
        }
        Ok((binaries, notes))
    }

    /// The binary for hosts of `arch`, chosen and hashed on first use; Err
    /// is the one-line cause for such a host.
    pub fn for_arch(&self, arch: Arch) -> Result<&Binary, String> {
        let slot = &self.chosen[arch as usize];
        slot.get_or_init(|| self.choose(arch))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The binaries chosen so far, in architecture order.
    pub fn chosen(&self) -> Vec<Binary> {
        self.chosen
            .iter()
            .filter_map(|c| c.get().and_then(|r| r.as_ref().ok()).cloned())
            .collect()
    }

    /// Notes from choosing (a build beside this candor was used, ...).
    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn note(&self, text: String) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(text);
        }
    }

    fn choose(&self, arch: Arch) -> Result<Binary, String> {
        if let Some(p) = self.explicit.get(&arch) {
            return load(p, "--binary")
                .map(|(b, _)| b)
                .map_err(|e| format!("cannot read --binary {}: {e}", p.display()));
        }
        if let Some((path, a)) = &self.this_static {
            if *a == arch {
                // Hash what runs, then name it by its real path.
                if let Ok((b, Ok(elf))) = load(Path::new("/proc/self/exe"), "this candor") {
                    if elf.arch == arch && elf.is_static {
                        return Ok(Binary {
                            path: path.clone(),
                            ..b
                        });
                    }
                }
            }
        }
        let missing = format!(
            "no static candor for {arch}: build one with contrib/build-static.sh{} or pass --binary {arch}=PATH",
            target_flag(arch)
        );
        let Some(p) = beside(&self.exe, arch) else {
            return Err(missing);
        };
        match load(&p, "the static build beside this candor") {
            Ok((b, Ok(elf))) if elf.arch == arch && elf.is_static => {
                self.note(if Some(arch) == Arch::this_build() {
                    format!(
                        "this candor is dynamically linked; pushing the static build {} (rebuild it with contrib/build-static.sh when the source changes)",
                        p.display()
                    )
                } else {
                    format!(
                        "{arch} hosts get the static build {} (rebuild it with contrib/build-static.sh{} when the source changes)",
                        p.display(),
                        target_flag(arch)
                    )
                });
                Ok(b)
            }
            Ok((_, Ok(_))) => Err(format!(
                "{missing} ({} is not a static {arch} executable)",
                p.display()
            )),
            Ok((_, Err(why))) => Err(format!("{missing} ({}: {why})", p.display())),
            Err(e) => Err(format!("{missing} ({}: {e})", p.display())),
        }
    }
}

/// ` --target TRIPLE` for the build script, empty for its default (x86_64).
fn target_flag(arch: Arch) -> String {
    match arch {
        Arch::X86_64 => String::new(),
        a => format!(" --target {}", a.triple()),
    }
}

/// The static build `contrib/build-static.sh --target TRIPLE` makes for
/// `arch`, seen from a candor in `target/{debug,release}/` or in another
/// architecture's `target/TRIPLE/release/`.
fn beside(exe: &Path, arch: Arch) -> Option<PathBuf> {
    let profile = exe.parent()?;
    if !matches!(
        profile.file_name().and_then(|n| n.to_str()),
        Some("debug" | "release")
    ) {
        return None;
    }
    let mut target_dir = profile.parent()?;
    let in_triple = target_dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| Arch::ALL.iter().any(|a| a.triple() == n));
    if in_triple {
        target_dir = target_dir.parent()?;
    }
    let p = target_dir.join(arch.triple()).join("release/candor");
    (p.is_file() && p != exe).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 header with `phnum` program headers of the given types.
    fn elf64(machine: u16, types: &[u32]) -> Vec<u8> {
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

    /// A minimal ELF32 header: e_phoff at 28 (u32), e_phentsize at 42,
    /// e_phnum at 44, program headers of 32 bytes after the 52-byte header.
    fn elf32(machine: u16, types: &[u32]) -> Vec<u8> {
        let mut b = vec![0u8; 52 + 32 * types.len()];
        b[0..4].copy_from_slice(b"\x7fELF");
        b[4] = 1;
        b[5] = 1;
        b[16..18].copy_from_slice(&2u16.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[28..32].copy_from_slice(&52u32.to_le_bytes());
        b[42..44].copy_from_slice(&32u16.to_le_bytes());
        b[44..46].copy_from_slice(&(types.len() as u16).to_le_bytes());
        for (i, t) in types.iter().enumerate() {
            b[52 + 32 * i..56 + 32 * i].copy_from_slice(&t.to_le_bytes());
        }
        b
    }

    fn ok(arch: Arch, is_static: bool) -> Result<Elf, String> {
        Ok(Elf { arch, is_static })
    }

    #[test]
    fn elf64_static_dynamic_and_foreign() {
        assert_eq!(inspect(&elf64(62, &[6, 1, 1])), ok(Arch::X86_64, true));
        assert_eq!(inspect(&elf64(62, &[6, 3, 1])), ok(Arch::X86_64, false));
        assert_eq!(inspect(&elf64(183, &[1, 1])), ok(Arch::Aarch64, true));
        assert_eq!(inspect(&elf64(183, &[6, 3])), ok(Arch::Aarch64, false));
        assert!(matches!(inspect(&elf64(243, &[1])), Err(w) if w.contains("machine 243")));
        assert!(matches!(inspect(b"#!/bin/sh\n"), Err(w) if w.contains("not an ELF")));
        let mut cut = elf64(62, &[1, 1]);
        cut.truncate(100);
        assert!(matches!(inspect(&cut), Err(w) if w.contains("truncated")));
        let mut big = elf64(62, &[1]);
        big[5] = 2;
        assert!(matches!(inspect(&big), Err(w) if w.contains("big-endian")));
        let mut object = elf64(62, &[1]);
        object[16] = 1;
        assert!(matches!(inspect(&object), Err(w) if w.contains("not an executable")));
        // The test binary itself: this build's architecture, static only
        // when built with crt-static.
        let me = std::fs::read("/proc/self/exe").unwrap();
        assert_eq!(
            inspect(&me),
            ok(
                Arch::this_build().unwrap(),
                cfg!(target_feature = "crt-static")
            )
        );
    }

    #[test]
    fn elf32_arm_reads_the_32_bit_offsets() {
        assert_eq!(inspect(&elf32(40, &[6, 1, 1])), ok(Arch::Armv7, true));
        assert_eq!(inspect(&elf32(40, &[1, 3, 1])), ok(Arch::Armv7, false));
        // A PT_INTERP only where the ELF64 offsets would look is not seen:
        // the 32-bit layout is what is read.
        let mut b = elf32(40, &[1, 1]);
        b.resize(200, 0);
        b[120..124].copy_from_slice(&3u32.to_le_bytes());
        assert_eq!(inspect(&b), ok(Arch::Armv7, true));
        let mut cut = elf32(40, &[1, 1]);
        cut.truncate(60);
        assert!(matches!(inspect(&cut), Err(w) if w.contains("truncated")));
        // The class must be the architecture's.
        assert!(
            matches!(inspect(&elf32(62, &[1])), Err(w) if w.contains("32-bit ELF file for x86_64"))
        );
        assert!(
            matches!(inspect(&elf64(40, &[1])), Err(w) if w.contains("64-bit ELF file for armv7"))
        );
        assert!(matches!(inspect(&elf32(3, &[1])), Err(w) if w.contains("machine 3")));
    }

    #[test]
    fn uname_machines_map_to_the_three_targets() {
        for (m, a) in [
            ("x86_64", Some(Arch::X86_64)),
            ("aarch64", Some(Arch::Aarch64)),
            ("arm64", Some(Arch::Aarch64)),
            ("armv7l", Some(Arch::Armv7)),
            ("armv7", Some(Arch::Armv7)),
            ("armhf", Some(Arch::Armv7)),
            ("armv8l", Some(Arch::Armv7)),
            ("armv6l", None),
            ("i686", None),
            ("riscv64", None),
            ("", None),
        ] {
            assert_eq!(Arch::from_uname(m), a, "{m}");
        }
        assert_eq!(
            Arch::Armv7.triple(),
            "armv7-unknown-linux-gnueabihf",
            "the build script's triple"
        );
        assert_eq!(host_arch("Linux aarch64"), Ok(Arch::Aarch64));
        assert_eq!(host_arch("Linux x86_64\n"), Ok(Arch::X86_64));
        assert!(host_arch("FreeBSD amd64")
            .unwrap_err()
            .contains("Linux only"));
        assert!(host_arch("Linux mips64")
            .unwrap_err()
            .contains("x86_64, aarch64 and armv7"));
    }

    #[test]
    fn binary_flags_name_an_architecture_or_a_path() {
        assert_eq!(
            BinaryFlag::parse("aarch64=/b/candor").unwrap(),
            BinaryFlag {
                arch: Some(Arch::Aarch64),
                path: "/b/candor".into()
            }
        );
        assert_eq!(
            BinaryFlag::parse("arm64=x").unwrap().arch,
            Some(Arch::Aarch64)
        );
        assert_eq!(BinaryFlag::parse("/b/candor").unwrap().arch, None);
        assert_eq!(BinaryFlag::parse("./a=b").unwrap().arch, None);
        for (bad, says) in [
            ("mips=/b", "unknown architecture 'mips'"),
            ("aarch64=", "no path"),
            ("", "empty path"),
        ] {
            let e = BinaryFlag::parse(bad).unwrap_err();
            assert!(crate::error::is_usage(&e));
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
        // An existing file whose name holds '=' is a path.
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("aarch64=x");
        std::fs::write(&odd, b"").unwrap();
        let v = odd.display().to_string();
        assert_eq!(BinaryFlag::parse(&v).unwrap().arch, None);
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
        assert_eq!((b.bytes, b.is_static, b.arch), (3, false, None));
        assert!(elf.is_err());
    }

    fn flag(arch: Option<Arch>, path: &Path) -> BinaryFlag {
        BinaryFlag {
            arch,
            path: path.to_path_buf(),
        }
    }

    #[test]
    fn explicit_binaries_are_checked_before_any_host() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("x.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let arm64 = dir.path().join("arm64");
        std::fs::write(&arm64, elf64(183, &[1, 1])).unwrap();
        let armhf = dir.path().join("armhf");
        std::fs::write(&armhf, elf32(40, &[1])).unwrap();
        let dynamic = dir.path().join("dynamic");
        std::fs::write(&dynamic, elf64(62, &[6, 3, 1])).unwrap();
        let err = |flags: &[BinaryFlag]| {
            let e = Binaries::prepare(flags).unwrap_err();
            assert!(crate::error::is_usage(&e), "{e}");
            assert!(!e.to_string().contains('\n'));
            e.to_string()
        };
        assert!(err(&[flag(None, &script)]).contains("not an ELF"));
        assert!(err(&[flag(None, &dir.path().join("absent"))]).contains("cannot read"));
        assert_eq!(
            err(&[flag(Some(Arch::X86_64), &arm64)]),
            format!(
                "--binary x86_64={}: an executable for aarch64, not x86_64",
                arm64.display()
            )
        );
        assert!(
            err(&[flag(None, &arm64), flag(Some(Arch::Aarch64), &arm64)])
                .contains("two binaries for aarch64")
        );

        // Plain PATH is for its own architecture; a dynamic one is noted.
        let (b, notes) =
            Binaries::prepare(&[flag(None, &dynamic), flag(Some(Arch::Aarch64), &arm64)]).unwrap();
        assert!(notes[0].contains("dynamically linked"), "{notes:?}");
        assert!(
            b.chosen().is_empty(),
            "nothing is hashed before a host asks"
        );
        let x = b.for_arch(Arch::X86_64).unwrap();
        assert_eq!((x.chosen.as_str(), x.is_static), ("--binary", false));
        assert_eq!(x.arch.as_deref(), Some("x86_64"));
        let a = b.for_arch(Arch::Aarch64).unwrap();
        assert_eq!(a.arch.as_deref(), Some("aarch64"));
        assert!(a.is_static);
        assert_ne!(a.sha256, x.sha256);
        // The test binary is in target/.../deps, where no build sits beside
        // it; run as a static armv7 binary (under qemu-arm), it is itself one.
        match b.for_arch(Arch::Armv7) {
            Ok(this) if Arch::this_build() == Some(Arch::Armv7) => {
                assert_eq!(this.chosen, "this candor");
                assert_eq!(b.chosen().len(), 3);
            }
            other => {
                assert_eq!(
                    other.unwrap_err(),
                    "no static candor for armv7: build one with contrib/build-static.sh --target armv7-unknown-linux-gnueabihf or pass --binary armv7=PATH"
                );
                assert_eq!(b.chosen().len(), 2);
            }
        }
        let (b, _) = Binaries::prepare(&[flag(Some(Arch::Armv7), &armhf)]).unwrap();
        assert_eq!(
            b.for_arch(Arch::Armv7).unwrap().arch.as_deref(),
            Some("armv7")
        );
    }

    #[test]
    fn the_static_builds_beside_a_candor_in_target() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("target");
        let debug = t.join("debug/candor");
        let arm = t.join("aarch64-unknown-linux-gnu/release/candor");
        let x86 = t.join("x86_64-unknown-linux-gnu/release/candor");
        for p in [&debug, &arm, &x86] {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"").unwrap();
        }
        assert_eq!(beside(&debug, Arch::Aarch64), Some(arm.clone()));
        assert_eq!(beside(&debug, Arch::X86_64), Some(x86.clone()));
        assert_eq!(beside(&debug, Arch::Armv7), None);
        // From the x86_64 static build itself: the other triples beside it.
        assert_eq!(beside(&x86, Arch::Aarch64), Some(arm));
        assert_eq!(beside(&x86, Arch::X86_64), None);
        // A candor installed elsewhere has no build beside it.
        assert_eq!(
            beside(Path::new("/usr/local/bin/candor"), Arch::X86_64),
            None
        );
    }
}
