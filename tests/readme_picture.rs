//! The README's picture, examples/03_digits_mlp_loss.svg, is what the digits example draws:
//! the example runs in a scratch folder (its script and data copied there, so the committed
//! file is not the one written) and the SVG it saves must equal the committed one byte for
//! byte. A change to the example, the training or the figure code that moves the curve fails
//! here until the picture is regenerated (`dgl examples/03_digits_mlp.dgl` rewrites it).

use std::fs;
use std::path::Path;
use std::process::Command;

#[test]
fn the_readme_loss_curve_is_what_the_example_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("dgl-readme-picture-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("data")).unwrap();
    fs::copy(root.join("examples/03_digits_mlp.dgl"), dir.join("03_digits_mlp.dgl")).unwrap();
    fs::copy(root.join("examples/data/digits.csv"), dir.join("data/digits.csv")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg(dir.join("03_digits_mlp.dgl")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drawn = fs::read(dir.join("03_digits_mlp_loss.svg")).expect("the example saves its loss curve");
    let committed = fs::read(root.join("examples/03_digits_mlp_loss.svg")).unwrap();
    assert!(drawn.starts_with(b"<svg") && drawn.windows(9).any(|w| w == b"<polyline"));
    assert!(drawn == committed, "examples/03_digits_mlp_loss.svg differs from what the example draws now");
    let _ = fs::remove_dir_all(&dir);
}
