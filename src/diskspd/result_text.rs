//! DiskSpd's text output (its default, `-Rtext`) read into a
//! `DiskSpdResult`: the `Input parameters` (per target: cache, write ratio,
//! block size, random or sequential, outstanding I/Os, threads), `System
//! information` (computer, start time), and the `Total IO`, `Read IO` and
//! `Write IO` tables, whose columns are read by their headers (`AvgLat` and
//! `LatStdDev` only with `-L`, `IopsStdDev` only with `-D`). DiskSpd's
//! `MiB/s` column is binary (bytes / 1,048,576 / seconds); before 2.0.18 it
//! was headed `MB/s` with the same arithmetic, as in the Linux port. The
//! layouts are those of DiskSpd's ResultParser.cpp from 2014 to 2.2 and of
//! microsoft/diskspd-for-linux.

use super::result::{size, Counts, DiskSpdResult, DiskSpdTarget, Percentile, ThreadRow, MAX_ROWS};

/// Whether `text` is DiskSpd's text output (by content: its section titles).
pub fn is_text_result(text: &str) -> bool {
    let head = &text[..text.len().min(1 << 20)];
    (head.contains("Input parameters:") || head.contains("Command Line:"))
        && (head.contains("Results for timespan") || head.contains("Results for job"))
        && head.contains("Total IO")
}

/// Which table a line belongs to.
#[derive(Clone, Copy, PartialEq)]
enum TextPart {
    Preamble,
    Input,
    DiskSpdTarget,
    System,
    Results,
    IoTable(IoTable),
    Latency,
}

#[derive(Clone, Copy, PartialEq)]
enum IoTable {
    Total,
    Read,
    Write,
}

/// One line of a table as printed (the total line has no thread or target).
#[derive(Default, Clone)]
struct PrintedLine {
    thread: u32,
    target: String,
    bytes: u64,
    ios: u64,
    per_s: f64,
    mean_ms: Option<f64>,
    stdev_ms: Option<f64>,
}

/// One table's rows and its total line, as printed.
#[derive(Default)]
struct Printed {
    rows: Vec<PrintedLine>,
    total: Option<PrintedLine>,
    columns: Vec<String>,
}

/// Reads DiskSpd's text output.
pub fn parse(text: &str) -> Result<DiskSpdResult, String> {
    let mut r = DiskSpdResult {
        format: "text",
        ..DiskSpdResult::default()
    };
    let mut section = TextPart::Preamble;
    let mut tables: [Printed; 3] = Default::default();
    let mut timespans = 0;
    // The test time and half of its last printed digit.
    let mut test_time: Option<(f64, f64)> = None;
    // The distribution being read: None = over every target.
    let mut dist_target: Option<String> = None;
    let mut dist: Vec<Percentile> = Vec::new();
    let mut dist_done: Vec<(Option<String>, Vec<Percentile>)> = Vec::new();
    let mut cache_said = false;
    for (n, raw) in text.lines().enumerate() {
        if n % 4096 == 0 && crate::cancel::cancelled() {
            return Err("stopped by a signal".into());
        }
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        if let Some(cmd) = t.strip_prefix("Command Line:") {
            r.command = Some(cmd.trim().to_string());
            continue;
        }
        if t == "Input parameters:" {
            section = TextPart::Input;
            continue;
        }
        if t == "System information:" || t == "System info:" {
            section = TextPart::System;
            continue;
        }
        if t.starts_with("Results for timespan") || t.starts_with("Results for job") {
            timespans += 1;
            if timespans > 1 {
                return Err(
                    "it holds several timespans (an XML profile's): import a result of one".into(),
                );
            }
            r.linux_port |= t.starts_with("Results for job");
            section = TextPart::Results;
            continue;
        }
        match t {
            "Total IO" => {
                section = TextPart::IoTable(IoTable::Total);
                continue;
            }
            "Read IO" => {
                section = TextPart::IoTable(IoTable::Read);
                continue;
            }
            "Write IO" => {
                section = TextPart::IoTable(IoTable::Write);
                continue;
            }
            _ => {}
        }
        if t.starts_with("%-ile") {
            if !dist.is_empty() {
                dist_done.push((dist_target.take(), std::mem::take(&mut dist)));
            }
            section = TextPart::Latency;
            continue;
        }
        if let Some(path) = t.strip_prefix("Latency distribution:") {
            if !dist.is_empty() {
                dist_done.push((dist_target.take(), std::mem::take(&mut dist)));
            }
            dist_target = Some(path.trim().to_string());
            continue;
        }
        if t == "Total latency distribution:" || t == "total:" {
            if !dist.is_empty() {
                dist_done.push((dist_target.take(), std::mem::take(&mut dist)));
            }
            dist_target = None;
            continue;
        }
        // DiskSpd 2.0.21 heads each target's distribution with its path alone.
        if matches!(
            section,
            TextPart::Latency | TextPart::Results | TextPart::IoTable(_)
        ) && !t.is_empty()
            && r.targets
                .iter()
                .any(|x| super::result::same_path(&x.path, t))
        {
            if !dist.is_empty() {
                dist_done.push((dist_target.take(), std::mem::take(&mut dist)));
            }
            dist_target = Some(t.to_string());
            continue;
        }
        match section {
            TextPart::Preamble | TextPart::System => {
                if let Some(v) = t.strip_prefix("computer name:") {
                    r.computer = Some(v.trim().to_string()).filter(|v| !v.is_empty());
                } else if let Some(v) = t.strip_prefix("start time:") {
                    r.start = Some(v.trim().to_string());
                }
            }
            TextPart::Input | TextPart::DiskSpdTarget => {
                if let Some(v) = t.strip_prefix("path:") {
                    let path = v.trim().trim_matches('\'').to_string();
                    r.targets.push(DiskSpdTarget {
                        path,
                        os_cache: true,
                        ..DiskSpdTarget::default()
                    });
                    if r.targets.len() > MAX_ROWS {
                        return Err(format!("more than {MAX_ROWS} targets"));
                    }
                    section = TextPart::DiskSpdTarget;
                } else if section == TextPart::Input {
                    input_line(&mut r, t)?;
                } else if let Some(target) = r.targets.last_mut() {
                    // Every line after a path is that target's, to the next
                    // path or section (DiskSpd prints the timespan's first).
                    cache_said |= target_line(target, t)?;
                }
            }
            TextPart::Results => {
                if let Some(v) = t
                    .strip_prefix("actual test time:")
                    .or_else(|| t.strip_prefix("test time:"))
                {
                    let v = v.trim().trim_end_matches('s');
                    let decimals = v.split('.').nth(1).map_or(0, str::len) as i32;
                    let secs = v
                        .parse()
                        .map_err(|_| format!("test time '{v}' is not a number"))?;
                    test_time = Some((secs, 0.5 * 10f64.powi(-decimals)));
                }
            }
            TextPart::IoTable(which) => {
                let table = &mut tables[which as usize];
                table_line(table, t)?;
                if table.rows.len() > MAX_ROWS {
                    return Err(format!("more than {MAX_ROWS} thread rows"));
                }
            }
            TextPart::Latency => {
                if t.is_empty() {
                    continue;
                }
                if t.starts_with("---") {
                    continue;
                }
                match percentile_line(t) {
                    Some(p) => {
                        dist.push(p);
                        if dist.len() > 64 {
                            return Err("a latency distribution of over 64 lines".into());
                        }
                    }
                    None => section = TextPart::Results,
                }
            }
        }
    }
    if !dist.is_empty() {
        dist_done.push((dist_target.take(), dist));
    }
    for (target, ps) in dist_done {
        match target {
            None => r.percentiles = ps,
            Some(path) => r.target_percentiles.push((path, ps)),
        }
    }
    if timespans == 0 {
        return Err("it has no results (no 'Results for timespan' section)".into());
    }
    if r.targets.is_empty() {
        // The input parameters were cut off: what ran is the command's.
        let Some(cmd) = r.command.clone() else {
            return Err(
                "it has neither its input parameters nor its command line: what ran is not said"
                    .into(),
            );
        };
        let c = super::parse::parse(&cmd).map_err(|e| {
            format!(
                "its input parameters are cut off and its command line cannot stand for them: {e}"
            )
        })?;
        r.duration_s = Some(c.duration_s);
        r.warmup_s = Some(c.warmup_s);
        r.latency = cmd.split_whitespace().any(|w| w == "-L");
        r.targets.push(DiskSpdTarget {
            path: c.target.clone(),
            block_size: c.block_size,
            random_align: match c.access {
                super::parse::DiskSpdAccess::Random { align } => Some(align),
                super::parse::DiskSpdAccess::Sequential { .. } => None,
            },
            outstanding: c.outstanding,
            write_percent: c.write_percent,
            threads_per_file: Some(c.threads),
            os_cache: c.os_cache,
            write_through: c.write_through,
            file_size: c.create_size,
        });
        r.notes.push("The file has no input parameters section: the spec is read from its command line, with DiskSpd's defaults".into());
        cache_said = true;
    }
    if !cache_said && !r.linux_port {
        return Err(
            "its input parameters do not say whether DiskSpd's OS cache was on (no cache line for its target)"
                .into(),
        );
    }
    let time = test_time.ok_or("it has no 'actual test time' line")?;
    assemble(&mut r, tables, time)?;
    r.check()?;
    Ok(r)
}

/// A line of the timespan's parameters.
fn input_line(r: &mut DiskSpdResult, t: &str) -> Result<(), String> {
    let secs = |v: &str| -> Result<u64, String> {
        v.trim()
            .trim_end_matches('s')
            .parse()
            .map_err(|_| format!("input parameter '{t}' is not a number of seconds"))
    };
    if let Some(v) = t.strip_prefix("duration:") {
        r.duration_s = Some(secs(v)?);
    } else if let Some(v) = t.strip_prefix("warm up time:") {
        r.warmup_s = Some(secs(v)?);
    } else if t == "measuring latency" {
        r.latency = true;
    }
    Ok(())
}

/// A line of one target's parameters; true when it said the cache mode.
fn target_line(target: &mut DiskSpdTarget, t: &str) -> Result<bool, String> {
    let num = |v: &str| -> Result<u64, String> {
        let v = v.trim().trim_end_matches(')');
        size(v).ok_or(format!("target {}: '{t}' is not a size", target.path))
    };
    let mut cache = false;
    match t {
        "using software cache"
        | "using software and hardware write cache"
        | "using software and hardware cache" => {
            target.os_cache = true;
            cache = true;
        }
        "software cache disabled" => {
            target.os_cache = false;
            cache = true;
        }
        "software and hardware write cache disabled" | "software and hardware cache disabled" => {
            target.os_cache = false;
            target.write_through = true;
            cache = true;
        }
        _ if t.starts_with("local software cache disabled") => {
            // -Sr: the remote (SMB) cache stays on: reads may come from it.
            target.os_cache = true;
            cache = true;
        }
        _ if t.ends_with("writethrough on") => target.write_through = true,
        "using hardware write cache, writethrough off" => target.write_through = false,
        "using O_DIRECT" => target.os_cache = false,
        "using O_SYNC" | "using O_DSYNC" => target.write_through = true,
        "performing read test" => target.write_percent = 0,
        "performing write test" => target.write_percent = 100,
        _ => {}
    }
    if let Some(v) = t.strip_prefix("performing mix test (read/write ratio:") {
        let w = v
            .trim()
            .trim_end_matches(')')
            .split('/')
            .nth(1)
            .unwrap_or("");
        target.write_percent = w
            .trim()
            .parse()
            .map_err(|_| format!("target {}: '{t}' has no write ratio", target.path))?;
    } else if let Some(v) = t.strip_prefix("block size:") {
        target.block_size = num(v)?;
    } else if let Some(v) = t.strip_prefix("using random I/O (alignment:") {
        target.random_align = Some(num(v)?);
    } else if t.starts_with("using mixed random/sequential I/O") {
        return Err(format!(
            "target {}: mixed random and sequential I/O (-rs), which candor's spec cannot hold",
            target.path
        ));
    } else if t.contains("sequential I/O (stride:") {
        target.random_align = None;
    } else if let Some(v) = t
        .strip_prefix("number of outstanding I/O operations per thread:")
        .or_else(|| t.strip_prefix("number of outstanding I/O operations:"))
    {
        let v = v.trim().trim_end_matches(')');
        target.outstanding = v
            .parse()
            .map_err(|_| format!("target {}: '{t}' is not a count", target.path))?;
    } else if let Some(v) = t.strip_prefix("threads per file:") {
        target.threads_per_file = Some(
            v.trim()
                .parse()
                .map_err(|_| format!("target {}: '{t}' is not a count", target.path))?,
        );
    } else if let Some(v) = t.strip_prefix("size:") {
        target.file_size = size(v);
    }
    Ok(cache)
}

/// A cell as a number; "N/A" is None.
fn cell(v: &str) -> Result<Option<f64>, String> {
    let v = v.trim();
    if v == "N/A" {
        return Ok(None);
    }
    v.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("'{v}' is not a number"))
}

/// One line of a Total/Read/Write IO table.
fn table_line(table: &mut Printed, t: &str) -> Result<(), String> {
    if t.is_empty() || t.starts_with("---") {
        return Ok(());
    }
    if t.starts_with("thread") {
        table.columns = t.split('|').map(|c| c.trim().to_string()).collect();
        return Ok(());
    }
    if table.columns.is_empty() {
        return Ok(());
    }
    let col = |name: &str| table.columns.iter().position(|c| c.starts_with(name));
    let (lat, std) = (col("AvgLat"), col("LatStdDev"));
    if let Some(rest) = t.strip_prefix("total:") {
        // The total line has no thread cell: its first cell is the bytes.
        let cells: Vec<&str> = rest.split('|').collect();
        let at = |c: Option<usize>| c.and_then(|i| cells.get(i - 1).copied());
        let bytes = at(col("bytes")).ok_or("a total line without bytes")?;
        let ios = at(col("I/Os")).ok_or("a total line without I/Os")?;
        let per_s = at(col("I/O per s")).ok_or("a total line without I/O per s")?;
        table.total = Some(PrintedLine {
            bytes: count(bytes)?,
            ios: count(ios)?,
            per_s: cell(per_s)?.unwrap_or(0.0),
            mean_ms: at(lat).map(cell).transpose()?.flatten(),
            stdev_ms: at(std).map(cell).transpose()?.flatten(),
            ..PrintedLine::default()
        });
        return Ok(());
    }
    let cells: Vec<&str> = t.split('|').collect();
    let get = |c: Option<usize>| c.and_then(|i| cells.get(i).copied());
    let Some(thread) = cells.first().and_then(|c| c.trim().parse::<u32>().ok()) else {
        return Ok(());
    };
    let file = get(col("file")).ok_or(format!("thread {thread}: no file cell"))?;
    // "path (1024MiB)": the file's size in parentheses at the end.
    let file = file.trim();
    let target = match file.rfind(" (") {
        Some(i) if file.ends_with(')') => &file[..i],
        _ => file,
    };
    table.rows.push(PrintedLine {
        thread,
        target: target.to_string(),
        bytes: count(get(col("bytes")).ok_or("a row without bytes")?)?,
        ios: count(get(col("I/Os")).ok_or("a row without I/Os")?)?,
        per_s: cell(get(col("I/O per s")).ok_or("a row without I/O per s")?)?.unwrap_or(0.0),
        mean_ms: get(lat).map(cell).transpose()?.flatten(),
        stdev_ms: get(std).map(cell).transpose()?.flatten(),
    });
    Ok(())
}

fn count(v: &str) -> Result<u64, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("'{}' is not a count", v.trim()))
}

/// `    min |      0.036 |      1.209 |      0.036`, `3-nines | ...`.
fn percentile_line(t: &str) -> Option<Percentile> {
    let cells: Vec<&str> = t.split('|').map(str::trim).collect();
    if cells.len() < 3 {
        return None;
    }
    let pct = match cells[0] {
        "min" => 0.0,
        "max" => 100.0,
        s if s.ends_with("th") => s.trim_end_matches("th").parse().ok()?,
        s if s.ends_with("-nines") => {
            let n: i32 = s.trim_end_matches("-nines").parse().ok()?;
            100.0 - 100.0 * 10f64.powi(-n)
        }
        _ => return None,
    };
    let ms = |s: &str| s.parse::<f64>().ok();
    Some(Percentile {
        pct,
        read_ms: ms(cells[1]),
        write_ms: ms(cells[2]),
    })
}

/// The three tables into rows, checked against each other and their totals.
fn assemble(
    r: &mut DiskSpdResult,
    tables: [Printed; 3],
    (time, half_digit): (f64, f64),
) -> Result<(), String> {
    let [total, read, write] = tables;
    if total.rows.is_empty() {
        return Err("its Total IO table has no thread rows".into());
    }
    if read.rows.len() != total.rows.len() || write.rows.len() != total.rows.len() {
        return Err(format!(
            "its tables disagree: {} Total IO rows, {} Read IO, {} Write IO",
            total.rows.len(),
            read.rows.len(),
            write.rows.len()
        ));
    }
    for (name, table) in [
        ("Total IO", &total),
        ("Read IO", &read),
        ("Write IO", &write),
    ] {
        let Some(PrintedLine { bytes, ios, .. }) = table.total else {
            return Err(format!("its {name} table has no total line"));
        };
        let sum_b: u64 = table.rows.iter().map(|x| x.bytes).sum();
        let sum_i: u64 = table.rows.iter().map(|x| x.ios).sum();
        if sum_b != bytes || sum_i != ios {
            return Err(format!(
                "its {name} rows sum to {sum_b} bytes in {sum_i} I/Os, its total line says {bytes} in {ios} (rows left out or edited)"
            ));
        }
    }
    for ((t, rd), wr) in total.rows.iter().zip(&read.rows).zip(&write.rows) {
        if t.thread != rd.thread
            || t.thread != wr.thread
            || t.target != rd.target
            || t.target != wr.target
        {
            return Err(format!(
                "its tables list threads in different orders (thread {} on {})",
                t.thread, t.target
            ));
        }
        if rd.bytes + wr.bytes != t.bytes || rd.ios + wr.ios != t.ios {
            return Err(format!(
                "thread {} on {}: reads and writes do not add up to its Total IO row",
                t.thread, t.target
            ));
        }
        let counts = |l: &PrintedLine| Counts {
            bytes: l.bytes,
            ios: l.ios,
            mean_ms: l.mean_ms.filter(|_| l.ios > 0),
            stdev_ms: l.stdev_ms.filter(|_| l.ios > 0),
        };
        r.rows.push(ThreadRow {
            thread: t.thread,
            target: t.target.clone(),
            read: counts(rd),
            write: counts(wr),
        });
    }
    // DiskSpd prints the test time to 2 decimals but computes each rate
    // with the whole of it: the total line's I/Os over its I/O per s give
    // it to more digits. It must round to the printed time.
    let PrintedLine { ios, per_s, .. } = total.total.clone().unwrap_or_default();
    r.seconds = time;
    if ios > 0 && per_s > 0.0 {
        let precise = ios as f64 / per_s;
        // I/O per s is printed to 2 decimals too.
        let slack = half_digit + precise * 0.005 / per_s + 1e-9;
        if (precise - time).abs() > slack {
            return Err(format!(
                "its total line says {ios} I/Os at {per_s} per second, {precise:.3} s, not its test time of {time} s"
            ));
        }
        r.seconds = precise;
    }
    for (table, into) in [(&read, &mut r.total_read), (&write, &mut r.total_write)] {
        let line = table.total.clone().unwrap_or_default();
        *into = Counts {
            bytes: line.bytes,
            ios: line.ios,
            mean_ms: line.mean_ms.filter(|_| line.ios > 0),
            stdev_ms: line.stdev_ms.filter(|_| line.ios > 0),
        };
    }
    if !r.latency && total.columns.iter().any(|c| c.starts_with("AvgLat")) {
        r.latency = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DiskSpd 2.0.21's layout (ResultParser.cpp), two threads on one
    /// target, cached (`using software cache`), with -L.
    const TWO_THREADS: &str = "
Command Line: diskspd -c1G -d10 -t2 -o4 -b8K -r -w25 -L t.dat

Input parameters:

\ttimespan:   1
\t-------------
\tduration: 10s
\twarm up time: 5s
\tcool down time: 0s
\tmeasuring latency
\trandom seed: 0
\tpath: 't.dat'
\t\tthink time: 0ms
\t\tburst size: 0
\t\tusing software cache
\t\tusing hardware write cache, writethrough off
\t\tperforming mix test (read/write ratio: 75/25)
\t\tblock size: 8KiB
\t\tusing random I/O (alignment: 8KiB)
\t\tnumber of outstanding I/O operations per thread: 4
\t\tthreads per file: 2

System information:

\tcomputer name: box
\tstart time: 2024/01/02 03:04:05 UTC

Results for timespan 1:
*******************************************************************************

actual test time:\t10.00s
thread count:\t\t2

Total IO
thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file
-----------------------------------------------------------------------------------------------------
     0 |        81920000 |        10000 |       7.81 |     999.90 |    1.000 |     0.500 | t.dat (1GiB)
     1 |        40960000 |         5000 |       3.91 |     499.95 |    2.000 |     0.500 | t.dat (1GiB)
-----------------------------------------------------------------------------------------------------
total:         122880000 |        15000 |      11.72 |    1499.85 |    1.333 |     0.624

Read IO
thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file
-----------------------------------------------------------------------------------------------------
     0 |        61440000 |         7500 |       5.86 |     749.93 |    0.900 |     0.400 | t.dat (1GiB)
     1 |        30720000 |         3750 |       2.93 |     374.96 |    1.900 |     0.400 | t.dat (1GiB)
-----------------------------------------------------------------------------------------------------
total:          92160000 |        11250 |       8.79 |    1124.89 |    1.233 |     0.600

Write IO
thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file
-----------------------------------------------------------------------------------------------------
     0 |        20480000 |         2500 |       1.95 |     249.98 |    1.300 |     0.600 | t.dat (1GiB)
     1 |        10240000 |         1250 |       0.98 |     124.99 |    2.300 |     0.600 | t.dat (1GiB)
-----------------------------------------------------------------------------------------------------
total:          30720000 |         3750 |       2.93 |     374.96 |    1.633 |     0.800


Total latency distribution:
  %-ile |  Read (ms) | Write (ms) | Total (ms)
----------------------------------------------
    min |      0.100 |      0.200 |      0.100
   50th |      1.100 |      1.500 |      1.200
   99th |      3.000 |      4.000 |      3.500
3-nines |      5.000 |      6.000 |      5.500
    max |      9.000 |      9.500 |      9.500
";

    #[test]
    fn a_text_result_is_read_with_its_tables_and_parameters() {
        let r = parse(TWO_THREADS).unwrap();
        assert_eq!(r.computer.as_deref(), Some("box"));
        assert_eq!(
            (r.duration_s, r.warmup_s, r.latency),
            (Some(10), Some(5), true)
        );
        let t = &r.targets[0];
        assert_eq!(
            (t.block_size, t.random_align, t.outstanding, t.write_percent),
            (8192, Some(8192), 4, 25)
        );
        assert!(t.os_cache && !t.write_through);
        assert_eq!(r.rows.len(), 2);
        assert_eq!(
            (r.rows[1].read.ios, r.rows[1].write.bytes),
            (3750, 10240000)
        );
        assert_eq!(r.total_read.mean_ms, Some(1.233));
        // 15,000 I/Os at 1499.85 per second: 10.001 s, which prints as 10.00s.
        assert!((r.seconds - 15000.0 / 1499.85).abs() < 1e-9);
        assert_eq!(r.percentiles.len(), 5);
        assert!((r.percentiles[3].pct - 99.9).abs() < 1e-9);
        assert_eq!(r.percentiles[1].write_ms, Some(1.5));
    }

    #[test]
    fn text_results_that_contradict_themselves_are_refused() {
        for (from, to, why) in [
            (
                "     1 |        40960000 |         5000 |       3.91",
                "     1 |        40960000 |         5001 |       3.91",
                "rows sum to",
            ),
            (
                "actual test time:\t10.00s",
                "actual test time:\t9.00s",
                "not its test time of 9 s",
            ),
            (
                "threads per file: 2",
                "threads per file: 4",
                "4 threads per file, but 2 thread rows",
            ),
            (
                "    max |      9.000",
                "    max |  99000.000",
                "longer than the whole run",
            ),
            (
                "\t\tusing software cache\n",
                "",
                "whether DiskSpd's OS cache was on",
            ),
        ] {
            let text = TWO_THREADS.replacen(from, to, 1);
            assert_ne!(text, TWO_THREADS, "{from}");
            let e = parse(&text).unwrap_err();
            assert!(e.contains(why), "{from}: {e}");
        }
    }

    #[test]
    fn percentile_names() {
        assert_eq!(
            percentile_line("    min |      0.036 |      1.209 |      0.036")
                .unwrap()
                .pct,
            0.0
        );
        assert_eq!(
            percentile_line("   99th |      0.877 |      6.107 |      4.713")
                .unwrap()
                .pct,
            99.0
        );
        let p = percentile_line("3-nines |      1.608 |        N/A |      7.432").unwrap();
        assert!((p.pct - 99.9).abs() < 1e-9);
        assert_eq!(p.write_ms, None);
        assert_eq!(
            percentile_line("    max |      7.990 |     35.257 |     35.257")
                .unwrap()
                .pct,
            100.0
        );
        assert!(percentile_line("Total latency distribution:").is_none());
    }
}
