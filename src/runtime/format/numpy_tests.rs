//! NumPy's own text for each case, produced by NumPy 2.4 (`str(a)`, `repr(a)`, and the str
//! and repr of `a.flat[0]`), against [`super`]'s.

use super::*;
use ndarray::{ArrayD, IxDyn};

/// An array of `dtype` (`f64`, `f32`, `i64`, `b`) and `shape` from space-separated values,
/// or from `@k`: element i is `i * k` (ints: `i`, bools: `i % 2`), as NumPy's was made.
fn build(dtype: &str, shape: &[usize], values: &str) -> Array {
    let n: usize = shape.iter().product();
    let texts: Vec<String> = match values.strip_prefix('@') {
        Some(k) => {
            let k: f64 = k.parse().unwrap();
            (0..n)
                .map(|i| if dtype == "f64" || dtype == "f32" { (i as f64 * k).to_string() } else { i.to_string() })
                .collect()
        }
        None => values.split_whitespace().map(String::from).collect(),
    };
    let sh = IxDyn(shape);
    match dtype {
        "f64" => Array::F64(ArrayD::from_shape_vec(sh, texts.iter().map(|t| t.parse().unwrap()).collect()).unwrap()),
        "f32" => Array::F32(
            ArrayD::from_shape_vec(sh, texts.iter().map(|t| t.parse::<f64>().unwrap() as f32).collect()).unwrap(),
        ),
        "i64" => Array::I64(ArrayD::from_shape_vec(sh, texts.iter().map(|t| t.parse().unwrap()).collect()).unwrap()),
        _ => Array::Bool(
            ArrayD::from_shape_vec(sh, texts.iter().map(|t| t.parse::<i64>().unwrap() % 2 == 1).collect()).unwrap(),
        ),
    }
}

/// (dtype, shape, values, str, repr, scalar str, scalar repr of the first element).
type Case = (&'static str, &'static [usize], &'static str, &'static str, &'static str, &'static str, &'static str);

/// Each dtype at ranks 0–4; empty arrays; wrapping past 75 columns; summarised 2000-element
/// and (50, 50) arrays; scientific notation; nan, inf, -0.; mixed widths; bools.
const CASES: &[Case] = &[
    ("f64", &[], "1.5", "1.5", "array(1.5)", "1.5", "np.float64(1.5)"),
    ("f32", &[], "3.0", "3.0", "array(3., dtype=float32)", "3.0", "np.float32(3.0)"),
    ("i64", &[], "7", "7", "array(7)", "7", "np.int64(7)"),
    ("b", &[], "1", "True", "array(True)", "True", "np.True_"),
    ("f64", &[2], "1.0 2.0", "[1. 2.]", "array([1., 2.])", "1.0", "np.float64(1.0)"),
    ("f32", &[2], "1.0 2.5", "[1.  2.5]", "array([1. , 2.5], dtype=float32)", "1.0", "np.float32(1.0)"),
    ("f64", &[3], "1.5 2.25 -3.0", "[ 1.5   2.25 -3.  ]", "array([ 1.5 ,  2.25, -3.  ])", "1.5", "np.float64(1.5)"),
    ("i64", &[2, 2], "1 2 3 4", "[[1 2]\n [3 4]]", "array([[1, 2],\n       [3, 4]])", "1", "np.int64(1)"),
    ("i64", &[3], "-5 10 200", "[ -5  10 200]", "array([ -5,  10, 200])", "-5", "np.int64(-5)"),
    ("b", &[2], "1 0", "[ True False]", "array([ True, False])", "True", "np.True_"),
    ("b", &[2], "1 1", "[ True  True]", "array([ True,  True])", "True", "np.True_"),
    ("f64", &[2, 2, 2], "1 2 3 4 5 6 7 8", "[[[1. 2.]\n  [3. 4.]]\n\n [[5. 6.]\n  [7. 8.]]]", "array([[[1., 2.],\n        [3., 4.]],\n\n       [[5., 6.],\n        [7., 8.]]])", "1.0", "np.float64(1.0)"),
    ("f32", &[2, 1, 2, 1], "0.1 0.2 0.3 0.4", "[[[[0.1]\n   [0.2]]]\n\n\n [[[0.3]\n   [0.4]]]]", "array([[[[0.1],\n         [0.2]]],\n\n\n       [[[0.3],\n         [0.4]]]], dtype=float32)", "0.1", "np.float32(0.1)"),
    ("f64", &[0], "", "[]", "array([], dtype=float64)", "", ""),
    ("f32", &[0], "", "[]", "array([], dtype=float32)", "", ""),
    ("f64", &[0, 3], "", "[]", "array([], shape=(0, 3), dtype=float64)", "", ""),
    ("i64", &[2, 0], "", "[]", "array([], shape=(2, 0), dtype=int64)", "", ""),
    ("f64", &[30], "@1.125", "[ 0.     1.125  2.25   3.375  4.5    5.625  6.75   7.875  9.    10.125\n 11.25  12.375 13.5   14.625 15.75  16.875 18.    19.125 20.25  21.375\n 22.5   23.625 24.75  25.875 27.    28.125 29.25  30.375 31.5   32.625]", "array([ 0.   ,  1.125,  2.25 ,  3.375,  4.5  ,  5.625,  6.75 ,  7.875,\n        9.   , 10.125, 11.25 , 12.375, 13.5  , 14.625, 15.75 , 16.875,\n       18.   , 19.125, 20.25 , 21.375, 22.5  , 23.625, 24.75 , 25.875,\n       27.   , 28.125, 29.25 , 30.375, 31.5  , 32.625])", "0.0", "np.float64(0.0)"),
    ("f32", &[3, 20], "@0.14285714285714285", "[[0.         0.14285715 0.2857143  0.42857143 0.5714286  0.71428573\n  0.85714287 1.         1.1428572  1.2857143  1.4285715  1.5714285\n  1.7142857  1.8571428  2.         2.142857   2.2857144  2.4285715\n  2.5714285  2.7142856 ]\n [2.857143   3.         3.142857   3.2857144  3.4285715  3.5714285\n  3.7142856  3.857143   4.         4.142857   4.285714   4.428571\n  4.571429   4.714286   4.857143   5.         5.142857   5.285714\n  5.428571   5.571429  ]\n [5.714286   5.857143   6.         6.142857   6.285714   6.428571\n  6.571429   6.714286   6.857143   7.         7.142857   7.285714\n  7.428571   7.571429   7.714286   7.857143   8.         8.142858\n  8.285714   8.428572  ]]", "array([[0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n        0.71428573, 0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n        1.4285715 , 1.5714285 , 1.7142857 , 1.8571428 , 2.        ,\n        2.142857  , 2.2857144 , 2.4285715 , 2.5714285 , 2.7142856 ],\n       [2.857143  , 3.        , 3.142857  , 3.2857144 , 3.4285715 ,\n        3.5714285 , 3.7142856 , 3.857143  , 4.        , 4.142857  ,\n        4.285714  , 4.428571  , 4.571429  , 4.714286  , 4.857143  ,\n        5.        , 5.142857  , 5.285714  , 5.428571  , 5.571429  ],\n       [5.714286  , 5.857143  , 6.        , 6.142857  , 6.285714  ,\n        6.428571  , 6.571429  , 6.714286  , 6.857143  , 7.        ,\n        7.142857  , 7.285714  , 7.428571  , 7.571429  , 7.714286  ,\n        7.857143  , 8.        , 8.142858  , 8.285714  , 8.428572  ]],\n      dtype=float32)", "0.0", "np.float32(0.0)"),
    ("i64", &[2000], "@1", "[   0    1    2 ... 1997 1998 1999]", "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))", "0", "np.int64(0)"),
    ("f64", &[50, 50], "@0.5", "[[0.0000e+00 5.0000e-01 1.0000e+00 ... 2.3500e+01 2.4000e+01 2.4500e+01]\n [2.5000e+01 2.5500e+01 2.6000e+01 ... 4.8500e+01 4.9000e+01 4.9500e+01]\n [5.0000e+01 5.0500e+01 5.1000e+01 ... 7.3500e+01 7.4000e+01 7.4500e+01]\n ...\n [1.1750e+03 1.1755e+03 1.1760e+03 ... 1.1985e+03 1.1990e+03 1.1995e+03]\n [1.2000e+03 1.2005e+03 1.2010e+03 ... 1.2235e+03 1.2240e+03 1.2245e+03]\n [1.2250e+03 1.2255e+03 1.2260e+03 ... 1.2485e+03 1.2490e+03 1.2495e+03]]", "array([[0.0000e+00, 5.0000e-01, 1.0000e+00, ..., 2.3500e+01, 2.4000e+01,\n        2.4500e+01],\n       [2.5000e+01, 2.5500e+01, 2.6000e+01, ..., 4.8500e+01, 4.9000e+01,\n        4.9500e+01],\n       [5.0000e+01, 5.0500e+01, 5.1000e+01, ..., 7.3500e+01, 7.4000e+01,\n        7.4500e+01],\n       ...,\n       [1.1750e+03, 1.1755e+03, 1.1760e+03, ..., 1.1985e+03, 1.1990e+03,\n        1.1995e+03],\n       [1.2000e+03, 1.2005e+03, 1.2010e+03, ..., 1.2235e+03, 1.2240e+03,\n        1.2245e+03],\n       [1.2250e+03, 1.2255e+03, 1.2260e+03, ..., 1.2485e+03, 1.2490e+03,\n        1.2495e+03]], shape=(50, 50))", "0.0", "np.float64(0.0)"),
    ("b", &[40], "@1", "[False  True False  True False  True False  True False  True False  True\n False  True False  True False  True False  True False  True False  True\n False  True False  True False  True False  True False  True False  True\n False  True False  True]", "array([False,  True, False,  True, False,  True, False,  True, False,\n        True, False,  True, False,  True, False,  True, False,  True,\n       False,  True, False,  True, False,  True, False,  True, False,\n        True, False,  True, False,  True, False,  True, False,  True,\n       False,  True, False,  True])", "False", "np.False_"),
    ("f32", &[2000], "@0.001", "[0.000e+00 1.000e-03 2.000e-03 ... 1.997e+00 1.998e+00 1.999e+00]", "array([0.000e+00, 1.000e-03, 2.000e-03, ..., 1.997e+00, 1.998e+00,\n       1.999e+00], shape=(2000,), dtype=float32)", "0.0", "np.float32(0.0)"),
    ("f64", &[3], "1e-05 1.0 12345678900.0", "[1.00000000e-05 1.00000000e+00 1.23456789e+10]", "array([1.00000000e-05, 1.00000000e+00, 1.23456789e+10])", "1e-05", "np.float64(1e-05)"),
    ("f32", &[2], "1e-05 1.0", "[1.e-05 1.e+00]", "array([1.e-05, 1.e+00], dtype=float32)", "1e-05", "np.float32(1e-05)"),
    ("f64", &[2], "1e-100 1.0", "[1.e-100 1.e+000]", "array([1.e-100, 1.e+000])", "1e-100", "np.float64(1e-100)"),
    ("f64", &[5], "nan inf -inf -0.0 1.5", "[ nan  inf -inf -0.   1.5]", "array([ nan,  inf, -inf, -0. ,  1.5])", "nan", "np.float64(nan)"),
    ("f64", &[3], "nan inf -inf", "[ nan  inf -inf]", "array([ nan,  inf, -inf])", "nan", "np.float64(nan)"),
    ("f32", &[2], "-0.0 0.0", "[-0.  0.]", "array([-0.,  0.], dtype=float32)", "-0.0", "np.float32(-0.0)"),
    ("f64", &[2], "1e-05 nan", "[1.e-05    nan]", "array([1.e-05,    nan])", "1e-05", "np.float64(1e-05)"),
    ("f32", &[], "0.6931472", "0.6931472", "array(0.6931472, dtype=float32)", "0.6931472", "np.float32(0.6931472)"),
    ("f64", &[], "0.1", "0.1", "array(0.1)", "0.1", "np.float64(0.1)"),
    ("f64", &[], "1e+20", "1e+20", "array(1.e+20)", "1e+20", "np.float64(1e+20)"),
    ("f32", &[], "1e-05", "1e-05", "array(1.e-05, dtype=float32)", "1e-05", "np.float32(1e-05)"),
    ("f64", &[], "nan", "nan", "array(nan)", "nan", "np.float64(nan)"),
    ("f64", &[], "-0.0", "-0.0", "array(-0.)", "-0.0", "np.float64(-0.0)"),
    ("b", &[], "0", "False", "array(False)", "False", "np.False_"),
    ("f32", &[1], "2097152.25", "[2.0971522e+06]", "array([2.0971522e+06], dtype=float32)", "2.0971522e+06", "np.float32(2.0971522e+06)"),
    ("f64", &[2], "0.001953125 1.0", "[0.00195312 1.        ]", "array([0.00195312, 1.        ])", "0.001953125", "np.float64(0.001953125)"),
    ("f32", &[2], "1000000.0 1.0", "[1.e+06 1.e+00]", "array([1.e+06, 1.e+00], dtype=float32)", "1e+06", "np.float32(1e+06)"),
    ("f32", &[2], "999999.0 1.0", "[9.99999e+05 1.00000e+00]", "array([9.99999e+05, 1.00000e+00], dtype=float32)", "999999.0", "np.float32(999999.0)"),
    ("f64", &[2], "100000000.0 1.0", "[1.e+08 1.e+00]", "array([1.e+08, 1.e+00])", "100000000.0", "np.float64(100000000.0)"),
    ("f64", &[2], "0.0001 0.1", "[0.0001 0.1   ]", "array([0.0001, 0.1   ])", "0.0001", "np.float64(0.0001)"),
    ("f32", &[2], "0.0001 0.1", "[1.e-04 1.e-01]", "array([1.e-04, 1.e-01], dtype=float32)", "1e-04", "np.float32(1e-04)"),
    ("i64", &[3], "-9223372036854775808 0 9223372036854775807", "[-9223372036854775808                    0  9223372036854775807]", "array([-9223372036854775808,                    0,  9223372036854775807])", "-9223372036854775808", "np.int64(-9223372036854775808)"),
    ("f64", &[], "1e-05", "1e-05", "array(1.e-05)", "1e-05", "np.float64(1e-05)"),
];

/// Every mismatch between `cases` and what `texts` gives for each (str, repr, scalar str,
/// scalar repr; the scalar ones are empty for an empty array).
fn check(cases: &[Case], texts: impl Fn(&str, &[usize], &str) -> Vec<String>) {
    let mut failures = Vec::new();
    for &(dtype, shape, values, str_, repr, scalar_str, scalar_repr) in cases {
        let got = texts(dtype, shape, values);
        for (g, w) in got.iter().zip([str_, repr, scalar_str, scalar_repr]) {
            if g != w {
                failures.push(format!("{dtype} {shape:?} {values:.60}:\n  numpy: {w:?}\n  ours:  {g:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// The four texts of an [`Array`] through the module's API.
fn array_texts(a: &Array) -> Vec<String> {
    let mut texts = vec![numpy_str(a), numpy_repr(a)];
    if a.is_empty() {
        texts.extend([String::new(), String::new()]);
    } else {
        texts.extend([numpy_scalar_str(a), numpy_scalar_repr(a)]);
    }
    texts
}

#[test]
fn prints_as_numpy_does() {
    check(CASES, |dtype, shape, values| array_texts(&build(dtype, shape, values)));
}

/// A view of `dtype` (any NumPy name: `float16`, `uint8`, …) and `shape` from the values
/// NumPy wrote (Python's repr of each as a float, ints as ints, bools as 0/1): for dtypes
/// that have no [`Array`] variant yet.
fn view<'a>(dtype: &'a str, shape: &[usize], values: &str) -> View<'a> {
    let kind = Kind::of(dtype, dtype.starts_with("float"));
    let elems: Vec<Elem> = values
        .split_whitespace()
        .map(|t| match kind {
            Kind::Float(_) => Elem::Float(t.parse().unwrap()),
            Kind::Int => Elem::Int(t.parse().unwrap()),
            Kind::Bool => Elem::Bool(t == "1"),
        })
        .collect();
    let summarised = elems.len() > THRESHOLD;
    let elems = if summarised { corner_elems(shape, &elems) } else { elems };
    View { dtype, kind, shape: shape.to_vec(), summarised, elems }
}

/// The elements of a summarised array `View::of` keeps, picked from all of them by index.
fn corner_elems(shape: &[usize], elems: &[Elem]) -> Vec<Elem> {
    let mut out = Vec::new();
    let mut index = vec![0usize; shape.len()];
    for e in elems {
        if index.iter().zip(shape).all(|(&i, &n)| n <= 2 * EDGE_ITEMS || i < EDGE_ITEMS || i >= n - EDGE_ITEMS) {
            out.push(*e);
        }
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out
}

/// The texts of [`view`]'s array: str, repr, and the str and repr of its first element.
fn view_texts(v: &View) -> Vec<String> {
    let mut texts = vec![str_text(v), repr_text(v)];
    match v.elems.first() {
        Some(&e) => texts.extend([scalar_str(v.kind, e), scalar_repr(v.dtype, v.kind, e)]),
        None => texts.extend([String::new(), String::new()]),
    }
    texts
}

/// (dtype by NumPy's name, shape, values, str, repr, scalar str, scalar repr): what the
/// generated check found (a float32's scientific digits past its shortest are its own, a
/// float16 at a power of two reads back from above, a float32 scalar goes scientific from
/// 1e6), a float64 tie between two shortest texts, and dtypes with no [`Array`] variant yet.
const VIEW_CASES: &[Case] = &[
    ("float32", &[7, 1], "1.0349637813433787e-10 1.5290659121092176e-06 1.3657120234711329e-06 0.003444890258833766 0.00284277880564332 0.008583508431911469 18.318649291992188", "[[1.0349638e-10]\n [1.5290659e-06]\n [1.3657120e-06]\n [3.4448903e-03]\n [2.8427788e-03]\n [8.5835084e-03]\n [1.8318649e+01]]", "array([[1.0349638e-10],\n       [1.5290659e-06],\n       [1.3657120e-06],\n       [3.4448903e-03],\n       [2.8427788e-03],\n       [8.5835084e-03],\n       [1.8318649e+01]], dtype=float32)", "1.0349638e-10", "np.float32(1.0349638e-10)"),
    ("float64", &[], "-900719925474099.2", "-900719925474099.2", "array(-9.00719925e+14)", "-900719925474099.2", "np.float64(-900719925474099.2)"),
    ("float16", &[4], "0.015625 -2.75390625 0.283203125 1.8671875", "[ 0.01563 -2.754    0.2832   1.867  ]", "array([ 0.01563, -2.754  ,  0.2832 ,  1.867  ], dtype=float16)", "0.01563", "np.float16(0.01563)"),
    ("float16", &[3], "65504.0 1.0 0.5", "[6.55e+04 1.00e+00 5.00e-01]", "array([6.55e+04, 1.00e+00, 5.00e-01], dtype=float16)", "6.55e+04", "np.float16(6.55e+04)"),
    ("float16", &[], "1000.0", "1e+03", "array(1.e+03, dtype=float16)", "1e+03", "np.float16(1e+03)"),
    ("float16", &[2], "999.5 1.0", "[999.5   1. ]", "array([999.5,   1. ], dtype=float16)", "999.5", "np.float16(999.5)"),
    ("float16", &[], "0.0999755859375", "0.1", "array(0.1, dtype=float16)", "0.1", "np.float16(0.1)"),
    ("float16", &[2], "inf -0.0", "[inf -0.]", "array([inf, -0.], dtype=float16)", "inf", "np.float16(inf)"),
    ("int32", &[2, 3], "1 -2 300 4 5 6", "[[  1  -2 300]\n [  4   5   6]]", "array([[  1,  -2, 300],\n       [  4,   5,   6]], dtype=int32)", "1", "np.int32(1)"),
    ("int32", &[], "4", "4", "array(4, dtype=int32)", "4", "np.int32(4)"),
    ("int32", &[0], "", "[]", "array([], dtype=int32)", "", ""),
    ("uint8", &[4], "0 7 255 3", "[  0   7 255   3]", "array([  0,   7, 255,   3], dtype=uint8)", "0", "np.uint8(0)"),
    ("int8", &[3], "-128 0 127", "[-128    0  127]", "array([-128,    0,  127], dtype=int8)", "-128", "np.int8(-128)"),
    ("int16", &[2, 2], "-32768 1 2 32767", "[[-32768      1]\n [     2  32767]]", "array([[-32768,      1],\n       [     2,  32767]], dtype=int16)", "-32768", "np.int16(-32768)"),
];

#[test]
fn prints_found_cases_and_every_dtype_as_numpy_does() {
    check(VIEW_CASES, |dtype, shape, values| view_texts(&view(dtype, shape, values)));
}

/// The generated-input check: reads cases (`dtype<TAB>shape<TAB>values` lines, dtype by
/// NumPy's name) from the file `$NPFMT_CASES` and writes, for each, str, repr, scalar str and
/// scalar repr (tab-separated, newlines as `|`) to `$NPFMT_OUT`, for a script to compare with
/// NumPy's.
#[test]
#[ignore]
fn generated_cases() {
    let input = std::env::var("NPFMT_CASES").expect("NPFMT_CASES names the cases file");
    let output = std::env::var("NPFMT_OUT").expect("NPFMT_OUT names the output file");
    let mut out = String::new();
    for line in std::fs::read_to_string(input).unwrap().lines() {
        let mut fields = line.split('\t');
        let dtype = fields.next().unwrap();
        let shape_text = fields.next().unwrap();
        let shape: Vec<usize> = shape_text.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
        let values = fields.next().unwrap_or("");
        // The dtypes an Array holds go through the module's API; the others through a view.
        let texts = match dtype {
            "float64" => array_texts(&build("f64", &shape, values)),
            "float32" => array_texts(&build("f32", &shape, values)),
            "int64" => array_texts(&build("i64", &shape, values)),
            "bool" => array_texts(&build("b", &shape, values)),
            _ => view_texts(&view(dtype, &shape, values)),
        };
        out += &texts.iter().map(|t| t.replace('\n', "|")).collect::<Vec<_>>().join("\t");
        out.push('\n');
    }
    std::fs::write(output, out).unwrap();
}
