//! The native module `_nprandom_kernels` under stdlib/_nprandom.dgl (`np.random`): NumPy's
//! draws on a generator whose state a NumPy array holds (tensor/nprandom.rs: MT19937 for the
//! legacy functions and `RandomState`, PCG64 for `default_rng`'s `Generator`). Each function
//! takes that state array, draws, and writes the advanced state back into it. The algorithm
//! follows the state's generator, so one kernel serves `RandomState.choice` and
//! `Generator.choice` with NumPy's different recipes (docs/language.md "NumPy's random
//! numbers").

use super::Native;
use crate::error::R;
use crate::runtime::numpy::NdArray;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::nprandom::{int_words, os_entropy, seed_sequence, Mt19937, Pcg64, Rng};
use crate::tensor::{Array, DType};
use crate::{bail, err};
use ndarray::{ArrayD, IxDyn};

/// The module's names and values.
pub(crate) fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(vec![
        ("state", STATE.value()),
        ("floats", FLOATS.value()),
        ("ints", INTS.value()),
        ("shuffle", SHUFFLE.value()),
        ("permutation", PERMUTATION.value()),
        ("choice", CHOICE.value()),
        ("binomial", BINOMIAL.value()),
        ("multinomial", MULTINOMIAL.value()),
        ("dirichlet", DIRICHLET.value()),
        ("get_state", GET_STATE.value()),
        ("set_state", SET_STATE.value()),
    ])
}

/// Runs `f` on the generator whose state `state` holds, then stores the advanced state.
///
/// Errors: TypeError when `state` is not a generator's state array; `f`'s errors.
fn with_rng<T>(state: &Value, f: impl FnOnce(&mut Rng) -> R<T>) -> R<T> {
    let Value::NdArray(n) = state else { bail!(Type, "not a NumPy generator's state: {}", state.type_name()) };
    let words: Vec<i64> = match &*n.data() {
        Array::I64(a) => a.iter().copied().collect(),
        _ => bail!(Type, "not a NumPy generator's state"),
    };
    let mut rng = Rng::decode(&words).ok_or_else(|| err!(Type, "not a NumPy generator's state"))?;
    let out = f(&mut rng);
    let words = rng.encode();
    n.replace(Array::I64(ArrayD::from_shape_vec(IxDyn(&[words.len()]), words).expect("a vector")))?;
    out
}

fn legacy(rng: &Rng) -> bool {
    matches!(rng, Rng::Legacy(_))
}

static STATE: Native = Native::new("state", &["kind", "seed=None"], state);

/// `state(kind, seed=None)`: a new generator's state, `kind` `'legacy'` (MT19937 seeded as
/// `RandomState(seed)`: an int by `init_genrand`, a list of ints by `init_by_array`) or
/// `'pcg64'` (PCG64 through `SeedSequence(seed)`); no seed: 128 bits from the OS.
///
/// Errors: ValueError and TypeError with NumPy's words for a seed out of range or not an int.
fn state(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = STATE.bind(rt, args)?;
    let kind = a.value("kind")?;
    let seed = a.non_none("seed")?;
    let legacy = matches!(&kind, Value::Str(s) if &**s == "legacy");
    let rng = match seed {
        None if legacy => Rng::Legacy(Box::new(Mt19937::from_words(&seed_sequence(&os_entropy(), 624)))),
        None => Rng::Pcg(Pcg64::from_entropy(&os_entropy())),
        Some(seed) if legacy => {
            let words = seed_words(rt, &seed, true)?;
            match (&seed, words.as_slice()) {
                (Value::Int(_) | Value::Bool(_), [w]) => Rng::Legacy(Box::new(Mt19937::from_u32(*w))),
                (Value::NdArray(n), [w]) if n.scalar => Rng::Legacy(Box::new(Mt19937::from_u32(*w))),
                _ => Rng::Legacy(Box::new(Mt19937::from_words(&words))),
            }
        }
        Some(seed) => Rng::Pcg(Pcg64::from_entropy(&seed_words(rt, &seed, false)?)),
    };
    let words = rng.encode();
    Ok(NdArray::array(Array::I64(ArrayD::from_shape_vec(IxDyn(&[words.len()]), words).expect("a vector"))))
}

/// A seed's 32-bit words: for the legacy generator each int (one, or a list's) in 0..2**32;
/// for `SeedSequence` each non-negative int's words, lowest first.
fn seed_words(rt: &mut Interp, seed: &Value, legacy: bool) -> R<Vec<u32>> {
    let ints: Vec<i64> = match seed {
        Value::Int(i) => vec![*i],
        Value::Bool(b) => vec![*b as i64],
        Value::Float(_) if legacy => {
            bail!(Type, "Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'")
        }
        Value::List(_) | Value::Tuple(_) | Value::NdArray(_) => {
            let arr = rt.numpy_array_of(seed)?;
            if arr.dtype().is_float() {
                if legacy {
                    bail!(Type, "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'")
                }
                bail!(Type, "SeedSequence expects int or sequence of ints for entropy not {}", rt.repr_of(seed)?)
            }
            if legacy && arr.ndim() > 1 {
                bail!(Value, "Seed array must be 1-d")
            }
            if legacy && arr.is_empty() {
                bail!(Value, "Seed must be non-empty")
            }
            arr.to_i64_vec()?
        }
        other => bail!(Type, "SeedSequence expects int or sequence of ints for entropy not {}", rt.repr_of(other)?),
    };
    let mut out = vec![];
    for i in ints {
        if legacy {
            if !(0..=u32::MAX as i64).contains(&i) {
                bail!(Value, "Seed must be between 0 and 2**32 - 1")
            }
            out.push(i as u32);
        } else {
            if i < 0 {
                bail!(Value, "expected non-negative integer")
            }
            out.extend(int_words(i as u128));
        }
    }
    Ok(out)
}

/// A `size` argument: `None`, an int or a sequence of ints.
///
/// Errors: ValueError for a negative dimension, TypeError for another value, MemoryError past
/// the allocation budget.
fn size_arg(rt: &mut Interp, size: Option<Value>) -> R<Option<Vec<usize>>> {
    let Some(v) = size else { return Ok(None) };
    let dims = match &v {
        Value::Int(_) | Value::Bool(_) | Value::List(_) | Value::Tuple(_) | Value::Shape(_) => rt.shape_arg(&v)?,
        Value::NdArray(n) if n.data().dtype().is_int() => n.data().to_i64_vec()?,
        other => {
            bail!(Type, "expected a sequence of integers or a single integer, got '{}'", rt.repr_of(other)?)
        }
    };
    if dims.iter().any(|&d| d < 0) {
        bail!(Value, "negative dimensions are not allowed")
    }
    let dims: Vec<usize> = dims.into_iter().map(|d| d as usize).collect();
    crate::tensor::budget::check_shape(&dims)?;
    Ok(Some(dims))
}

/// A float parameter: a Python number, or a float64 array of any shape.
fn float_param(rt: &mut Interp, v: Option<Value>, default: f64) -> R<Array> {
    Ok(match v {
        None => Array::scalar(DType::F64, default),
        Some(Value::Int(i)) => Array::scalar(DType::F64, i as f64),
        Some(Value::Float(f)) => Array::scalar(DType::F64, f),
        Some(v) => rt.numpy_array_of(&v)?.cast(DType::F64),
    })
}

/// A float64 result: a Python float without a size and with scalar parameters (NumPy's), an
/// array otherwise.
fn float_result(shape: &[usize], values: Vec<f64>, scalar: bool) -> Value {
    if scalar {
        return Value::Float(values[0]);
    }
    NdArray::array(Array::F64(ArrayD::from_shape_vec(IxDyn(shape), values).expect("the shape holds the values")))
}

static FLOATS: Native = Native::new("floats", &["state", "kind", "size=None", "a=None", "b=None"], floats);

/// `floats(state, kind, size=None, a=None, b=None)`: float64 draws of `kind` `'random'`
/// (uniform in [0, 1)), `'normal'` (`a + b * z`, loc 0 and scale 1 by default), `'uniform'`
/// (`a + (b - a) * u`, over [0, 1) by default), `'exponential'` (scale `a`),
/// `'standard_exponential'`, `'gamma'` (shape `a`, scale `b`), `'standard_gamma'` (shape `a`),
/// `'beta'` (`a`, `b`), `'lognormal'` (mean `a`, sigma `b`), `'laplace'` and `'logistic'` (loc
/// `a`, scale `b`); int64 draws of `'poisson'` (lam `a`) and `'geometric'` (p `a`), a Python
/// int for one. The parameters broadcast with each other and `size`.
///
/// Errors: ValueError in NumPy's words for a parameter out of range ("scale < 0", "shape < 0",
/// "a <= 0", "lam < 0 or lam is NaN", ...), OverflowError for an infinite uniform
/// range, ValueError when the parameters do not broadcast to `size`.
fn floats(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = FLOATS.bind(rt, args)?;
    let (state, kind) = (a.value("state")?, a.value("kind")?);
    let (size, pa, pb) = (a.non_none("size")?, a.non_none("a")?, a.non_none("b")?);
    let kind = match &kind {
        Value::Str(s) => s.to_string(),
        _ => bail!(Type, "floats(): kind must be a string"),
    };
    let size = size_arg(rt, size)?;
    let (d0, d1) = if kind == "uniform" { (0.0, 1.0) } else { (0.0, 1.0) };
    let (x, y) = (float_param(rt, pa, d0)?, float_param(rt, pb, d1)?);
    let Array::F64(x) = x else { unreachable!("cast to float64") };
    let Array::F64(y) = y else { unreachable!("cast to float64") };
    let both = crate::tensor::shape::broadcast_shapes(x.shape(), y.shape())?;
    let shape = match &size {
        Some(s) => {
            let fits = crate::tensor::shape::broadcast_shapes(&both, s).is_ok_and(|b| &b == s);
            if !fits {
                bail!(
                    Value,
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between the parameters' shape {} and size {}",
                    crate::tensor::shape_str(&both),
                    crate::tensor::shape_str(s)
                )
            }
            s.clone()
        }
        None => both,
    };
    let scalar = size.is_none() && shape.is_empty();
    let sh = IxDyn(&shape);
    let xs: Vec<f64> = x.broadcast(sh.clone()).expect("checked above").iter().copied().collect();
    let ys: Vec<f64> = y.broadcast(sh).expect("checked above").iter().copied().collect();
    let neg = |v: &[f64]| v.iter().any(|&s| s < 0.0);
    let nonpos = |v: &[f64]| v.iter().any(|&s| s <= 0.0);
    match kind.as_str() {
        "normal" | "laplace" | "logistic" if neg(&ys) => bail!(Value, "scale < 0"),
        "uniform" if xs.iter().zip(&ys).any(|(l, h)| !(h - l).is_finite()) => {
            bail!(Overflow, "Range exceeds valid bounds")
        }
        "exponential" if neg(&xs) => bail!(Value, "scale < 0"),
        "gamma" | "standard_gamma" if neg(&xs) => bail!(Value, "shape < 0"),
        "gamma" if neg(&ys) => bail!(Value, "scale < 0"),
        "beta" if nonpos(&xs) => bail!(Value, "a <= 0"),
        "beta" if nonpos(&ys) => bail!(Value, "b <= 0"),
        "lognormal" if neg(&ys) => bail!(Value, "sigma < 0"),
        "poisson" if xs.iter().any(|&l| l.is_nan() || l < 0.0) => bail!(Value, "lam < 0 or lam is NaN"),
        "poisson" if xs.iter().any(|&l| l > 9.223_372_006_484_771e18) => bail!(Value, "lam value too large"),
        "geometric" if xs.iter().any(|&p| p.is_nan() || p <= 0.0 || p > 1.0) => {
            bail!(Value, "p <= 0, p > 1 or p contains NaNs")
        }
        "random" | "normal" | "uniform" | "exponential" | "standard_exponential" | "gamma" | "standard_gamma"
        | "beta" | "lognormal" | "laplace" | "logistic" | "poisson" | "geometric" => {}
        other => bail!(Value, "floats(): unknown kind '{other}'"),
    }
    if kind == "poisson" || kind == "geometric" {
        let values = with_rng(&state, |rng| {
            Ok(xs.iter().map(|&p| if kind == "poisson" { rng.poisson(p) } else { rng.geometric(p) }).collect::<Vec<i64>>())
        })?;
        if scalar {
            return Ok(Value::Int(values[0]));
        }
        let arr = ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values");
        return Ok(NdArray::array(Array::I64(arr)));
    }
    let values = with_rng(&state, |rng| {
        Ok(xs
            .iter()
            .zip(&ys)
            .map(|(&p, &q)| match kind.as_str() {
                "normal" => p + q * rng.normal(),
                "uniform" => p + (q - p) * rng.next_f64(),
                "exponential" => p * rng.std_exp(),
                "standard_exponential" => rng.std_exp(),
                "gamma" => q * rng.gamma(p),
                "standard_gamma" => rng.gamma(p),
                "beta" => rng.beta(p, q),
                "lognormal" => (p + q * rng.normal()).exp(),
                "laplace" => rng.laplace(p, q),
                "logistic" => rng.logistic(p, q),
                _ => rng.next_f64(),
            })
            .collect())
    })?;
    Ok(float_result(&shape, values, scalar))
}

static INTS: Native = Native::new("ints", &["state", "low", "high=None", "size=None", "dtype=None"], ints);

/// `ints(state, low, high=None, size=None, dtype=None)`: uniform ints in [low, high) ([0, low)
/// without `high`): the legacy generator's masked rejection, giving a Python int without a
/// size; `Generator`'s Lemire method, giving an `np.int64` scalar. `dtype` (int64 unless
/// given) is the result's.
///
/// Errors: ValueError "low >= high" or "high <= 0" for an empty range, "high is out of bounds
/// for int64" past int64; TypeError for a bound that is not an int.
fn ints(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = INTS.bind(rt, args)?;
    let state = a.value("state")?;
    let (low, high, size, dtype) = (a.value("low")?, a.non_none("high")?, a.non_none("size")?, a.non_none("dtype")?);
    let bound = |rt: &mut Interp, v: &Value| -> R<i128> {
        match v {
            Value::Int(i) => Ok(*i as i128),
            Value::Bool(b) => Ok(*b as i128),
            Value::NdArray(n) if n.scalar && n.data().dtype().is_int() => Ok(n.data().first_i64()? as i128),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(*f as i128),
            other => bail!(Type, "'{}' object cannot be interpreted as an integer", other.type_name()),
        }
        .map_err(|e: crate::error::Exc| {
            let _ = rt;
            e
        })
    };
    let (lo, hi) = match &high {
        None => {
            let h = bound(rt, &low)?;
            if h <= 0 {
                bail!(Value, "high <= 0")
            }
            (0, h)
        }
        Some(h) => (bound(rt, &low)?, bound(rt, h)?),
    };
    if hi > i64::MAX as i128 + 1 {
        bail!(Value, "high is out of bounds for int64")
    }
    if lo >= hi {
        bail!(Value, "low >= high")
    }
    let python_int = dtype.is_none();
    let dtype = match dtype {
        None => DType::I64,
        Some(d) => rt.dtype_arg(&d)?,
    };
    if !dtype.is_int() {
        bail!(Type, "Unsupported dtype {dtype} for integers")
    }
    let size = size_arg(rt, size)?;
    let shape = size.clone().unwrap_or_default();
    let n: usize = shape.iter().product();
    let max = (hi - lo - 1) as u64;
    let (values, is_legacy) = with_rng(&state, |rng| {
        let l = legacy(rng);
        let draw = |rng: &mut Rng| if l { rng.masked(max) } else { rng.lemire(max) };
        Ok(((0..n).map(|_| (lo + draw(rng) as i128) as i64).collect::<Vec<i64>>(), l))
    })?;
    if size.is_none() && is_legacy && python_int {
        return Ok(Value::Int(values[0]));
    }
    let arr = Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values")).cast(dtype);
    Ok(NdArray::result(arr))
}

static BINOMIAL: Native = Native::new("binomial", &["state", "n", "p", "size=None"], binomial);

/// `binomial(state, n, p, size=None)`: binomial draws of `n` trials (ints; floats truncate)
/// with probability `p`, broadcasting together and with `size`; int64, a Python int without a
/// size and with scalar parameters.
///
/// Errors: ValueError "n < 0", "p < 0, p > 1 or p is NaN", and when the parameters do not
/// broadcast to `size`.
fn binomial(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BINOMIAL.bind(rt, args)?;
    let (state, n, p, size) = (a.value("state")?, a.value("n")?, a.value("p")?, a.non_none("size")?);
    let size = size_arg(rt, size)?;
    let n = float_param(rt, Some(n), 0.0)?;
    let p = float_param(rt, Some(p), 0.0)?;
    let (Array::F64(n), Array::F64(p)) = (n, p) else { unreachable!("cast to float64") };
    let both = crate::tensor::shape::broadcast_shapes(n.shape(), p.shape())?;
    let shape = match &size {
        Some(s) if crate::tensor::shape::broadcast_shapes(&both, s).is_ok_and(|b| &b == s) => s.clone(),
        Some(s) => bail!(
            Value,
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between the parameters' shape {} and size {}",
            crate::tensor::shape_str(&both),
            crate::tensor::shape_str(s)
        ),
        None => both,
    };
    let sh = IxDyn(&shape);
    let ns: Vec<f64> = n.broadcast(sh.clone()).expect("checked above").iter().copied().collect();
    let ps: Vec<f64> = p.broadcast(sh).expect("checked above").iter().copied().collect();
    if ns.iter().any(|&x| x.is_nan() || x < 0.0 || x >= 9.2e18) {
        bail!(Value, "n < 0")
    }
    if ps.iter().any(|&x| !(0.0..=1.0).contains(&x)) {
        bail!(Value, "p < 0, p > 1 or p is NaN")
    }
    let values = with_rng(&state, |rng| {
        Ok(ns.iter().zip(&ps).map(|(&n, &p)| rng.binomial(n as i64, p)).collect::<Vec<i64>>())
    })?;
    if size.is_none() && shape.is_empty() {
        return Ok(Value::Int(values[0]));
    }
    Ok(NdArray::array(Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values"))))
}

/// A 1-d float64 parameter vector (`pvals`, `alpha`).
///
/// Errors: ValueError for another rank.
fn vector_param(rt: &mut Interp, v: &Value, what: &str) -> R<Vec<f64>> {
    let a = rt.numpy_array_of(v)?.cast(DType::F64);
    if a.ndim() != 1 {
        bail!(Value, "{what} must be a one-dimensional array")
    }
    Ok(a.to_f64_vec())
}

/// Draws `draw` once per position of `size` (once without it), each a vector of `k`, laid
/// out as `size + (k,)`.
fn vectors<T: Clone>(
    rt: &mut Interp,
    state: &Value,
    size: Option<Value>,
    k: usize,
    mut draw: impl FnMut(&mut Rng, &mut Vec<T>) -> R<()>,
) -> R<(Vec<usize>, Vec<T>)> {
    let mut shape = size_arg(rt, size)?.unwrap_or_default();
    let count: usize = shape.iter().product();
    shape.push(k);
    crate::tensor::budget::check_shape(&shape)?;
    let mut out = Vec::with_capacity(count * k);
    with_rng(state, |rng| {
        for _ in 0..count {
            draw(rng, &mut out)?;
        }
        Ok(())
    })?;
    Ok((shape, out))
}

static MULTINOMIAL: Native = Native::new("multinomial", &["state", "n", "pvals", "size=None"], multinomial);

/// `multinomial(state, n, pvals, size=None)`: counts of `n` trials over the outcomes of
/// probabilities `pvals`, int64 of shape `size + (len(pvals),)`: NumPy's recipe for both
/// generators (each count a binomial of what is left, with the probability renormalised).
///
/// Errors: ValueError "n < 0", for probabilities outside [0, 1] or NaN, and when
/// `sum(pvals[:-1]) > 1.0`.
fn multinomial(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = MULTINOMIAL.bind(rt, args)?;
    let (state, n, pvals, size) = (a.value("state")?, a.value("n")?, a.value("pvals")?, a.non_none("size")?);
    let n = rt.int_arg(&n, "n")?;
    if n < 0 {
        bail!(Value, "n < 0")
    }
    let p = vector_param(rt, &pvals, "pvals")?;
    if p.iter().any(|&x| !(0.0..=1.0).contains(&x)) {
        bail!(Value, "pvals < 0, pvals > 1 or pvals contains NaNs")
    }
    if p.len() > 1 && p[..p.len() - 1].iter().sum::<f64>() > 1.0 + 1e-12 {
        bail!(Value, "sum(pvals[:-1]) > 1.0")
    }
    let d = p.len();
    let (shape, values) = vectors(rt, &state, size, d, |rng, out| {
        let start = out.len();
        out.resize(start + d, 0i64);
        let (mut left, mut remaining) = (n, 1.0);
        for j in 0..d.saturating_sub(1) {
            let c = rng.binomial(left, (p[j] / remaining).min(1.0));
            out[start + j] = c;
            left -= c;
            if left <= 0 {
                break;
            }
            remaining -= p[j];
        }
        if left > 0 && d > 0 {
            out[start + d - 1] = left;
        }
        Ok(())
    })?;
    Ok(NdArray::array(Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values"))))
}

static DIRICHLET: Native = Native::new("dirichlet", &["state", "alpha", "size=None"], dirichlet);

/// `dirichlet(state, alpha, size=None)`: float64 vectors of shape `size + (len(alpha),)`, each
/// a vector of standard gammas of `alpha` divided by their sum, or for a `Generator` whose
/// alphas are all below 0.1 NumPy's stick-breaking of beta draws (NumPy's recipes, the same
/// numbers from the same seed).
///
/// Errors: ValueError "alpha <= 0" (`Generator`: "alpha < 0") for a bad alpha.
fn dirichlet(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DIRICHLET.bind(rt, args)?;
    let (state, alpha, size) = (a.value("state")?, a.value("alpha")?, a.non_none("size")?);
    let alpha = vector_param(rt, &alpha, "alpha")?;
    let is_legacy = with_rng(&state, |rng| Ok(legacy(rng)))?;
    if is_legacy && alpha.iter().any(|&x| x.is_nan() || x <= 0.0) {
        bail!(Value, "alpha <= 0")
    }
    if !is_legacy && alpha.iter().any(|&x| x.is_nan() || x < 0.0) {
        bail!(Value, "alpha < 0")
    }
    let k = alpha.len();
    if !is_legacy && k > 0 && alpha.iter().all(|&x| x < 0.1) {
        // Every alpha small: gammas of such shapes underflow to 0, so NumPy's Generator breaks
        // a stick instead. Part j is a beta(alpha[j], alpha[j+1] + ... + alpha[k-1]) share
        // of what the parts before it left; once the alphas to the right sum to 0 the rest
        // stays 0.
        let mut rest = vec![0.0; k];
        let mut csum = 0.0;
        for j in (0..k).rev() {
            csum += alpha[j];
            rest[j] = csum;
        }
        let (shape, values) = vectors(rt, &state, size, k, |rng, out| {
            let start = out.len();
            out.resize(start + k, 0.0);
            let mut acc = 1.0;
            for j in 0..k - 1 {
                let v = rng.beta(alpha[j], rest[j + 1]);
                out[start + j] = acc * v;
                acc *= 1.0 - v;
                if rest[j + 1] == 0.0 {
                    break;
                }
            }
            out[start + k - 1] = acc;
            Ok(())
        })?;
        return Ok(NdArray::array(Array::F64(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values"))));
    }
    let (shape, values) = vectors(rt, &state, size, k, |rng, out| {
        let start = out.len();
        let mut acc = 0.0;
        for &x in &alpha {
            let g = rng.gamma(x);
            out.push(g);
            acc += g;
        }
        let inv = 1.0 / acc;
        for v in &mut out[start..] {
            *v *= inv;
        }
        Ok(())
    })?;
    Ok(NdArray::array(Array::F64(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape holds the values"))))
}

static GET_STATE: Native = Native::new("get_state", &["state"], get_state);

/// `get_state(state)`: the legacy generator's state as NumPy's `RandomState.get_state()` gives
/// it: `('MT19937', key, pos, has_gauss, cached_gaussian)`, the 624 key words an int64 array
/// (DGL has no uint32; the values are NumPy's).
///
/// Errors: TypeError for a `Generator`'s state.
fn get_state(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let state = GET_STATE.bind(rt, args)?.value("state")?;
    let st = with_rng(&state, |rng| Ok(rng.mt_state()))?;
    let Some((key, pos, gauss)) = st else { bail!(Type, "get_state() is the legacy RandomState's") };
    let key = Array::I64(ArrayD::from_shape_vec(IxDyn(&[624]), key.iter().map(|&k| k as i64).collect()).expect("a vector"));
    Ok(Value::tuple(vec![
        Value::str("MT19937"),
        NdArray::array(key),
        Value::Int(pos as i64),
        Value::Int(gauss.is_some() as i64),
        Value::Float(gauss.unwrap_or(0.0)),
    ]))
}

static SET_STATE: Native = Native::new("set_state", &["state", "value"], set_state);

/// `set_state(state, value)`: the legacy generator set from a tuple `get_state()` gave (or
/// NumPy's): `('MT19937', key, pos)` with optional `has_gauss` and `cached_gaussian`.
///
/// Errors: ValueError in NumPy's words for another generator's name or a key not of 624 words;
/// TypeError for a value that is not such a tuple.
fn set_state(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SET_STATE.bind(rt, args)?;
    let (state, value) = (a.value("state")?, a.value("value")?);
    let items = match &value {
        Value::Tuple(t) => t.to_vec(),
        Value::List(l) => l.borrow().clone(),
        Value::Dict(_) => bail!(NotImplemented, "set_state of a dict (NumPy's legacy=False form) is not implemented: pass the tuple get_state() gives"),
        other => bail!(Type, "state must be a dict or a tuple, not {}", other.type_name()),
    };
    if !matches!(items.first(), Some(Value::Str(s)) if &**s == "MT19937") {
        bail!(Value, "set_state can only be used with legacy MT19937 state instances.")
    }
    if items.len() != 3 && items.len() != 5 {
        bail!(Value, "state must be a tuple of 3 or 5 items ('MT19937', key, pos[, has_gauss, cached_gaussian])")
    }
    let words = rt.numpy_array_of(&items[1])?;
    if words.ndim() != 1 || words.len() != 624 || !words.dtype().is_int() {
        bail!(Value, "state must be 624 elements")
    }
    let mut key = [0u32; 624];
    for (k, w) in key.iter_mut().zip(words.to_i64_vec()?) {
        *k = w as u32;
    }
    let pos = rt.int_arg(&items[2], "pos")?.clamp(0, 624) as usize;
    let gauss = if items.len() == 5 && rt.truthy(&items[3])? { Some(rt.float_arg(&items[4], "cached_gaussian")?) } else { None };
    with_rng(&state, |rng| {
        *rng = Rng::from_mt_state(key, pos, gauss);
        Ok(())
    })?;
    Ok(Value::None)
}

/// The rows of `x` (a NumPy array or a list) permuted in place by the Fisher–Yates walk NumPy
/// runs: from the last position down, each swapped with a uniform earlier-or-same one.
fn shuffle_rows(rng: &mut Rng, n: usize, mut swap: impl FnMut(usize, usize)) {
    for i in (1..n).rev() {
        let j = rng.interval(i as u64) as usize;
        swap(i, j);
    }
}

/// `a`'s rows (along axis 0) picked by `rows`, laid out in `lead` (then each row's axes).
fn take_rows(a: &Array, rows: &[usize], lead: &[usize]) -> Array {
    let shape = a.shape();
    let row: usize = shape[1..].iter().product();
    let idx: Vec<usize> = rows.iter().flat_map(|&r| (0..row).map(move |j| r * row + j)).collect();
    let mut out = lead.to_vec();
    out.extend_from_slice(&shape[1..]);
    crate::tensor::sorting::take(a, &idx, &out)
}

static SHUFFLE: Native = Native::new("shuffle", &["state", "x"], shuffle);

/// `shuffle(state, x)`: permutes a NumPy array's rows (axis 0) or a list's items in place.
///
/// Errors: TypeError for a value without a length (an int, a 0-d array).
fn shuffle(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SHUFFLE.bind(rt, args)?;
    let (state, x) = (a.value("state")?, a.value("x")?);
    match &x {
        Value::NdArray(n) if !n.scalar && n.data().ndim() > 0 => {
            let rows = n.data().shape()[0];
            let mut perm: Vec<usize> = (0..rows).collect();
            with_rng(&state, |rng| {
                shuffle_rows(rng, rows, |i, j| perm.swap(i, j));
                Ok(())
            })?;
            let out = take_rows(&n.data(), &perm, &[rows]);
            n.replace(out)?;
        }
        Value::List(l) => {
            let rows = l.borrow().len();
            with_rng(&state, |rng| {
                shuffle_rows(rng, rows, |i, j| l.borrow_mut().swap(i, j));
                Ok(())
            })?;
        }
        other => bail!(Type, "object of type '{}' has no len()", other.type_name()),
    }
    Ok(Value::None)
}

static PERMUTATION: Native = Native::new("permutation", &["state", "x"], permutation);

/// `permutation(state, x)`: `x` an int: the ints below it shuffled (int64); else a shuffled
/// copy of the array (its rows).
///
/// Errors: IndexError for a 0-d array, ValueError for a negative int.
fn permutation(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PERMUTATION.bind(rt, args)?;
    let (state, x) = (a.value("state")?, a.value("x")?);
    let arr = match &x {
        Value::Int(n) => {
            if *n < 0 {
                bail!(Value, "negative dimensions are not allowed")
            }
            crate::tensor::budget::check_shape(&[*n as usize])?;
            Array::I64(ArrayD::from_shape_vec(IxDyn(&[*n as usize]), (0..*n).collect()).expect("a vector"))
        }
        other => rt.numpy_array_of(other)?,
    };
    if arr.ndim() == 0 {
        bail!(Index, "x must be an integer or at least 1-dimensional")
    }
    let rows = arr.shape()[0];
    let mut perm: Vec<usize> = (0..rows).collect();
    with_rng(&state, |rng| {
        shuffle_rows(rng, rows, |i, j| perm.swap(i, j));
        Ok(())
    })?;
    Ok(NdArray::array(take_rows(&arr, &perm, &[rows])))
}

static CHOICE: Native = Native::new("choice", &["state", "a", "size=None", "replace: bool = True", "p=None"], choice);

/// `choice(state, a, size=None, replace=True, p=None)`: draws from `range(a)` for an int `a`,
/// else from the rows of the array `a`; with replacement (uniform ints, or the inverse of the
/// cumulative `p` at uniform doubles) or without (the legacy generator: a prefix of a
/// permutation; `Generator`: Floyd's algorithm or a partial shuffle, then a shuffle; with
/// `p`: repeated draws with the taken entries zeroed). Without a size: one item (a Python int
/// for an int `a`).
///
/// Errors: ValueError with NumPy's words for an empty population, a larger sample than the
/// population without replacement, and a `p` that is not a distribution over `a`.
fn choice(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CHOICE.bind(rt, args)?;
    let state = a.value("state")?;
    let (pop, size, replace, p) = (a.value("a")?, a.non_none("size")?, a.bool_or("replace", true)?, a.non_none("p")?);
    let is_legacy = with_rng(&state, |rng| Ok(legacy(rng)))?;
    let (items, pop_size) = match &pop {
        Value::Int(n) => (None, *n),
        other => {
            let arr = rt.numpy_array_of(other)?;
            if arr.ndim() == 0 {
                bail!(Value, "{}", if is_legacy { "a must be 1-dimensional or an integer" } else { "a must be a sequence or an integer, not 0-d array" })
            }
            if is_legacy && arr.ndim() != 1 {
                bail!(Value, "a must be 1-dimensional")
            }
            let n = arr.shape()[0] as i64;
            (Some(arr), n)
        }
    };
    let size = size_arg(rt, size)?;
    let count: usize = size.as_ref().map_or(1, |s| s.iter().product());
    if pop_size <= 0 && count != 0 {
        bail!(
            Value,
            "{}",
            match (&items, is_legacy) {
                (None, true) => "a must be greater than 0 unless no samples are taken",
                (None, false) => "a must be a positive integer unless no samples are taken",
                (Some(_), _) => "'a' cannot be empty unless no samples are taken",
            }
        )
    }
    let n = pop_size.max(0) as usize;
    let p = match p {
        None => None,
        Some(p) => {
            let arr = rt.numpy_array_of(&p)?.cast(DType::F64);
            if arr.ndim() != 1 {
                bail!(Value, "'p' must be 1-dimensional")
            }
            let ps = arr.to_f64_vec();
            if ps.len() != n {
                bail!(Value, "'a' and 'p' must have same size")
            }
            // Kahan's compensated sum, as NumPy checks it.
            let (mut sum, mut c) = (0.0f64, 0.0f64);
            for &x in &ps {
                let y = x - c;
                let t = sum + y;
                c = (t - sum) - y;
                sum = t;
            }
            if sum.is_nan() {
                bail!(Value, "{}", if is_legacy { "probabilities contain NaN" } else { "Probabilities contain NaN" })
            }
            if ps.iter().any(|&x| x < 0.0) {
                bail!(Value, "{}", if is_legacy { "probabilities are not non-negative" } else { "Probabilities are not non-negative" })
            }
            if (sum - 1.0).abs() > f64::EPSILON.sqrt() {
                bail!(
                    Value,
                    "{}",
                    if is_legacy {
                        "probabilities do not sum to 1"
                    } else {
                        "Probabilities do not sum to 1. See Notes section of docstring for more information."
                    }
                )
            }
            Some(ps)
        }
    };
    if !replace && count > n {
        bail!(
            Value,
            "{}",
            if is_legacy {
                "Cannot take a larger sample than population when 'replace=False'"
            } else {
                "Cannot take a larger sample than population when replace is False"
            }
        )
    }
    if let (false, Some(ps)) = (replace, &p) {
        if ps.iter().filter(|&&x| x > 0.0).count() < count {
            bail!(Value, "Fewer non-zero entries in p than size")
        }
    }
    if !replace && p.is_none() && (is_legacy || (n > 10_000 && count > n / 50)) {
        // These recipes hold the whole population (a permutation, a partial shuffle).
        crate::tensor::budget::check_shape(&[n])?;
    }
    let idx: Vec<usize> = with_rng(&state, |rng| {
        Ok(match (&p, replace) {
            (Some(ps), true) => {
                let cdf = cdf_of(ps);
                (0..count).map(|_| search_right(&cdf, rng.next_f64())).collect()
            }
            (None, true) => {
                let max = n.saturating_sub(1) as u64;
                (0..count).map(|_| if is_legacy { rng.masked(max) } else { rng.lemire(max) } as usize).collect()
            }
            (Some(ps), false) => without_replacement_p(rng, ps, count),
            (None, false) if is_legacy => {
                let mut perm: Vec<usize> = (0..n).collect();
                shuffle_rows(rng, n, |i, j| perm.swap(i, j));
                perm.truncate(count);
                perm
            }
            (None, false) => floyd_or_tail(rng, n, count),
        })
    })?;
    let shape = size.clone().unwrap_or_default();
    match items {
        None if size.is_none() => Ok(Value::Int(idx[0] as i64)),
        None => {
            let v: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
            Ok(NdArray::array(Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), v).expect("the shape holds the values"))))
        }
        Some(arr) => {
            let out = take_rows(&arr, &idx, &shape);
            Ok(NdArray::result(out))
        }
    }
}

/// The cumulative sum of `p` (left to right), divided by its last entry.
fn cdf_of(p: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    let mut cdf: Vec<f64> = p
        .iter()
        .map(|&x| {
            acc += x;
            acc
        })
        .collect();
    let last = *cdf.last().unwrap_or(&1.0);
    for c in &mut cdf {
        *c /= last;
    }
    cdf
}

/// The first index whose entry is above `u` (`searchsorted(..., side='right')`).
fn search_right(cdf: &[f64], u: f64) -> usize {
    cdf.partition_point(|&c| c <= u)
}

/// `count` distinct indices drawn with weights `p`: rounds of draws, each round's new
/// distinct indices (in order of index) kept and their weights zeroed, as NumPy does.
fn without_replacement_p(rng: &mut Rng, p: &[f64], count: usize) -> Vec<usize> {
    let mut p = p.to_vec();
    let mut found: Vec<usize> = Vec::with_capacity(count);
    while found.len() < count {
        let need = count - found.len();
        let xs: Vec<f64> = (0..need).map(|_| rng.next_f64()).collect();
        for &f in &found {
            p[f] = 0.0;
        }
        let cdf = cdf_of(&p);
        let new: Vec<usize> = xs.iter().map(|&u| search_right(&cdf, u)).collect();
        // Each distinct value once, at its first place, in order of first place.
        let mut firsts: Vec<(usize, usize)> = vec![];
        let mut sorted: Vec<(usize, usize)> = new.iter().copied().enumerate().map(|(i, v)| (v, i)).collect();
        sorted.sort();
        for (k, &(v, i)) in sorted.iter().enumerate() {
            if k == 0 || sorted[k - 1].0 != v {
                firsts.push((i, v));
            }
        }
        firsts.sort();
        found.extend(firsts.into_iter().map(|(_, v)| v));
    }
    found
}

/// `Generator.choice` without replacement or weights: a partial shuffle of `0..n` for a large
/// sample of a large population, else Floyd's algorithm; then the sample shuffled (both by
/// Lemire-bounded draws).
fn floyd_or_tail(rng: &mut Rng, n: usize, k: usize) -> Vec<usize> {
    if n > 10_000 && k > n / 50 {
        let mut all: Vec<usize> = (0..n).collect();
        let first = (n - k).max(1);
        for i in (first..n).rev() {
            let j = rng.lemire(i as u64) as usize;
            all.swap(i, j);
        }
        return all[n - k..].to_vec();
    }
    let mut out: Vec<usize> = Vec::with_capacity(k);
    let mut seen = rustc_hash::FxHashSet::default();
    for j in n - k..n {
        let t = rng.lemire(j as u64) as usize;
        let v = if seen.contains(&t) { j } else { t };
        seen.insert(v);
        out.push(v);
    }
    for i in (1..k).rev() {
        let j = rng.lemire(i as u64) as usize;
        out.swap(i, j);
    }
    out
}
