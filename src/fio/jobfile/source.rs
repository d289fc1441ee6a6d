//! Reading a job file into sections of raw option lines, with positions:
//! `include` pulls another file's options in where it stands (resolved as
//! fio resolves it: as written, else beside the including file), an
//! include loop is refused, and every file read is kept with its text and
//! SHA-256 so that the Run says exactly which job file ran.
//!
//! Files are read through `Reader`, so tests and the fuzzer can give the
//! text from memory.

use super::lexer::{self, Line};
use super::JobFileError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a line is: the file as it was named, and its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pos {
    pub file: Arc<str>,
    pub line: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Reads the files a job file names.
pub trait Reader {
    /// The whole text of `path`.
    fn read(&self, path: &Path) -> std::io::Result<String>;
    /// Whether `path` exists (fio's first try for an include).
    fn exists(&self, path: &Path) -> bool;
    /// The name that identifies the file, for loop detection.
    fn identity(&self, path: &Path) -> PathBuf;
}

/// The real file system.
pub struct FileSystem;

impl Reader for FileSystem {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        let bytes = std::fs::read(path)?;
        String::from_utf8(bytes)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Files held in memory, by path (tests, the fuzzer).
#[derive(Default)]
pub struct InMemory(pub HashMap<PathBuf, String>);

impl Reader for InMemory {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn exists(&self, path: &Path) -> bool {
        self.0.contains_key(path)
    }

    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// One file that was read: its name as given, its text, its SHA-256 (hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
    pub sha256: String,
}

/// An option line as written (comment and blanks removed), where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOption {
    pub text: String,
    pub pos: Pos,
}

/// A section and its option lines, includes expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSection {
    pub name: String,
    pub pos: Pos,
    pub options: Vec<RawOption>,
}

impl RawSection {
    pub fn is_global(&self) -> bool {
        lexer::is_global(&self.name)
    }
}

/// A job file read into sections.
#[derive(Debug, Clone)]
pub struct Sections {
    pub sections: Vec<RawSection>,
    /// The name of every job section, kept or skipped.
    pub names: Vec<String>,
    /// The job file first, then every included file in the order first read.
    pub files: Vec<SourceFile>,
}

/// How deep includes may nest (a loop is caught before this; this bounds
/// a long chain of distinct files).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Reads `path` and its includes. `only`: when not empty, the job sections
/// to keep (fio's `--section`): the others are skipped unread, globals are
/// always kept.
pub fn read(reader: &dyn Reader, path: &Path, only: &[String]) -> Result<Sections, JobFileError> {
    let shown: Arc<str> = Arc::from(path.display().to_string());
    let text = reader.read(path).map_err(|e| {
        JobFileError::whole(format!(
            "{shown}: cannot read the job file: {}",
            io_reason(&e)
        ))
    })?;
    let mut files = vec![source_file(&shown, &text)];
    let mut sections: Vec<RawSection> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut skipping = false;
    let stack = vec![(reader.identity(path), shown.to_string())];
    for (i, raw) in text.lines().enumerate() {
        let pos = Pos {
            file: shown.clone(),
            line: i as u32 + 1,
        };
        let line = lexer::classify(raw).map_err(|e| JobFileError::at(&pos, e.0))?;
        match line {
            Line::Blank => {}
            Line::Section(name) => {
                if !lexer::is_global(name) {
                    names.push(name.to_string());
                }
                skipping =
                    !only.is_empty() && !lexer::is_global(name) && !only.iter().any(|s| s == name);
                if !skipping {
                    sections.push(RawSection {
                        name: name.to_string(),
                        pos,
                        options: Vec::new(),
                    });
                }
            }
            _ if skipping => {}
            Line::Include(target) => {
                let Some(section) = sections.last_mut() else {
                    return Err(JobFileError::at(
                        &pos,
                        format!("include {target} stands outside of a [section]"),
                    ));
                };
                include(reader, path, target, &pos, &stack, section, &mut files)?;
            }
            Line::Option(text) => {
                let Some(section) = sections.last_mut() else {
                    return Err(JobFileError::at(
                        &pos,
                        format!("option '{text}' stands outside of a [section]"),
                    ));
                };
                section.options.push(RawOption {
                    text: text.to_string(),
                    pos,
                });
            }
        }
    }
    Ok(Sections {
        sections,
        names,
        files,
    })
}

/// Reads an included file's options into `section`.
fn include(
    reader: &dyn Reader,
    including: &Path,
    target: &str,
    pos: &Pos,
    stack: &[(PathBuf, String)],
    section: &mut RawSection,
    files: &mut Vec<SourceFile>,
) -> Result<(), JobFileError> {
    // fio tries the name as written first, then beside the including file.
    let as_written = PathBuf::from(target);
    let path = if reader.exists(&as_written) {
        as_written
    } else {
        match including.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.join(target),
            _ => as_written,
        }
    };
    let identity = reader.identity(&path);
    let shown: Arc<str> = Arc::from(path.display().to_string());
    if let Some(first) = stack.iter().position(|(p, _)| *p == identity) {
        // Named as the files were named, not by their canonical paths.
        let chain: Vec<&str> = stack[first..]
            .iter()
            .map(|(_, name)| name.as_str())
            .chain(std::iter::once(&*shown))
            .collect();
        return Err(JobFileError::at(
            pos,
            format!("include loop: {}", chain.join(" includes ")),
        ));
    }
    if stack.len() >= MAX_INCLUDE_DEPTH {
        return Err(JobFileError::at(
            pos,
            format!("includes nest deeper than {MAX_INCLUDE_DEPTH} files"),
        ));
    }
    let shown: Arc<str> = Arc::from(path.display().to_string());
    let text = reader
        .read(&path)
        .map_err(|e| JobFileError::at(pos, format!("include {target}: {}", io_reason(&e))))?;
    if !files.iter().any(|f| *f.path == *shown) {
        files.push(source_file(&shown, &text));
    }
    let mut stack = stack.to_vec();
    stack.push((identity, shown.to_string()));
    for (i, raw) in text.lines().enumerate() {
        let here = Pos {
            file: shown.clone(),
            line: i as u32 + 1,
        };
        match lexer::classify(raw).map_err(|e| JobFileError::at(&here, e.0))? {
            Line::Blank => {}
            Line::Section(name) => {
                return Err(JobFileError::at(
                    &here,
                    format!("[{name}]: an included file holds options only, no sections (fio refuses them too)"),
                ))
            }
            Line::Include(next) => include(reader, &path, next, &here, &stack, section, files)?,
            Line::Option(text) => section.options.push(RawOption {
                text: text.to_string(),
                pos: here,
            }),
        }
    }
    Ok(())
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    }
}

fn source_file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.to_string(),
        text: text.to_string(),
        sha256: sha256_hex(text.as_bytes()),
    }
}

/// The SHA-256 of `bytes`, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(files: &[(&str, &str)]) -> InMemory {
        InMemory(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.to_string()))
                .collect(),
        )
    }

    #[test]
    fn sections_options_and_includes() {
        let r = mem(&[
            (
                "/j/a.fio",
                "; head\n[global]\nbs=4k\n[one]\ninclude inc.fio\nsize=1m ; c\n[two]\n",
            ),
            ("/j/inc.fio", "rw=randread\n\n# x\ninclude deeper.fio\n"),
            ("/j/deeper.fio", "iodepth=4\n"),
        ]);
        let s = read(&r, Path::new("/j/a.fio"), &[]).unwrap();
        let names: Vec<&str> = s.sections.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["global", "one", "two"]);
        let one: Vec<(&str, String)> = s.sections[1]
            .options
            .iter()
            .map(|o| (o.text.as_str(), o.pos.to_string()))
            .collect();
        assert_eq!(
            one,
            [
                ("rw=randread", "/j/inc.fio:1".to_string()),
                ("iodepth=4", "/j/deeper.fio:1".to_string()),
                ("size=1m", "/j/a.fio:6".to_string()),
            ]
        );
        assert_eq!(s.files.len(), 3);
        assert_eq!(s.files[0].sha256.len(), 64);
    }

    #[test]
    fn only_named_sections_are_kept() {
        let r = mem(&[(
            "/a.fio",
            "[global]\nbs=4k\n[one]\ninclude missing.fio\n[two]\nsize=1m\n",
        )]);
        let s = read(&r, Path::new("/a.fio"), &["two".to_string()]).unwrap();
        let names: Vec<&str> = s.sections.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            names,
            ["global", "two"],
            "the skipped include is never read"
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let loop_ = mem(&[
            ("/a.fio", "[x]\ninclude b.fio\n"),
            ("/b.fio", "bs=4k\ninclude a.fio\n"),
        ]);
        let e = read(&loop_, Path::new("/a.fio"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("/b.fio:2: include loop: /a.fio includes /b.fio includes /a.fio"),
            "{e}"
        );
        let r = mem(&[("/a.fio", "bs=4k\n[x]\n")]);
        let e = read(&r, Path::new("/a.fio"), &[]).unwrap_err().to_string();
        assert_eq!(e, "/a.fio:1: option 'bs=4k' stands outside of a [section]");
        let r = mem(&[("/a.fio", "[x]\ninclude nope.fio\n")]);
        let e = read(&r, Path::new("/a.fio"), &[]).unwrap_err().to_string();
        assert_eq!(e, "/a.fio:2: include nope.fio: no such file");
        let r = mem(&[("/a.fio", "[x]\ninclude b.fio\n"), ("/b.fio", "[y]\n")]);
        let e = read(&r, Path::new("/a.fio"), &[]).unwrap_err().to_string();
        assert!(e.starts_with("/b.fio:1: [y]"), "{e}");
        let e = read(&r, Path::new("/none.fio"), &[])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "/none.fio: cannot read the job file: no such file");
    }
}
