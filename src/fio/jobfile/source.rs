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
    /// The whole text of `path`, or why not in one line without the
    /// file's name ("no such file", "a FIFO (named pipe), not a regular file...").
    fn read(&self, path: &Path) -> Result<String, String>;
    /// Whether `path` exists (fio's first try for an include).
    fn exists(&self, path: &Path) -> bool;
    /// The name that identifies the file, for loop detection.
    fn identity(&self, path: &Path) -> PathBuf;
}

/// The largest job file or included file candor reads: 4 MiB. A job file
/// of fio's most jobs ([`MAX_JOBS`] sections of ten options) is under
/// 1 MiB; a larger file is not a job file someone wrote.
pub const MAX_JOB_FILE_BYTES: u64 = 4 << 20;

/// The most text a job file may pull in through its includes, counted
/// each time a file is included: 16 MiB. Fan-out (files that include the
/// next one eight times, fourteen deep) would otherwise expand to 8^14
/// copies; each copy's options are kept, so this bounds time and memory.
pub const MAX_EXPANDED_BYTES: u64 = 16 << 20;

/// The most `include` lines followed in one job file, each time counted
/// (a file included by each of fio's [`MAX_JOBS`] sections, sixteen times).
pub const MAX_INCLUDES: usize = 16 * MAX_JOBS;

/// The most option lines a job file may hold with its includes, each
/// include counted: 64 for each of fio's most jobs. Each is kept with its
/// position until the jobs are made, so this bounds the memory (about
/// 60 bytes each: 16 MiB at most).
pub const MAX_OPTIONS: usize = 64 * MAX_JOBS;

/// The most job sections fio runs: its `REAL_MAX_JOBS` (fio.h, 3.33), a
/// job's clones counted (`lower` counts those). fio refuses more.
pub const MAX_JOBS: usize = 4096;

/// The real file system, through candor's one reader of inputs
/// (`crate::input`): regular files only, opened without waiting (a FIFO
/// include does not hang), at most [`MAX_JOB_FILE_BYTES`] each.
pub struct FileSystem;

impl Reader for FileSystem {
    fn read(&self, path: &Path) -> Result<String, String> {
        crate::input::read_text_limited(path, MAX_JOB_FILE_BYTES).map_err(|e| e.cause())
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
    fn read(&self, path: &Path) -> Result<String, String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| "no such file".to_string())
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

/// What reading one job file's tree has taken so far: each distinct file
/// is read once (an include repeated in every section reads its file
/// once), and the bounds are counted over the whole tree.
struct Tree<'a> {
    reader: &'a dyn Reader,
    files: Vec<SourceFile>,
    texts: HashMap<PathBuf, Arc<str>>,
    expanded: u64,
    includes: usize,
    options: usize,
}

impl Tree<'_> {
    /// The text of the file at `path` (identity `id`), read once.
    fn text(&mut self, path: &Path, id: &Path, shown: &str) -> Result<Arc<str>, String> {
        if let Some(t) = self.texts.get(id) {
            return Ok(t.clone());
        }
        let text: Arc<str> = Arc::from(self.reader.read(path)?);
        if !self.files.iter().any(|f| f.path == shown) {
            self.files.push(source_file(shown, &text));
        }
        self.texts.insert(id.to_path_buf(), text.clone());
        Ok(text)
    }

    /// Adds an option line to `section`, within [`MAX_OPTIONS`].
    fn option(
        &mut self,
        section: &mut RawSection,
        text: &str,
        pos: Pos,
    ) -> Result<(), JobFileError> {
        self.options += 1;
        if self.options > MAX_OPTIONS {
            return Err(JobFileError::at(
                &pos,
                format!("more than {MAX_OPTIONS} option lines in the job file and its includes, each include counted"),
            ));
        }
        section.options.push(RawOption {
            text: text.to_string(),
            pos,
        });
        Ok(())
    }
}

/// Reads `path` and its includes. `only`: when not empty, the job sections
/// to keep (fio's `--section`): the others are skipped unread, globals are
/// always kept.
pub fn read(reader: &dyn Reader, path: &Path, only: &[String]) -> Result<Sections, JobFileError> {
    let shown: Arc<str> = Arc::from(path.display().to_string());
    let mut tree = Tree {
        reader,
        files: Vec::new(),
        texts: HashMap::new(),
        expanded: 0,
        includes: 0,
        options: 0,
    };
    let identity = reader.identity(path);
    let text = tree
        .text(path, &identity, &shown)
        .map_err(|e| JobFileError::whole(format!("{shown}: cannot read the job file: {e}")))?;
    tree.expanded = text.len() as u64;
    let mut sections: Vec<RawSection> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut skipping = false;
    let stack = vec![(identity, shown.to_string())];
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
                    if names.len() > MAX_JOBS {
                        return Err(JobFileError::at(
                            &pos,
                            format!("more than {MAX_JOBS} job sections: fio runs at most {MAX_JOBS} jobs (its REAL_MAX_JOBS; 'maximum number of jobs reached') and so does candor"),
                        ));
                    }
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
                include(&mut tree, path, target, &pos, &stack, section)?;
            }
            Line::Option(text) => {
                let Some(section) = sections.last_mut() else {
                    return Err(JobFileError::at(
                        &pos,
                        format!("option '{text}' stands outside of a [section]"),
                    ));
                };
                tree.option(section, text, pos)?;
            }
        }
    }
    Ok(Sections {
        sections,
        names,
        files: tree.files,
    })
}

/// Reads an included file's options into `section`.
fn include(
    tree: &mut Tree,
    including: &Path,
    target: &str,
    pos: &Pos,
    stack: &[(PathBuf, String)],
    section: &mut RawSection,
) -> Result<(), JobFileError> {
    // fio tries the name as written first, then beside the including file.
    let as_written = PathBuf::from(target);
    let path = if tree.reader.exists(&as_written) {
        as_written
    } else {
        match including.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.join(target),
            _ => as_written,
        }
    };
    let identity = tree.reader.identity(&path);
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
    tree.includes += 1;
    if tree.includes > MAX_INCLUDES {
        return Err(JobFileError::at(
            pos,
            format!("include {target}: the job file follows more than {MAX_INCLUDES} includes in all (files that include each other many times over)"),
        ));
    }
    let text = tree
        .text(&path, &identity, &shown)
        .map_err(|e| JobFileError::at(pos, format!("include {target}: {e}")))?;
    tree.expanded += text.len() as u64;
    if tree.expanded > MAX_EXPANDED_BYTES {
        return Err(JobFileError::at(
            pos,
            format!(
                "include {target}: the job file and its includes come to more than {} of text, each include counted (files that include each other many times over)",
                crate::units::fmt_bytes(MAX_EXPANDED_BYTES)
            ),
        ));
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
            Line::Include(next) => include(tree, &path, next, &here, &stack, section)?,
            Line::Option(text) => tree.option(section, text, here)?,
        }
    }
    Ok(())
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

    /// Reads through `InMemory`, counting them.
    struct Counting(InMemory, std::cell::Cell<usize>);

    impl Reader for Counting {
        fn read(&self, path: &Path) -> Result<String, String> {
            self.1.set(self.1.get() + 1);
            self.0.read(path)
        }
        fn exists(&self, path: &Path) -> bool {
            self.0.exists(path)
        }
        fn identity(&self, path: &Path) -> PathBuf {
            self.0.identity(path)
        }
    }

    #[test]
    fn the_include_tree_is_bounded() {
        // Each file includes the next eight times, fourteen deep: 8^14 copies.
        let mut files: Vec<(String, String)> = (0..14)
            .map(|i| {
                (
                    format!("/f{i}.fio"),
                    format!("include f{}.fio\n", i + 1).repeat(8),
                )
            })
            .collect();
        files.push(("/f14.fio".into(), "bs=4k\n".into()));
        files.push(("/a.fio".into(), "[x]\ninclude f0.fio\n".into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let r = Counting(mem(&refs), Default::default());
        let e = read(&r, Path::new("/a.fio"), &[]).unwrap_err().to_string();
        assert!(
            e.contains(&format!("more than {MAX_INCLUDES} includes")),
            "{e}"
        );
        assert_eq!(r.1.get(), 16, "each file is read once");

        // A common file included by every section is read once.
        let sections: String = (0..100)
            .map(|i| format!("[j{i}]\ninclude common.fio\n"))
            .collect();
        let r = Counting(
            mem(&[("/a.fio", &sections), ("/common.fio", "bs=4k\n")]),
            Default::default(),
        );
        let s = read(&r, Path::new("/a.fio"), &[]).unwrap();
        assert_eq!((s.sections.len(), r.1.get(), s.files.len()), (100, 2, 2));

        // fio's most jobs, and no more.
        let many = |n: usize| -> String { (0..n).map(|i| format!("[j{i}]\n")).collect() };
        assert!(read(
            &mem(&[("/a.fio", &many(MAX_JOBS))]),
            Path::new("/a.fio"),
            &[]
        )
        .is_ok());
        let e = read(
            &mem(&[("/a.fio", &many(MAX_JOBS + 1))]),
            Path::new("/a.fio"),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("/a.fio:4097: more than 4096 job sections"),
            "{e}"
        );

        // Option lines, each include counted.
        let big = "bs=4k\n".repeat(MAX_OPTIONS / 4 + 1);
        let four: String = "[x]\n".to_string() + &"include big.fio\n".repeat(4);
        let e = read(
            &mem(&[("/a.fio", &four), ("/big.fio", &big)]),
            Path::new("/a.fio"),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(&format!("more than {MAX_OPTIONS} option lines")),
            "{e}"
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
