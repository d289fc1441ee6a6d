//! A real headless Chromium (Debian's `chromium` package) opening a page:
//! the HTML reports are checked in the DOM a browser builds, not in the
//! text candor wrote.

use std::path::Path;
use std::process::ExitStatus;

/// Debian's Chromium, or None when it is not installed. In CI (`CI` set)
/// a missing browser fails the test instead of skipping it.
pub fn find() -> Option<&'static Path> {
    let chromium = Path::new("/usr/bin/chromium");
    if chromium.exists() {
        return Some(chromium);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: /usr/bin/chromium is required (apt-get install chromium)"
    );
    eprintln!(
        "SKIPPED: /usr/bin/chromium is absent (install Debian's chromium package to run this test)"
    );
    None
}

/// Opens `page` headless with `extra` flags (`--dump-dom`, `--screenshot=...`)
/// in a fresh profile, at most 90 s: (status, stdout, stderr log).
pub fn open(chromium: &Path, page: &Path, extra: &[String]) -> (ExitStatus, String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new("timeout");
    cmd.arg("90").arg(chromium).args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.path().display()));
    cmd.args(extra).arg(format!("file://{}", page.display()));
    let o = cmd.output().expect("run chromium");
    (
        o.status,
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// What the browser's log says went wrong (uncaught exceptions, failed loads).
pub fn log_errors(log: &str) -> Vec<&'static str> {
    [
        "Uncaught",
        ":CONSOLE(",
        "ERR_FILE_NOT_FOUND",
        "Failed to load",
    ]
    .into_iter()
    .filter(|bad| log.contains(bad))
    .collect()
}

/// The `data-points` of every chart in a DOM (how many values each draws).
pub fn data_points(dom: &str) -> Vec<u64> {
    dom.match_indices("data-points=\"")
        .map(|(i, m)| {
            let rest = &dom[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}
