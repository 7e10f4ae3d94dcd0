//! Property test (issue 9; docs/language.md §3: ints are 64-bit): random int
//! expressions evaluate to exactly what 128-bit arithmetic with Python's rules
//! gives when every intermediate fits in 64 bits, and raise OverflowError (never
//! wrap, never panic) when one does not. Operands cluster near the edges of the
//! int64 range, where a wrapping or unchecked operation would show.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An expression's outcome: its value, or the error kind it raises first.
#[derive(Debug, PartialEq)]
enum Outcome {
    Int(i128),
    Error(&'static str),
}

/// A generated expression: its DGL text and its expected outcome.
struct Expr {
    text: String,
    value: Result<i128, &'static str>,
}

fn fits(v: i128) -> Result<i128, &'static str> {
    if v < i64::MIN as i128 || v > i64::MAX as i128 {
        Err("OverflowError")
    } else {
        Ok(v)
    }
}

/// An operand: small, near a power of two, or at the edges of the range.
fn leaf(rng: &mut ChaCha8Rng) -> Expr {
    let v: i128 = match rng.random_range(0..6) {
        0 => rng.random_range(-10..=10),
        1 => rng.random_range(-100_000..=100_000),
        2 => {
            let p = 1i128 << rng.random_range(30..63);
            p + rng.random_range(-3..=3)
        }
        3 => i64::MAX as i128 - rng.random_range(0..5),
        4 => i64::MIN as i128 + 1 + rng.random_range(0..5),
        _ => rng.random_range(i64::MIN as i128 + 1..=i64::MAX as i128),
    };
    // A negative literal is unary minus applied to a positive one, as in Python.
    Expr { text: if v < 0 { format!("(-{})", -v) } else { v.to_string() }, value: Ok(v) }
}

/// Python's floor division and modulo, in i128.
fn floor_divmod(a: i128, b: i128) -> (i128, i128) {
    let (q, r) = (a / b, a % b);
    if r != 0 && ((r < 0) != (b < 0)) {
        (q - 1, r + b)
    } else {
        (q, r)
    }
}

fn expr(rng: &mut ChaCha8Rng, depth: u32) -> Expr {
    if depth == 0 || rng.random_bool(0.3) {
        return leaf(rng);
    }
    let a = expr(rng, depth - 1);
    let unary = |text: String, f: &dyn Fn(i128) -> i128| Expr { text, value: a.value.and_then(|x| fits(f(x))) };
    match rng.random_range(0..10) {
        0 => return unary(format!("(-{})", a.text), &|x| -x),
        1 => return unary(format!("abs({})", a.text), &|x| x.abs()),
        2 => {
            let k: u32 = rng.random_range(0..5);
            let value = a.value.and_then(|x| x.checked_pow(k).map_or(Err("OverflowError"), fits));
            let text =
                if rng.random_bool(0.5) { format!("({} ** {k})", a.text) } else { format!("pow({}, {k})", a.text) };
            return Expr { text, value };
        }
        _ => {}
    }
    let b = expr(rng, depth - 1);
    let (sym, f): (&str, fn(i128, i128) -> Result<i128, &'static str>) = match rng.random_range(0..5) {
        0 => ("+", |x, y| fits(x + y)),
        1 => ("-", |x, y| fits(x - y)),
        2 => ("*", |x, y| fits(x * y)),
        3 => ("//", |x, y| if y == 0 { Err("ZeroDivisionError") } else { fits(floor_divmod(x, y).0) }),
        _ => ("%", |x, y| if y == 0 { Err("ZeroDivisionError") } else { fits(floor_divmod(x, y).1) }),
    };
    // Python evaluates the left operand, then the right, then the operation.
    let value = a.value.and_then(|x| b.value.and_then(|y| f(x, y)));
    Expr { text: format!("({} {sym} {})", a.text, b.text), value }
}

#[test]
fn int_arithmetic_is_exact_or_overflow_error() {
    for seed in 0..8u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let exprs: Vec<Expr> = (0..150).map(|_| expr(&mut rng, 3)).collect();
        let mut program = String::new();
        for e in &exprs {
            program.push_str(&format!(
                "try:\n    print({})\nexcept OverflowError as e:\n    print('OverflowError', str(e).startswith('integer overflow: '))\n\
                 except ZeroDivisionError:\n    print('ZeroDivisionError')\n",
                e.text
            ));
        }
        let out = dgl::testing::run_text(&program);
        assert_eq!(out.code, 0, "seed {seed}: {}", out.stderr);
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(lines.len(), exprs.len(), "seed {seed}");
        for (e, line) in exprs.iter().zip(lines) {
            let got = match line {
                "OverflowError True" => Outcome::Error("OverflowError"),
                "ZeroDivisionError" => Outcome::Error("ZeroDivisionError"),
                other => {
                    Outcome::Int(other.parse().unwrap_or_else(|_| panic!("seed {seed}: {} printed {other}", e.text)))
                }
            };
            let want = match e.value {
                Ok(v) => Outcome::Int(v),
                Err(k) => Outcome::Error(k),
            };
            assert_eq!(got, want, "seed {seed}: {}", e.text);
        }
    }
}
