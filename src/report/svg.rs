//! Hand-written inline SVG charts: line charts (linear or log axes) and
//! grouped horizontal bars. No scripts, no fonts, no external assets: the
//! report must open offline and years later. Every string that reaches the
//! SVG is escaped. Each chart carries `data-points` (how many values it
//! draws) so a test can check that a chart is not empty.

use std::fmt::Write;

/// Series colours: distinguishable, and readable on white.
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The colour of series `i`.
pub fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

/// The dash pattern of series `i`: solid, dashed, dotted in turn, so that
/// lines lying on top of each other stay visible and colours can repeat.
pub fn dash(i: usize) -> &'static str {
    ["none", "7 3", "2 3"][i % 3]
}

/// Escapes text for HTML and SVG (element content and quoted attributes).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// An axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base 10; values must be > 0 (others are dropped).
    Log,
}

/// One line of a line chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
pub struct LineChart<'a> {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
    /// Fixed x ticks (value, label) instead of computed ones.
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// Formats a y tick.
    pub y_fmt: &'a dyn Fn(f64) -> String,
    /// Start the y axis at zero (linear scale only).
    pub y_zero: bool,
}

const W: f64 = 530.0;
/// Bar charts are wider: their labels sit at the left.
const BW: f64 = 640.0;
const PLOT_H: f64 = 220.0;
const ML: f64 = 70.0;
const MR: f64 = 24.0;
const MT: f64 = 30.0;
const MB: f64 = 40.0;

/// "Nice" ticks (1, 2, 5 x 10^k) covering [lo, hi].
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * mag);
    // Integer multiples of the step, so that float sums do not drift.
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick value: integers without decimals, others with three significant digits.
pub fn tick_label(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        crate::units::fmt_count(v)
    } else {
        crate::units::sig3(v)
    }
}

/// Powers of ten covering [lo, hi] (with 2 and 5 when the range is narrow).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let mults: &[f64] = if b - a <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut out = Vec::new();
    for e in a..=b {
        for m in mults {
            let v = m * 10f64.powi(e);
            if v >= lo * 0.999 && v <= hi * 1.001 {
                out.push(v);
            }
        }
    }
    if out.is_empty() {
        out.push(lo);
    }
    out
}

struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl Axis {
    fn new(scale: Scale, values: impl Iterator<Item = f64>, zero: bool, p0: f64, p1: f64) -> Axis {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values {
            if scale == Scale::Log && v <= 0.0 {
                continue;
            }
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 10.0);
        }
        match scale {
            Scale::Linear => {
                if zero {
                    lo = lo.min(0.0);
                }
                if hi <= lo {
                    hi = lo + if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
                }
                let ticks = linear_ticks(lo, hi);
                let step = if ticks.len() > 1 {
                    ticks[1] - ticks[0]
                } else {
                    1.0
                };
                if hi > *ticks.last().unwrap_or(&hi) {
                    hi = ticks.last().unwrap_or(&hi) + step;
                }
            }
            Scale::Log => {
                lo = 10f64.powf(lo.log10().floor());
                hi = 10f64.powf(hi.log10().ceil());
                if hi <= lo {
                    hi = lo * 10.0;
                }
            }
        }
        Axis {
            scale,
            lo,
            hi,
            p0,
            p1,
        }
    }

    fn map(&self, v: f64) -> f64 {
        let f = match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            Scale::Log => (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        };
        self.p0 + f * (self.p1 - self.p0)
    }

    fn ticks(&self) -> Vec<f64> {
        match self.scale {
            Scale::Linear => linear_ticks(self.lo, self.hi),
            Scale::Log => log_ticks(self.lo, self.hi),
        }
    }
}

fn open_svg(out: &mut String, kind: &str, title: &str, w: f64, h: f64, points: usize) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{kind}" data-points="{points}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{t}"><title>{t}</title><rect x="0" y="0" width="{w}" height="{h}" fill="#fff"/><text x="{ML}" y="18" class="ct">{t}</text>"##,
        t = esc(title)
    );
}

/// Draws legend entries in rows of three from `y`; returns the height used.
/// `lines`: swatches drawn as dashed lines (line charts) or solid blocks (bars).
fn legend(out: &mut String, names: &[String], y: f64, w: f64, lines: bool) -> f64 {
    let per_row = 3;
    let col_w = (w - ML - MR) / per_row as f64;
    for (i, name) in names.iter().enumerate() {
        let x = ML + (i % per_row) as f64 * col_w;
        let yy = y + (i / per_row) as f64 * 16.0;
        let mut label = name.clone();
        if label.chars().count() > 24 {
            label = label.chars().take(23).collect::<String>() + "…";
        }
        let _ = write!(
            out,
            r#"<line x1="{x}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="3" stroke-dasharray="{}"/><text x="{}" y="{}" class="lg">{}</text>"#,
            yy - 3.0,
            x + 14.0,
            yy - 3.0,
            color(i),
            if lines { dash(i) } else { "none" },
            x + 18.0,
            yy,
            esc(&label)
        );
    }
    names.len().div_ceil(per_row) as f64 * 16.0
}

/// A line chart as an SVG element.
pub fn line_chart(c: &LineChart) -> String {
    let points: usize = c.series.iter().map(|s| s.points.len()).sum();
    let names: Vec<String> = c.series.iter().map(|s| s.name.clone()).collect();
    let legend_h = if names.len() > 1 {
        names.len().div_ceil(3) as f64 * 16.0 + 8.0
    } else {
        0.0
    };
    let h = MT + PLOT_H + MB + legend_h;
    let (x0, x1) = (ML, W - MR);
    let (y0, y1) = (MT + PLOT_H, MT);
    let all = || c.series.iter().flat_map(|s| s.points.iter());
    let mut xvals: Vec<f64> = all().map(|p| p.0).collect();
    if let Some(t) = &c.x_ticks {
        xvals.extend(t.iter().map(|t| t.0));
    }
    let xa = Axis::new(c.x_scale, xvals.into_iter(), false, x0, x1);
    let ya = Axis::new(c.y_scale, all().map(|p| p.1), c.y_zero, y0, y1);
    let mut out = String::new();
    open_svg(&mut out, "line", &c.title, W, h, points);
    // Grid and y ticks.
    for t in ya.ticks() {
        let y = ya.map(t);
        let _ = write!(
            out,
            r#"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" class="gr"/><text x="{}" y="{:.1}" class="tk" text-anchor="end">{}</text>"#,
            x0 - 6.0,
            y + 4.0,
            esc(&(c.y_fmt)(t))
        );
    }
    let xticks: Vec<(f64, String)> = match &c.x_ticks {
        Some(t) => t.clone(),
        None => xa.ticks().into_iter().map(|v| (v, tick_label(v))).collect(),
    };
    for (v, label) in xticks {
        let x = xa.map(v);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" y1="{y0}" x2="{x:.1}" y2="{}" class="ax"/><text x="{x:.1}" y="{}" class="tk" text-anchor="middle">{}</text>"#,
            y0 + 4.0,
            y0 + 16.0,
            esc(&label)
        );
    }
    let _ = write!(
        out,
        r#"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" class="ax"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" class="ax"/><text x="{}" y="{}" class="al" text-anchor="middle">{}</text><text x="14" y="{}" class="al" text-anchor="middle" transform="rotate(-90 14 {})">{}</text>"#,
        (x0 + x1) / 2.0,
        y0 + 32.0,
        esc(&c.x_label),
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0,
        esc(&c.y_label)
    );
    for (i, s) in c.series.iter().enumerate() {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| {
                x.is_finite()
                    && y.is_finite()
                    && (c.x_scale == Scale::Linear || *x > 0.0)
                    && (c.y_scale == Scale::Linear || *y > 0.0)
            })
            .map(|&(x, y)| (xa.map(x), ya.map(y)))
            .collect();
        if pts.is_empty() {
            continue;
        }
        let mut d = String::new();
        for (k, (x, y)) in pts.iter().enumerate() {
            let _ = write!(d, "{}{x:.1},{y:.1}", if k == 0 { "M" } else { " L" });
        }
        let _ = write!(
            out,
            r#"<path class="line" d="{d}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="{}"><title>{}</title></path>"#,
            color(i),
            dash(i),
            esc(&s.name)
        );
        if pts.len() <= 12 {
            for (x, y) in &pts {
                let _ = write!(
                    out,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" fill="{}"/>"#,
                    color(i)
                );
            }
        }
    }
    if names.len() > 1 {
        legend(&mut out, &names, y0 + MB + 12.0, W, true);
    }
    out.push_str("</svg>");
    out
}

/// One group of bars (e.g. a profile: main and control).
#[derive(Debug, Clone)]
pub struct BarGroup {
    pub label: String,
    /// (series index, value, text shown at the bar's end)
    pub bars: Vec<(usize, f64, String)>,
}

/// Grouped horizontal bars with their values written at the end. `series`
/// names the colours in a legend; leave it empty when the group labels say enough.
pub fn bar_chart(title: &str, unit: &str, series: &[String], groups: &[BarGroup]) -> String {
    let bar_h = 14.0;
    let label_w = 200.0;
    let points: usize = groups.iter().map(|g| g.bars.len()).sum();
    let plot_h: f64 = groups
        .iter()
        .map(|g| g.bars.len() as f64 * (bar_h + 2.0) + 10.0)
        .sum();
    let legend_h = if series.len() > 1 {
        series.len().div_ceil(3) as f64 * 16.0 + 8.0
    } else {
        0.0
    };
    let h = MT + plot_h + 30.0 + legend_h;
    let max = groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|b| b.1))
        .fold(0.0f64, f64::max);
    let (x0, x1) = (label_w, BW - 130.0);
    let scale = |v: f64| {
        if max > 0.0 {
            (v / max).max(0.0) * (x1 - x0)
        } else {
            0.0
        }
    };
    let mut out = String::new();
    open_svg(&mut out, "bars", title, BW, h, points);
    let mut y = MT;
    for g in groups {
        let gh = g.bars.len() as f64 * (bar_h + 2.0);
        let mut label = g.label.clone();
        if label.chars().count() > 34 {
            label = label.chars().take(33).collect::<String>() + "…";
        }
        let _ = write!(
            out,
            r#"<text x="{}" y="{:.1}" class="tk" text-anchor="end">{}</text>"#,
            x0 - 8.0,
            y + gh / 2.0 + 4.0,
            esc(&label)
        );
        for (s, v, text) in &g.bars {
            let _ = write!(
                out,
                r#"<rect class="bar" x="{x0}" y="{y:.1}" width="{:.1}" height="{bar_h}" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" class="tk">{}</text>"#,
                scale(*v).max(1.0),
                color(*s),
                esc(series.get(*s).map_or(g.label.as_str(), |n| n.as_str())),
                esc(text),
                x0 + scale(*v) + 4.0,
                y + bar_h - 3.0,
                esc(text)
            );
            y += bar_h + 2.0;
        }
        y += 10.0;
    }
    let _ = write!(
        out,
        r#"<line x1="{x0}" y1="{MT}" x2="{x0}" y2="{y:.1}" class="ax"/><text x="{}" y="{:.1}" class="al" text-anchor="middle">{}</text>"#,
        (x0 + x1) / 2.0,
        y + 14.0,
        esc(unit)
    );
    if series.len() > 1 {
        legend(&mut out, series, y + 36.0, BW, false);
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_nice() {
        assert_eq!(
            linear_ticks(0.0, 100.0),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(log_ticks(1e3, 1e6), vec![1e3, 1e4, 1e5, 1e6]);
    }

    #[test]
    fn text_is_escaped_and_points_counted() {
        let fmt = |v: f64| format!("{v}");
        let svg = line_chart(&LineChart {
            title: "<script>alert(1)</script>".into(),
            x_label: "s".into(),
            y_label: "MB/s".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: vec![Series {
                name: "a&b".into(),
                points: vec![(0.0, 1.0), (1.0, 2.0)],
            }],
            x_ticks: None,
            y_fmt: &fmt,
            y_zero: true,
        });
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(svg.contains("a&amp;b"));
        assert!(svg.contains(r#"data-points="2""#));
        assert!(svg.contains("<path class=\"line\" d=\"M"));
    }
}
