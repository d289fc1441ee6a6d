//! Findings about the host rather than one figure: CPU steal during the
//! measurements (`cpu-steal`), SMT (`smt`), and a disk type that cannot be
//! verified from inside a VM (`media-unverifiable`).

use super::{checked, not_checked, round_to};
use crate::result::{CpuUse, Finding, Measurement, Run};
use crate::units::sig3;
use serde_json::json;

/// Steal above this percentage of all CPUs' time during a measurement means
/// neighbours took CPU while we measured. A quiet VM shows 0-1 %; "a few
/// percent" is where compute figures start to move measurably.
pub const CPU_STEAL_PCT: f64 = 3.0;

/// Whether steal was measured: candor records its own CPU time (`cpu_ns`)
/// and the host's steal together; an import carries fio's usr/sys but no
/// steal (always 0 there), which must not pass for "no steal".
fn recorded(c: &CpuUse) -> bool {
    c.cpu_ns > 0 || c.steal_pct > 0.0
}

fn describe(m: &Measurement) -> String {
    match m {
        Measurement::Disk(d) => {
            let pass = d.pass.map(|p| format!(" pass {p}")).unwrap_or_default();
            format!("{} {}{pass}", d.label(), d.spec.rw)
        }
        other => {
            let c = other.as_compute().expect("not disk");
            format!("{} {} T{}", other.kind(), c.spec.test, c.spec.threads)
        }
    }
}

/// `cpu-steal`: the worst measurement, with how many went above the threshold.
pub fn cpu_steal(run: &Run) -> Vec<Finding> {
    let mut with_cpu = 0;
    let mut above = Vec::new();
    let mut worst: Option<(f64, String)> = None;
    for m in &run.measurements {
        let c = match m {
            Measurement::Disk(d) => &d.cpu,
            other => &other.as_compute().expect("not disk").cpu,
        };
        if !recorded(c) {
            continue;
        }
        with_cpu += 1;
        if worst.as_ref().is_none_or(|w| c.steal_pct > w.0) {
            worst = Some((c.steal_pct, describe(m)));
        }
        if c.steal_pct > CPU_STEAL_PCT {
            above.push(json!({"measurement": describe(m), "steal_pct": round_to(c.steal_pct, 2)}));
        }
    }
    if with_cpu == 0 {
        if run.measurements.is_empty() {
            return Vec::new();
        }
        return vec![not_checked(
            "cpu-steal",
            "steal time was not recorded (fio records none): steal by neighbours during the measurements was not checked"
                .into(),
            "CPU use (steal) per measurement",
        )];
    }
    let (pct, what) = worst.expect("at least one measurement with CPU use");
    if above.is_empty() {
        return Vec::new();
    }
    vec![checked(
        "cpu-steal",
        Some(what.clone()),
        format!(
            "steal reached {} % during {what} ({} of {} measurements above {} %): neighbours took CPU while we measured",
            sig3(pct),
            above.len(),
            with_cpu,
            CPU_STEAL_PCT
        ),
        json!({
            "max_steal_pct": round_to(pct, 2),
            "measurements_above": above,
            "measurements_with_cpu": with_cpu,
            "threshold_steal_pct": CPU_STEAL_PCT,
        }),
    )]
}

/// `smt`: more logical CPUs than cores.
pub fn smt(run: &Run) -> Vec<Finding> {
    let h = &run.host;
    let (Some(threads), Some(cores)) = (h.cpu_threads, h.cpu_cores) else {
        return vec![not_checked(
            "smt",
            "CPU cores and threads are not recorded: whether vCPUs share cores was not checked"
                .into(),
            "host.cpu_cores and host.cpu_threads",
        )];
    };
    let sockets = h.cpu_sockets.unwrap_or(1).max(1);
    // cpu_cores counts cores per socket in /proc/cpuinfo terms; compare totals.
    let total_cores = if cores * sockets <= threads {
        cores * sockets
    } else {
        cores
    };
    if threads <= total_cores {
        return Vec::new();
    }
    vec![checked(
        "smt",
        None,
        format!(
            "{threads} logical CPUs on {total_cores} cores: threads beyond {total_cores} share cores, so all-thread figures do not scale like cores"
        ),
        json!({
            "cpu_threads": threads,
            "cpu_cores": total_cores,
            "threads_per_core": round_to(threads as f64 / total_cores as f64, 2),
        }),
    )]
}

/// `media-unverifiable`: inside a VM the disk type is the provider's claim.
pub fn media_unverifiable(run: &Run) -> Vec<Finding> {
    let Some(v) = &run.host.virtualization else {
        return vec![not_checked(
            "media-unverifiable",
            "virtualisation was not detected or recorded: whether the disk type can be verified was not checked".into(),
            "host.virtualization",
        )];
    };
    if v.kind == "none" {
        return Vec::new();
    }
    let storage = run.host.storage.as_ref();
    let nvme = &run.host.nvme_devices;
    let verdict = if nvme.is_empty() {
        format!(
            "virtualised ({}), no NVMe controller visible: the disk type (NVMe, SSD, HDD) is the provider's claim, not measured",
            v.kind
        )
    } else {
        format!(
            "virtualised ({}); the NVMe controller visible ({}) may be emulated or network-backed: the disk type is the provider's claim, not measured",
            v.kind,
            nvme.join(", ")
        )
    };
    vec![checked(
        "media-unverifiable",
        storage.and_then(|s| s.device.clone()),
        verdict,
        json!({
            "virtualization": v.kind,
            "nvme_devices": nvme,
            "device": storage.and_then(|s| s.device.clone()),
            "device_model": storage.and_then(|s| s.device_model.clone()),
            "rotational_flag": storage.and_then(|s| s.rotational),
        }),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::{FindingStatus, Virtualization};

    #[test]
    fn steal_fires_above_threshold() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 1000.0));
        assert!(cpu_steal(&run).is_empty());
        dm(&mut run.measurements[0]).cpu.steal_pct = 7.5;
        let f = cpu_steal(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["max_steal_pct"], 7.5);
        dm(&mut run.measurements[0]).cpu = Default::default();
        assert_eq!(cpu_steal(&run)[0].status, FindingStatus::NotChecked);
    }

    #[test]
    fn smt_ten_vcpus_five_cores() {
        let mut run = run();
        assert_eq!(smt(&run)[0].status, FindingStatus::NotChecked);
        run.host.cpu_threads = Some(10);
        run.host.cpu_cores = Some(5);
        let f = smt(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["threads_per_core"], 2.0);
        run.host.cpu_threads = Some(5);
        assert!(smt(&run).is_empty());
    }

    #[test]
    fn media_in_a_vm_without_nvme() {
        let mut run = run();
        assert_eq!(
            media_unverifiable(&run)[0].status,
            FindingStatus::NotChecked
        );
        run.host.virtualization = Some(Virtualization {
            kind: "kvm".into(),
            ..Default::default()
        });
        let f = media_unverifiable(&run);
        assert_eq!(f.len(), 1);
        assert!(f[0].verdict.contains("no NVMe"));
        run.host.virtualization = Some(Virtualization {
            kind: "none".into(),
            ..Default::default()
        });
        assert!(media_unverifiable(&run).is_empty());
    }
}
