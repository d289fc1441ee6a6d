//! DiskSpd's XML results (`-Rxml`) read into a `DiskSpdResult`: the
//! `<Profile>` says what ran (per `<Target>`: block size, `<Random>` or a
//! stride, `<RequestCount>` in flight per thread, `<WriteRatio>`,
//! `<ThreadsPerFile>`, the cache elements), the results `<TimeSpan>` what
//! was measured (`<TestTimeSeconds>`, per `<Thread>` and `<Target>` the
//! `ReadBytes`/`ReadCount`/`WriteBytes`/`WriteCount` and mean latencies in
//! ms, and with `-L` the `<Latency>` buckets: percentiles 0 to 100 in ms).
//! The element names are those DiskSpd's XmlResultParser.cpp writes, from
//! 2.0.17 (`<WriteThrough>`) on; `<DisableAllCache>` is the older `-h`.

use super::result::{Counts, DiskSpdResult, DiskSpdTarget, Percentile, ThreadRow, MAX_ROWS};
use super::xml::{self, Element};

/// Whether `text` is DiskSpd's XML results (by content: the root element
/// and its results time span).
pub fn is_xml_result(text: &str) -> bool {
    let t = text.trim_start();
    (t.starts_with("<?xml") || t.starts_with("<Results"))
        && t.contains("<Results")
        && t.contains("<TestTimeSeconds>")
}

/// Reads DiskSpd's XML results.
pub fn parse(text: &str) -> Result<DiskSpdResult, String> {
    let root = xml::parse(text).map_err(|e| format!("not well-formed XML: {e}"))?;
    if root.name != "Results" {
        return Err(format!(
            "its root element is <{}>, not DiskSpd's <Results>",
            root.name
        ));
    }
    let mut r = DiskSpdResult {
        format: "xml",
        ..DiskSpdResult::default()
    };
    if let Some(system) = root.child("System") {
        r.computer = system
            .text_of("ComputerName")
            .map(str::to_string)
            .filter(|s| !s.is_empty());
        r.version = system
            .child("Tool")
            .and_then(|t| t.text_of("Version"))
            .map(str::to_string);
        r.start = system
            .text_of("RunTime")
            .map(str::to_string)
            .filter(|s| !s.is_empty());
    }
    let profile = root
        .child("Profile")
        .ok_or("it has no <Profile>: what ran is not said")?;
    let spans: Vec<&Element> = profile
        .child("TimeSpans")
        .map(|s| s.all("TimeSpan").collect())
        .unwrap_or_default();
    if spans.len() != 1 {
        return Err(format!(
            "its profile has {} time spans: import a result of one",
            spans.len()
        ));
    }
    let span = spans[0];
    r.duration_s = span.text_of("Duration").and_then(|v| v.parse().ok());
    r.warmup_s = span.text_of("Warmup").and_then(|v| v.parse().ok());
    r.latency = span.text_of("MeasureLatency") == Some("true");
    let total_threads: u32 = number(span, "ThreadCount")?.unwrap_or(0) as u32;
    for t in span
        .child("Targets")
        .map(|t| t.all("Target").collect::<Vec<_>>())
        .unwrap_or_default()
    {
        r.targets.push(target(t, total_threads)?);
        if r.targets.len() > MAX_ROWS {
            return Err(format!("more than {MAX_ROWS} targets"));
        }
    }
    let results: Vec<&Element> = root.all("TimeSpan").collect();
    if results.len() != 1 {
        return Err(format!(
            "it has {} result time spans: import a result of one",
            results.len()
        ));
    }
    let res = results[0];
    let secs = res
        .text_of("TestTimeSeconds")
        .ok_or("its results have no <TestTimeSeconds>")?;
    r.seconds = secs
        .parse()
        .map_err(|_| format!("<TestTimeSeconds> '{secs}' is not a number"))?;
    for thread in res.all("Thread") {
        let id = number(thread, "Id")?.ok_or("a <Thread> without <Id>")? as u32;
        for t in thread.all("Target") {
            let n = |k: &str| -> Result<u64, String> {
                number(t, k)?.ok_or(format!("thread {id}: its <Target> has no <{k}>"))
            };
            let ms = |k: &str| -> Result<Option<f64>, String> {
                t.text_of(k)
                    .map(|v| {
                        v.parse::<f64>()
                            .map_err(|_| format!("thread {id}: <{k}> '{v}' is not a number"))
                    })
                    .transpose()
            };
            let (rb, rc, wb, wc) = (
                n("ReadBytes")?,
                n("ReadCount")?,
                n("WriteBytes")?,
                n("WriteCount")?,
            );
            if let (Some(b), Some(c)) = (number(t, "BytesCount")?, number(t, "IOCount")?) {
                if b != rb + wb || c != rc + wc {
                    return Err(format!(
                        "thread {id}: <BytesCount> {b} and <IOCount> {c} are not its reads and writes added ({} and {})",
                        rb + wb,
                        rc + wc
                    ));
                }
            }
            r.rows.push(ThreadRow {
                thread: id,
                target: t.text_of("Path").unwrap_or_default().to_string(),
                read: Counts {
                    bytes: rb,
                    ios: rc,
                    mean_ms: ms("AverageReadLatencyMilliseconds")?,
                    stdev_ms: ms("ReadLatencyStdev")?,
                },
                write: Counts {
                    bytes: wb,
                    ios: wc,
                    mean_ms: ms("AverageWriteLatencyMilliseconds")?,
                    stdev_ms: ms("WriteLatencyStdev")?,
                },
            });
            if r.rows.len() > MAX_ROWS {
                return Err(format!("more than {MAX_ROWS} thread rows"));
            }
        }
    }
    if let Some(lat) = res.child("Latency") {
        let ms = |k: &str| lat.text_of(k).and_then(|v| v.parse::<f64>().ok());
        r.total_read.mean_ms = ms("AverageReadMilliseconds");
        r.total_read.stdev_ms = ms("ReadLatencyStdev");
        r.total_write.mean_ms = ms("AverageWriteMilliseconds");
        r.total_write.stdev_ms = ms("WriteLatencyStdev");
        for b in lat.all("Bucket") {
            let get = |k: &str| -> Result<Option<f64>, String> {
                b.text_of(k)
                    .map(|v| {
                        v.parse::<f64>()
                            .map_err(|_| format!("latency bucket <{k}> '{v}' is not a number"))
                    })
                    .transpose()
            };
            let pct = get("Percentile")?.ok_or("a latency <Bucket> without <Percentile>")?;
            if !(0.0..=100.0).contains(&pct) {
                return Err(format!("a latency percentile of {pct}"));
            }
            r.percentiles.push(Percentile {
                pct,
                read_ms: get("ReadMilliseconds")?,
                write_ms: get("WriteMilliseconds")?,
            });
            if r.percentiles.len() > 1024 {
                return Err("over 1,024 latency buckets".into());
            }
        }
    }
    r.check()?;
    Ok(r)
}

/// A non-negative integer element, if present.
fn number(e: &Element, name: &str) -> Result<Option<u64>, String> {
    e.text_of(name)
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| format!("<{name}> '{v}' is not a count"))
        })
        .transpose()
}

/// One `<Target>` of the profile.
fn target(t: &Element, total_threads: u32) -> Result<DiskSpdTarget, String> {
    let path = t.text_of("Path").unwrap_or_default().to_string();
    let on = |k: &str| t.text_of(k) == Some("true");
    if t.child("RandomRatio").is_some() && number(t, "RandomRatio")? != Some(100) {
        return Err(format!(
            "target {path}: mixed random and sequential I/O (<RandomRatio>), which candor's spec cannot hold"
        ));
    }
    let all_off = on("DisableAllCache");
    Ok(DiskSpdTarget {
        block_size: number(t, "BlockSize")?.unwrap_or(64 << 10),
        random_align: number(t, "Random")?,
        outstanding: number(t, "RequestCount")?.unwrap_or(2) as u32,
        write_percent: number(t, "WriteRatio")?.unwrap_or(0) as u32,
        threads_per_file: if total_threads > 0 {
            None
        } else {
            Some(number(t, "ThreadsPerFile")?.unwrap_or(1) as u32)
        },
        // -Sr (DisableLocalCache) leaves the remote cache on.
        os_cache: !(on("DisableOSCache") || all_off),
        write_through: on("WriteThrough") || all_off,
        file_size: number(t, "FileSize")?,
        path,
    })
}
