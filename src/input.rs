//! Reading a file the user names: a Run, fio output, a job file and its
//! includes, the fleet playbook's results (or those on standard input,
//! `read_text_or_stdin`). A user's file may be anything: a
//! FIFO that no one writes (a plain read waits forever), `/dev/zero` (a
//! plain read fills the memory), a directory, a 40 GiB log. So every input
//! is read here, one way:
//!
//! - opened without waiting (`O_NONBLOCK`: a FIFO's open returns at once)
//!   and without taking a terminal, then checked on the open descriptor:
//!   a regular file, or a one-line error saying what it is instead;
//! - at most [`MAX_INPUT_BYTES`], checked against its size before reading
//!   and enforced while reading (a file that grows is cut off, not followed);
//! - UTF-8 text, with a leading byte-order mark dropped, so that every
//!   reader (import, report, analyze, compare) sees the same text.
//!
//! Errors name the file; callers turn them into exit code 2.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest input candor reads: 128 MiB. A Run of the longest battery
/// is a few MiB and fio's json+ output a few MiB per hundred jobs; parsed
/// JSON takes several times its size in memory, so a bound is what keeps a
/// wrong file from taking the machine's memory.
pub const MAX_INPUT_BYTES: u64 = 128 << 20;

/// Why a file could not be read as input. Each message names the file.
#[derive(Debug)]
pub enum InputError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    NotAFile {
        path: PathBuf,
        kind: &'static str,
    },
    TooLarge {
        path: PathBuf,
        size: String,
        cap: String,
    },
    NotText {
        path: PathBuf,
        offset: usize,
    },
}

impl InputError {
    /// The file it is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::NotAFile { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::NotText { path, .. } => path,
        }
    }

    /// The cause without the file's name, for a message that names the
    /// file its own way (a job file's `include` line).
    pub fn cause(&self) -> String {
        match self {
            InputError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                "no such file".to_string()
            }
            InputError::Io { source, .. } => format!("cannot read: {source}"),
            InputError::NotAFile { kind, .. } => {
                format!("{kind}, not a regular file: candor reads its input from regular files")
            }
            InputError::TooLarge { size, cap, .. } if size == "it" => {
                format!("holds more than the {cap} candor reads (is it the right file?)")
            }
            InputError::TooLarge { size, cap, .. } => {
                format!("{size} is more than the {cap} candor reads (is it the right file?)")
            }
            InputError::NotText { offset, .. } => {
                format!("not text (the bytes at offset {offset} are not UTF-8)")
            }
        }
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io { path, source } => {
                write!(f, "{}: cannot read: {source}", path.display())
            }
            _ => write!(f, "{}: {}", self.path().display(), self.cause()),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Reads a regular file of at most [`MAX_INPUT_BYTES`] as UTF-8 text,
/// without a leading byte-order mark.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    read_text_limited(path, MAX_INPUT_BYTES)
}

/// `read_text` with another cap (tests).
pub fn read_text_limited(path: &Path, cap: u64) -> Result<String, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Looked at before it is opened: opening is itself an action on a
    // device (a tape rewinds when closed) or a FIFO (a writer waiting on it
    // is let through). The link, if any, is followed: an input may be one.
    let not_a_file = |kind: &std::fs::FileType| {
        (!kind.is_file()).then(|| InputError::NotAFile {
            path: path.to_path_buf(),
            kind: kind_in_words(kind),
        })
    };
    if let Some(e) = not_a_file(&std::fs::metadata(path).map_err(io)?.file_type()) {
        return Err(e);
    }
    // O_NONBLOCK and O_NOCTTY: whatever was swapped in since the look above,
    // the open neither waits nor takes a terminal, and fstat says what it is.
    let file = open_for_reading(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(e) = not_a_file(&meta.file_type()) {
        return Err(e);
    }
    // Sizes that print alike when rounded (128 MiB and a byte over it) are
    // given in bytes: a message never says "128 MiB is more than 128 MiB".
    let too_large = |size: Option<u64>| {
        let (shown, limit) = (
            size.map(crate::units::fmt_bytes),
            crate::units::fmt_bytes(cap),
        );
        let (size, cap) = match size {
            // Three significant digits can print them alike ("1.00 KiB"
            // and "1 KiB"): when the printed size reads as no more than the
            // cap, bytes.
            Some(n)
                if shown
                    .as_deref()
                    .and_then(|t| crate::units::parse_size(t).ok())
                    .is_none_or(|printed| printed <= cap) =>
            {
                (format!("{n} bytes"), format!("{cap} bytes"))
            }
            Some(_) => (shown.unwrap_or_default(), limit),
            // Read, not stat'ed: only that it holds more is known.
            None => ("it".to_string(), limit),
        };
        InputError::TooLarge {
            path: path.to_path_buf(),
            size,
            cap,
        }
    };
    if meta.len() > cap {
        return Err(too_large(Some(meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        // It grew while read: its size now is unknown, only that it is over.
        return Err(too_large(None));
    }
    let mut text = String::from_utf8(bytes).map_err(|e| InputError::NotText {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// Parses JSON text, stopping at the first signal: a 100 MiB input takes
/// seconds to parse, and the user who pressed Ctrl-C should not wait for
/// it. The text is fed to the parser through a reader that refuses to go
/// on once a stop was asked for (looked at every 64 KiB), so the parse
/// ends with an error; `main` reports an error after a signal as the
/// interruption it is.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_reader(stoppable(text))
}

/// The bytes of `text` as a buffered reader that fails once a stop was
/// asked for (`cancel`), for parsers that read.
pub fn stoppable(text: &str) -> impl std::io::BufRead + '_ {
    std::io::BufReader::with_capacity(64 << 10, Stoppable(text.as_bytes()))
}

struct Stoppable<'a>(&'a [u8]);

impl Read for Stoppable<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if crate::cancel::cancelled() {
            return Err(std::io::Error::other("stopped by a signal"));
        }
        self.0.read(buf)
    }
}

/// Reads the file at `path`, or standard input when it is `-`, as UTF-8
/// text of at most [`MAX_INPUT_BYTES`]: the text and the name of where it
/// came from (`stdin`, or the path). `what` names the input in a message
/// about standard input ("results"). Every error but a failed read of
/// standard input is a usage error.
pub fn read_text_or_stdin(path: &Path, what: &str) -> anyhow::Result<(String, String)> {
    use crate::error::usage;
    if path.as_os_str() != "-" {
        let text = read_text(path).map_err(|e| usage(e.to_string()))?;
        return Ok((text, path.display().to_string()));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read the {what} on stdin: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(usage(format!(
            "stdin: more than {} of {what}",
            crate::units::fmt_bytes(MAX_INPUT_BYTES)
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| usage("stdin: not UTF-8"))?;
    Ok((text, "stdin".to_string()))
}

/// What a file that is not a regular file is, in words.
/// Opens a file the user named for reading; on Linux with `O_NONBLOCK`
/// and `O_NOCTTY`, so that a FIFO or terminal swapped in cannot block.
#[cfg(unix)]
fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
}

/// Opens a file the user named for reading (Windows has no FIFOs or
/// terminals at a file's name; what was opened is checked after).
#[cfg(windows)]
fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// What a file is, in words.
#[cfg(windows)]
pub fn kind_in_words(kind: &std::fs::FileType) -> &'static str {
    if kind.is_file() {
        "a regular file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}

/// What a file is, in words.
#[cfg(unix)]
pub fn kind_in_words(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() {
        "a regular file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_and_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.json");
        std::fs::write(&f, "\u{feff}{\"a\": 1}").unwrap();
        assert_eq!(read_text(&f).unwrap(), "{\"a\": 1}");
        let e = |p: &Path| read_text(p).unwrap_err().to_string();
        assert!(e(dir.path()).contains("a directory, not a regular file"));
        assert!(e(&dir.path().join("none")).contains("cannot read"));
        // Devices and FIFOs in the file system are Unix's.
        #[cfg(unix)]
        {
            assert!(e(Path::new("/dev/zero")).contains("a character device"));
            let fifo = dir.path().join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a valid path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            // Returns at once: nobody writes the FIFO.
            assert!(e(&fifo).contains("a FIFO"));
        }
        std::fs::write(&f, vec![b' '; 2048]).unwrap();
        let big = read_text_limited(&f, 1024).unwrap_err().to_string();
        assert!(big.contains("2 KiB is more than the 1 KiB"), "{big}");
        // A byte over the cap does not read "1 KiB is more than the 1 KiB".
        std::fs::write(&f, vec![b' '; 1025]).unwrap();
        let over = read_text_limited(&f, 1024).unwrap_err().to_string();
        assert!(
            over.contains("1025 bytes is more than the 1024 bytes"),
            "{over}"
        );
        std::fs::write(&f, b"{\"a\": \"\xff\"}").unwrap();
        assert!(e(&f).contains("offset 7 are not UTF-8"), "{}", e(&f));
    }

    /// A FIFO named as an input is refused without being opened: a writer
    /// waiting on it stays blocked (Unix: Windows has no FIFO in its file
    /// systems).
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_unopened() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("in.fio");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let w = fifo.clone();
        std::thread::spawn(move || {
            let _w = std::fs::OpenOptions::new().write(true).open(&w);
            let _ = tx.send(());
        });
        assert!(read_text(&fifo).unwrap_err().to_string().contains("FIFO"));
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(300))
                .is_err(),
            "the FIFO was opened"
        );
        let _r = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
    }
}
