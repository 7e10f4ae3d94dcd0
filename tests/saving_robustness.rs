//! Saved files damaged at random — bytes flipped, cut short, grown, replaced — end in a clear
//! error (or, where the damage missed what is read, a loaded model), never a panic, a hang or an
//! internal error, whichever reader they reach: Keras's `.weights.h5` (HDF5), the `.keras`
//! archive (zip, JSON and HDF5 inside) and `tf.train.Checkpoint`'s file (docs/language.md
//! "Saving and restoring").

/// Runs `src` as a script ([`dgl::testing::run_text`]); returns (exit code, stdout, stderr).
fn run(src: &str) -> (i32, String, String) {
    let out = dgl::testing::run_text(src);
    (out.code, out.stdout, out.stderr)
}

fn lcg(seed: &mut u64) -> usize {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as usize
}

const MODEL: &str = "import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation='relu'), tf.keras.layers.Dense(2)])
model.build((None, 4))
";

/// `bytes` damaged in one of several ways, chosen by `seed`.
fn damage(bytes: &[u8], seed: &mut u64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    match lcg(seed) % 5 {
        0 => {
            for _ in 0..1 + lcg(seed) % 8 {
                let i = lcg(seed) % b.len();
                b[i] ^= 1 << (lcg(seed) % 8);
            }
        }
        1 => b.truncate(lcg(seed) % b.len()),
        2 => {
            let i = lcg(seed) % b.len();
            let n = (lcg(seed) % 16).min(b.len() - i);
            for x in &mut b[i..i + n] {
                *x = 0xff;
            }
        }
        3 => {
            let i = lcg(seed) % b.len();
            b.splice(i..i, std::iter::repeat_n(0u8, 1 + lcg(seed) % 64));
        }
        _ => {
            // An 8-byte field overwritten with a huge value (addresses, sizes, counts).
            let i = lcg(seed) % b.len().saturating_sub(8).max(1);
            let end = (i + 8).min(b.len());
            for x in &mut b[i..end] {
                *x = 0x7f;
            }
        }
    }
    b
}

#[test]
fn damaged_weight_archive_and_checkpoint_files_end_in_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (code, _, err) = run(&format!(
        "{MODEL}model.save_weights('{d}/ok.weights.h5')\nmodel.save('{d}/ok.keras')\n\
         tf.train.Checkpoint(model=model).write('{d}/ok_ckpt')\n"
    ));
    assert_eq!(code, 0, "{err}");
    let files = [
        ("ok.weights.h5", "bad.weights.h5", "model.load_weights('{p}')"),
        ("ok.keras", "bad.keras", "m = tf.keras.models.load_model('{p}')\nprint(m(tf.ones([1, 4])).shape)"),
        ("ok_ckpt.h5", "bad_ckpt.h5", "tf.train.Checkpoint(model=model).restore('{p}'[:-3]).assert_consumed()"),
    ];
    let mut seed = 11;
    let mut failed = 0;
    for case in 0..240 {
        let (good, bad, load) = files[case % files.len()];
        let bytes = std::fs::read(format!("{d}/{good}")).unwrap();
        std::fs::write(format!("{d}/{bad}"), damage(&bytes, &mut seed)).unwrap();
        let src = format!("{MODEL}{}\nprint('loaded')\n", load.replace("{p}", &format!("{d}/{bad}")));
        let (code, out, err) = run(&src);
        if code == 0 {
            assert!(out.ends_with("loaded\n"), "case {case}: {out}");
        } else {
            failed += 1;
            assert!(
                err.starts_with("Error: ") && !err.contains("internal error"),
                "case {case} ({bad}): exit {code}, {err}"
            );
        }
    }
    // The damage must reach the readers: most damaged files are refused.
    assert!(failed > 120, "only {failed} of 240 damaged files were refused");
}
