//! One-line causes for what went wrong on a host, read from what ssh, the
//! remote shell and the remote candor printed. A fleet summary of twenty
//! hosts is read at a glance: each failed host gets one short sentence that
//! says what happened and, where it helps, what to do, never a page of ssh
//! debug output. The full stderr lines are kept in fleet.json beside it.

use super::target::Target;

/// Why ssh could not reach or log in to a host, from its stderr (ssh exits
/// 255 for its own errors). None when the lines say nothing ssh-specific.
/// The real cause comes first: a key file ssh could not use explains the
/// "Permission denied (publickey)" after it, and a changed host key is
/// given with the exact `ssh-keygen -R` that removes the old one.
pub fn ssh_failure(stderr: &[String], target: &Target) -> Option<String> {
    let destination = target.destination();
    let all = stderr.join("\n");
    let has = |s: &str| all.contains(s);
    let cause = if has("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        format!(
            "host key changed: the host's key differs from the one in known_hosts (possible man-in-the-middle); if the host was reinstalled, remove the old key with {}",
            remove_key_command(stderr, target)
        )
    } else if has("Host key verification failed") {
        "host key not trusted: known_hosts has no key for this host and ssh is set to refuse unknown keys (StrictHostKeyChecking)".to_string()
    } else if has("Too many authentication failures") {
        "login refused: too many keys offered (set IdentitiesOnly=yes or ansible_ssh_private_key_file)".to_string()
    } else if let Some(line) = stderr.iter().find(|l| l.contains("Permission denied (")) {
        let methods = line
            .rsplit_once("Permission denied (")
            .map(|(_, m)| m.trim_end_matches(['.', ')']))
            .unwrap_or("");
        match key_file_problem(stderr) {
            Some(why) => format!("{why}; the login was refused ({methods})"),
            None => format!("login refused ({methods}): the key was not accepted for this user (a key with a passphrase must be in ssh-agent: candor never prompts)"),
        }
    } else if has("Connection refused") {
        format!("connection refused: nothing listens for ssh at {destination}")
    } else if has("Connection timed out") || has("Operation timed out") {
        format!("no answer from {destination} (connection timed out)")
    } else if has("Could not resolve hostname") || has("Name or service not known") {
        "unknown host name (it does not resolve)".to_string()
    } else if has("No route to host") {
        format!("no route to {destination}")
    } else if has("Network is unreachable") {
        format!("network unreachable for {destination}")
    } else if has("Connection reset") || has("kex_exchange_identification") {
        "the host closed the connection before login (sshd refused it: MaxStartups, a firewall, or not an ssh server)".to_string()
    } else if has("closed by remote host") || has("Broken pipe") || has("Timeout, server") {
        "the connection was lost (the host went away, rebooted, or the network dropped)".to_string()
    } else if has("Bad configuration option")
        || has("command-line line")
        || has("Bad owner or permissions")
    {
        format!("ssh refused its configuration: {}", last_line(stderr)?)
    } else {
        return None;
    };
    Some(cause)
}

/// The command that removes a changed host's old key: ssh's own
/// suggestion when it printed one (it names the known_hosts file and the
/// exact entry), else `ssh-keygen -R` with the host as known_hosts names
/// it: `[host]:port` when the port is not 22.
fn remove_key_command(stderr: &[String], target: &Target) -> String {
    if let Some(cmd) = stderr
        .iter()
        .map(|l| l.trim())
        .find(|l| l.starts_with("ssh-keygen ") && l.contains(" -R "))
    {
        return cmd.to_string();
    }
    format!("ssh-keygen -R '{}'", target.known_hosts_name())
}

/// A key file ssh could not use, in ssh's words: missing or unreadable
/// (`Identity file X not accessible`, `no such identity: X`), permissions
/// too open, or not a key. None when ssh said nothing of the kind.
fn key_file_problem(stderr: &[String]) -> Option<String> {
    for l in stderr.iter().map(|l| l.trim()) {
        if let Some(rest) = l.strip_prefix("Warning: Identity file ") {
            if let Some((file, why)) = rest.split_once(" not accessible: ") {
                return Some(format!(
                    "identity file {file} not accessible ({}): ssh had no key to offer",
                    why.trim_end_matches('.')
                ));
            }
        }
        if let Some(rest) = l.strip_prefix("no such identity: ") {
            if let Some((file, why)) = rest.rsplit_once(": ") {
                return Some(format!(
                    "identity file {file} not accessible ({why}): ssh had no key to offer"
                ));
            }
        }
        if let Some(rest) = l.strip_prefix("Load key \"") {
            if let Some((file, why)) = rest.split_once("\": ") {
                let why = match why {
                    "bad permissions" => "its permissions are too open (ssh ignores a private key others can read: chmod 600 it)".to_string(),
                    "invalid format" | "error in libcrypto" => format!("it is not a private key ssh can read ({why})"),
                    other => other.to_string(),
                };
                return Some(format!("identity file {file} ignored: {why}"));
            }
        }
    }
    None
}

/// Why a command on the host failed, from the remote stderr: the remote
/// candor's own error line, sudo, a full disk, a binary that cannot run.
pub fn remote_failure(stderr: &[String]) -> Option<String> {
    let all = stderr.join("\n");
    let has = |s: &str| all.contains(s);
    if has("sudo: a password is required") || has("sudo: a terminal is required") {
        return Some("no root: sudo asks for a password (ansible_become needs sudo without a password: candor runs it with sudo -n)".into());
    }
    if has("is not in the sudoers file") || has("is not allowed to execute") {
        return Some("no root: this user may not use sudo (ansible_become)".into());
    }
    if has("sudo: not found") || has("sudo: command not found") {
        return Some("no root: ansible_become is set but the host has no sudo".into());
    }
    if has("No space left on device") {
        return Some("no space left on the host's filesystem".into());
    }
    if has("Exec format error") || has("cannot execute binary file") {
        return Some("the binary does not run on this host: its kernel does not execute the architecture that uname named (Exec format error)".into());
    }
    // The remote candor says why in one line, as every candor error does.
    if let Some(line) = stderr
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix("candor: error: "))
    {
        return Some(format!("candor: {line}"));
    }
    if let Some(line) = stderr
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix("candor-fleet: "))
    {
        return Some(line.to_string());
    }
    None
}

/// What an exit status of the remote candor means, as a sentence.
/// How ssh ended, in words for a message: `ssh exit 255`, or `ssh was
/// killed by a signal` when there is no exit code (never Rust's `Some(255)`).
pub fn ssh_exit(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("ssh exit {c}"),
        None => "ssh was killed by a signal".into(),
    }
}

pub fn exit_status(code: i32) -> String {
    match code {
        137 => "candor was killed (SIGKILL) during the run: out of memory, or killed by someone on the host".into(),
        c if c > 128 => {
            let sig = c - 128;
            let name = match sig {
                1 => "SIGHUP",
                2 => "SIGINT",
                6 => "SIGABRT",
                11 => "SIGSEGV",
                15 => "SIGTERM",
                _ => "a signal",
            };
            format!("candor was stopped by {name} ({sig}) during the run")
        }
        c => format!("candor exited with status {c}"),
    }
}

/// The last line that says something (ssh's final word is usually its cause).
pub fn last_line(stderr: &[String]) -> Option<String> {
    stderr
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with("Warning: Permanently added"))
        .map(str::to_string)
}

/// True when ssh recorded the host's key on this first connection
/// (`StrictHostKeyChecking=accept-new`).
pub fn key_recorded(stderr: &[String]) -> bool {
    stderr
        .iter()
        .any(|l| l.contains("Permanently added") && l.contains("known hosts"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn ssh_exits_are_words_not_debug_values() {
        assert_eq!(ssh_exit(Some(255)), "ssh exit 255");
        assert_eq!(ssh_exit(None), "ssh was killed by a signal");
    }

    fn at(text: &str) -> Target {
        Target::parse(text).unwrap()
    }

    #[test]
    fn ssh_causes_are_one_line() {
        let h = at("h");
        let changed = lines("@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nIT IS POSSIBLE...\nHost key verification failed.");
        assert!(ssh_failure(&changed, &h)
            .unwrap()
            .starts_with("host key changed"));
        assert!(ssh_failure(&lines("Host key verification failed."), &h)
            .unwrap()
            .starts_with("host key not trusted"));
        assert_eq!(
            ssh_failure(
                &lines("root@127.0.0.3: Permission denied (publickey)."),
                &h
            )
            .unwrap(),
            "login refused (publickey): the key was not accepted for this user (a key with a passphrase must be in ssh-agent: candor never prompts)"
        );
        assert_eq!(
            ssh_failure(
                &lines("ssh: connect to host 127.0.0.5 port 22: Connection refused"),
                &at("127.0.0.5:22")
            )
            .unwrap(),
            "connection refused: nothing listens for ssh at 127.0.0.5:22"
        );
        assert!(
            ssh_failure(&lines("Connection to 1.2.3.4 closed by remote host."), &h)
                .unwrap()
                .contains("connection was lost")
        );
        assert!(ssh_failure(&lines("something else"), &h).is_none());
        assert!(!ssh_failure(&changed, &h).unwrap().contains('\n'));
    }

    /// ssh's own lines for a key file it could not use (OpenSSH 9.2), the
    /// login refused after them: the key file is the cause, said first.
    #[test]
    fn a_key_file_ssh_could_not_use_is_the_cause() {
        let h = at("root@127.0.0.2:2222");
        for (said, cause) in [
            (
                "Warning: Identity file /k/id not accessible: No such file or directory.",
                "identity file /k/id not accessible (No such file or directory): ssh had no key to offer; the login was refused (publickey)",
            ),
            (
                "no such identity: /k/id: Permission denied",
                "identity file /k/id not accessible (Permission denied): ssh had no key to offer; the login was refused (publickey)",
            ),
            (
                "Load key \"/k/id\": bad permissions",
                "identity file /k/id ignored: its permissions are too open (ssh ignores a private key others can read: chmod 600 it); the login was refused (publickey)",
            ),
            (
                "Load key \"/k/id\": error in libcrypto",
                "identity file /k/id ignored: it is not a private key ssh can read (error in libcrypto); the login was refused (publickey)",
            ),
        ] {
            let stderr = lines(&format!(
                "{said}\nroot@127.0.0.2: Permission denied (publickey)."
            ));
            assert_eq!(ssh_failure(&stderr, &h).unwrap(), cause);
        }
        // A missing key file that did not matter (another key logged in)
        // is no cause; a refused connection stays the cause.
        let stderr = lines("Warning: Identity file /k/id not accessible: No such file or directory.\nssh: connect to host 127.0.0.2 port 2222: Connection refused");
        assert!(ssh_failure(&stderr, &h)
            .unwrap()
            .starts_with("connection refused"));
    }

    #[test]
    fn a_changed_key_gets_the_exact_ssh_keygen_argument() {
        let banner = "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.";
        // ssh's own suggestion, when it printed one, names the file too.
        let with = lines(&format!(
            "{banner}\nOffending ED25519 key in /root/.ssh/known_hosts:3\n  remove with:\n  ssh-keygen -f \"/root/.ssh/known_hosts\" -R \"[10.0.0.7]:2222\""
        ));
        assert!(ssh_failure(&with, &at("root@10.0.0.7:2222"))
            .unwrap()
            .ends_with("remove the old key with ssh-keygen -f \"/root/.ssh/known_hosts\" -R \"[10.0.0.7]:2222\""));
        // Else the host as known_hosts names it: [host]:port off port 22.
        let without = lines(banner);
        for (target, arg) in [
            ("root@10.0.0.7:2222", "'[10.0.0.7]:2222'"),
            ("root@10.0.0.7:22", "'10.0.0.7'"),
            ("web1", "'web1'"),
        ] {
            let c = ssh_failure(&without, &at(target)).unwrap();
            assert!(
                c.ends_with(&format!("remove the old key with ssh-keygen -R {arg}")),
                "{target}: {c}"
            );
        }
    }

    #[test]
    fn remote_causes() {
        assert!(remote_failure(&lines("sudo: a password is required"))
            .unwrap()
            .starts_with("no root"));
        assert_eq!(
            remote_failure(&lines(
                "candor: [1/3] x\ncandor: error: --dir /nope: does not exist"
            ))
            .unwrap(),
            "candor: --dir /nope: does not exist"
        );
        assert!(
            remote_failure(&lines("cat: write error: No space left on device"))
                .unwrap()
                .contains("no space")
        );
        assert!(remote_failure(&lines("ok")).is_none());
        assert!(exit_status(137).contains("SIGKILL"));
        assert!(exit_status(143).contains("SIGTERM"));
        assert_eq!(exit_status(3), "candor exited with status 3");
    }

    #[test]
    fn first_use_is_noticed() {
        assert!(key_recorded(&lines(
            "Warning: Permanently added '[127.0.0.2]:2222' (ED25519) to the list of known hosts."
        )));
        assert_eq!(
            last_line(&lines(
                "a\nWarning: Permanently added x to the list of known hosts.\n"
            )),
            Some("a".into())
        );
    }
}
