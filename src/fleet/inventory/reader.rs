//! Which reader turns `-i INVENTORY` into hosts: the user's own Ansible
//! (`ansible-inventory --list`, `ansible_list.rs`) where it is installed,
//! since it is the truth for every inventory Ansible can read (scripts,
//! plugins, templates, the version's own rules); else candor's own reader
//! (`Inventory::load`), for controllers without Ansible. The choice is
//! said before anything runs.

use super::{ansible_list, Inventory, Limits};
use crate::error::usage;
use std::path::Path;

/// `--inventory-reader`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InventoryReader {
    /// ansible-inventory when it is on PATH, else candor's own.
    #[default]
    Auto,
    /// ansible-inventory, refused when it is missing.
    Ansible,
    /// candor's own reader, even where Ansible is installed.
    Candor,
}

impl InventoryReader {
    pub fn parse(text: &str) -> anyhow::Result<InventoryReader> {
        match text.trim() {
            "auto" => Ok(InventoryReader::Auto),
            "ansible" => Ok(InventoryReader::Ansible),
            "candor" => Ok(InventoryReader::Candor),
            other => Err(usage(format!(
                "--inventory-reader: '{other}' is not auto, ansible or candor"
            ))),
        }
    }
}

/// Reads the inventory with the chosen reader; `Inventory::reader` says which.
pub fn read(path: &Path, reader: InventoryReader) -> anyhow::Result<Inventory> {
    let installed = crate::fleet::run::which("ansible-inventory").is_some();
    let use_ansible = match reader {
        InventoryReader::Ansible if !installed => {
            return Err(usage(
                "--inventory-reader ansible: no ansible-inventory on PATH (install ansible-core, or --inventory-reader candor)",
            ))
        }
        InventoryReader::Ansible => true,
        InventoryReader::Auto => installed,
        InventoryReader::Candor => false,
    };
    if use_ansible {
        let mut inv = ansible_list::load(path, Limits::default())?;
        let version = ansible_list::version().unwrap_or_else(|| "of unknown version".into());
        inv.reader = format!("ansible-inventory {version} (--list)");
        Ok(inv)
    } else {
        let mut inv = Inventory::load(path)?;
        inv.reader = if installed {
            "candor's own reader (--inventory-reader candor)".into()
        } else {
            "candor's own reader (no ansible-inventory on PATH)".into()
        };
        Ok(inv)
    }
}

/// Says on stderr which reader read the inventory and what it warned about.
pub fn announce(inv: &Inventory) {
    eprintln!(
        "candor fleet: {}: read by {}",
        inv.path().display(),
        inv.reader()
    );
    for w in inv.warnings() {
        eprintln!("candor fleet: warning: {w}");
    }
}
