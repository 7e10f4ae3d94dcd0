//! A [`Figure`] as SVG text. The `plotters` crate lays out the axes, ticks, labels and
//! legend and writes the SVG (its `svg_backend` only: without a font feature it sizes text
//! by a fixed estimate per character, so no font file is read and layout cannot vary from
//! machine to machine). Same figure, same bytes: plotters writes integer pixel coordinates
//! in drawing order, tick labels come from [`super::tick_label`], and nothing random or
//! timed enters. An image is embedded as a PNG (`data:` URI, as matplotlib's SVG does), so
//! a 784 × 128 weight matrix is one element, not 100 352 rectangles.

use super::{extent, finite_range, padded, tick_label, ColorMap, Extent, Figure, Layer, COLORS};
use base64::Engine;
use plotters::prelude::*;
use std::ops::Range;
use std::panic::AssertUnwindSafe;

/// Width and height of a line or histogram figure, px (matplotlib's 6.4 × 4.8 in at 100 dpi,
/// a little shorter).
const SIZE: (u32, u32) = (640, 420);
/// The largest image side drawn pixel for pixel; larger images are sampled down to it.
const MAX_IMAGE_SIDE: usize = 1024;
const FONT: &str = "sans-serif";

/// The figure as a standalone SVG document.
///
/// Errors: a message when plotters fails (it should not: every range is made finite and
/// non-empty first); a panic inside plotters is caught and reported the same way.
pub fn svg(fig: &Figure) -> Result<String, String> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| draw(fig))) {
        Ok(r) => r,
        Err(_) => Err("internal error: the figure could not be laid out".into()),
    }
}

fn draw(fig: &Figure) -> Result<String, String> {
    match fig.layers.iter().find_map(|l| match l {
        Layer::Image { rows, cols, values, cmap } => Some((*rows, *cols, values, *cmap)),
        _ => None,
    }) {
        Some((rows, cols, values, cmap)) => image_figure(fig, rows, cols, values, cmap),
        None => axes_figure(fig),
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

fn fail(e: impl std::fmt::Display) -> String {
    format!("cannot draw the figure: {e}")
}

/// The title, axis labels and tick labels of every figure.
fn caption_style() -> TextStyle<'static> {
    (FONT, 18).into_font().color(&BLACK)
}

/// Lines and histograms on one pair of numeric axes.
fn axes_figure(fig: &Figure) -> Result<String, String> {
    let Extent { bins, x: (x0, x1), y: (y0, y1), hist_only } = extent(fig);
    let (x0, x1) = padded(x0, x1, 0.05);
    // Bars stand on the x axis: a histogram's y range starts at 0.
    let (y0, y1) = if hist_only { (0.0, padded(0.0, y1.max(1.0), 0.05).1) } else { padded(y0, y1, 0.05) };

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .margin(14)
            .x_label_area_size(if fig.xlabel.is_some() { 48 } else { 30 })
            .y_label_area_size(if fig.ylabel.is_some() { 74 } else { 56 });
        if let Some(t) = &fig.title {
            builder.caption(t, caption_style());
        }
        let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1).map_err(fail)?;
        let fmt = |v: &f64| tick_label(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_labels(8)
            .y_labels(7)
            .max_light_lines(0)
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt);
        if let Some(l) = &fig.xlabel {
            mesh.x_desc(l);
        }
        if let Some(l) = &fig.ylabel {
            mesh.y_desc(l);
        }
        mesh.draw().map_err(fail)?;

        // Values beyond ±1e300 lie outside the axes (`padded` clamps the range there):
        // they are drawn at its edge, as plotters' pixel arithmetic would overflow on them.
        let inside = |(x, y): (f64, f64)| (x.clamp(x0, x1), y.clamp(y0, y1));
        let several_bars = bins.len() > 1;
        let mut labelled = false;
        let mut next_bins = bins.into_iter();
        for (i, layer) in fig.layers.iter().enumerate() {
            let color = rgb(COLORS[i % COLORS.len()]);
            match layer {
                Layer::Hist { label, .. } => {
                    let Some(b) = next_bins.next() else { continue };
                    let fill = if several_bars { color.mix(0.5).filled() } else { color.filled() };
                    let bars = b.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(j, c)| {
                        Rectangle::new([inside((b.edges[j], 0.0)), inside((b.edges[j + 1], *c as f64))], fill)
                    });
                    let anno = chart.draw_series(bars).map_err(fail)?;
                    if let Some(l) = label {
                        labelled = true;
                        anno.label(l).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], fill));
                    }
                }
                Layer::Line { xs, ys, label } => {
                    let style = color.stroke_width(2);
                    let mut runs: Vec<Vec<(f64, f64)>> =
                        segments(xs, ys).into_iter().map(|r| r.into_iter().map(inside).collect()).collect();
                    if runs.is_empty() {
                        runs.push(Vec::new());
                    }
                    for (k, run) in runs.into_iter().enumerate() {
                        let anno = chart.draw_series(LineSeries::new(run, style)).map_err(fail)?;
                        if let (0, Some(l)) = (k, label) {
                            labelled = true;
                            anno.label(l).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                        }
                    }
                }
                Layer::Image { .. } => {}
            }
        }
        if labelled {
            chart
                .configure_series_labels()
                .label_font((FONT, 13))
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(0xcc, 0xcc, 0xcc))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(fail)?;
        }
        root.present().map_err(fail)?;
    }
    Ok(buf)
}

/// The runs of consecutive finite points of a line (a NaN or inf breaks it, as in matplotlib).
fn segments(xs: &[f64], ys: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![];
    let mut run = vec![];
    for (x, y) in xs.iter().zip(ys) {
        if x.is_finite() && y.is_finite() {
            run.push((*x, *y));
        } else if !run.is_empty() {
            out.push(std::mem::take(&mut run));
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// `imshow`: the grid as an image (row 0 at the top, square pixels where the size allows),
/// pixel indices on the axes and a colour bar on the right.
fn image_figure(fig: &Figure, rows: usize, cols: usize, values: &[f64], cmap: ColorMap) -> Result<String, String> {
    let (rows, cols) = (rows.max(1), cols.max(1));
    let (lo, hi) = finite_range(values.iter().copied()).unwrap_or((0.0, 1.0));
    // The plot area fits 420 × 330 px, keeping the image's aspect ratio (at least 24 px a side).
    let scale = (420.0 / cols as f64).min(330.0 / rows as f64);
    let (aw, ah) = (((cols as f64 * scale).round() as u32).max(24), ((rows as f64 * scale).round() as u32).max(24));
    let (margin, left, bottom, bar) = (14u32, 48u32, 30u32, 96u32);
    let top = if fig.title.is_some() { 36 } else { 0 };
    let (xl, yl) = (fig.xlabel.is_some() as u32 * 18, fig.ylabel.is_some() as u32 * 18);
    let size = (aw + 2 * margin + left + yl + bar, ah + 2 * margin + bottom + xl + top);

    let mut buf = String::new();
    let area;
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let (main, side) = root.split_horizontally(size.0 - bar);
        let mut builder = ChartBuilder::on(&main);
        builder.margin(margin).x_label_area_size(bottom + xl).y_label_area_size(left + yl);
        if let Some(t) = &fig.title {
            builder.caption(t, caption_style());
        }
        let (cw, rw) = (cols as f64, rows as f64);
        // Row 0 at the top, as images are shown: the y range runs from the last row down to
        // the first (plotters draws larger y values higher).
        let mut chart = builder.build_cartesian_2d(-0.5..cw - 0.5, rw - 0.5..-0.5).map_err(fail)?;
        let fmt = |v: &f64| format!("{}", v.round() as i64);
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh()
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .x_labels(7)
            .y_labels(7)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt);
        if let Some(l) = &fig.xlabel {
            mesh.x_desc(l);
        }
        if let Some(l) = &fig.ylabel {
            mesh.y_desc(l);
        }
        mesh.draw().map_err(fail)?;
        area = chart.plotting_area().get_pixel_range();
        color_bar(&side, lo, hi, cmap, &area)?;
        root.present().map_err(fail)?;
    }
    let png = image_png(rows, cols, values, lo, hi, cmap)?;
    let image = format!(
        "<image x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" \
         style=\"image-rendering:pixelated\" href=\"data:image/png;base64,{}\"/>\n",
        area.0.start,
        area.1.start,
        area.0.end - area.0.start,
        area.1.end - area.1.start,
        base64::engine::general_purpose::STANDARD.encode(png)
    );
    match buf.rfind("</svg>") {
        Some(at) => buf.insert_str(at, &image),
        None => return Err(fail("no </svg> in plotters' output")),
    }
    Ok(buf)
}

/// The colour bar: the colour scale from `lo` (bottom) to `hi` (top) in 64 steps, with value
/// ticks, as tall as the image (`area`, the image's pixel range).
fn color_bar(
    side: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    lo: f64,
    hi: f64,
    cmap: ColorMap,
    area: &(Range<i32>, Range<i32>),
) -> Result<(), String> {
    // Clamped to ±1e300 like every axis: a span of ±f64::MAX would be infinite, and
    // plotters' tick search never ends on it.
    let (b0, b1) = padded(lo, hi, 0.0);
    let (_, full_h) = side.dim_in_pixel();
    let top = area.1.start.max(0) as u32;
    let bottom = full_h.saturating_sub(area.1.end.max(0) as u32);
    let mut chart = ChartBuilder::on(side)
        .margin_top(top)
        .margin_bottom(bottom)
        .margin_left(8)
        .margin_right(4)
        .right_y_label_area_size(64)
        .build_cartesian_2d(0.0..1.0, b0..b1)
        .map_err(fail)?;
    let fmt = |v: &f64| tick_label(*v);
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(6)
        .label_style((FONT, 12))
        .y_label_formatter(&fmt)
        .draw()
        .map_err(fail)?;
    let steps = 64;
    let cells = (0..steps).map(|i| {
        let (a, b) = (i as f64 / steps as f64, (i + 1) as f64 / steps as f64);
        let c = rgb(cmap.color((a + b) / 2.0));
        Rectangle::new([(0.0, b0 + (b1 - b0) * a), (1.0, b0 + (b1 - b0) * b)], c.filled())
    });
    chart.draw_series(cells).map_err(fail)?;
    Ok(())
}

/// The image as PNG bytes: each value's colour from `cmap` over [lo, hi]; NaN transparent,
/// ±inf the end colours. Sampled down (nearest value) to at most [`MAX_IMAGE_SIDE`] a side.
fn image_png(rows: usize, cols: usize, values: &[f64], lo: f64, hi: f64, cmap: ColorMap) -> Result<Vec<u8>, String> {
    let (h, w) = (rows.min(MAX_IMAGE_SIDE), cols.min(MAX_IMAGE_SIDE));
    let mut rgba = Vec::with_capacity(h * w * 4);
    for r in 0..h {
        let src_r = r * rows / h;
        for c in 0..w {
            let v = values.get(src_r * cols + c * cols / w).copied().unwrap_or(f64::NAN);
            if v.is_nan() {
                rgba.extend([255, 255, 255, 0]);
                continue;
            }
            let t = if hi > lo { (v.clamp(lo, hi) - lo) / (hi - lo) } else { 0.0 };
            let (cr, cg, cb) = cmap.color(t);
            rgba.extend([cr, cg, cb, 255]);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w as u32, h as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(&rgba).map_err(fail)?;
    }
    Ok(out)
}
