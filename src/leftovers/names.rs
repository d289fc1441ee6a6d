//! The names of the files candor makes beside the user's, in one place:
//! whoever makes such a file names it here, and the search for a dead
//! candor's leftovers matches only these exact forms (a name that differs
//! by a character, a leading zero or a sign is someone else's file).
//!
//! - a test file: `.candor-<purpose>-<pid>-<start>-<n>.tmp`
//! - a temporary of an atomic write (a Run, a report) or the room kept for
//!   a Run's last save: `.<target>.candor-<pid>-<start>-<8 hex digits>.tmp`
//! - a work directory (UnixBench's File Copy and Shell Scripts):
//!   `candor-<purpose>-<pid>-<start>`

use super::owner::Owner;
use std::ffi::{OsStr, OsString};

/// What kind of candor file a name is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameKind {
    /// A test file (`purpose`: main, control, disk, sweep, ...).
    TestFile { purpose: String },
    /// A temporary beside `target` (its file name, in any bytes the target has).
    Temporary { target: OsString },
    /// A work directory (`purpose`: unixbench) and what is in it.
    WorkDir { purpose: String },
}

/// The purposes of work directories, exactly.
const WORK_DIR_PURPOSES: [&str; 1] = ["unixbench"];

/// A work directory's name (`purpose` one of `WORK_DIR_PURPOSES`).
pub fn work_dir(purpose: &str, owner: Owner) -> String {
    debug_assert!(WORK_DIR_PURPOSES.contains(&purpose), "{purpose:?}");
    format!("candor-{purpose}-{}-{}", owner.pid, owner.start)
}

fn parse_work_dir(name: &OsStr) -> Option<(NameKind, Owner)> {
    let rest = std::str::from_utf8(name.as_encoded_bytes().strip_prefix(b"candor-")?).ok()?;
    let parts: Vec<&str> = rest.split('-').collect();
    let [purpose, pid, start] = parts[..] else {
        return None;
    };
    let owner = Owner {
        pid: decimal(pid)?,
        start: decimal(start)?,
    };
    (WORK_DIR_PURPOSES.contains(&purpose)
        && work_dir(purpose, owner).as_bytes() == name.as_encoded_bytes())
    .then(|| {
        (
            NameKind::WorkDir {
                purpose: purpose.to_string(),
            },
            owner,
        )
    })
}

/// The purposes candor gives test files, exactly: a lower-case word
/// (`main`, `control`, `disk`, `sweep`) or `job-` and 1 to 48 of ASCII
/// letters, digits, `.`, `_` and `-` (a job file's file name, cleaned by
/// `plan::jobfile`). Nothing looser: a name one field longer than
/// candor's is someone else's file.
pub fn is_purpose(purpose: &str) -> bool {
    let word = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    match purpose.strip_prefix("job-") {
        Some(name) => {
            (1..=MAX_JOB_NAME).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        }
        None => word(purpose),
    }
}

/// The longest job file name a test file's purpose carries.
pub const MAX_JOB_NAME: usize = 48;

/// A test file's name (`purpose` as `is_purpose` allows: the next candor
/// must recognise the file as its own).
pub fn test_file(purpose: &str, owner: Owner, n: u32) -> String {
    debug_assert!(is_purpose(purpose), "{purpose:?}");
    format!(".candor-{purpose}-{}-{}-{n}.tmp", owner.pid, owner.start)
}

/// A temporary's name beside the file `target` (the target's bytes as
/// they are: a name that is not UTF-8 keeps its length).
pub fn temporary(target: &OsStr, owner: Owner, salt: u32) -> OsString {
    let mut name = b".".to_vec();
    name.extend_from_slice(target.as_encoded_bytes());
    name.extend_from_slice(
        format!(".candor-{}-{}-{salt:08x}.tmp", owner.pid, owner.start).as_bytes(),
    );
    // SAFETY: an OsStr's encoded bytes with ASCII appended are encoded bytes.
    unsafe { OsString::from_encoded_bytes_unchecked(name) }
}

/// The kind and owner of a candor file name; None for any other name.
pub fn parse(name: &OsStr) -> Option<(NameKind, Owner)> {
    if let Some(found) = parse_work_dir(name) {
        return Some(found);
    }
    let body = name
        .as_encoded_bytes()
        .strip_prefix(b".")?
        .strip_suffix(b".tmp")?;
    // A Run's default name starts with `candor-` too: a name that is not a
    // test file may still be the temporary of such a Run.
    parse_test_file(name, body).or_else(|| parse_temporary(name, body))
}

fn parse_test_file(name: &OsStr, body: &[u8]) -> Option<(NameKind, Owner)> {
    let rest = std::str::from_utf8(body.strip_prefix(b"candor-")?).ok()?;
    // The purpose may hold dashes itself (`job-a.0.0` of a job file): the
    // owner and the number are the last three fields.
    let parts: Vec<&str> = rest.rsplitn(4, '-').collect();
    let [n, start, pid, purpose] = parts[..] else {
        return None;
    };
    if !is_purpose(purpose) {
        return None;
    }
    let owner = Owner {
        pid: decimal(pid)?,
        start: decimal(start)?,
    };
    let n: u32 = decimal(n)?;
    // Only the exact form candor writes (no leading zeros, no signs).
    (test_file(purpose, owner, n).as_bytes() == name.as_encoded_bytes()).then(|| {
        (
            NameKind::TestFile {
                purpose: purpose.to_string(),
            },
            owner,
        )
    })
}

fn parse_temporary(name: &OsStr, body: &[u8]) -> Option<(NameKind, Owner)> {
    const MARK: &[u8] = b".candor-";
    let at = body.windows(MARK.len()).rposition(|w| w == MARK)?;
    // SAFETY: cut just before an ASCII `.` of an OsStr's encoded bytes.
    let target = unsafe { OsStr::from_encoded_bytes_unchecked(&body[..at]) };
    let rest = std::str::from_utf8(&body[at + MARK.len()..]).ok()?;
    let parts: Vec<&str> = rest.split('-').collect();
    let [pid, start, salt] = parts[..] else {
        return None;
    };
    if target.is_empty() || salt.len() != 8 {
        return None;
    }
    let owner = Owner {
        pid: decimal(pid)?,
        start: decimal(start)?,
    };
    let salt = u32::from_str_radix(salt, 16).ok()?;
    (temporary(target, owner, salt) == name).then(|| {
        (
            NameKind::Temporary {
                target: target.to_os_string(),
            },
            owner,
        )
    })
}

/// A decimal number written with digits only.
fn decimal<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: Owner = Owner {
        pid: 4242,
        start: 987654,
    };

    #[test]
    fn names_round_trip() {
        let t = test_file("main", OWNER, 3);
        assert_eq!(t, ".candor-main-4242-987654-3.tmp");
        assert_eq!(
            parse(OsStr::new(&t)),
            Some((
                NameKind::TestFile {
                    purpose: "main".into()
                },
                OWNER
            ))
        );
        let tmp = temporary(OsStr::new("r.candor-1-2-3.json"), OWNER, 0xab);
        assert_eq!(tmp, ".r.candor-1-2-3.json.candor-4242-987654-000000ab.tmp");
        assert_eq!(
            parse(&tmp),
            Some((
                NameKind::Temporary {
                    target: "r.candor-1-2-3.json".into()
                },
                OWNER
            ))
        );
    }

    /// `candor run`'s default output is `candor-<host>-<time>.json`.
    #[test]
    fn a_default_named_runs_temporary_is_a_temporary() {
        let target = "candor-vm-20261201T000000Z.json";
        let tmp = temporary(OsStr::new(target), OWNER, 0xab);
        assert_eq!(
            parse(&tmp),
            Some((
                NameKind::Temporary {
                    target: target.into()
                },
                OWNER
            ))
        );
    }

    #[test]
    fn anything_else_is_not_candors() {
        for name in [
            ".candor-main-4242-0.tmp",                 // no start time (pid alone)
            ".candor-main-4242-987654-03.tmp",         // leading zero
            ".candor-main-+4242-987654-3.tmp",         // sign
            ".candor-Main-4242-987654-3.tmp",          // not candor's purpose word
            ".candor-main-4242-987654-3.tmp~",         // an editor's backup
            "candor-main-4242-987654-3.tmp",           // not hidden
            ".candor-main-4242-987654-3-1.tmp",        // one part too many
            ".r.json.4242.000000ab.tmp",               // another program's temporary
            ".r.json.candor-4242-987654-ab.tmp",       // short salt
            ".r.json.candor-4242-987654-000000AB.tmp", // upper-case hex
            "..candor-4242-987654-000000ab.tmp",       // no target
            ".r.json.lock",
        ] {
            assert_eq!(parse(OsStr::new(name)), None, "{name}");
        }
    }

    /// A job file's test files carry its name, dashes and dots included:
    /// the next candor recognises them for any name `file_purpose` makes.
    #[test]
    fn job_file_test_files_round_trip_whatever_the_name() {
        for purpose in [
            "job-a",
            "job-a.0.0",
            "job--x-1-2-3",
            "job-_",
            &format!("job-{}", "z".repeat(48)),
        ] {
            let t = test_file(purpose, OWNER, 7);
            assert_eq!(
                parse(OsStr::new(&t)),
                Some((
                    NameKind::TestFile {
                        purpose: purpose.into()
                    },
                    OWNER
                )),
                "{t}"
            );
        }
        for name in [
            ".candor-job--4242-987654-3.tmp",    // an empty job name
            ".candor-job-a b-4242-987654-3.tmp", // a space: never made
            &format!(".candor-job-{}-4242-987654-3.tmp", "z".repeat(49)),
        ] {
            assert_eq!(parse(OsStr::new(name)), None, "{name}");
        }
    }

    #[test]
    fn work_directories_round_trip_and_nothing_looser() {
        let d = work_dir("unixbench", OWNER);
        assert_eq!(d, "candor-unixbench-4242-987654");
        assert_eq!(
            parse(OsStr::new(&d)),
            Some((
                NameKind::WorkDir {
                    purpose: "unixbench".into()
                },
                OWNER
            ))
        );
        for name in [
            "candor-unixbench-4242",          // the old name: no start time
            "candor-unixbench-4242-0987654",  // leading zero
            "candor-unixbench-4242-987654-1", // one part too many
            "candor-disk-4242-987654",        // not a work directory's purpose
            ".candor-unixbench-4242-987654",
        ] {
            assert_eq!(parse(OsStr::new(name)), None, "{name}");
        }
    }

    /// `r?.json` with a `?` that is no Unicode: a byte that is not UTF-8
    /// (Unix), an unpaired surrogate (Windows's UTF-16 names).
    fn not_unicode() -> OsString {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            OsStr::from_bytes(b"r\xff.json").to_os_string()
        }
        #[cfg(windows)]
        {
            use std::os::windows::ffi::OsStringExt;
            let mut wide = vec![u16::from(b'r'), 0xD800];
            wide.extend(".json".encode_utf16());
            OsString::from_wide(&wide)
        }
    }

    #[test]
    fn a_target_that_is_not_utf8_keeps_its_bytes() {
        let target = &not_unicode();
        assert!(target.to_str().is_none());
        let tmp = temporary(target, OWNER, 1);
        assert_eq!(
            tmp.len(),
            1 + target.len() + ".candor-4242-987654-00000001.tmp".len()
        );
        assert_eq!(
            parse(&tmp),
            Some((
                NameKind::Temporary {
                    target: target.to_os_string()
                },
                OWNER
            ))
        );
    }
}
