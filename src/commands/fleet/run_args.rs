//! `candor fleet run`'s flags.

use std::path::PathBuf;

/// Flags of `candor fleet run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunArgs {
    /// An Ansible inventory (INI or YAML): groups, children, ansible_host,
    /// ansible_port, ansible_user, ansible_ssh_private_key_file,
    /// ansible_ssh_common_args, ansible_become.
    #[arg(short = 'i', long, value_name = "INVENTORY")]
    pub inventory: Option<PathBuf>,
    /// Who reads the inventory: `ansible` (ansible-inventory --list: every
    /// inventory the user's Ansible reads, scripts, plugins and templates
    /// included), `candor` (its own reader, for controllers without
    /// Ansible), or `auto`: ansible where ansible-inventory is on PATH.
    #[arg(long, value_name = "READER", default_value = "auto")]
    pub inventory_reader: String,
    /// Two selected hosts that reach one user@host:port (as ssh -G
    /// resolves them): `refuse` before anything runs (default), or `once`:
    /// measure that machine once, under the first name.
    #[arg(long, value_name = "POLICY", default_value = "refuse")]
    pub same_destination: String,
    /// Host patterns as Ansible's --limit reads them (`web`, `web:db`,
    /// `web:&prod`, `all:!db1`, `~db[0-9]+`, `web*`, `web[0]`), or hosts of
    /// their own as user@host[:port]. Default: every inventory host.
    #[arg(value_name = "HOST")]
    pub hosts: Vec<String>,
    /// Print the hosts the patterns select and how each is reached, then
    /// stop (nothing is connected to), as `ansible --list-hosts`.
    #[arg(long)]
    pub list_hosts: bool,
    /// The output directory (default candor-fleet-<UTC time> here).
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Hosts measured at once. Default 1: hosts that share storage or
    /// network disturb each other, and the comparison notes who overlapped.
    #[arg(long, value_name = "N", default_value = "1")]
    pub parallel: String,
    /// The candor binary to push to hosts of an architecture
    /// (`aarch64=PATH`; x86_64, aarch64, armv7), or `PATH` for its own
    /// architecture; once per architecture. Default for each: this candor
    /// when it is static and of that architecture, else the static build
    /// `contrib/build-static.sh --target TRIPLE` left beside it.
    #[arg(long, value_name = "[ARCH=]PATH")]
    pub binary: Vec<String>,
    /// Leave the work directory (with the Run) and the binary on the hosts.
    #[arg(long)]
    pub keep: bool,
    /// Leave the binary in the hosts' cache (~/.cache/candor/bin), so the
    /// next fleet run does not upload it again.
    #[arg(long)]
    pub keep_binary: bool,
    /// Login limit per host (also ssh's ConnectTimeout).
    #[arg(long, value_name = "DUR", default_value = "30s")]
    pub timeout_connect: String,
    /// Limit for the cache check and upload per host.
    #[arg(long, value_name = "DUR", default_value = "10m")]
    pub timeout_upload: String,
    /// Limit for the battery per host; the remote run is stopped after it.
    #[arg(long, value_name = "DUR", default_value = "6h")]
    pub timeout_run: String,
    /// Limit for fetching the Run and for cleanup, per host.
    #[arg(long, value_name = "DUR", default_value = "2m")]
    pub timeout_fetch: String,
    /// Another ssh config file instead of ~/.ssh/config (ssh -F).
    #[arg(short = 'F', long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// An ssh option for every host (ssh -o Key=Value); repeat for more.
    /// These come first, so they override candor's own.
    #[arg(long, value_name = "KEY=VALUE")]
    pub ssh_option: Vec<String>,
    /// Write into an existing, non-empty output directory.
    #[arg(long)]
    pub force: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Flags for `candor run` on every host, after `--`.
    #[arg(last = true, value_name = "RUN FLAGS")]
    pub run_flags: Vec<String>,
    /// Each host's Run goes into this machine's history (never the hosts').
    #[command(flatten)]
    pub history: crate::session::history::HistoryFlags,
}
