//! One-line causes for what went wrong on a host, read from what ssh, the
//! remote shell and the remote candor printed. A fleet summary of twenty
//! hosts is read at a glance: each failed host gets one short sentence that
//! says what happened and, where it helps, what to do, never a page of ssh
//! debug output. The full stderr lines are kept in fleet.json beside it.

/// Why ssh could not reach or log in to a host, from its stderr (ssh exits
/// 255 for its own errors). None when the lines say nothing ssh-specific.
pub fn ssh_failure(stderr: &[String], destination: &str) -> Option<String> {
    let all = stderr.join("\n");
    let has = |s: &str| all.contains(s);
    let cause = if has("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        "host key changed: the host's key differs from the one in known_hosts (possible man-in-the-middle; if the host was reinstalled, remove the old key with ssh-keygen -R)".to_string()
    } else if has("Host key verification failed") {
        "host key not trusted: known_hosts has no key for this host and ssh is set to refuse unknown keys (StrictHostKeyChecking)".to_string()
    } else if has("Too many authentication failures") {
        "login refused: too many keys offered (set IdentitiesOnly=yes or ansible_ssh_private_key_file)".to_string()
    } else if let Some(line) = stderr.iter().find(|l| l.contains("Permission denied (")) {
        let methods = line
            .rsplit_once("Permission denied (")
            .map(|(_, m)| m.trim_end_matches(['.', ')']))
            .unwrap_or("");
        format!("login refused ({methods}): the key was not accepted for this user")
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

    #[test]
    fn ssh_causes_are_one_line() {
        let changed = lines("@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nIT IS POSSIBLE...\nHost key verification failed.");
        assert!(ssh_failure(&changed, "h")
            .unwrap()
            .starts_with("host key changed"));
        assert!(ssh_failure(&lines("Host key verification failed."), "h")
            .unwrap()
            .starts_with("host key not trusted"));
        assert_eq!(
            ssh_failure(
                &lines("root@127.0.0.3: Permission denied (publickey)."),
                "h"
            )
            .unwrap(),
            "login refused (publickey): the key was not accepted for this user"
        );
        assert_eq!(
            ssh_failure(
                &lines("ssh: connect to host 127.0.0.5 port 22: Connection refused"),
                "127.0.0.5:22"
            )
            .unwrap(),
            "connection refused: nothing listens for ssh at 127.0.0.5:22"
        );
        assert!(
            ssh_failure(&lines("Connection to 1.2.3.4 closed by remote host."), "h")
                .unwrap()
                .contains("connection was lost")
        );
        assert!(ssh_failure(&lines("something else"), "h").is_none());
        assert!(!ssh_failure(&changed, "h").unwrap().contains('\n'));
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
