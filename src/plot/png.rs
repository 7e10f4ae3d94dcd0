//! SVG pictures rasterised to PNG: the same SVG text DGL writes for `.svg` files (figures, layer
//! graphs), drawn by the pure-Rust `resvg` crate with one font embedded in the binary (DejaVu
//! Sans Mono, assets/fonts/, under its licence there), so no system font is read and the same
//! picture always gives the same pixels.

use std::sync::{Arc, OnceLock};

/// The embedded font, loaded once, answering for every family the SVG names.
fn options() -> &'static resvg::usvg::Options<'static> {
    static OPTIONS: OnceLock<resvg::usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(include_bytes!("../../assets/fonts/DejaVuSansMono.ttf").to_vec());
        let family = "DejaVu Sans Mono";
        db.set_monospace_family(family);
        db.set_sans_serif_family(family);
        db.set_serif_family(family);
        let mut opt = resvg::usvg::Options { fontdb: Arc::new(db), ..Default::default() };
        opt.font_family = family.to_string();
        opt
    })
}

/// The PNG bytes of `svg` drawn at `scale` times its size, on white.
///
/// Errors: the reason as text when the SVG does not parse or the picture would be empty or
/// larger than 16384 pixels a side.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    let tree = resvg::usvg::Tree::from_str(svg, options()).map_err(|e| format!("the SVG does not parse: {e}"))?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).ceil(), (size.height() * scale).ceil());
    if !(1.0..=16384.0).contains(&w) || !(1.0..=16384.0).contains(&h) {
        return Err(format!("a picture of {w}×{h} pixels is too large to draw (at most 16384 a side)"));
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w as u32, h as u32).ok_or("no memory for the picture")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("cannot encode the PNG: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_and_shapes_become_pixels() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect x="1" y="1" width="10" height="10" fill="black"/><text x="14" y="14" font-family="monospace" font-size="12">Ab</text></svg>"#;
        let png = super::svg_to_png(svg, 2.0).expect("a PNG");
        assert_eq!(&png[1..4], b"PNG");
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().expect("a valid PNG");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("one frame");
        assert_eq!((info.width, info.height), (80, 40));
        // The text's ink: some dark pixels right of the square (columns 28 to 79).
        let row_bytes = info.line_size;
        let dark = (0..40)
            .flat_map(|y| (28..80).map(move |x| (y, x)))
            .filter(|&(y, x)| buf[y * row_bytes + x * 4] < 128)
            .count();
        assert!(dark > 20, "the text drew {dark} dark pixels");
        assert!(super::svg_to_png("<svg", 1.0).is_err());
    }
}
