//! The controller's terminal during a fleet run: one line per host. On a
//! terminal, the hosts in progress each hold a live line (phase, and the
//! remote battery's current step) that is redrawn in place, and a host that
//! is done prints its final line above them. Elsewhere (a log, CI), each
//! phase change and each battery step is one appended line, prefixed with
//! the host's name. All of it goes to stderr; `--quiet` silences it.

use super::host::Event;
use super::summary::{HostRecord, HostStatus, Phase};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// Where progress goes, and what is on screen.
pub struct Display {
    mode: Mode,
    names: Vec<String>,
    width: usize,
    /// Live lines of the hosts in progress (terminal mode).
    live: BTreeMap<usize, String>,
    /// Lines of the live area drawn last time.
    drawn: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quiet,
    Log,
    Terminal,
}

impl Display {
    /// For these host names: live on a terminal, appended lines elsewhere, nothing with `quiet`.
    pub fn new(names: Vec<String>, quiet: bool) -> Display {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else {
            Mode::Log
        };
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(4)
            .min(32);
        Display {
            mode,
            names,
            width,
            live: BTreeMap::new(),
            drawn: 0,
        }
    }

    fn name(&self, i: usize) -> String {
        let n: String = self.names[i].chars().take(self.width).collect();
        format!("{n:<w$}", w = self.width)
    }

    /// Shows an event.
    pub fn show(&mut self, event: &Event) {
        if self.mode == Mode::Quiet {
            return;
        }
        match event {
            Event::Phase(i, phase) => {
                let line = format!("{}  {}", self.name(*i), phase_words(*phase));
                self.update(*i, line);
            }
            Event::Progress(i, step) => {
                let line = format!("{}  run      {}", self.name(*i), squeeze(step));
                self.update(*i, line);
            }
            Event::Done(i, record) => {
                let line = format!("{}  {}", self.name(*i), final_words(record));
                self.live.remove(i);
                self.permanent(&line);
            }
        }
    }

    fn update(&mut self, i: usize, line: String) {
        match self.mode {
            Mode::Terminal => {
                self.live.insert(i, line);
                self.redraw(None);
            }
            Mode::Log => eprintln!("candor fleet: {line}"),
            Mode::Quiet => {}
        }
    }

    fn permanent(&mut self, line: &str) {
        match self.mode {
            Mode::Terminal => self.redraw(Some(line)),
            Mode::Log => eprintln!("candor fleet: {line}"),
            Mode::Quiet => {}
        }
    }

    /// Erases the live area, prints `above` (if any), draws the live lines again.
    fn redraw(&mut self, above: Option<&str>) {
        let mut err = std::io::stderr().lock();
        let mut out = String::new();
        for _ in 0..self.drawn {
            out.push_str("\x1b[1A\x1b[2K");
        }
        if let Some(line) = above {
            out.push_str(line);
            out.push('\n');
        }
        let cols = terminal_columns();
        for line in self.live.values() {
            let cut: String = line.chars().take(cols.saturating_sub(1)).collect();
            out.push_str(&cut);
            out.push('\n');
        }
        self.drawn = self.live.len();
        let _ = err.write_all(out.as_bytes());
        let _ = err.flush();
    }
}

fn phase_words(phase: Phase) -> &'static str {
    match phase {
        Phase::Connect => "connect  logging in",
        Phase::Clock => "clock    reading the host's clock",
        Phase::Upload => "upload   binary to the host's cache",
        Phase::Run => "run      starting candor run",
        Phase::Fetch => "fetch    copying the Run back",
        Phase::Cleanup => "cleanup  removing what the run left",
    }
}

/// A battery step line with its padding squeezed (`[ 3/16] pass 1/3  RND4K ...`).
fn squeeze(step: &str) -> String {
    step.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `ok       3:21  (connect 0.21 s, upload cached, run 3:10, fetch 0.05 s)`
/// or `failed   connect: connection refused: ...`.
pub fn final_words(r: &HostRecord) -> String {
    let total = r.phases.iter().map(|p| p.duration_ns).sum::<u64>();
    let secs = |ns: u64| {
        if ns < 60_000_000_000 {
            crate::units::fmt_ns(ns as f64)
        } else {
            crate::units::fmt_duration(Duration::from_nanos(ns))
        }
    };
    match r.status {
        HostStatus::Ok => {
            let mut parts = Vec::new();
            if let Some(ns) = r.phase_ns(Phase::Connect) {
                parts.push(format!("connect {}", secs(ns)));
            }
            if let (Some(ns), Some(u)) = (r.phase_ns(Phase::Upload), &r.upload) {
                parts.push(format!("{} {}", u.how, secs(ns)));
            }
            if let Some(ns) = r.phase_ns(Phase::Run) {
                parts.push(format!("run {}", secs(ns)));
            }
            if let Some(ns) = r.phase_ns(Phase::Fetch) {
                parts.push(format!("fetch {}", secs(ns)));
            }
            format!("ok       {}  ({})", secs(total), parts.join(", "))
        }
        status => format!(
            "{:<8} {}",
            status.as_str(),
            r.cause.as_deref().unwrap_or("no cause recorded")
        ),
    }
}

/// The terminal's width (COLUMNS, else the tty's, else 100).
fn terminal_columns() -> usize {
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return c;
    }
    tty_columns().unwrap_or(100)
}

/// The terminal's width from the tty (TIOCGWINSZ on stderr).
#[cfg(unix)]
fn tty_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills a winsize; stderr is a terminal here.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    if unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0 && ws.ws_col > 0
    {
        Some(ws.ws_col as usize)
    } else {
        None
    }
}

/// Not read on Windows (the console's width is not ported): COLUMNS or 100.
#[cfg(windows)]
fn tty_columns() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::summary::PhaseTime;
    use crate::fleet::Target;

    #[test]
    fn final_lines_say_what_happened() {
        let mut r = HostRecord::new(&Target::named("web1"));
        r.status = HostStatus::Failed;
        r.cause = Some("connect: connection refused".into());
        assert_eq!(final_words(&r), "failed   connect: connection refused");
        r.status = HostStatus::Ok;
        r.phases = vec![
            PhaseTime {
                phase: Phase::Connect,
                started_at: String::new(),
                duration_ns: 210_000_000,
                failed: false,
            },
            PhaseTime {
                phase: Phase::Run,
                started_at: String::new(),
                duration_ns: 190_000_000_000,
                failed: false,
            },
        ];
        let line = final_words(&r);
        assert!(line.starts_with("ok "), "{line}");
        assert!(line.contains("(connect 210 ms, run 3m10s)"), "{line}");
        assert_eq!(
            squeeze("[ 3/16] pass 1/3  RND4K   x"),
            "[ 3/16] pass 1/3 RND4K x"
        );
    }
}
