//! The errors whose kind decides the exit code (main.rs maps them): usage
//! errors (bad flags, sizes, paths, files) exit 2, an interruption exits
//! 128+signal, data read back other than written exits 3, anything else
//! exits 1.

/// Bad input from the user: a flag, a size, a path, a file. Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A usage error as an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// A verifying job read back other data than it wrote (`data-corrupted`),
/// after the Run was saved and printed. Exit code 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DataCorrupted(pub String);

/// Stopped by SIGINT or SIGTERM. Exit code 128 + signal.
#[derive(Debug, thiserror::Error)]
#[error("interrupted by {}", signal_name(*.0))]
pub struct Interrupted(pub i32);

/// The stops candor answers, by their POSIX numbers (the exit code is
/// 128 + the number on every OS). Windows's console events are said as
/// these: Ctrl-C as SIGINT, Ctrl-Break and shutdown as SIGTERM, the console
/// window closed as SIGHUP (`cancel`).
pub const SIGINT: i32 = 2;
pub const SIGTERM: i32 = 15;
pub const SIGHUP: i32 = 1;

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// True when `error` (or one of its causes) is a usage error: the user's input at fault.
pub fn is_usage(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<UsageError>())
}

/// `text` safe to print as part of a one-line message: line breaks and tabs
/// become spaces, other control characters (a terminal's escape sequences
/// among them) are written as escapes. Error messages quote what a file
/// holds, and a hostile file may hold anything.
pub fn printable(text: &str) -> String {
    terminal_safe(&text.replace(['\n', '\r', '\t'], " ")).into_owned()
}

/// `text` safe to print on a terminal as it is laid out: line breaks and
/// tabs stay, every other control character (ESC, BEL, DEL, the C1 controls
/// such as U+009B, a one-character escape sequence) is written as an escape.
/// Reports print labels, job names and notes from Run files, and a hostile
/// Run may carry sequences that retitle a window, clear the screen or hide text.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if unsafe_char(c) {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    /// The numbers are the system's own where there are signals.
    #[cfg(unix)]
    #[test]
    fn signal_numbers_are_posix() {
        assert_eq!(super::SIGINT, libc::SIGINT);
        assert_eq!(super::SIGTERM, libc::SIGTERM);
        assert_eq!(super::SIGHUP, libc::SIGHUP);
    }

    #[test]
    fn terminal_safe_keeps_the_layout_and_escapes_the_rest() {
        assert_eq!(super::terminal_safe("a\n\tb"), "a\n\tb");
        assert_eq!(
            super::terminal_safe("\u{1b}]0;x\u{7}\r\u{9b}2J\u{7f}"),
            "\\u{1b}]0;x\\u{7}\\r\\u{9b}2J\\u{7f}"
        );
    }

    #[test]
    fn printable_is_one_line_without_escapes() {
        assert_eq!(
            super::printable("a\nb\tc\u{1b}[31md\u{7f}é"),
            "a b c\\u{1b}[31md\\u{7f}é"
        );
    }
}
