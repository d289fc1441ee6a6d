//! Substitutions fio makes in an option line before reading it:
//! `${VAR}` becomes the environment variable's value (empty when unset,
//! as in fio), then the keywords `$pagesize`, `$mb_memory` and `$ncpus`
//! become this machine's figures, and a line where a keyword was replaced
//! and that holds `+ - * /` has its value computed (fio pipes it to `bc`;
//! candor computes the same whole-number arithmetic, `arith.rs`).

use super::arith;
use std::collections::HashMap;

/// What the substitutions read: the environment and the machine's figures.
#[derive(Debug, Clone)]
pub struct Env {
    vars: HashMap<String, String>,
    /// `$pagesize`: bytes per memory page.
    pub pagesize: u64,
    /// `$mb_memory`: total memory in MiB (fio: physical pages x page size).
    pub mb_memory: u64,
    /// `$ncpus`: CPUs configured (fio: sysconf(_SC_NPROCESSORS_CONF)).
    pub ncpus: u64,
}

impl Env {
    /// This process's environment and this machine's figures, as fio reads them.
    pub fn of_this_host() -> Env {
        let (pagesize, ncpus, physical) = crate::host::system::figures();
        // fio's $mb_memory is the RAM sysconf gives (pages x page size),
        // which is /proc/meminfo's MemTotal; read there first, because a
        // 32-bit build's sysconf comes from sysinfo()'s 32-bit fields,
        // which qemu-arm truncates on a host of more than 4 GiB (24 GiB
        // read as 3.5 GiB).
        let mb_memory = crate::host::memory::collect().total.unwrap_or(physical) / (1 << 20);
        Env {
            vars: std::env::vars().collect(),
            pagesize,
            mb_memory,
            ncpus,
        }
    }

    /// Fixed figures and variables (tests, the fuzzer).
    pub fn fixed(vars: &[(&str, &str)], pagesize: u64, mb_memory: u64, ncpus: u64) -> Env {
        Env {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            pagesize,
            mb_memory,
            ncpus,
        }
    }

    /// The same, with `name` set to `value` (as if in the environment).
    pub fn with_var(mut self, name: &str, value: &str) -> Env {
        self.vars.insert(name.to_string(), value.to_string());
        self
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

/// An option line after substitution, and whether anything was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub text: String,
    /// The line changed (a variable or keyword was replaced): the Run keeps
    /// both forms.
    pub substituted: bool,
}

/// Applies fio's substitutions to one option line (`key=value` or `key`).
pub fn expand(line: &str, env: &Env) -> Result<Expanded, String> {
    let (text, vars) = variables(line, env);
    let (text, keywords) = keywords(&text, env);
    let text = if keywords { compute(&text)? } else { text };
    Ok(Expanded {
        substituted: vars || keywords,
        text,
    })
}

/// `${NAME}` → the variable's value, or nothing when it is unset (as fio
/// does). A `${` without a closing `}` stays as it is.
fn variables(line: &str, env: &Env) -> (String, bool) {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut any = false;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        out.push_str(&rest[..start]);
        out.push_str(&env.var(&after[..end]).unwrap_or_default());
        rest = &after[end + 1..];
        any = true;
    }
    out.push_str(rest);
    (out, any)
}

/// Each `${NAME}` of `line` and what it stood for, for messages:
/// "SIZE is not set (fio reads nothing in its place)" or "SIZE='64q'".
pub fn variables_named(line: &str, env: &Env) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        out.push(match env.var(name) {
            Some(v) => format!("{name}='{v}'"),
            None => format!("{name} is not set (fio reads nothing in its place)"),
        });
        rest = &after[end + 1..];
    }
    out
}

/// fio's keywords, replaced anywhere in the line.
fn keywords(line: &str, env: &Env) -> (String, bool) {
    let mut text = line.to_string();
    let mut any = false;
    for (word, value) in [
        ("$pagesize", env.pagesize),
        ("$mb_memory", env.mb_memory),
        ("$ncpus", env.ncpus),
    ] {
        if text.contains(word) {
            text = text.replace(word, &value.to_string());
            any = true;
        }
    }
    (text, any)
}

/// fio computes the value (after the `=`) of a line in which a keyword was
/// replaced when the line holds an operator; lines of 128 characters or
/// more, or values over 100, fio leaves as they are.
fn compute(line: &str) -> Result<String, String> {
    if !line.contains(['+', '-', '*', '/']) || line.contains('\'') {
        return Ok(line.to_string());
    }
    let Some((key, value)) = line.split_once('=') else {
        return Ok(line.to_string());
    };
    if line.len() >= 128 || value.len() > 100 {
        return Ok(line.to_string());
    }
    let v = arith::eval(value).map_err(|why| {
        format!("'{line}': fio computes values with keywords in them with bc, and this one does not compute ({why})")
    })?;
    Ok(format!("{key}={v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env::fixed(&[("SIZE", "64m"), ("EMPTY", "")], 4096, 24105, 2)
    }

    #[test]
    fn variables_keywords_and_arithmetic() {
        let e = env();
        let x = |s: &str| expand(s, &e).map(|x| x.text);
        assert_eq!(x("size=${SIZE}").unwrap(), "size=64m");
        assert_eq!(x("size=${UNSET}").unwrap(), "size=");
        assert_eq!(x("filename=/a/${EMPTY}b").unwrap(), "filename=/a/b");
        assert_eq!(x("size=${SIZE").unwrap(), "size=${SIZE");
        assert_eq!(x("numjobs=$ncpus").unwrap(), "numjobs=2");
        assert_eq!(x("size=$mb_memory/4").unwrap(), "size=6026");
        assert_eq!(x("numjobs=$ncpus*2+1").unwrap(), "numjobs=5");
        assert_eq!(x("bs=$pagesize").unwrap(), "bs=4096");
        // No keyword: no arithmetic, whatever the operators.
        assert_eq!(x("rw=randread").unwrap(), "rw=randread");
        assert_eq!(x("filename=/tmp/a-b").unwrap(), "filename=/tmp/a-b");
        assert!(x("size=$mb_memory/2m").unwrap_err().contains("bc"));
        assert!(!expand("bs=4k", &e).unwrap().substituted);
        assert!(expand("bs=${SIZE}", &e).unwrap().substituted);
    }
}
