//! UnixBench's HTML report (`results/HOST-DATE-NN.html`, written beside
//! the text one) rewritten as the text report it stands for, so that one
//! reader (`import`) reads both. Facts about the HTML UnixBench's `Run`
//! writes (`logResultsHtml`): a `<h3>Benchmark Run: N CPUs; M parallel
//! process(es)</h3>` per copy count, then a table whose rows are Test,
//! Score, Unit, Time, Iters., Baseline, Index, and a last row with the
//! "System Benchmarks Index Score:". No code of UnixBench.

/// True when `text` is UnixBench's HTML report.
pub fn is_html_report(text: &str) -> bool {
    let head: String = text.chars().take(4096).collect();
    head.contains("<html") && head.contains("BYTE UNIX Benchmarks")
}

/// The text report that the HTML report stands for (the header lines
/// `import` reads, each Benchmark Run, its results and index table).
pub fn to_text(html: &str) -> Result<String, String> {
    let mut out = String::new();
    if let Some(v) = between(html, "<b>BYTE UNIX Benchmarks (Version ", ")") {
        out.push_str(&format!("   BYTE UNIX Benchmarks (Version {v})\n"));
    }
    // Header facts: rows of two cells, `<b>System:</b>` then the value.
    for row in rows(html) {
        match row.as_slice() {
            [k, v] if k == "System:" => out.push_str(&format!("   System: {v}\n")),
            [k, v] if k == "OS:" => out.push_str(&format!("   OS: {v}\n")),
            // The HTML says `armv7l: unknown` where the text says `armv7l (unknown)`.
            [k, v] if k == "Machine:" => out.push_str(&format!("   Machine: {v}\n")),
            [k, n, model] if k == "CPUs:" => out.push_str(&cpu_line(n, model)),
            [n, model] if n.ends_with(':') && n[..n.len() - 1].parse::<u32>().is_ok() => {
                out.push_str(&cpu_line(n, model))
            }
            _ => {}
        }
    }
    let mut runs = html.split("<h3>Benchmark Run:").skip(1).peekable();
    if runs.peek().is_none() {
        return Err("a UnixBench HTML report without a 'Benchmark Run' section".into());
    }
    for run in runs {
        let heading = run.split("</h3>").next().unwrap_or("");
        // ` 4 CPUs; 1 parallel process` / `4 parallel processes`.
        let numbers: Vec<u32> = heading
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        let [cpus, copies] = numbers[..] else {
            return Err(format!(
                "Benchmark Run heading '{}' names no CPU and copy count",
                heading.trim()
            ));
        };
        out.push_str("------------------------------------------------------------------------\n");
        out.push_str(&format!(
            "Benchmark Run: {}\n{cpus} CPUs in system; running {copies} parallel cop{} of tests\n\n",
            between(run, "<p>Time:", "</p>").unwrap_or("").trim(),
            if copies == 1 { "y" } else { "ies" }
        ));
        let mut index_rows = Vec::new();
        let mut score = None;
        for row in rows(run) {
            match row.as_slice() {
                [title, score, unit, time, iters, baseline, index] => {
                    let secs = time.trim_end_matches(" s");
                    out.push_str(&format!(
                        "{title}  {score} {unit}  ({secs} s, {iters} samples)\n"
                    ));
                    index_rows.push(format!("{title}  {baseline}  {score}  {index}\n"));
                }
                [label, value] if label.starts_with("System Benchmarks Index Score") => {
                    score = Some(value.clone())
                }
                _ => {}
            }
        }
        out.push_str("\nSystem Benchmarks Index Values  BASELINE  RESULT  INDEX\n");
        for r in index_rows {
            out.push_str(&r);
        }
        if let Some(s) = score {
            out.push_str(&format!("System Benchmarks Index Score  {s}\n"));
        }
        out.push('\n');
    }
    Ok(out)
}

/// `   CPU 0: MODEL (N bogomips)`: the model cell without the CPU's flags,
/// which the HTML prints after it.
fn cpu_line(n: &str, model: &str) -> String {
    let model = model.split_inclusive("bogomips)").next().unwrap_or(model);
    format!("   CPU {n} {model}\n")
}

/// The text between the first `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// Each `<tr>` of `html` as the text of its `<td>` cells (tags removed,
/// entities that UnixBench writes decoded, spaces collapsed).
fn rows(html: &str) -> Vec<Vec<String>> {
    html.split("<tr>")
        .skip(1)
        .map(|row| {
            let row = row.split("</tr>").next().unwrap_or("");
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let inner = cell.split_once('>').map_or("", |(_, rest)| rest);
                    let inner = inner.split("</td>").next().unwrap_or("");
                    text_of(inner)
                })
                .collect()
        })
        .collect()
}

/// Markup removed, `&amp;` `&lt;` `&gt;` `&quot;` decoded, spaces collapsed.
fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_lose_their_markup() {
        let r = rows("<tr>\n <td><b>Pipe Throughput</b></td>\n <td align=right><tt>173576.1</tt></td>\n</tr>");
        assert_eq!(
            r,
            vec![vec!["Pipe Throughput".to_string(), "173576.1".to_string()]]
        );
        assert!(to_text("<html><b>BYTE UNIX Benchmarks (Version 5.1.3)</b></html>").is_err());
    }
}
