//! Sections of option lines into jobs with typed settings, as fio builds
//! them: every `[global]` section (any name starting with `global`) adds
//! to the defaults of the jobs after it; each other section is a job that
//! starts from the defaults in force where it stands. In each section fio
//! reads `kb_base` first (it sorts options by a priority, so `kb_base`
//! governs the sizes beside it) and file names last, the other lines in
//! order, then the engine's options; a later setting of the same option
//! wins. Engine options are known only with their engine, as in fio.

use super::expand::{self, Env};
use super::options::{self, Kind, OptionDef};
use super::source::{Pos, RawOption, Sections};
use super::value::{self, Dirs, KbBase};
use super::JobFileError;

/// A value as fio reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A flag given without a value (`time_based`): 1.
    Set,
    Bool(bool),
    Number(u64),
    Numbers(Dirs<u64>),
    /// Microseconds.
    Time(u64),
    /// Microseconds, low and high (equal when a single value was given).
    TimeRange(u64, u64),
    /// Bytes, low and high as written (equal when a single value was given).
    SizeRange(u64, u64),
    Range(Dirs<(u64, u64)>),
    Split(Dirs<Vec<(u64, u32)>>),
    Text(String),
    Floats(Vec<f64>),
}

impl Value {
    /// The value as a boolean, where it is one (flags and booleans).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Set => Some(true),
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

/// One option line, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub def: &'static OptionDef,
    /// The line as written (comments and blanks removed).
    pub written: String,
    /// The value after substitution (`None`: the bare option name).
    pub raw: Option<String>,
    pub value: Value,
    pub pos: Pos,
}

impl Setting {
    /// `name=value` (or `name`), with fio's own name for the option.
    pub fn canonical(&self) -> String {
        match &self.raw {
            Some(v) => format!("{}={v}", self.def.name),
            None => self.def.name.to_string(),
        }
    }
}

impl Setting {
    /// The option as the file spells it, for messages: `key=value` with
    /// the file's own name for it (fio's name after it when that differs),
    /// and the line as written when a substitution changed it.
    pub fn spelled(&self) -> String {
        let key = self
            .written
            .split_once('=')
            .map_or(self.written.as_str(), |(k, _)| k)
            .trim_end();
        let mut out = match &self.raw {
            Some(v) => format!("{key}={v}"),
            None => key.to_string(),
        };
        if key != self.def.name {
            out += &format!(" (fio's {})", self.def.name);
        }
        if self.written.contains('$') {
            out += &format!(" (written '{}')", self.written);
        }
        out
    }
}

/// A job: its section and every setting in force, the defaults from the
/// global sections before it first.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub section: String,
    pub pos: Pos,
    /// Global settings in force where the section begins, in order.
    pub inherited: Vec<Setting>,
    /// The section's own settings, in the order fio applies them.
    pub own: Vec<Setting>,
}

impl Job {
    /// The setting of `name` in force (the section's last, else the defaults' last).
    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.own
            .iter()
            .rev()
            .chain(self.inherited.iter().rev())
            .find(|s| s.def.name == name)
    }

    /// The job's name in fio (its reports, `wait_for`): the section's own
    /// `name=`, else the section. A `name=` in `[global]` names no job:
    /// fio sets each job's name from its section after the defaults.
    pub fn fio_name(&self) -> &str {
        self.own
            .iter()
            .rev()
            .find(|s| s.def.name == "name")
            .and_then(|s| s.raw.as_deref())
            .unwrap_or(&self.section)
    }

    /// Every setting in force, one per option (the one that wins), in order.
    pub fn effective(&self) -> Vec<&Setting> {
        let all: Vec<&Setting> = self.inherited.iter().chain(self.own.iter()).collect();
        all.iter()
            .enumerate()
            .filter(|(i, s)| !all[i + 1..].iter().any(|t| t.def.name == s.def.name))
            .map(|(_, s)| *s)
            .collect()
    }
}

/// Reads every section's lines into jobs.
pub fn jobs(sections: &Sections, env: &Env) -> Result<Vec<Job>, JobFileError> {
    let mut globals: Vec<Setting> = Vec::new();
    let mut jobs = Vec::new();
    for section in &sections.sections {
        let own = settings(&section.options, &globals, env)?;
        if section.is_global() {
            globals.extend(own);
        } else {
            jobs.push(Job {
                section: section.name.clone(),
                pos: section.pos.clone(),
                inherited: globals.clone(),
                own,
            });
        }
    }
    Ok(jobs)
}

/// The settings of one section, given the global ones in force.
fn settings(
    lines: &[RawOption],
    globals: &[Setting],
    env: &Env,
) -> Result<Vec<Setting>, JobFileError> {
    // Substitute and split every line first: kb_base must be known before
    // any size of the section is read.
    let mut split: Vec<(
        &RawOption,
        String,
        Option<String>,
        Option<&'static OptionDef>,
    )> = Vec::with_capacity(lines.len());
    for line in lines {
        let expanded =
            expand::expand(&line.text, env).map_err(|e| JobFileError::at(&line.pos, e))?;
        let (key, raw) = match expanded.text.split_once('=') {
            Some((k, v)) => (k.trim_end().to_string(), Some(v.to_string())),
            None => (expanded.text.trim_end().to_string(), None),
        };
        let def = options::find(&key);
        split.push((line, key, raw, def));
    }
    // The section's engine (its own last ioengine=, else the defaults'):
    // an option no engine candor runs knows, in a job of an engine candor
    // does not run, is that engine's business; the engine is the cause.
    let engine_at = split
        .iter()
        .rev()
        .find(|(_, _, _, d)| d.is_some_and(|d| d.name == "ioengine"))
        .map(|(line, _, raw, _)| (raw.clone().unwrap_or_default(), line.pos.clone()))
        .or_else(|| {
            globals
                .iter()
                .rev()
                .find(|s| s.def.name == "ioengine")
                .map(|s| (s.raw.clone().unwrap_or_default(), s.pos.clone()))
        });
    let foreign = engine_at.filter(|(name, _)| !options::RUN_ENGINES.contains(&name.as_str()));
    let engine_first = |written: &str, pos: &Pos| {
        foreign.as_ref().map(|(name, at)| {
            JobFileError::at(
                at,
                format!(
                    "ioengine={name}: {} (the line '{written}' at {pos} is not one of fio's own options nor one of theirs)",
                    options::ENGINES
                ),
            )
        })
    };
    let mut kb = globals
        .iter()
        .rev()
        .find(|s| s.def.name == "kb_base")
        .and_then(|s| match &s.value {
            Value::Text(t) => KbBase::parse(t).ok(),
            _ => None,
        })
        .unwrap_or(KbBase::Binary);
    // fio's order: its own options by priority (stable), then the
    // engine's options, which it reads in a second pass.
    split.sort_by_key(|(_, _, _, def)| match def {
        Some(d) if d.engines.is_empty() => (0, -options::priority(d)),
        Some(_) => (1, 0),
        None => (0, 0),
    });
    let mut out = Vec::with_capacity(split.len());
    let mut engine_options = Vec::new();
    for (line, key, raw, def) in &split {
        let Some(def) = def else {
            return Err(engine_first(&line.text, &line.pos)
                .unwrap_or_else(|| JobFileError::at(&line.pos, unknown(key))));
        };
        if !def.engines.is_empty() {
            // Checked once the section's engine is known.
            engine_options.push((out.len(), key.clone()));
        }
        let value = read_value(def, raw.as_deref(), kb).map_err(|e| {
            let vars = expand::variables_named(&line.text, env);
            let from = if vars.is_empty() {
                String::new()
            } else {
                format!(" (from '{}': {})", line.text, vars.join(", "))
            };
            JobFileError::at(&line.pos, format!("{}{from}: {e}", shown(key, raw)))
        })?;
        if def.name == "kb_base" {
            if let Value::Text(t) = &value {
                kb = KbBase::parse(t).map_err(|e| JobFileError::at(&line.pos, e.0))?;
            }
        }
        out.push(Setting {
            def,
            written: line.text.clone(),
            raw: raw.clone(),
            value,
            pos: line.pos.clone(),
        });
    }
    let engine = out
        .iter()
        .rev()
        .chain(globals.iter().rev())
        .find(|s| s.def.name == "ioengine")
        .and_then(|s| s.raw.clone())
        .unwrap_or_else(|| "psync".to_string());
    for (i, key) in engine_options {
        let s = &out[i];
        if !s.def.engines.contains(&engine.as_str()) {
            if let Some(e) = engine_first(&s.written, &s.pos) {
                return Err(e);
            }
            return Err(JobFileError::at(
                &s.pos,
                format!(
                    "option '{key}' belongs to the {} engine(s), and this job's ioengine is {engine} (fio does not know it there either)",
                    s.def.engines.join(", ")
                ),
            ));
        }
    }
    Ok(out)
}

fn shown(key: &str, raw: &Option<String>) -> String {
    match raw {
        Some(v) => format!("{key}={v}"),
        None => key.to_string(),
    }
}

/// "unknown option 'blocksz' (did you mean blocksize?)", like fio's suggestion.
fn unknown(key: &str) -> String {
    let best = options::all()
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.alias))
        .map(|name| (distance(key, name), name))
        .min();
    match best {
        Some((d, name)) if d <= key.len().div_ceil(2) => {
            format!("unknown option '{key}' (did you mean {name}?)")
        }
        _ => format!("unknown option '{key}'"),
    }
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// fio reads the first of several values of a single-valued option and
/// ignores the rest; candor asks for one.
fn several(text: &str) -> Result<(), String> {
    if text.contains([',', ':']) || text.get(1..).is_some_and(|r| r.contains('-')) {
        return Err(format!(
            "'{text}' holds several values; fio reads only the first, so give one"
        ));
    }
    Ok(())
}

/// Reads a value by its option's kind.
pub fn read_value(def: &OptionDef, raw: Option<&str>, kb: KbBase) -> Result<Value, String> {
    fn need(raw: Option<&str>) -> Result<&str, String> {
        match raw {
            None => Err("needs a value".to_string()),
            Some("") => Err("has an empty value".to_string()),
            Some(v) => Ok(v),
        }
    }
    let v = |r: Result<Value, value::ValueError>| r.map_err(|e| e.0);
    if matches!(
        def.kind,
        Kind::Number | Kind::Numbers | Kind::Time(_) | Kind::TimeRange | Kind::SizeRange
    ) {
        zones(def, raw.unwrap_or_default())?;
    }
    match def.kind {
        Kind::Deprecated => Err(format!(
            "fio removed the option '{}' and refuses a job that sets it",
            def.name
        )),
        Kind::SoftDeprecated => Ok(Value::Text(raw.unwrap_or_default().to_string())),
        Kind::Flag => match raw {
            None => Ok(Value::Set),
            Some(_) => v(value::boolean(need(raw)?).map(Value::Bool)),
        },
        Kind::Bool => v(value::boolean(need(raw)?).map(Value::Bool)),
        Kind::Text | Kind::Choice if raw.is_none() && options::BARE_LOGS.contains(&def.name) => {
            Ok(Value::Text(String::new()))
        }
        Kind::Text | Kind::Choice => {
            let text = need(raw)?;
            if text.starts_with(char::is_whitespace) {
                return Err(format!(
                    "'{text}' starts with a space, which fio keeps as part of the word (' read' is no pattern to fio); remove it"
                ));
            }
            Ok(Value::Text(text.to_string()))
        }
        Kind::Number => {
            let text = need(raw)?;
            several(text)?;
            v(value::number(text, kb).map(Value::Number))
        }
        Kind::Numbers => v(value::numbers(need(raw)?, kb).map(Value::Numbers)),
        Kind::Time(unit) => {
            let text = need(raw)?;
            several(text)?;
            v(value::time_us(text, unit).map(Value::Time))
        }
        Kind::TimeRange => {
            let text = need(raw)?;
            let pieces: Vec<&str> = match text.get(1..).and_then(|r| r.find(['-', ':'])) {
                Some(i) => vec![&text[..i + 1], &text[i + 2..]],
                None => vec![text],
            };
            let lo = value::time_us(pieces[0], options::SECONDS).map_err(|e| e.0)?;
            let hi = match pieces.get(1) {
                Some(p) => value::time_us(p, options::SECONDS).map_err(|e| e.0)?,
                None => lo,
            };
            Ok(Value::TimeRange(lo.min(hi), lo.max(hi)))
        }
        Kind::SizeRange => {
            let text = need(raw)?;
            // fio cuts at the first ',', else ':', else '-' (parse.c, handle_option).
            let cut = text
                .find(',')
                .or_else(|| text.find(':'))
                .or_else(|| text.get(1..).and_then(|r| r.find('-')).map(|i| i + 1));
            let (lo, hi) = match cut {
                Some(i) => (&text[..i], Some(&text[i + 1..])),
                None => (text, None),
            };
            let lo = value::number(lo, kb).map_err(|e| e.0)?;
            let hi = match hi.filter(|h| !h.is_empty()) {
                Some(h) => value::number(h, kb).map_err(|e| e.0)?,
                None => lo,
            };
            Ok(Value::SizeRange(lo, hi))
        }
        Kind::Range => v(value::ranges(need(raw)?, kb).map(Value::Range)),
        Kind::Split => v(value::splits(need(raw)?, kb).map(Value::Split)),
        Kind::Floats => need(raw)?
            .split(':')
            .map(|f| {
                f.parse::<f64>()
                    .map_err(|_| format!("'{f}' is not a decimal number"))
            })
            .collect::<Result<Vec<f64>, String>>()
            .map(Value::Floats),
    }
}

/// fio reads a number that ends in `z` as a count of zones (parse.c,
/// `FIO_OPT_STR_VAL_ZONE`), for `zonemode=zbd` on zoned block devices, on
/// a few options, and refuses the suffix on every other number.
fn zones(def: &OptionDef, text: &str) -> Result<(), String> {
    if !text.ends_with('z') {
        return Ok(());
    }
    if options::ZONE_OPTIONS.contains(&def.name) {
        Err(format!("'{text}' counts zones of a zoned block device (fio's 'z' suffix, for zonemode=zbd); candor does not run zoned mode"))
    } else {
        Err(format!(
            "'{text}': fio takes the 'z' (zones) suffix only on {}, and refuses it here ('z' suffix isn't applicable)",
            options::ZONE_OPTIONS.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::source::{read, InMemory};
    use super::*;
    use std::path::{Path, PathBuf};

    pub(crate) fn parse(text: &str) -> Result<Vec<Job>, JobFileError> {
        let r = InMemory([(PathBuf::from("/t.fio"), text.to_string())].into());
        let s = read(&r, Path::new("/t.fio"), &[])?;
        jobs(&s, &Env::fixed(&[("BS", "8k")], 4096, 24105, 2))
    }

    #[test]
    fn globals_apply_to_the_jobs_after_them() {
        let j = parse(
            "[global]\nbs=4k\nsize=${BS}\n[a]\nrw=randread\n[global2]\nbs=16k\n[b]\nbs=64k,128k\nkb_base=1000\nsize=1m\n[c]\n",
        )
        .unwrap();
        assert_eq!(j.len(), 3);
        assert_eq!(
            j[0].get("bs").unwrap().value,
            Value::Numbers([Some(4096); 3])
        );
        assert_eq!(j[0].get("size").unwrap().value, Value::Number(8192));
        assert_eq!(j[0].get("rw").unwrap().raw.as_deref(), Some("randread"));
        // kb_base is read first, whatever its place in the section.
        assert_eq!(
            j[1].get("bs").unwrap().value,
            Value::Numbers([Some(64000), Some(128000), Some(128000)])
        );
        assert_eq!(j[1].get("size").unwrap().value, Value::Number(1_000_000));
        assert_eq!(
            j[2].get("bs").unwrap().value,
            Value::Numbers([Some(16384); 3])
        );
        assert!(j[2].get("rw").is_none());
        let names: Vec<String> = j[2].effective().iter().map(|s| s.canonical()).collect();
        assert_eq!(names, ["size=8k", "bs=16k"]);
    }

    #[test]
    fn values_by_kind() {
        let j = parse("[a]\ntime_based\ndirect=1\nruntime=2m\nstartdelay=1-3\nfilesize=1m:4m\nbsrange=4k-16k\nbssplit=4k/60:8k\nss=iops:2%\nnumjobs=$ncpus*2\n").unwrap();
        let g = |n: &str| j[0].get(n).unwrap().value.clone();
        assert_eq!(g("time_based"), Value::Set);
        assert_eq!(g("direct"), Value::Bool(true));
        assert_eq!(g("runtime"), Value::Time(120_000_000));
        assert_eq!(g("startdelay"), Value::TimeRange(1_000_000, 3_000_000));
        assert_eq!(g("filesize"), Value::SizeRange(1 << 20, 4 << 20));
        assert_eq!(g("bsrange"), Value::Range([Some((4096, 16384)); 3]));
        assert_eq!(
            g("bssplit"),
            Value::Split([
                Some(vec![(4096, 60), (8192, 40)]),
                Some(vec![(4096, 60), (8192, 40)]),
                Some(vec![(4096, 60), (8192, 40)])
            ])
        );
        assert_eq!(g("steadystate"), Value::Text("iops:2%".into()));
        assert_eq!(g("numjobs"), Value::Number(4));
    }

    #[test]
    fn errors_name_the_line_and_the_option() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(
            e("[a]\nblocksz=4k\n"),
            "/t.fio:2: unknown option 'blocksz' (did you mean blocksize?)"
        );
        assert_eq!(e("[a]\nzqxw=1\n"), "/t.fio:2: unknown option 'zqxw'");
        assert_eq!(e("[a]\nsize=1.5g\n").split(": size=1.5g: ").count(), 2);
        assert!(e("[a]\ndirect\n").contains("direct: needs a value"));
        assert!(e("[a]\niodepth=4:8\n").contains("several values"));
        assert!(e("[a]\nrwmixcycle=5\n").contains("removed"));
        assert!(e("[a]\nbs= 4k\n").contains("space"));
        assert!(e("[a]\nrw = read\n").contains("space"));
        assert!(parse("[a]\niodepth = 8\n").is_ok());
        assert!(
            e("[a]\nfixedbufs\n").contains("io_uring"),
            "{}",
            e("[a]\nfixedbufs\n")
        );
        assert!(parse("[a]\nioengine=io_uring\nfixedbufs\n").is_ok());
        assert!(parse("[global]\nioengine=io_uring\n[a]\nfixedbufs\n").is_ok());
    }

    #[test]
    fn messages_name_the_true_cause() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        // An engine candor does not run is named at its own line, not its options.
        let rbd = e("[global]\nioengine=rbd\npool=x\n[a]\nsize=1m\n");
        assert!(
            rbd.starts_with("/t.fio:2: ioengine=rbd: candor runs io_uring, libaio, windowsaio (on Windows), psync"),
            "{rbd}"
        );
        assert!(rbd.contains("'pool=x' at /t.fio:3"), "{rbd}");
        let net = e("[a]\nioengine=net\nhipri\n");
        assert!(net.starts_with("/t.fio:2: ioengine=net: "), "{net}");
        // A known engine keeps the usual messages.
        assert!(e("[a]\nioengine=libaio\nblocksz=4k\n").contains("did you mean"));
        // The 'z' suffix: zones where fio takes it, refused as fio does elsewhere.
        assert!(e("[a]\nsize=4z\n").contains("zoned mode"));
        assert!(e("[a]\nbs=4z\n").contains("'z' suffix isn't applicable"));
        assert!(parse("[a]\nfilename=fooz\n").is_ok());
        // A bad value from a variable names the variable.
        let var = e("[a]\nsize=${NOPE}\n");
        assert!(var.contains("NOPE is not set"), "{var}");
        // fio takes the log options bare, and tiobench's `threads` anywhere.
        assert!(parse("[a]\nwrite_bw_log\nwrite_lat_log\nthreads=1\n").is_ok());
        let var = e("[a]\nsize=${BS}x\n");
        assert!(var.contains("BS='8k'"), "{var}");
    }
}
