//! One host to benchmark, as the controller reaches it: a name for reports
//! and file names, and what the system ssh needs (address, port, user, key,
//! extra arguments), plus whether the run needs root through sudo.
//!
//! A target comes from an inventory entry (`inventory/`) or from a plain
//! `[user@]host[:port]` argument (`Target::parse`). Anything this file does
//! not set is left to ssh and the user's `~/.ssh/config`, as ssh itself
//! would (a `Host` alias with its own `HostName`, `User`, `ProxyJump` just
//! works).

use serde::{Deserialize, Serialize};

/// Running the remote candor as another user (Ansible's `ansible_become`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Become {
    /// The user to become (`ansible_become_user`; root by default).
    pub user: String,
}

/// A host and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// The name in progress lines, fleet.json, file names and reports (the
    /// Run's label): the inventory name, or the argument as given.
    pub name: String,
    /// What ssh connects to (`ansible_host`, else the name); ssh resolves it
    /// and applies `~/.ssh/config` to it.
    pub address: String,
    /// `ansible_port` or `:port`; ssh's default (or the config's) when absent.
    #[serde(default)]
    pub port: Option<u16>,
    /// `ansible_user` or `user@`; ssh's default when absent.
    #[serde(default)]
    pub user: Option<String>,
    /// `ansible_ssh_private_key_file`: passed as `-i`.
    #[serde(default)]
    pub key_file: Option<String>,
    /// Run candor through `sudo -n` (`ansible_become`).
    #[serde(default, rename = "become")]
    pub become_: Option<Become>,
    /// `ansible_ssh_common_args` and `ansible_ssh_extra_args`, split like a
    /// shell would (e.g. `-o ProxyJump=bastion`).
    #[serde(default)]
    pub ssh_args: Vec<String>,
    /// The inventory groups the host is in (empty for a plain argument).
    #[serde(default)]
    pub groups: Vec<String>,
}

impl Target {
    /// A target that only has a name: ssh connects to the name.
    pub fn named(name: &str) -> Target {
        Target {
            name: name.to_string(),
            address: name.to_string(),
            port: None,
            user: None,
            key_file: None,
            become_: None,
            ssh_args: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Parses `host`, `user@host`, `host:port`, `user@host:port`, and
    /// IPv6 as `[::1]:port` (a bare `::1` has no port). The error says what
    /// is wrong in words.
    pub fn parse(text: &str) -> Result<Target, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty host".into());
        }
        let (user, rest) = match text.rsplit_once('@') {
            Some((u, r)) => {
                if u.is_empty() {
                    return Err(format!("'{text}': no user before '@'"));
                }
                (Some(u.to_string()), r)
            }
            None => (None, text),
        };
        let (address, port) = if let Some(inner) = rest.strip_prefix('[') {
            let (addr, after) = inner
                .split_once(']')
                .ok_or_else(|| format!("'{text}': '[' without ']'"))?;
            match after {
                "" => (addr.to_string(), None),
                p => match p.strip_prefix(':') {
                    Some(p) => (addr.to_string(), Some(parse_port(text, p)?)),
                    None => return Err(format!("'{text}': expected ':PORT' after ']'")),
                },
            }
        } else if rest.matches(':').count() == 1 {
            let (addr, p) = rest.split_once(':').unwrap_or((rest, ""));
            (addr.to_string(), Some(parse_port(text, p)?))
        } else {
            // No colon, or a bare IPv6 address (several colons): no port.
            // Several colons in anything but an IPv6 address (`h:22:33`)
            // is no host ssh could reach.
            let ip = rest.split('%').next().unwrap_or(rest);
            if rest.contains(':') && ip.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(format!(
                    "'{text}': '{rest}' is neither host:port nor an IPv6 address (write one as [address]:port)"
                ));
            }
            (rest.to_string(), None)
        };
        if address.is_empty() {
            return Err(format!("'{text}': no host name"));
        }
        if address.starts_with('-') || address.chars().any(|c| c.is_whitespace()) {
            return Err(format!("'{text}': not a host name"));
        }
        Ok(Target {
            name: text.to_string(),
            address,
            port,
            user,
            ..Target::named(text)
        })
    }

    /// `user@address:port` with what is known, for fleet.json and messages.
    pub fn destination(&self) -> String {
        let mut s = String::new();
        if let Some(u) = &self.user {
            s.push_str(u);
            s.push('@');
        }
        if self.address.contains(':') {
            s.push_str(&format!("[{}]", self.address));
        } else {
            s.push_str(&self.address);
        }
        if let Some(p) = self.port {
            s.push_str(&format!(":{p}"));
        }
        s
    }

    /// The host as ssh names it in known_hosts (and as `ssh-keygen -R`
    /// wants it): `[address]:port` when the port is not 22, else the address.
    pub fn known_hosts_name(&self) -> String {
        match self.port {
            Some(p) if p != 22 => format!("[{}]:{p}", self.address),
            _ => self.address.clone(),
        }
    }

    /// The destination and every other connection setting, for
    /// `--list-hosts`: `root@127.0.0.2:2222 key=~/.ssh/k args='-o X=y' become=root`.
    pub fn describe(&self) -> String {
        let mut s = self.destination();
        if let Some(k) = &self.key_file {
            s.push_str(&format!(" key={k}"));
        }
        if !self.ssh_args.is_empty() {
            s.push_str(&format!(" args='{}'", self.ssh_args.join(" ")));
        }
        if let Some(b) = &self.become_ {
            s.push_str(&format!(" become={}", b.user));
        }
        s
    }

    /// The name made safe for a file name (`web 1/a` → `web_1_a`).
    pub fn file_stem(&self) -> String {
        let stem = crate::output::file_name_part(&self.name);
        match stem.trim_start_matches('.') {
            "" => "host".to_string(),
            s => s.to_string(),
        }
    }
}

/// A TCP port: 1-65535.
pub fn parse_port(context: &str, text: &str) -> Result<u16, String> {
    match text.trim().parse::<u16>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(format!("'{context}': '{text}' is not a port (1-65535)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_targets() {
        let t = Target::parse("root@127.0.0.2:2222").unwrap();
        assert_eq!(t.user.as_deref(), Some("root"));
        assert_eq!(t.address, "127.0.0.2");
        assert_eq!(t.port, Some(2222));
        assert_eq!(t.name, "root@127.0.0.2:2222");
        assert_eq!(t.destination(), "root@127.0.0.2:2222");
        let t = Target::parse("web1").unwrap();
        assert_eq!((t.user, t.port, t.address.as_str()), (None, None, "web1"));
        let t = Target::parse("[::1]:22").unwrap();
        assert_eq!((t.address.as_str(), t.port), ("::1", Some(22)));
        assert_eq!(t.destination(), "[::1]:22");
        let t = Target::parse("admin@fe80::1").unwrap();
        assert_eq!((t.address.as_str(), t.port), ("fe80::1", None));
        for bad in ["root@h:22:33", "h::x", "a:b:c"] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains("neither host:port nor an IPv6 address"), "{e}");
        }
        assert!(Target::parse("fe80::1%eth0").is_ok());
        // The last '@' separates the user (user names with '@' exist in some directories).
        let t = Target::parse("a@corp@host").unwrap();
        assert_eq!(t.user.as_deref(), Some("a@corp"));
    }

    #[test]
    fn bad_targets_say_why() {
        for (bad, why) in [
            ("", "empty"),
            ("@host", "no user"),
            ("host:0", "not a port"),
            ("host:ssh", "not a port"),
            ("host:70000", "not a port"),
            ("[::1", "without ']'"),
            ("[::1]22", "':PORT'"),
            ("user@:22", "no host name"),
            ("-oProxyCommand=x", "not a host name"),
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(Target::named("web 1/a").file_stem(), "web_1_a");
        assert_eq!(Target::named("../x").file_stem(), "_x");
        assert_eq!(Target::named("..").file_stem(), "host");
        assert_eq!(
            Target::parse("root@127.0.0.2:22").unwrap().file_stem(),
            "root_127.0.0.2_22"
        );
    }
}
