//! Figures: what `plot`, `hist` and `imshow` draw, kept as plain numbers
//! so that this layer knows nothing of values or tensors (`builtins/figures.rs` converts
//! them). A [`Figure`] becomes deterministic SVG ([`svg`], laid out by the `plotters` crate),
//! a PNG ([`png`]: the SVG rasterised by `resvg` with an embedded font) or a few lines of
//! Braille and block characters for a terminal ([`text`]).
//!
//! Non-finite numbers (docs/language.md §3 lets tensors hold NaN and ±inf) never reach the
//! drawing code: a line skips its non-finite points and breaks there (as matplotlib leaves a
//! gap), a histogram leaves them out of its counts, an image shows NaN pixels blank and
//! clips ±inf to the ends of the colour scale.

pub mod draw;
pub mod png;
pub mod text;

/// matplotlib's default colour cycle ("tab10"): line and bar colours in the order added.
pub const COLORS: [(u8, u8, u8); 10] = [
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x2c, 0xa0, 0x2c),
    (0xd6, 0x27, 0x28),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x7f, 0x7f, 0x7f),
    (0xbc, 0xbd, 0x22),
    (0x17, 0xbe, 0xcf),
];

/// The most bins a histogram may have (more could not be told apart in 640 px).
pub const MAX_BINS: usize = 10_000;

/// How image values become colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMap {
    /// matplotlib's default: dark blue through green to yellow.
    Viridis,
    /// Black (low) to white (high).
    Gray,
    /// White (low) to black (high): dark ink on paper, as digits are usually shown.
    GrayReversed,
}

impl ColorMap {
    /// The map called `name` (matplotlib's names), or `None`.
    pub fn by_name(name: &str) -> Option<ColorMap> {
        Some(match name {
            "viridis" => ColorMap::Viridis,
            "gray" | "grey" => ColorMap::Gray,
            "gray_r" | "grey_r" => ColorMap::GrayReversed,
            _ => return None,
        })
    }

    /// The colour of `t` in [0, 1] (clamped).
    pub fn color(self, t: f64) -> (u8, u8, u8) {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        match self {
            ColorMap::Viridis => {
                let c = plotters::style::colors::colormaps::ViridisRGB::get_color(t);
                (c.0, c.1, c.2)
            }
            ColorMap::Gray => {
                let g = (t * 255.0).round() as u8;
                (g, g, g)
            }
            ColorMap::GrayReversed => {
                let g = ((1.0 - t) * 255.0).round() as u8;
                (g, g, g)
            }
        }
    }
}

/// One thing drawn on a figure's axes.
#[derive(Clone, Debug)]
pub enum Layer {
    /// `plot(xs, ys)`: a line through the points, in order.
    Line { xs: Vec<f64>, ys: Vec<f64>, label: Option<String> },
    /// `hist(x, bins)`: the counts of `values` in `bins` equal bins.
    Hist { values: Vec<f64>, bins: usize, label: Option<String> },
    /// `imshow(x)`: a `rows` × `cols` grid of values (row-major), row 0 at the top.
    Image { rows: usize, cols: usize, values: Vec<f64>, cmap: ColorMap },
}

/// A figure: one set of axes with its layers, drawn in the order added.
#[derive(Clone, Debug, Default)]
pub struct Figure {
    pub title: Option<String>,
    pub xlabel: Option<String>,
    pub ylabel: Option<String>,
    pub layers: Vec<Layer>,
}

/// A histogram's bins: `edges` (bins + 1 of them, increasing) and the count in each bin.
#[derive(Clone, Debug, PartialEq)]
pub struct Bins {
    pub edges: Vec<f64>,
    pub counts: Vec<u64>,
}

/// NumPy's `histogram(values, bins)`: `bins` equal-width bins from the least to the greatest
/// finite value (each bin half-open but the last, which holds the maximum); when all values
/// are equal the range is that value ± 0.5, and with no finite value it is [0, 1] (NumPy
/// raises for NaN; DGL leaves non-finite values out). `bins` is at least 1.
pub fn histogram(values: &[f64], bins: usize) -> Bins {
    let bins = bins.clamp(1, MAX_BINS);
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    };
    // NumPy's arithmetic (linspace for the edges, the last one exactly `hi`; the position
    // times bins / span), in halves when the span passes f64::MAX (-1e308 to 1e308).
    let scale = if (hi - lo).is_finite() { 1.0 } else { 0.5 };
    let (lo_s, span) = (lo * scale, hi * scale - lo * scale);
    let step = span / bins as f64;
    let mut edges: Vec<f64> = (0..=bins).map(|i| (lo_s + i as f64 * step) / scale).collect();
    edges[bins] = hi;
    let norm = bins as f64 / span;
    let mut counts = vec![0u64; bins];
    for v in finite {
        // The bin from the scaled position, then nudged so that `v` lies between its
        // edges as computed (rounding may put it one off), as NumPy does.
        let mut i = ((v * scale - lo_s) * norm) as usize;
        i = i.min(bins - 1);
        if v < edges[i] {
            i = i.saturating_sub(1);
        } else if i + 1 < bins && v >= edges[i + 1] {
            i += 1;
        }
        counts[i] += 1;
    }
    Bins { edges, counts }
}

/// What the axes of a figure's lines and histograms must span, one rule for the SVG and
/// the text plot: each histogram's bins (in layer order), the finite data range on x and on y
/// (a histogram spans its edges, and 0 to its tallest bar), and whether the figure holds
/// histograms and no line (then the y axis starts at 0, where the bars stand).
pub struct Extent {
    pub bins: Vec<Bins>,
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub hist_only: bool,
}

/// The [`Extent`] of `fig`'s line and histogram layers; (0, 1) on an axis with no finite data.
pub fn extent(fig: &Figure) -> Extent {
    let (mut xs, mut ys, mut bins) = (vec![], vec![], vec![]);
    let mut lines = false;
    for layer in &fig.layers {
        match layer {
            Layer::Line { xs: lx, ys: ly, .. } => {
                lines = true;
                for (x, y) in lx.iter().zip(ly).filter(|(x, y)| x.is_finite() && y.is_finite()) {
                    xs.push(*x);
                    ys.push(*y);
                }
            }
            Layer::Hist { values, bins: n, .. } => {
                let b = histogram(values, *n);
                xs.extend([b.edges[0], b.edges[b.edges.len() - 1]]);
                ys.extend([0.0, b.counts.iter().copied().max().unwrap_or(0) as f64]);
                bins.push(b);
            }
            Layer::Image { .. } => {}
        }
    }
    Extent {
        hist_only: !lines && !bins.is_empty(),
        x: finite_range(xs.iter().copied()).unwrap_or((0.0, 1.0)),
        y: finite_range(ys.iter().copied()).unwrap_or((0.0, 1.0)),
        bins,
    }
}

/// The least and greatest finite values, or `None` when there is none.
pub fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    (lo <= hi).then_some((lo, hi))
}

/// A range worth drawing: `lo` < `hi`, both finite, with `pad` (a fraction of the span)
/// added at each end; a single value gets ± 0.5 (or ± 5 % of itself when large).
pub fn padded(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    let (lo, hi) = (lo.clamp(-1e300, 1e300), hi.clamp(-1e300, 1e300));
    // A span too small to tell from rounding (or to tick) is drawn as one value.
    if hi - lo <= (lo.abs().max(hi.abs()) * 1e-9).max(1e-200) {
        let d = (lo.abs() * 0.05).max(0.5);
        return (lo - d, lo + d);
    }
    let d = (hi - lo) * pad;
    (lo - d, hi + d)
}

/// A number as an axis label: at most 6 significant digits, no trailing zeros, exponent
/// form outside 1e-4 ≤ |v| < 1e6 (so tick labels stay short and always read the same).
pub fn tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v.is_finite() { "0".into() } else { format!("{v}") };
    }
    let a = v.abs();
    if !(1e-4..1e6).contains(&a) {
        let s = format!("{v:.3e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{e}", trim_zeros(m));
    }
    let digits = (5 - a.log10().floor() as i32).clamp(0, 10) as usize;
    trim_zeros(&format!("{v:.digits$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(-2.5), "-2.5");
        assert_eq!(tick_label(1e6), "1e6");
        assert_eq!(tick_label(0.00001234), "1.234e-5");
        assert_eq!(tick_label(123456.7), "123457");
        assert_eq!(tick_label(0.0), "0");
    }

    #[test]
    fn histogram_puts_the_maximum_in_the_last_bin() {
        // numpy.histogram([0, 1, 2, 3, 4], bins=4) -> counts [1, 1, 1, 2], edges 0, 1, 2, 3, 4
        let b = histogram(&[0.0, 1.0, 2.0, 3.0, 4.0], 4);
        assert_eq!(b.counts, vec![1, 1, 1, 2]);
        assert_eq!(b.edges, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn histogram_of_equal_or_no_values() {
        // numpy.histogram([3, 3], bins=2) -> counts [0, 2], edges 2.5, 3, 3.5
        let b = histogram(&[3.0, 3.0], 2);
        assert_eq!((b.counts, b.edges), (vec![0, 2], vec![2.5, 3.0, 3.5]));
        let b = histogram(&[f64::NAN, f64::INFINITY], 3);
        assert_eq!(b.counts, vec![0, 0, 0]);
        let b = histogram(&[-1e308, 1e308], 2);
        assert_eq!(b.counts, vec![1, 1]);
    }
}

#[cfg(test)]
mod numpy_check {
    /// numpy.histogram(digits[:, 20], bins=8) on examples/data/digits.csv gives
    /// [564, 154, 140, 111, 114, 137, 134, 443] over edges 0, 2, …, 16 (run with NumPy 2).
    #[test]
    fn digit_pixel_counts_match_numpy() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/digits.csv")).unwrap();
        let column: Vec<f64> =
            text.lines().skip(1).map(|l| l.split(',').nth(20).unwrap().trim().parse().unwrap()).collect();
        let b = super::histogram(&column, 8);
        assert_eq!(b.counts, vec![564, 154, 140, 111, 114, 137, 134, 443]);
        assert_eq!(b.edges, (0..=8).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
    }
}
