//! One line of a job file, classified the way fio's ini reader (init.c)
//! sees it: blank or comment, a `[section]` header, an `include` line, or an
//! option. Comments start at the first `;` or `#` anywhere on the line (so
//! they also end a value: `bs=4k ; small` is `bs=4k`); surrounding blanks
//! go. Nothing here reads files or knows options.

/// fio reads a job file line by line into a buffer of this many bytes; a
/// longer line would be cut in two by fio, so candor refuses it.
pub const MAX_LINE: usize = 8191;

/// fio keeps at most this many characters of a section name.
pub const MAX_SECTION_NAME: usize = 255;

/// What one line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// Empty, blanks, or a comment.
    Blank,
    /// `[name]`.
    Section(&'a str),
    /// `include path`.
    Include(&'a str),
    /// Anything else: `key=value` or a bare `key`, comments and blanks removed.
    Option(&'a str),
}

/// Why a line cannot be read (the caller adds the file and line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError(pub String);

/// The line without its comment and without blanks (and control
/// characters, as fio strips them) at either end.
pub fn strip(line: &str) -> &str {
    let cut = line.find([';', '#']).unwrap_or(line.len());
    line[..cut].trim_matches(|c: char| c.is_whitespace() || c.is_control())
}

/// Classifies one line of a job file.
pub fn classify(line: &str) -> Result<Line<'_>, LineError> {
    if line.len() > MAX_LINE {
        return Err(LineError(format!(
            "the line is {} bytes long; fio reads lines of at most {MAX_LINE} bytes and would split it",
            line.len()
        )));
    }
    let text = strip(line);
    if text.is_empty() {
        return Ok(Line::Blank);
    }
    if let Some(rest) = text.strip_prefix('[') {
        // fio drops the last character as the closing bracket whatever it
        // is (`[job` names a job "jo"); candor asks for the bracket.
        let Some(name) = rest.strip_suffix(']') else {
            return Err(LineError(format!(
                "section header '{text}' does not end with ']'"
            )));
        };
        if name.is_empty() {
            return Err(LineError("empty section name '[]'".into()));
        }
        if name.len() > MAX_SECTION_NAME {
            return Err(LineError(format!(
                "section name of {} characters; fio keeps at most {MAX_SECTION_NAME}",
                name.len()
            )));
        }
        return Ok(Line::Section(name));
    }
    if let Some(rest) = text.strip_prefix("include") {
        if rest.is_empty() {
            return Err(LineError("'include' names no file".into()));
        }
        if rest.starts_with(char::is_whitespace) {
            return Ok(Line::Include(rest.trim()));
        }
    }
    Ok(Line::Option(text))
}

/// True for the section names fio treats as global: every name that starts
/// with `global` (fio compares the first six characters only).
pub fn is_global(section: &str) -> bool {
    section.starts_with("global")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_as_fio_reads_them() {
        assert_eq!(classify("").unwrap(), Line::Blank);
        assert_eq!(classify("   \t").unwrap(), Line::Blank);
        assert_eq!(classify("; comment").unwrap(), Line::Blank);
        assert_eq!(classify("  # comment").unwrap(), Line::Blank);
        assert_eq!(classify("[job1]").unwrap(), Line::Section("job1"));
        assert_eq!(classify(" [job 2] ; c").unwrap(), Line::Section("job 2"));
        assert_eq!(classify("bs=4k ; small").unwrap(), Line::Option("bs=4k"));
        assert_eq!(classify("bs=4k#x").unwrap(), Line::Option("bs=4k"));
        assert_eq!(
            classify("\ttime_based\r").unwrap(),
            Line::Option("time_based")
        );
        assert_eq!(classify("include a.fio").unwrap(), Line::Include("a.fio"));
        assert_eq!(
            classify("include   dir/b.fio  ; x").unwrap(),
            Line::Include("dir/b.fio")
        );
        assert!(classify("[job").is_err());
        assert!(classify("[]").is_err());
        assert!(classify("include").is_err());
        assert!(classify(&"x".repeat(MAX_LINE + 1)).is_err());
        assert!(is_global("global") && is_global("global-2") && !is_global("glob"));
    }
}
