//! `candor fleet run`: its flags lowered into a `fleet::run::Request`.

use super::positive_duration;
use super::{check_run_flags, RunArgs};
use crate::error::usage;
use crate::fleet::destination::SameDestination;
use crate::fleet::inventory::reader::InventoryReader;
use crate::fleet::{binary::BinaryFlag, run::Request, Timeouts};
use crate::session::fleet;

pub fn execute(a: RunArgs) -> anyhow::Result<()> {
    let duration = positive_duration;
    let timeouts = Timeouts {
        connect: duration("--timeout-connect", &a.timeout_connect)?,
        upload: duration("--timeout-upload", &a.timeout_upload)?,
        run: duration("--timeout-run", &a.timeout_run)?,
        fetch: duration("--timeout-fetch", &a.timeout_fetch)?,
    };
    let parallel = match a.parallel.trim().parse::<usize>() {
        Ok(n) if n >= 1 => n,
        _ => {
            return Err(usage(format!(
                "--parallel: '{}' is not a whole number of hosts (1 or more)",
                a.parallel
            )))
        }
    };
    if a.inventory.is_none() && a.hosts.is_empty() {
        return Err(usage(
            "no hosts: candor fleet run -i INVENTORY [HOST...] [-- RUN FLAGS], or hosts as user@host[:port]",
        ));
    }
    let binaries = a
        .binary
        .iter()
        .map(|v| BinaryFlag::parse(v))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (run_flags, test_dir) = check_run_flags(&a.run_flags)?;
    let inventory_reader = InventoryReader::parse(&a.inventory_reader)?;
    if a.list_hosts {
        return fleet::list_hosts(a.inventory.as_deref(), inventory_reader, &a.hosts);
    }
    let request = Request {
        inventory: a.inventory,
        inventory_reader,
        same_destination: SameDestination::parse(&a.same_destination)?,
        hosts: a.hosts,
        out_dir: a.output,
        parallel,
        binaries,
        keep: a.keep,
        keep_binary: a.keep_binary,
        force: a.force,
        quiet: a.quiet,
        timeouts,
        ssh_config: a.ssh_config,
        ssh_options: a.ssh_option,
        run_flags,
        test_dir,
        command: std::env::args_os()
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
        render: crate::report::fleet_compare_files,
        history_files: a.history.inputs(),
    };
    fleet::run(request, &a.history)
}
