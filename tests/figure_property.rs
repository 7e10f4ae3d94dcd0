//! Generated figures (issue 11: no input may panic, hang or crash dgl): random lengths, NaN,
//! ±inf, huge, tiny and equal values into lines, histograms and images, drawn as SVG and as
//! the terminal's text. Every figure must draw (`svg` reports a panic inside plotters as an
//! error, which fails here), twice to the same bytes, and its text plot must stay small.

use dgl::plot::{draw, text, ColorMap, Figure, Layer};
use proptest::prelude::*;

/// Numbers as they come: ordinary, extreme and non-finite.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -10.0..10.0f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(-f64::MAX),
        1 => Just(5e-324),
        1 => Just(0.0),
        1 => -1e300..1e300f64,
        1 => Just(1.0),
    ]
}

fn layer() -> impl Strategy<Value = Layer> {
    prop_oneof![
        (prop::collection::vec((number(), number()), 0..60), any::<bool>()).prop_map(|(pts, labelled)| Layer::Line {
            xs: pts.iter().map(|p| p.0).collect(),
            ys: pts.iter().map(|p| p.1).collect(),
            label: labelled.then(|| "a <label> & more".to_string()),
        }),
        (prop::collection::vec(number(), 0..80), 1usize..300).prop_map(|(values, bins)| Layer::Hist {
            values,
            bins,
            label: None
        }),
    ]
}

/// The SVG text with every `base64,...` payload (up to its closing quote) left out.
fn without_base64(svg: &str) -> String {
    let mut out = String::new();
    let mut rest = svg;
    while let Some(i) = rest.find("base64,") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        rest = rest.find('"').map_or("", |j| &rest[j..]);
    }
    out.push_str(rest);
    out
}

fn check(fig: &Figure) -> Result<(), TestCaseError> {
    let a = draw::svg(fig).map_err(TestCaseError::fail)?;
    let b = draw::svg(fig).map_err(TestCaseError::fail)?;
    prop_assert_eq!(&a, &b);
    prop_assert!(a.starts_with("<svg") && a.trim_end().ends_with("</svg>"));
    // The image's pixels are base64 text, which may spell "inf" by chance: look outside it.
    let text = without_base64(&a);
    prop_assert!(!text.contains("NaN") && !text.contains("inf"), "a non-finite number reached the SVG");
    let t = text::render(fig);
    prop_assert!(t.lines().count() <= 20, "{}", t);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn lines_and_histograms_always_draw(layers in prop::collection::vec(layer(), 0..4)) {
        let fig = Figure { title: Some("t".into()), xlabel: None, ylabel: Some("y".into()), layers };
        check(&fig)?;
    }

    #[test]
    fn images_always_draw(rows in 1usize..40, cols in 1usize..40, seed in prop::collection::vec(number(), 1..40)) {
        let values: Vec<f64> = (0..rows * cols).map(|i| seed[i % seed.len()]).collect();
        for cmap in [ColorMap::Viridis, ColorMap::Gray, ColorMap::GrayReversed] {
            let fig = Figure { layers: vec![Layer::Image { rows, cols, values: values.clone(), cmap }], ..Figure::default() };
            check(&fig)?;
        }
    }
}

/// Sizes far past a screen: a 1500 × 3 image is sampled down, 200 000 points stay one line.
#[test]
fn large_figures_draw() {
    let values: Vec<f64> = (0..4500).map(|i| (i % 17) as f64).collect();
    let fig = Figure {
        layers: vec![Layer::Image { rows: 1500, cols: 3, values, cmap: ColorMap::Viridis }],
        ..Figure::default()
    };
    assert!(draw::svg(&fig).is_ok());
    let ys: Vec<f64> = (0..200_000).map(|i| (i as f64).sin()).collect();
    let xs: Vec<f64> = (0..200_000).map(|i| i as f64).collect();
    let fig = Figure { layers: vec![Layer::Line { xs, ys, label: None }], ..Figure::default() };
    assert!(draw::svg(&fig).is_ok());
}
