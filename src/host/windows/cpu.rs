//! The CPU on Windows: sockets, cores, logical CPUs and the first CPU's
//! caches from `GetLogicalProcessorInformationEx` (Windows's own topology,
//! all processor groups), the model from cpuid's brand string (what
//! Windows's registry `ProcessorNameString` is made from). /proc and /sys
//! are not read: under Wine a rooted path reaches the Linux host's files.

use crate::host::cpu::CpuFacts;
use windows_sys::Win32::System::SystemInformation::{
    CacheData, CacheInstruction, GetLogicalProcessorInformationEx, RelationAll, RelationCache,
    RelationProcessorCore, RelationProcessorPackage, CACHE_RELATIONSHIP, GROUP_AFFINITY,
    PROCESSOR_RELATIONSHIP, SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX,
};

/// Reads this machine's CPU facts; what Windows does not answer stays None.
pub fn collect() -> CpuFacts {
    let mut facts = CpuFacts {
        model: brand_string(),
        ..CpuFacts::default()
    };
    if let Some(t) = topology() {
        facts.sockets = Some(t.sockets);
        facts.cores = Some(t.cores);
        facts.threads = Some(t.threads);
        facts.smt = Some(t.smt);
        facts.caches = t.caches;
        facts.topology_source = Some("GetLogicalProcessorInformationEx".into());
    }
    facts
}

/// cpuid's processor brand string (leaves 0x80000002-4), trimmed.
#[cfg(target_arch = "x86_64")]
fn brand_string() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    // cpuid exists on every x86_64 CPU; 0x80000000 gives the top leaf.
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002u32..=0x8000_0004 {
        let r = __cpuid(leaf);
        for word in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let name = String::from_utf8_lossy(&bytes[..end]).trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// No cpuid off x86_64 (Windows on ARM): the model is not read.
#[cfg(not(target_arch = "x86_64"))]
fn brand_string() -> Option<String> {
    None
}

/// What the processor records say.
struct Topology {
    sockets: u32,
    cores: u32,
    threads: u32,
    smt: bool,
    caches: Option<String>,
}

/// LTP_PC_SMT: a core record whose core runs more than one logical CPU.
const LTP_PC_SMT: u8 = 1;

/// Walks every record of `GetLogicalProcessorInformationEx(RelationAll)`.
fn topology() -> Option<Topology> {
    let mut len = 0u32;
    // SAFETY: a size query: a null buffer, the length needed written to len.
    unsafe { GetLogicalProcessorInformationEx(RelationAll, std::ptr::null_mut(), &mut len) };
    if len == 0 {
        return None;
    }
    // u64s: the records' 8-byte alignment.
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    // SAFETY: a buffer of at least `len` bytes, its length passed.
    let ok =
        unsafe { GetLogicalProcessorInformationEx(RelationAll, buf.as_mut_ptr().cast(), &mut len) };
    if ok == 0 {
        return None;
    }
    let base = buf.as_ptr().cast::<u8>();
    let header = std::mem::offset_of!(SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX, Anonymous);
    let (mut sockets, mut cores, mut threads, mut smt) = (0u32, 0u32, 0u32, false);
    let mut caches = Vec::new();
    let mut at = 0usize;
    while at + header <= len as usize {
        // SAFETY: `at` is a record's start within the `len` bytes Windows wrote.
        let rec = unsafe {
            base.add(at)
                .cast::<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX>()
                .read_unaligned()
        };
        if rec.Size == 0 || at + rec.Size as usize > len as usize {
            break;
        }
        let body = at + header;
        // (windows-sys's constants are not upper case: compared, not matched.)
        let relation = rec.Relationship;
        if relation == RelationProcessorPackage {
            sockets += 1;
        } else if relation == RelationProcessorCore {
            // SAFETY: a core record's body is a PROCESSOR_RELATIONSHIP.
            let p = unsafe {
                base.add(body)
                    .cast::<PROCESSOR_RELATIONSHIP>()
                    .read_unaligned()
            };
            cores += 1;
            smt |= p.Flags == LTP_PC_SMT;
            let masks = body + std::mem::offset_of!(PROCESSOR_RELATIONSHIP, GroupMask);
            for i in 0..p.GroupCount as usize {
                let m = masks + i * std::mem::size_of::<GROUP_AFFINITY>();
                if m + std::mem::size_of::<GROUP_AFFINITY>() > at + rec.Size as usize {
                    break;
                }
                // SAFETY: the i-th of GroupCount masks, inside this record.
                let g = unsafe { base.add(m).cast::<GROUP_AFFINITY>().read_unaligned() };
                threads += g.Mask.count_ones();
            }
        } else if relation == RelationCache {
            // SAFETY: a cache record's body is a CACHE_RELATIONSHIP.
            let c = unsafe { base.add(body).cast::<CACHE_RELATIONSHIP>().read_unaligned() };
            // SAFETY: the union's first mask, present in every cache record.
            let first = unsafe { c.Anonymous.GroupMask };
            // The caches of the first logical CPU, as Linux's cpu0/cache.
            if first.Group == 0 && first.Mask & 1 == 1 {
                let kind = if c.Type == CacheData {
                    "d"
                } else if c.Type == CacheInstruction {
                    "i"
                } else {
                    ""
                };
                caches.push((c.Level, kind, c.CacheSize / 1024));
            }
        }
        at += rec.Size as usize;
    }
    // Linux's index order: by level, data before instruction.
    caches.sort_by_key(|&(level, kind, _)| (level, kind != "d", kind != "i"));
    let caches: Vec<String> = caches
        .iter()
        .map(|(level, kind, k)| format!("L{level}{kind} {k}K"))
        .collect();
    (cores > 0 && threads > 0).then(|| Topology {
        sockets,
        cores,
        threads,
        smt: smt || threads > cores,
        caches: (!caches.is_empty()).then(|| caches.join(", ")),
    })
}
