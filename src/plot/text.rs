//! A figure as a few lines of text for a terminal: what `repr(fig)` gives, so that the REPL
//! and `print(fig)` show a plot where no image can be shown. Lines and histogram bars are
//! drawn in Braille characters (each a 2 × 4 grid of dots, Unicode U+2800–U+28FF), with the
//! y range at the left and the x range below; an image in shades (` ░▒▓█`), averaged down
//! to at most [`IMAGE_COLS`] × [`IMAGE_ROWS`] characters.

use super::{extent, finite_range, padded, tick_label, Extent, Figure, Layer};
use std::fmt::Write;

/// Plot width and height in characters (each 2 × 4 Braille dots).
const COLS: usize = 40;
const ROWS: usize = 8;
pub const IMAGE_COLS: usize = 32;
pub const IMAGE_ROWS: usize = 16;

/// The text: a header line, then the plot.
pub fn render(fig: &Figure) -> String {
    let mut out = String::from("Figure");
    if let Some(t) = &fig.title {
        let _ = write!(out, ": {t}");
    }
    let image = fig.layers.iter().find_map(|l| match l {
        Layer::Image { rows, cols, values, .. } => Some((*rows, *cols, values)),
        _ => None,
    });
    match image {
        Some((rows, cols, values)) => image_text(&mut out, rows, cols, values),
        None if fig.layers.is_empty() => out.push_str(" (empty)"),
        None => axes_text(&mut out, fig),
    }
    out
}

/// A canvas of Braille dots, `COLS * 2` wide and `ROWS * 4` high.
struct Canvas {
    dots: Vec<bool>,
}

impl Canvas {
    const W: usize = COLS * 2;
    const H: usize = ROWS * 4;

    fn set(&mut self, x: i64, y: i64) {
        if (0..Self::W as i64).contains(&x) && (0..Self::H as i64).contains(&y) {
            self.dots[y as usize * Self::W + x as usize] = true;
        }
    }

    /// Dots from (x0, y0) to (x1, y1) (Bresenham's line).
    fn line(&mut self, (mut x0, mut y0): (i64, i64), (x1, y1): (i64, i64)) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        // At most W + H steps: the ends are clamped to the canvas first.
        for _ in 0..=(Self::W + Self::H) {
            self.set(x0, y0);
            if x0 == x1 && y0 == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x0 += sx;
            }
            if e2 <= dx {
                err += dx;
                y0 += sy;
            }
        }
    }

    /// Row `r` of characters.
    fn row(&self, r: usize) -> String {
        // The dot bits of a Braille cell: column 0 rows 0-3, then column 1 rows 0-3.
        const BITS: [[u32; 2]; 4] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];
        (0..COLS)
            .map(|c| {
                let mut code = 0;
                for (dy, bits) in BITS.iter().enumerate() {
                    for (dx, bit) in bits.iter().enumerate() {
                        if self.dots[(r * 4 + dy) * Self::W + c * 2 + dx] {
                            code |= bit;
                        }
                    }
                }
                char::from_u32(0x2800 + code).unwrap_or(' ')
            })
            .collect()
    }
}

/// Where a value falls on an axis of `n` dots spanning [lo, hi] (clamped to the canvas).
fn dot(v: f64, (lo, hi): (f64, f64), n: usize) -> i64 {
    let t = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
    ((t * (n - 1) as f64).round() as i64).clamp(0, n as i64 - 1)
}

fn axes_text(out: &mut String, fig: &Figure) {
    let Extent { bins, x: (x0, x1), y: (y0, y1), hist_only } = extent(fig);
    let xr = padded(x0, x1, 0.0);
    // Bars stand on the x axis, as in the SVG.
    let yr = if hist_only { (0.0, y1.max(1.0)) } else { padded(y0, y1, 0.0) };
    let mut canvas = Canvas { dots: vec![false; Canvas::W * Canvas::H] };
    let ydot = |v: f64| Canvas::H as i64 - 1 - dot(v, yr, Canvas::H);
    let mut next_bins = bins.iter();
    let mut labels = vec![];
    for layer in &fig.layers {
        match layer {
            Layer::Line { xs, ys, label } => {
                let mut last = None;
                for (x, y) in xs.iter().zip(ys) {
                    if !(x.is_finite() && y.is_finite()) {
                        last = None;
                        continue;
                    }
                    let p = (dot(*x, xr, Canvas::W), ydot(*y));
                    canvas.line(last.unwrap_or(p), p);
                    last = Some(p);
                }
                labels.extend(label.clone());
            }
            Layer::Hist { label, .. } => {
                let Some(b) = next_bins.next() else { continue };
                for (j, c) in b.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                    let (l, r) = (dot(b.edges[j], xr, Canvas::W), dot(b.edges[j + 1], xr, Canvas::W));
                    let top = ydot(*c as f64);
                    for x in l..=r.max(l) {
                        canvas.line((x, Canvas::H as i64 - 1), (x, top));
                    }
                }
                labels.extend(label.clone());
            }
            Layer::Image { .. } => {}
        }
    }
    let (top, bottom) = (tick_label(yr.1), tick_label(yr.0));
    let w = top.chars().count().max(bottom.chars().count());
    for r in 0..ROWS {
        let side = match r {
            0 => format!("{top:>w$} ┤"),
            _ if r == ROWS - 1 => format!("{bottom:>w$} ┤"),
            _ => format!("{:>w$} │", ""),
        };
        let _ = write!(out, "\n{side}{}", canvas.row(r));
    }
    let _ = write!(out, "\n{:>w$} └{}", "", "─".repeat(COLS));
    let (left, right) = (tick_label(xr.0), tick_label(xr.1));
    let gap = (COLS + 1).saturating_sub(left.chars().count() + right.chars().count()).max(1);
    let _ = write!(out, "\n{:>w$}  {left}{}{right}", "", " ".repeat(gap));
    if !labels.is_empty() {
        let _ = write!(out, "\n{:>w$}  {}", "", labels.join(", "));
    }
}

/// Shades by value whatever the colour map (denser is higher), as ink on the terminal.
fn image_text(out: &mut String, rows: usize, cols: usize, values: &[f64]) {
    const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];
    let (rows, cols) = (rows.max(1), cols.max(1));
    let (lo, hi) = finite_range(values.iter().copied()).unwrap_or((0.0, 1.0));
    let _ = write!(out, " ({rows}×{cols}, values {} to {})", tick_label(lo), tick_label(hi));
    let (h, w) = (rows.min(IMAGE_ROWS), cols.min(IMAGE_COLS));
    for r in 0..h {
        out.push('\n');
        for c in 0..w {
            // The mean of the finite values in this character's block of the image.
            let (mut sum, mut n) = (0.0, 0usize);
            for i in r * rows / h..((r + 1) * rows / h).max(r * rows / h + 1) {
                for j in c * cols / w..((c + 1) * cols / w).max(c * cols / w + 1) {
                    let v = values.get(i * cols + j).copied().unwrap_or(f64::NAN);
                    if v.is_finite() || v.is_infinite() {
                        sum += v.clamp(lo, hi);
                        n += 1;
                    }
                }
            }
            let t = if n == 0 || hi <= lo { 0.0 } else { (sum / n as f64 - lo) / (hi - lo) };
            let shade = if n == 0 { ' ' } else { SHADES[((t * 4.0).round() as usize).min(4)] };
            // Two characters a pixel, so that the picture keeps roughly its shape.
            out.push(shade);
            out.push(shade);
        }
    }
}
