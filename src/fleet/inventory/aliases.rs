//! The names Ansible reads each connection setting from, in the order of
//! the plugin's `vars:` list: Ansible's ConfigManager (`_loop_entries`)
//! keeps the LAST name of the list that is set, wherever in the inventory
//! it was set, so `ansible_ssh_host` on a host line beats `ansible_host`
//! in `group_vars/all` (the play context's `MAGIC_VARIABLE_MAPPING` lists
//! the legacy name first and takes the first: the same winner).
//!
//! Taken from ansible-core's ssh connection plugin and sudo become plugin
//! (`lib/ansible/plugins/connection/ssh.py`, `.../become/sudo.py`), the
//! same in 2.14.18 (Debian's) and in ansible/ansible commit
//! c9ac477e53a99e95781f333eec3329a935c1bf95 (2.19 development).

/// The address (`inventory_hostname` when none is set).
pub const HOST: &[&str] = &["ansible_host", "ansible_ssh_host"];
pub const PORT: &[&str] = &["ansible_port", "ansible_ssh_port"];
pub const USER: &[&str] = &["ansible_user", "ansible_ssh_user"];
pub const PRIVATE_KEY_FILE: &[&str] = &["ansible_private_key_file", "ansible_ssh_private_key_file"];
pub const BECOME_USER: &[&str] = &["ansible_become_user", "ansible_sudo_user"];

/// Every name of the settings candor takes over (where a template would
/// change the destination, and so must be evaluated or refused).
pub const CONNECTION: &[&str] = &[
    "ansible_host",
    "ansible_ssh_host",
    "ansible_port",
    "ansible_ssh_port",
    "ansible_user",
    "ansible_ssh_user",
    "ansible_private_key_file",
    "ansible_ssh_private_key_file",
    "ansible_ssh_common_args",
    "ansible_ssh_extra_args",
    "ansible_connection",
    "ansible_become",
    "ansible_become_method",
    "ansible_become_user",
    "ansible_sudo_user",
];

/// Settings Ansible would use that candor cannot: each set one is named
/// in a warning (what ssh does instead follows it), never ignored silently.
pub const NOT_HONOURED: &[(&str, &str)] = &[
    (
        "ansible_password",
        "candor logs in with keys only (ssh BatchMode)",
    ),
    (
        "ansible_ssh_pass",
        "candor logs in with keys only (ssh BatchMode)",
    ),
    (
        "ansible_ssh_password",
        "candor logs in with keys only (ssh BatchMode)",
    ),
    (
        "ansible_become_password",
        "candor runs sudo -n (no password)",
    ),
    ("ansible_become_pass", "candor runs sudo -n (no password)"),
    ("ansible_sudo_pass", "candor runs sudo -n (no password)"),
    ("ansible_ssh_executable", "candor runs the ssh on PATH"),
    (
        "ansible_ssh_args",
        "candor passes ansible_ssh_common_args and ansible_ssh_extra_args only",
    ),
];
