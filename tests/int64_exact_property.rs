//! Property test: an int64 tensor element reaches Python-level ints and their text
//! exactly over the whole int64 range (NumPy's `.item()`/`.tolist()` and Python's
//! format specs do), never through a float64, which is exact only up to 2^53.
//! Values cluster near ±2^53 and ±2^63, where a float64 round trip changes them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An int64: small, near ±2^53 (the first ints a float64 cannot hold), near a
/// power of two above it, at the edges of the range, or anywhere.
fn value(rng: &mut ChaCha8Rng) -> i64 {
    let v: i128 = match rng.random_range(0..6) {
        0 => rng.random_range(-1000..=1000),
        1 => (1i128 << 53) + rng.random_range(-3..=3),
        2 => (1i128 << rng.random_range(54..63)) + rng.random_range(-3..=3),
        3 => i64::MAX as i128 - rng.random_range(0..5),
        4 => i64::MIN as i128 + rng.random_range(0..5),
        _ => rng.random_range(i64::MIN as i128..=i64::MAX as i128),
    };
    let v = v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    if rng.random_bool(0.5) {
        v
    } else {
        v.saturating_neg()
    }
}

/// `v` with Python's `,` or `_` thousands grouping.
fn grouped(v: i64, sep: char) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A literal for `v` (i64::MIN has no positive literal in 64 bits).
fn literal(v: i64) -> String {
    if v == i64::MIN {
        format!("({} - 1)", i64::MIN + 1)
    } else {
        v.to_string()
    }
}

#[test]
fn int64_elements_reach_python_ints_exactly() {
    for seed in 0..4u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let values: Vec<i64> = (0..60).map(|_| value(&mut rng)).collect();
        let mut program = String::new();
        for &v in &values {
            let (lit, other) = (literal(v), literal(v.wrapping_add(1) / 3));
            program.push_str(&format!(
                "x = constant({lit}, dtype=int64)\n\
                 xs = constant([{lit}, {other}], dtype=int64)\n\
                 print(x.numpy(), x.item(), xs.tolist(), xs.numpy()[0], reshape(xs, [2, 1]).tolist()[1][0])\n\
                 print(f'{{x:d}}', f'{{x}}', format(x, ','), format(x, '_'), '%d' % x, '%i' % (x,), str(x))\n\
                 print(f'{{x:x}}', f'{{x:+d}}', Variable({lit}, dtype=int64).numpy(), int(x), [7, 8][constant(1, dtype=int64)])\n"
            ));
        }
        let out = dgl::testing::run_text(&program);
        assert_eq!(out.code, 0, "seed {seed}: {}", out.stderr);
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(lines.len(), 3 * values.len(), "seed {seed}");
        for (i, &v) in values.iter().enumerate() {
            let other = v.wrapping_add(1) / 3;
            let want = [
                format!("{v} {v} [{v}, {other}] {v} {other}"),
                format!("{v} {v} {} {} {v} {v} {v}", grouped(v, ','), grouped(v, '_')),
                format!(
                    "{}{:x} {}{v} {v} {v} 8",
                    if v < 0 { "-" } else { "" },
                    v.unsigned_abs(),
                    if v >= 0 { "+" } else { "" }
                ),
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(lines[3 * i + k], w, "seed {seed}, value {v}, line {k}");
            }
        }
    }
}
