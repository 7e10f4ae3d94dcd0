//! `import random`: Python's `random` functions on a generator of their own,
//! separate from the tensor RNG (`set_seed`, `random_normal`): drawing here never
//! changes the tensors a seeded script makes, and the other way round.
//!
//! `random.seed(n)` makes every later draw the same on every run. The numbers are
//! not CPython's (DGL uses ChaCha8, not the Mersenne Twister), so a script ported
//! from Python draws different values under the same seed. Unseeded, the
//! generator starts from the clock.

use crate::bail;
use crate::builtins::{Native, Signature, NO_ARGS};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::{Array, Tensor};
use ndarray::{ArrayD, IxDyn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let fns = FNS;
    Ok(fns.iter().map(|b| (b.name, b.value())).collect())
}

/// The module's functions.
pub const FNS: &[&Native] =
    &[&SEED, &RANDOM, &UNIFORM, &RANDINT, &RANDRANGE, &CHOICE, &SHUFFLE, &SAMPLE, &GAUSS, &NORMALVARIATE];

/// Notes a draw for `dgl export` (the exported script replays it: src/export/record.rs),
/// as a float64 scalar; returns it.
fn noted(rt: &mut Interp, op: &'static str, v: f64) -> f64 {
    if rt.observed() {
        rt.drawn(op, Tensor::new(Array::F64(ArrayD::from_elem(IxDyn(&[]), v))));
    }
    v
}

/// Notes integer draws for `dgl export`: a scalar when `scalar`, else a vector.
fn noted_ints(rt: &mut Interp, op: &'static str, v: &[i64], scalar: bool) {
    if rt.observed() {
        let shape = if scalar { vec![] } else { vec![v.len()] };
        let a = ArrayD::from_shape_vec(IxDyn(&shape), v.to_vec()).expect("the shape holds the values");
        rt.drawn(op, Tensor::new(Array::I64(a)));
    }
}

/// The module's generator, seeded from the clock on first use.
fn rng(rt: &mut Interp) -> &mut ChaCha8Rng {
    rt.py_rng.get_or_insert_with(|| {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        ChaCha8Rng::seed_from_u64(nanos ^ std::process::id() as u64)
    })
}

/// A float in [0, 1) with 53 random bits.
fn unit(rt: &mut Interp) -> f64 {
    (rng(rt).random::<u64>() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

static SEED: Native = Native::new("seed", &["a=None"], seed);

/// `random.seed(a=None)`: restarts the generator from `a` (an int, float, str or
/// None for the clock); the same seed gives the same draws on every run.
fn seed(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let a = SEED.bind(rt, args)?.non_none("a")?;
    let s = match a {
        None => {
            rt.py_rng = None;
            rng(rt);
            return Ok(Value::None);
        }
        Some(Value::Int(i)) => i as u64,
        Some(Value::Bool(b)) => b as u64,
        Some(Value::Float(f)) => f.to_bits(),
        // FNV-1a of the text: stable across runs and platforms.
        Some(Value::Str(s)) => {
            s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
        }
        Some(other) => {
            bail!(Type, "The only supported seed types are: None, int, float, str, not {}", other.type_name())
        }
    };
    rt.py_rng = Some(ChaCha8Rng::seed_from_u64(s));
    Ok(Value::None)
}

static RANDOM: Native = Native::with("random", NO_ARGS, random);

/// `random.random()`: a float in [0, 1).
fn random(rt: &mut Interp, args: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, args)?;
    let u = unit(rt);
    Ok(Value::Float(noted(rt, "random.random", u)))
}

static UNIFORM: Native = Native::new("uniform", &["a: float", "b: float"], uniform);

/// `random.uniform(a, b)`: `a + (b - a) * random()`, a float between a and b.
fn uniform(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut s = UNIFORM.bind(rt, args)?;
    let (a, b) = (s.float("a")?, s.float("b")?);
    let v = a + (b - a) * unit(rt);
    Ok(Value::Float(noted(rt, "random.uniform", v)))
}

/// An int argument; a float is a TypeError as in CPython 3.11's randrange.
fn int_of(v: &Value) -> R<i64> {
    // Python's __index__: a scalar int tensor counts (as a TF tensor does), a Variable not.
    match crate::runtime::convert::int_of(v, crate::runtime::convert::IntUse::Index) {
        Some(i) => i,
        None => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
    }
}

/// A uniform element of range(start, stop, step). Errors: ValueError for an empty range.
fn draw_range(rt: &mut Interp, start: i64, stop: i64, step: i64) -> R<i64> {
    if step == 0 {
        bail!(Value, "zero step for randrange()");
    }
    let n = crate::runtime::index::range_len(start, stop, step) as u64;
    if n == 0 {
        bail!(Value, "empty range for randrange() ({start}, {stop}, {step})");
    }
    let k = rng(rt).random_range(0..n);
    Ok((start as i128 + k as i128 * step as i128) as i64)
}

static RANDINT: Native = Native::new("randint", &["a", "b"], randint);

/// `random.randint(a, b)`: an int in [a, b], both ends included.
fn randint(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut s = RANDINT.bind(rt, args)?;
    let (a, b) = (int_of(&s.value("a")?)?, int_of(&s.value("b")?)?);
    if b < a {
        bail!(Value, "empty range for randrange() ({a}, {}, {})", b as i128 + 1, b as i128 + 1 - a as i128);
    }
    let v = if a == i64::MIN && b == i64::MAX { rng(rt).random::<i64>() } else { rng(rt).random_range(a..=b) };
    noted_ints(rt, "random.randint", &[v], true);
    Ok(Value::Int(v))
}

static RANDRANGE: Native = Native::new("randrange", &["start", "stop=None", "step=1"], randrange);

/// `random.randrange(stop)` or `random.randrange(start, stop, step=1)`.
fn randrange(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut s = RANDRANGE.bind(rt, args)?;
    let (a, b, c) = (s.value("start")?, s.non_none("stop")?, s.opt("step")?);
    let a = int_of(&a)?;
    let (start, stop) = match b {
        Some(b) => (a, int_of(&b)?),
        None if a <= 0 => bail!(Value, "empty range for randrange()"),
        None => (0, a),
    };
    let step = match c {
        Some(c) => int_of(&c)?,
        None => 1,
    };
    if step == 1 && start >= stop {
        bail!(Value, "empty range for randrange() ({start}, {stop}, {})", stop as i128 - start as i128);
    }
    let v = draw_range(rt, start, stop, step)?;
    noted_ints(rt, "random.randrange", &[v], true);
    Ok(Value::Int(v))
}

static CHOICE: Native = Native::new("choice", &["seq"], choice);

/// `random.choice(seq)`: one element. Errors: IndexError "Cannot choose from an empty sequence".
fn choice(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let seq = CHOICE.bind(rt, args)?.value("seq")?;
    let items = rt.iterate(&seq)?;
    if items.is_empty() {
        bail!(Index, "Cannot choose from an empty sequence");
    }
    let i = rng(rt).random_range(0..items.len());
    noted_ints(rt, "random.choice", &[i as i64], true);
    Ok(items[i].clone())
}

static SHUFFLE: Native = Native::new("shuffle", &["x"], shuffle);

/// `random.shuffle(x)`: shuffles the list in place (Fisher–Yates); returns None.
fn shuffle(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let Value::List(l) = SHUFFLE.bind(rt, args)?.value("x")? else {
        bail!(Type, "shuffle() needs a list (it shuffles in place)")
    };
    let n = l.borrow().len();
    // Where each element came from, for `dgl export`.
    let mut from: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        let j = rng(rt).random_range(0..=i);
        l.borrow_mut().swap(i, j);
        from.swap(i, j);
    }
    noted_ints(rt, "random.shuffle", &from, false);
    Ok(Value::None)
}

static SAMPLE: Native = Native::new("sample", &["population", "k"], sample);

/// `random.sample(population, k)`: k distinct elements, in selection order.
///
/// Errors: ValueError "Sample larger than population or is negative".
fn sample(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut s = SAMPLE.bind(rt, args)?;
    let (pop, k) = (s.value("population")?, int_of(&s.value("k")?)?);
    let mut items = rt.iterate(&pop)?;
    if k < 0 || k as usize > items.len() {
        bail!(Value, "Sample larger than population or is negative");
    }
    // A partial Fisher–Yates: position i takes a uniform pick of the rest.
    let mut from: Vec<i64> = (0..items.len() as i64).collect();
    for i in 0..k as usize {
        let j = rng(rt).random_range(i..items.len());
        items.swap(i, j);
        from.swap(i, j);
    }
    items.truncate(k as usize);
    noted_ints(rt, "random.sample", &from[..k as usize], false);
    Ok(Value::list(items))
}

const GAUSS_SIG: Signature = Signature::new(&["mu: float = 0.0", "sigma: float = 1.0"]);
static GAUSS: Native = Native::with("gauss", GAUSS_SIG, gauss);
static NORMALVARIATE: Native = Native::with("normalvariate", GAUSS_SIG, gauss);

/// `random.gauss(mu=0.0, sigma=1.0)` (and `normalvariate`): a normal draw, by the
/// Box–Muller transform of two uniform draws.
fn gauss(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut s = GAUSS_SIG.bind(rt, args)?;
    let (mu, sigma) = (s.float_or("mu", 0.0)?, s.float_or("sigma", 1.0)?);
    let u1 = 1.0 - unit(rt); // in (0, 1], so the log is finite
    let u2 = unit(rt);
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    Ok(Value::Float(noted(rt, "random.gauss", mu + sigma * z)))
}
