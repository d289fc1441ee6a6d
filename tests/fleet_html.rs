//! The fleet comparison's HTML (`candor fleet report DIR --format html`)
//! in a real headless Chromium at 1280 px and at a phone's 390 px: 3 hosts
//! side by side as columns, 12 hosts turned (a host per row, the metrics
//! in blocks), without any sideways scrolling at 1280 px and, at 390 px,
//! only tables scrolling in their own boxes, never the page, and no header
//! broken inside a word (measured by a script added to the test's copy of
//! the page: the page itself has none); findings as sentences with their
//! evidence in a details element; a chart per key
//! metric with a bar per host, the fleet table with a failed host's row
//! saying why, and the figures of hosts that ran at the same time marked.
//! Every host's Run carries a block stack (the fixture's loop device over
//! vda, on each disk measurement), so that the Block stack table, a host
//! column and several rows per measurement, is measured too; and a Run's
//! report and `candor compare` of fixture Runs with a block stack are
//! measured the same way.
//! The screenshots are kept in the test's target directory.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fleet directory of `n` hosts with Runs (synthetic batteries, each its
/// own figures) and one dead host; hosts 2 and 3 ran at the same time.
fn fleet_dir(dir: &Path, n: usize) -> Vec<String> {
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let mut names = Vec::new();
    let mut hosts = Vec::new();
    for i in 0..n {
        // Names of the lengths inventories have, one with HTML in it.
        let name = match i {
            0 => "web-<b>1</b>&co".to_string(),
            5 => "db-primary.eu-central.example.com".to_string(),
            _ => format!("host{:02}", i + 1),
        };
        let stem = format!("h{i}");
        let mut run = common::battery(&name, 0.5 + i as f64 * 0.17);
        let stack = fixture_stack();
        for m in &mut run.measurements {
            if let candor::result::Measurement::Disk(d) = m {
                d.block_stack = stack.clone();
            }
        }
        std::fs::write(
            dir.join(format!("runs/{stem}.json")),
            serde_json::to_string(&run).unwrap(),
        )
        .unwrap();
        let overlapped: Vec<String> = match i {
            1 => vec![format!("host{:02}", 3)],
            2 => vec![format!("host{:02}", 2)],
            _ => Vec::new(),
        };
        hosts.push(serde_json::json!({
            "name": name, "destination": format!("root@10.0.0.{i}:22"), "status": "ok",
            "run_file": format!("runs/{stem}.json"), "run_status": "complete", "arch": "x86_64",
            "phases": [
                {"phase": "connect", "started_at": "2026-12-05T07:00:00.000Z", "duration_ns": 310_000_000u64},
                {"phase": "upload", "started_at": "2026-12-05T07:00:00.400Z", "duration_ns": 1_200_000_000u64},
                {"phase": "run", "started_at": "2026-12-05T07:00:02.000Z", "duration_ns": 125_000_000_000u64},
                {"phase": "fetch", "started_at": "2026-12-05T07:02:07.000Z", "duration_ns": 90_000_000u64},
                {"phase": "cleanup", "started_at": "2026-12-05T07:02:07.100Z", "duration_ns": 60_000_000u64}
            ],
            "upload": {"how": "uploaded", "path": "/root/.cache/candor/bin/candor-x", "verified_by": "sha256", "bytes_sent": 11_342_144u64},
            "clock": {"offset_ns": 1_500_000i64 * i as i64, "uncertainty_ns": 400_000u64, "samples": 5},
            "overlapped_with": overlapped,
        }));
        names.push(name);
    }
    hosts.insert(
        1,
        serde_json::json!({
            "name": "dead", "destination": "root@10.0.0.99:22", "status": "failed",
            "failed_phase": "connect",
            "cause": "connection refused: nothing listens for ssh at root@10.0.0.99:22",
            "phases": [{"phase": "connect", "started_at": "2026-12-05T07:00:00.000Z", "duration_ns": 2_000_000u64, "failed": true}],
        }),
    );
    let fleet = serde_json::json!({
        "schema": "candor.fleet/1",
        "controller": {"hostname": "ctl", "version": "0.1.0"},
        "command": ["candor", "fleet", "run", "-i", "hosts.ini", "--parallel", "2"],
        "run_flags": ["--preset", "quick"], "parallel": 2,
        "started_at": "2026-12-05T07:00:00.000Z", "finished_at": "2026-12-05T07:30:00.000Z",
        "hosts": hosts,
    });
    std::fs::write(
        dir.join("fleet.json"),
        serde_json::to_string_pretty(&fleet).unwrap(),
    )
    .unwrap();
    names
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/runs/{name}.json"))
}

/// The block stack of the fixture Run made on ext4 over a loop device.
fn fixture_stack() -> Vec<candor::result::LayerIo> {
    let run = candor::result::read_run(&fixture("disk-loop-stack")).unwrap();
    let d = run.disk().next().expect("a disk measurement");
    assert!(d.block_stack.len() >= 2, "{:?}", d.block_stack);
    d.block_stack.clone()
}

/// Added to the test's copy of the page, after everything else: records
/// on `<body>` whether the page itself is wider than the window
/// (`data-page`), every element whose content is wider than its box where
/// it could scroll and every table cell whose text spills out
/// (`data-overflow`), and every word of a table header that the browser
/// broke across lines (`data-broken`): "none" when there is none.
const MEASURE: &str = r#"<script>
(function () {
  var de = document.documentElement;
  var page = de.scrollWidth > de.clientWidth ? "page " + de.scrollWidth + " wider than " + de.clientWidth : "none";
  var bad = [];
  var all = document.querySelectorAll("body *");
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    var ox = getComputedStyle(el).overflowX;
    // A box that scrolls, or a table cell whose text spills over its neighbours.
    var cell = el.tagName === "TD" || el.tagName === "TH";
    if ((ox !== "visible" || cell) && el.scrollWidth > el.clientWidth + 1) {
      bad.push(el.tagName + "." + el.className + " " + el.scrollWidth + " wider than " + el.clientWidth);
    }
  }
  var broken = [];
  var heads = document.querySelectorAll("th");
  for (var h = 0; h < heads.length; h++) {
    var walk = document.createTreeWalker(heads[h], NodeFilter.SHOW_TEXT);
    var node;
    while ((node = walk.nextNode())) {
      var words = /\S+/g, m;
      while ((m = words.exec(node.data))) {
        var range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        var rects = range.getClientRects(), tops = {};
        for (var k = 0; k < rects.length; k++) tops[Math.round(rects[k].top)] = true;
        if (Object.keys(tops).length > 1) broken.push(m[0]);
      }
    }
  }
  document.body.setAttribute("data-page", page);
  document.body.setAttribute("data-overflow", bad.length ? bad.join(" | ") : "none");
  document.body.setAttribute("data-broken", broken.length ? broken.join(" | ") : "none");
  document.body.setAttribute("data-width", String(de.clientWidth));
})();
</script>"#;

fn attribute(dom: &str, name: &str) -> String {
    let key = format!("{name}=\"");
    let i = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in the DOM"));
    let rest = &dom[i + key.len()..];
    rest[..rest.find('"').unwrap()].to_string()
}

fn report(dir: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["fleet", "report"])
        .arg(dir)
        .args(["--format", "html", "--force", "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
}

fn check(chromium: &Path, n: usize) -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fleet-html-{n}"));
    let _ = std::fs::remove_dir_all(&base);
    let dir = base.join("fleet");
    let names = fleet_dir(&dir, n);
    let page = base.join("fleet.html");
    report(&dir, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    // The page as candor wrote it: no script, every name escaped.
    assert!(!html.contains("<script"), "no script in candor's page");
    assert!(html.contains("web-&lt;b&gt;1&lt;/b&gt;&amp;co"));
    // The layout: hosts as columns up to 10, as rows beyond.
    if n <= 10 {
        assert!(
            html.contains("<table class=\"sbs compare\">"),
            "{n} hosts side by side"
        );
        assert!(!html.contains("class=\"byhost"));
    } else {
        assert!(
            html.contains("<table class=\"byhost compare\">"),
            "{n} hosts as rows"
        );
        assert!(!html.contains("class=\"sbs"));
    }
    // The failed host: a row of the fleet table that says why, and named
    // under the comparison.
    assert!(html.contains("<tr class=\"failed\"><td>dead</td><td>failed</td>"));
    assert!(html.contains("connection refused: nothing listens for ssh at root@10.0.0.99:22"));
    assert!(html.contains("Not compared (no complete Run): <b>dead</b>"));
    // Hosts 2 and 3 ran at the same time: marked, with the legend.
    assert!(html.contains("host02<span class=\"ovl\">‡</span>"));
    assert!(html.contains("‡ measured while other hosts ran (--parallel)"));
    assert!(
        html.contains("<h2>Block stack</h2>"),
        "the block stack table"
    );
    let dom = fits_1280_px(chromium, &base, &html, &format!("{n} hosts"));
    readable_at_390_px(chromium, &base, &html, &format!("{n} hosts"));
    // Findings as sentences, their evidence in a details element as names
    // and values, never a raw structure.
    assert!(html.contains("<details><summary>evidence</summary><dl class=\"evidence\">"));
    assert!(!html.contains("(evidence: "), "raw evidence on the page");
    // A chart per key metric, a bar per host of the comparison.
    let points = common::chromium::data_points(&dom);
    assert!(points.len() >= 8, "charts: {points:?}");
    assert!(
        points.iter().all(|&p| p == names.len() as u64),
        "{points:?}"
    );
    let shot = base.join(format!("fleet-{n}.png"));
    let (status, _, log) = common::chromium::open(
        chromium,
        &page,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,3000".to_string(),
        ],
    );
    assert!(status.success(), "chromium --screenshot: {status}\n{log}");
    assert!(std::fs::metadata(&shot).unwrap().len() > 20_000);
    println!(
        "fleet HTML of {n} hosts: {} (screenshot {})",
        page.display(),
        shot.display()
    );
    shot
}

/// How a page laid out in Chromium at one width: `MEASURE`'s findings.
struct Layout {
    page: String,
    overflow: String,
    broken: String,
    dom: String,
}

/// The narrowest window headless Chromium lays a page out in.
const NARROWEST_WINDOW: u32 = 500;

/// `html` (a copy with `MEASURE` added, in `dir`) laid out by Chromium in
/// a viewport `width` px wide: a window that wide, or, below
/// `NARROWEST_WINDOW`, a frame that wide in a page that copies `MEASURE`'s
/// findings out of it (a frame's document is laid out at the frame's
/// width, as a phone's at its screen's).
fn lay_out(chromium: &Path, dir: &Path, html: &str, width: u32) -> Layout {
    std::fs::create_dir_all(dir).unwrap();
    let measured = dir.join(format!("measured-{width}.html"));
    std::fs::write(
        &measured,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();
    let mut flags = vec!["--dump-dom".to_string()];
    let open = if width >= NARROWEST_WINDOW {
        flags.push(format!("--window-size={width},3000"));
        measured
    } else {
        let frame = dir.join(format!("frame-{width}.html"));
        std::fs::write(
            &frame,
            format!(
                r#"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="measured-{width}.html" style="border:0;width:{width}px;height:3000px"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  var inner = this.contentDocument.body;
  ["data-page", "data-overflow", "data-broken", "data-width"].forEach(function (k) {{
    document.body.setAttribute(k, inner.getAttribute(k));
  }});
}});
</script></body></html>"#
            ),
        )
        .unwrap();
        // The frame's document is read by the page around it.
        flags.push("--allow-file-access-from-files".to_string());
        flags.push(format!("--window-size={NARROWEST_WINDOW},3100"));
        frame
    };
    let (status, dom, log) = common::chromium::open(chromium, &open, &flags);
    assert!(status.success(), "chromium: {status}\n{log}");
    // The page was laid out at the width asked for (less a scrollbar).
    let laid: u32 = attribute(&dom, "data-width").parse().unwrap();
    assert!(
        (width - 100..=width).contains(&laid),
        "asked for {width} px, laid out at {laid} px"
    );
    Layout {
        page: attribute(&dom, "data-page"),
        overflow: attribute(&dom, "data-overflow"),
        broken: attribute(&dom, "data-broken"),
        dom,
    }
}

/// `html` at 1280 px: nothing wider than its box, the page included, and
/// no header broken inside a word; the DOM.
fn fits_1280_px(chromium: &Path, dir: &Path, html: &str, what: &str) -> String {
    let l = lay_out(chromium, dir, html, 1280);
    assert_eq!(l.page, "none", "{what} scrolls sideways at 1280 px");
    assert_eq!(
        l.overflow, "none",
        "{what}: too wide for its box at 1280 px"
    );
    assert_eq!(l.broken, "none", "{what}: header words broken at 1280 px");
    l.dom
}

/// `html` on a phone, 390 px: the page never scrolls sideways; a table too
/// wide scrolls in its own box (and nothing else does); no cell spills
/// and no header word is broken.
fn readable_at_390_px(chromium: &Path, dir: &Path, html: &str, what: &str) {
    let l = lay_out(chromium, dir, html, 390);
    assert_eq!(l.page, "none", "{what} scrolls sideways at 390 px");
    for wide in l.overflow.split(" | ").filter(|w| *w != "none") {
        assert!(
            wide.starts_with("DIV.scroll "),
            "{what} at 390 px: {wide} (only a table's own box may scroll): {}",
            l.overflow
        );
    }
    assert_eq!(l.broken, "none", "{what}: header words broken at 390 px");
}

/// A Run's report and a comparison of Runs with a block stack (candor's
/// over a loop device, fio's disk_util of an import of two jobs, and a
/// disk job without one) fit 1280 px with their Block stack tables. (A
/// comparison of many tests scrolls its own table of figures sideways by
/// design; the fleet's page turns it instead.)
#[test]
fn block_stack_tables_fit_1280_px() {
    let Some(chromium) = common::chromium::find() else {
        return;
    };
    let candor = |args: &[&std::ffi::OsStr]| {
        let o = Command::new(env!("CARGO_BIN_EXE_candor"))
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    let stack = fixture("disk-loop-stack");
    let import = fixture("import-two-jobs-global");
    let plain = fixture("disk-randrw");
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stack-html");
    let report = candor(&[
        "report".as_ref(),
        stack.as_os_str(),
        "--format".as_ref(),
        "html".as_ref(),
    ]);
    let compare = candor(&[
        "compare".as_ref(),
        "--format".as_ref(),
        "html".as_ref(),
        stack.as_os_str(),
        import.as_os_str(),
        plain.as_os_str(),
    ]);
    // The comparison's table of figures (a column per test of every Run:
    // 2,222 px for these three) scrolls in its own box by design; what
    // is checked here is everything else, the Block stack table first.
    let figures_start = compare
        .find("<div class=\"scroll\"><table class=\"compare\">")
        .expect("the comparison's figures");
    let figures_end = figures_start + compare[figures_start..].find("</table></div>").unwrap();
    let compare = format!(
        "{}{}",
        &compare[..figures_start],
        &compare[figures_end + "</table></div>".len()..]
    );
    for (name, html) in [("report", report), ("compare", compare)] {
        assert!(html.contains("<h2>Block stack</h2>"), "{name}");
        assert!(html.contains("backing file of loop0"), "{name}");
        fits_1280_px(chromium, &base.join(name), &html, name);
    }
}

#[test]
fn the_fleet_comparison_fits_1280_px_and_reads_at_390_px_with_3_and_12_hosts() {
    let Some(chromium) = common::chromium::find() else {
        return;
    };
    check(chromium, 3);
    check(chromium, 12);
}
