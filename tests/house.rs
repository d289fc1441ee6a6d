//! The house stays honest: no import circle between the top-level rooms of
//! src/ (a room is a folder `src/<dir>/` with its `src/<dir>.rs`, or a
//! top-level `src/<file>.rs`; `lib.rs` and `main.rs` are the doors, not
//! rooms). A circle means two rooms cannot be read, tested or changed one
//! without the other; the data flows one way (ARCHITECTURE.md), so must
//! the imports. Pure Rust over the source text: well under a second.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The room a file of src/ belongs to (None for the doors).
fn room_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("under src/");
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code of a file without its comments (a `//` inside a string cuts
/// the line short: that only drops words, never adds an import).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rooms named after each `crate::` in `code`.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let name: String = code[at + "crate::".len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// Room -> the rooms it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rooms: BTreeSet<String> = files.iter().filter_map(|f| room_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> =
        rooms.iter().map(|r| (r.clone(), BTreeSet::new())).collect();
    for file in &files {
        let Some(room) = room_of(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for to in imports(&code_of(&text)) {
            if to != room && rooms.contains(&to) {
                graph.get_mut(&room).expect("a room").insert(to);
            }
        }
    }
    graph
}

/// The groups of rooms that reach each other (Tarjan's strongly connected
/// components), those of more than one room: the circles.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in &self.graph[v] {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                loop {
                    let w = self.stack.pop().expect("v is on the stack");
                    self.on_stack.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

/// The graph, one room a line, for the test's output and for ARCHITECTURE.md.
fn drawn(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    graph
        .iter()
        .map(|(room, to)| {
            let to: Vec<&str> = to.iter().map(String::as_str).collect();
            format!("{room:>10} -> {}\n", to.join(", "))
        })
        .collect()
}

#[test]
fn no_import_circle_between_the_rooms_of_src() {
    let graph = graph();
    println!("{}", drawn(&graph));
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles between rooms of src/ (each group reaches itself): {found:?}\n{}",
        drawn(&graph)
    );
}

/// The checker itself finds a circle, and only a real one.
#[test]
fn the_checker_finds_circles_and_only_circles() {
    let g = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            graph
                .entry(a.to_string())
                .or_default()
                .insert(b.to_string());
            graph.entry(b.to_string()).or_default();
        }
        graph
    };
    assert!(circles(&g(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(
        circles(&g(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    let code = code_of("use crate::disk::JobSpec; // crate::report\nlet x = crate::fio::f();\n");
    assert_eq!(
        imports(&code).into_iter().collect::<Vec<_>>(),
        vec!["disk".to_string(), "fio".into()]
    );
}

/// Names of types that several files define on purpose, each meaning the
/// same kind of thing: `Args` and `ReportArgs` are a subcommand's clap
/// flags in its own `commands/` file; `Work` is one closure type, written
/// out where it is used.
const SHARED_TYPE_NAMES: [&str; 3] = ["Args", "ReportArgs", "Work"];

/// The type names (struct, enum, trait, type alias) defined in `code`.
fn type_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in code.lines() {
        let mut words = line.split_whitespace().skip_while(|w| w.starts_with("pub"));
        if let (Some("struct" | "enum" | "trait" | "type"), Some(name)) =
            (words.next(), words.next())
        {
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                names.push(name);
            }
        }
    }
    names
}

/// A file that stands in for a Linux one on Windows (`windows/`,
/// `*_windows.rs`, `windows.rs`: compiled instead of it, issue 38): its
/// types are the Linux file's, the same thing for another OS.
fn is_windows_alternative(path: &str) -> bool {
    path.split('/')
        .any(|part| part == "windows" || part == "windows.rs" || part.ends_with("_windows.rs"))
}

/// A name means one thing (issue 22): two types of one name in src/ are
/// two things a reader must tell apart by their module; the second gets a
/// name of its own. A Windows file's type of the same name as the file it
/// stands in for is that one thing (`is_windows_alternative`).
#[test]
fn no_two_types_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wherever: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &files {
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for name in type_names(&code) {
            wherever
                .entry(name)
                .or_default()
                .push(f.strip_prefix(&src).unwrap().display().to_string());
        }
    }
    for at in wherever.values_mut() {
        if at.iter().any(|f| !is_windows_alternative(f)) {
            at.retain(|f| !is_windows_alternative(f));
        }
    }
    let doubled: Vec<String> = wherever
        .iter()
        .filter(|(name, at)| at.len() > 1 && !SHARED_TYPE_NAMES.contains(&name.as_str()))
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        doubled.is_empty(),
        "types sharing a name:\n{}",
        doubled.join("\n")
    );
    // The checker sees what it must.
    assert_eq!(
        type_names("pub(crate) struct A<'a> {\nenum B {\n    type C = u8;\nlet struct_x = 1;"),
        ["A", "B", "C"]
    );
}

/// With `autotests = false` (Cargo.toml), a file added to tests/ is built
/// only when a test crate names it: every file of tests/ is a module of
/// exactly one of the two crates (tests/integration.rs, tests/quiet.rs),
/// so that no test is left out unseen.
#[test]
fn every_test_file_is_a_module_of_one_test_crate() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let roots = ["integration", "quiet"];
    let declared: Vec<(String, &str)> = roots
        .iter()
        .flat_map(|root| {
            let text = std::fs::read_to_string(tests.join(format!("{root}.rs"))).unwrap();
            text.lines()
                .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
                .map(|m| (m.to_string(), *root))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(&tests)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".rs").map(str::to_string)
        })
        .filter(|stem| !roots.contains(&stem.as_str()))
        .collect();
    files.sort();
    for stem in &files {
        let homes: Vec<&str> = declared
            .iter()
            .filter(|(m, _)| m == stem)
            .map(|(_, root)| *root)
            .collect();
        assert_eq!(
            homes.len(),
            1,
            "tests/{stem}.rs is a module of {homes:?}: add `mod {stem};` to one of tests/integration.rs or tests/quiet.rs"
        );
    }
    for (m, root) in &declared {
        assert!(
            m == "common" || files.contains(m),
            "tests/{root}.rs declares `mod {m};` without a tests/{m}.rs"
        );
    }
}

/// commands/ only parses flags and makes one call (ARCHITECTURE.md, issue
/// 37): a file of it that grows past 100 lines (its unit tests aside) has
/// work in it that belongs in the room that owns it.
#[test]
fn command_files_only_parse() {
    let commands = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    let mut files = Vec::new();
    rust_files(&commands, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let lines = text
                .lines()
                .take_while(|l| !l.starts_with("#[cfg(test)]"))
                .count();
            (lines > 100).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "command files over 100 lines (move the work to its room):\n{}",
        long.join("\n")
    );
}
