//! Virtualisation, as systemd-detect-virt decides it for VMs: the cpuid
//! hypervisor bit and vendor leaf first (x86), then DMI strings, then
//! /sys/hypervisor. `sources` says what was actually read, so a reader can
//! tell "no hypervisor seen" from "nothing could be looked at".
//!
//! This says what the guest is told. It cannot say what storage the host
//! really has: inside a VM the disk type is the provider's claim.

use super::read_trimmed;
use crate::result::Virtualization;
use std::path::Path;

/// Reads this machine's virtualisation facts.
pub fn collect() -> Virtualization {
    let cpuid = read_cpuid();
    let dmi = Dmi::read(Path::new("/sys/class/dmi/id"));
    let hypervisor_type = read_trimmed(Path::new("/sys/hypervisor/type"));
    let mut v = decide(cpuid, dmi, hypervisor_type);
    device_tree(&mut v, Path::new("/proc/device-tree"));
    v
}

/// ARM hosts without cpuid, and often without DMI: the device tree's
/// `hypervisor` node (Xen and some KVM guests publish one, its `compatible`
/// naming the hypervisor) decides where nothing else did; with no evidence
/// at all the kind is `not-checked`, with the reason in `sources`.
pub fn device_tree(v: &mut Virtualization, root: &Path) {
    if root.is_dir() {
        // `compatible` is a list of NUL-separated strings ("xen,xen-4.16\0xen,xen").
        match std::fs::read(root.join("hypervisor/compatible")) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
                let text = text.trim();
                v.sources.push(format!(
                    "/proc/device-tree/hypervisor/compatible = {text:?}"
                ));
                if matches!(v.kind.as_str(), "unknown" | "none") {
                    let kind = if text.contains("xen") {
                        "xen"
                    } else if text.contains("kvm") {
                        "kvm"
                    } else {
                        "unknown"
                    };
                    v.kind = kind.into();
                }
            }
            Err(_) => v
                .sources
                .push("/proc/device-tree: no hypervisor node".into()),
        }
    }
    let no_cpuid = v.hypervisor_bit.is_none();
    if v.kind == "unknown" && no_cpuid && !v.sources.iter().any(|s| s.contains(" = ")) {
        v.kind = "not-checked".into();
        v.sources.push(
            "not-checked: no cpuid on this architecture, no DMI, no device-tree hypervisor node, no /sys/hypervisor".into(),
        );
    }
}

/// What cpuid said: leaf 1 ECX bit 31, and the vendor of leaf 0x40000000.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cpuid {
    pub hypervisor_bit: bool,
    pub vendor: Option<String>,
}

/// Executes cpuid (x86_64 only; None elsewhere).
pub fn read_cpuid() -> Option<Cpuid> {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        // cpuid is available on every x86_64 CPU.
        #[allow(unused_unsafe)]
        let leaf1 = unsafe { __cpuid(1) };
        let hypervisor_bit = leaf1.ecx & (1 << 31) != 0;
        let vendor = if hypervisor_bit {
            // Leaf 0x40000000 is reserved for hypervisors; it is only
            // meaningful when the hypervisor bit is set.
            #[allow(unused_unsafe)]
            let leaf = unsafe { __cpuid(0x4000_0000) };
            let mut bytes = Vec::with_capacity(12);
            for reg in [leaf.ebx, leaf.ecx, leaf.edx] {
                bytes.extend_from_slice(&reg.to_le_bytes());
            }
            let text: String = String::from_utf8_lossy(&bytes)
                .trim_end_matches('\0')
                .to_string();
            (!text.trim().is_empty()).then_some(text)
        } else {
            None
        };
        Some(Cpuid {
            hypervisor_bit,
            vendor,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// DMI strings (absent on some VMs, e.g. Firecracker, and on many ARM boards).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dmi {
    pub read: bool,
    pub sys_vendor: Option<String>,
    pub product_name: Option<String>,
    pub bios_vendor: Option<String>,
    pub board_vendor: Option<String>,
}

impl Dmi {
    /// Reads /sys/class/dmi/id (or a copy of it under `root`).
    pub fn read(root: &Path) -> Dmi {
        Dmi {
            read: root.is_dir(),
            sys_vendor: read_trimmed(&root.join("sys_vendor")),
            product_name: read_trimmed(&root.join("product_name")),
            bios_vendor: read_trimmed(&root.join("bios_vendor")),
            board_vendor: read_trimmed(&root.join("board_vendor")),
        }
    }
}

/// The hypervisor named by a cpuid vendor signature (systemd's table).
pub fn kind_from_cpuid_vendor(vendor: &str) -> Option<&'static str> {
    Some(match vendor.trim_end_matches('\0') {
        "KVMKVMKVM" => "kvm",
        "Linux KVM Hv" => "kvm",
        "TCGTCGTCGTCG" => "qemu",
        "XenVMMXenVMM" => "xen",
        "VMwareVMware" => "vmware",
        "Microsoft Hv" => "microsoft",
        "bhyve bhyve " => "bhyve",
        "QNXQVMBSQG" => "qnx",
        "ACRNACRNACRN" => "acrn",
        " lrpepyh  vr" => "parallels",
        "SRESRESRESRE" => "sre",
        "Apple VZ" => "apple",
        _ => return None,
    })
}

/// The hypervisor named by DMI vendor strings (systemd's table).
pub fn kind_from_dmi(dmi: &Dmi) -> Option<&'static str> {
    let fields = [
        &dmi.product_name,
        &dmi.sys_vendor,
        &dmi.board_vendor,
        &dmi.bios_vendor,
    ];
    const TABLE: [(&str, &str); 14] = [
        ("KVM", "kvm"),
        ("OpenStack", "kvm"),
        ("KubeVirt", "kvm"),
        ("Amazon EC2", "amazon"),
        ("QEMU", "qemu"),
        ("VMware", "vmware"),
        ("VMW", "vmware"),
        ("innotek GmbH", "oracle"),
        ("VirtualBox", "oracle"),
        ("Oracle Corporation", "oracle"),
        ("Xen", "xen"),
        ("Bochs", "bochs"),
        ("Parallels", "parallels"),
        ("BHYVE", "bhyve"),
    ];
    for field in fields.into_iter().flatten() {
        for (prefix, kind) in TABLE {
            if field.starts_with(prefix) {
                return Some(kind);
            }
        }
    }
    // Hyper-V: the vendor is Microsoft and the product a "Virtual Machine".
    if dmi.sys_vendor.as_deref() == Some("Microsoft Corporation")
        && dmi.product_name.as_deref() == Some("Virtual Machine")
    {
        return Some("microsoft");
    }
    None
}

/// Decides the kind from what was read, and records what that was.
pub fn decide(cpuid: Option<Cpuid>, dmi: Dmi, hypervisor_type: Option<String>) -> Virtualization {
    let mut v = Virtualization {
        dmi_sys_vendor: dmi.sys_vendor.clone(),
        dmi_product_name: dmi.product_name.clone(),
        ..Virtualization::default()
    };
    let mut kind: Option<String> = None;
    match &cpuid {
        Some(c) => {
            v.hypervisor_bit = Some(c.hypervisor_bit);
            v.hypervisor_vendor = c.vendor.clone();
            v.sources.push(format!(
                "cpuid leaf 0x1 ecx bit 31 = {}",
                u8::from(c.hypervisor_bit)
            ));
            if c.hypervisor_bit {
                match &c.vendor {
                    Some(vendor) => {
                        v.sources
                            .push(format!("cpuid leaf 0x40000000 vendor = {vendor:?}"));
                        kind = kind_from_cpuid_vendor(vendor).map(String::from);
                    }
                    None => v
                        .sources
                        .push("cpuid leaf 0x40000000: no vendor signature".into()),
                }
            }
        }
        None => v
            .sources
            .push("cpuid: not available on this architecture".into()),
    }
    if dmi.read {
        v.sources.push(format!(
            "/sys/class/dmi/id: sys_vendor = {:?}, product_name = {:?}",
            dmi.sys_vendor.as_deref().unwrap_or(""),
            dmi.product_name.as_deref().unwrap_or("")
        ));
        if kind.is_none() {
            kind = kind_from_dmi(&dmi).map(String::from);
        }
    } else {
        v.sources.push("/sys/class/dmi/id: absent".into());
    }
    if let Some(t) = &hypervisor_type {
        v.sources.push(format!("/sys/hypervisor/type = {t:?}"));
        if kind.is_none() && t == "xen" {
            kind = Some("xen".into());
        }
    }
    v.kind = match kind {
        Some(k) => k,
        // The bit says "a hypervisor", but not which one.
        None if cpuid.as_ref().is_some_and(|c| c.hypervisor_bit) => "unknown".into(),
        // cpuid was read, no bit, no DMI hint: bare metal.
        None if cpuid.is_some() => "none".into(),
        // No cpuid (not x86): without a DMI or Xen hint we cannot tell.
        None if dmi.read => "none".into(),
        None => "unknown".into(),
    };
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kvm_cpuid() -> Option<Cpuid> {
        Some(Cpuid {
            hypervisor_bit: true,
            vendor: Some("KVMKVMKVM".into()),
        })
    }

    #[test]
    fn cpuid_decides_first() {
        let v = decide(kvm_cpuid(), Dmi::default(), None);
        assert_eq!(v.kind, "kvm");
        assert_eq!(v.hypervisor_bit, Some(true));
        assert!(v.sources.iter().any(|s| s.contains("0x40000000")));
        assert!(v.sources.iter().any(|s| s.contains("dmi/id: absent")));
    }

    #[test]
    fn dmi_when_cpuid_is_silent() {
        let dmi = Dmi {
            read: true,
            sys_vendor: Some("Microsoft Corporation".into()),
            product_name: Some("Virtual Machine".into()),
            ..Dmi::default()
        };
        let cpuid = Some(Cpuid {
            hypervisor_bit: true,
            vendor: Some("????????????".into()),
        });
        assert_eq!(decide(cpuid, dmi, None).kind, "microsoft");
    }

    #[test]
    fn bare_metal_and_unknown() {
        let metal = Some(Cpuid::default());
        let dmi = Dmi {
            read: true,
            sys_vendor: Some("Dell Inc.".into()),
            product_name: Some("PowerEdge R640".into()),
            ..Dmi::default()
        };
        assert_eq!(decide(metal, dmi, None).kind, "none");
        let bit_only = Some(Cpuid {
            hypervisor_bit: true,
            vendor: None,
        });
        assert_eq!(decide(bit_only, Dmi::default(), None).kind, "unknown");
        assert_eq!(decide(None, Dmi::default(), None).kind, "unknown");
        assert_eq!(decide(None, Dmi::default(), Some("xen".into())).kind, "xen");
    }

    #[test]
    fn dmi_table() {
        let dmi = |vendor: &str, product: &str| Dmi {
            read: true,
            sys_vendor: Some(vendor.into()),
            product_name: Some(product.into()),
            ..Dmi::default()
        };
        assert_eq!(
            kind_from_dmi(&dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)")),
            Some("qemu")
        );
        assert_eq!(
            kind_from_dmi(&dmi("Amazon EC2", "m5.large")),
            Some("amazon")
        );
        assert_eq!(
            kind_from_dmi(&dmi("VMware, Inc.", "VMware7,1")),
            Some("vmware")
        );
        assert_eq!(kind_from_dmi(&dmi("Supermicro", "X11")), None);
    }

    #[test]
    fn device_tree_hypervisor_node_and_not_checked() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("hypervisor")).unwrap();
        std::fs::write(
            root.path().join("hypervisor/compatible"),
            b"xen,xen-4.16\0xen,xen\0",
        )
        .unwrap();
        let mut v = decide(None, Dmi::default(), None);
        device_tree(&mut v, root.path());
        assert_eq!(v.kind, "xen");
        assert!(v.sources.iter().any(|s| s.contains("xen,xen-4.16 xen,xen")));
        // No evidence at all: not-checked, and why.
        let mut v = decide(None, Dmi::default(), None);
        device_tree(&mut v, &root.path().join("absent"));
        assert_eq!(v.kind, "not-checked");
        assert!(v
            .sources
            .last()
            .unwrap()
            .starts_with("not-checked: no cpuid"));
        // DMI that was read decides: an ARM server's "none" stays.
        let dmi = Dmi {
            read: true,
            sys_vendor: Some("Ampere".into()),
            ..Dmi::default()
        };
        let mut v = decide(None, dmi, None);
        device_tree(&mut v, &root.path().join("absent"));
        assert_eq!(v.kind, "none");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn cpuid_runs_here() {
        let c = read_cpuid().unwrap();
        // The vendor leaf is only read when the bit is set.
        assert!(c.hypervisor_bit || c.vendor.is_none());
    }
}
