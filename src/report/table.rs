//! A plain table laid out two ways: aligned columns for a terminal, and
//! Markdown that pastes into a forum. Headers may span several lines
//! (`"SEQ1M Q8T1\nread MB/s"`) to keep wide comparisons narrow in a terminal.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Headers, rows of cells, and an alignment per column.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
}

fn width(s: &str) -> usize {
    s.chars().count()
}

impl Table {
    /// A table with these headers; the first column is left-aligned, the rest right-aligned.
    pub fn new(headers: Vec<String>) -> Table {
        let align = (0..headers.len())
            .map(|i| if i == 0 { Align::Left } else { Align::Right })
            .collect();
        Table {
            headers,
            align,
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Aligned columns separated by two spaces, a dashed rule under the header.
    pub fn to_text(&self, indent: &str) -> String {
        let cols = self.headers.len();
        let header_lines: Vec<Vec<&str>> =
            self.headers.iter().map(|h| h.lines().collect()).collect();
        let depth = header_lines
            .iter()
            .map(|l| l.len())
            .max()
            .unwrap_or(1)
            .max(1);
        let mut widths: Vec<usize> = header_lines
            .iter()
            .map(|l| l.iter().map(|s| width(s)).max().unwrap_or(0))
            .collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(cols) {
                widths[i] = widths[i].max(width(cell));
            }
        }
        let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
            let mut out = String::from(indent);
            for (i, cell) in cells.enumerate().take(cols) {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = widths[i].saturating_sub(width(cell));
                match self.align.get(i).copied().unwrap_or(Align::Right) {
                    Align::Left => {
                        out.push_str(cell);
                        out.push_str(&" ".repeat(pad));
                    }
                    Align::Right => {
                        out.push_str(&" ".repeat(pad));
                        out.push_str(cell);
                    }
                }
            }
            out.trim_end().to_string() + "\n"
        };
        let mut out = String::new();
        for d in 0..depth {
            // Bottom-align multi-line headers so the unit line sits on the rule.
            let mut cells = header_lines.iter().map(|l| {
                let skip = depth - l.len();
                if d < skip {
                    ""
                } else {
                    l[d - skip]
                }
            });
            out.push_str(&line(&mut cells));
        }
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&line(&mut rule.iter().map(|s| s.as_str())));
        for row in &self.rows {
            out.push_str(&line(&mut row.iter().map(|s| s.as_str())));
        }
        out
    }

    /// A GitHub-flavoured Markdown table; `|` in cells is escaped, multi-line headers joined.
    pub fn to_markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let mut out = String::from("|");
        for h in &self.headers {
            out.push_str(&format!(" {} |", cell(h)));
        }
        out.push_str("\n|");
        for i in 0..self.headers.len() {
            out.push_str(match self.align.get(i).copied().unwrap_or(Align::Right) {
                Align::Left => ":---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for i in 0..self.headers.len() {
                out.push_str(&format!(
                    " {} |",
                    cell(row.get(i).map_or("", |s| s.as_str()))
                ));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_aligns_and_markdown_escapes() {
        let mut t = Table::new(vec!["test".into(), "SEQ1M\nMB/s".into()]);
        t.push(vec!["a|b".into(), "1474.8".into()]);
        t.push(vec!["longer name".into(), "49.3".into()]);
        let text = t.to_text("");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "              SEQ1M");
        assert_eq!(lines[1], "test           MB/s");
        assert_eq!(lines[2], "-----------  ------");
        assert_eq!(lines[3], "a|b          1474.8");
        assert_eq!(lines[4], "longer name    49.3");
        let md = t.to_markdown();
        assert!(md.starts_with("| test | SEQ1M MB/s |\n|:---|---:|\n| a\\|b | 1474.8 |"));
    }
}
