//! Tensors too wide for one line, laid out over several as NumPy's `repr` lays out an
//! array: elements padded to one width (floats aligned on the decimal point), rows wrapped
//! at the line width with their continuation under the first element, one blank line
//! between 2-D blocks (two between 3-D ones, …), `...` for the entries left out of a
//! tensor of more than 1,000 elements (3 kept at each end of each axis), and the shape
//! and dtype after the values: on the last line when they fit, else on a line of their own.
//!
//! Only the REPL's echo uses this (`Session::display_text`); `print`, `str` and `repr`
//! keep docs/language.md §3's one-line form, which the golden tests pin.

use super::{fmt_elem, standard_layout, EDGE_ITEMS, SUMMARY_THRESHOLD};
use crate::tensor::Array;

/// `name(VALUES, shape=(…), dtype=…EXTRA)` laid out within `width` columns (the values
/// wrap there; a single element wider than the line overflows it). `extra` follows the
/// dtype inside the parentheses (`, name='w'` for a Variable).
pub fn wide_repr(a: &Array, name: &str, extra: &str, width: usize) -> String {
    let a = standard_layout(a);
    let shape = a.shape().to_vec();
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let tail = format!("shape={shape_text}, dtype={}{extra})", a.dtype());
    let values = if shape.is_empty() || a.len() == 0 {
        super::tensor_text(&a)
    } else {
        let summarise = a.len() > SUMMARY_THRESHOLD;
        let cells = Cells::new(&a, &shape, summarise);
        // Every line is indented as the first is by `name([`; as NumPy, the line width leaves
        // room for the `,` after the values.
        let indent = " ".repeat(name.len() + 2);
        lay_out(&cells, &shape, &[], 0, &indent, width.saturating_sub(1), summarise)
    };
    let mut out = format!("{name}({values},");
    let last_line = out.len() - out.rfind('\n').map_or(0, |i| i + 1);
    if last_line + 1 + tail.len() > width {
        out.push('\n');
        out.push_str(&" ".repeat(name.len() + 1));
    } else {
        out.push(' ');
    }
    out.push_str(&tail);
    out
}

/// The text of each element shown, padded to one width.
struct Cells {
    /// Flat index (row-major) → padded text, for the elements shown.
    text: std::collections::HashMap<usize, String>,
}

impl Cells {
    fn new(a: &Array, shape: &[usize], summarise: bool) -> Cells {
        let mut raw = std::collections::HashMap::new();
        shown(shape, 0, 0, summarise, &mut |i| {
            raw.insert(i, fmt_elem(a, i));
        });
        // Floats line up on the decimal point when every element has one (NumPy's
        // positional mode); otherwise (nan, inf, exponents, ints, bools) they align right.
        let split = |s: &str| s.split_once('.').map(|(l, r)| (l.len(), r.len()));
        let left = raw.values().filter_map(|s| split(s)).map(|(l, _)| l).max().unwrap_or(0);
        let right = raw.values().filter_map(|s| split(s)).map(|(_, r)| r).max().unwrap_or(0);
        let decimal = raw.values().any(|s| split(s).is_some()) && raw.values().all(|s| !s.contains('e'));
        let width =
            raw.values().map(|s| s.chars().count()).max().unwrap_or(0).max(if decimal { left + 1 + right } else { 0 });
        let text = raw
            .into_iter()
            .map(|(i, s)| {
                let padded = match split(&s) {
                    Some((l, r)) if decimal => format!("{}{s}{}", " ".repeat(left - l), " ".repeat(right - r)),
                    _ => format!("{s:>width$}"),
                };
                (i, padded)
            })
            .collect();
        Cells { text }
    }
}

/// The indexes kept along an axis of length `n`: all, or the first and last
/// `EDGE_ITEMS` with `None` for the gap.
fn kept(n: usize, summarise: bool) -> Vec<Option<usize>> {
    if summarise && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).map(Some).chain([None]).chain((n - EDGE_ITEMS..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// Calls `f` with the flat index of every element shown.
fn shown(shape: &[usize], axis: usize, offset: usize, summarise: bool, f: &mut dyn FnMut(usize)) {
    let stride: usize = shape[axis + 1..].iter().product();
    for i in kept(shape[axis], summarise).into_iter().flatten() {
        if axis + 1 == shape.len() {
            f(offset + i);
        } else {
            shown(shape, axis + 1, offset + i * stride, summarise, f);
        }
    }
}

/// The values of the sub-tensor at `index`, as NumPy's recursive layout: `indent` starts
/// every line (the first line's stands for what precedes it), `width` is the room left
/// once the closing brackets of the enclosing axes are counted.
fn lay_out(
    cells: &Cells,
    shape: &[usize],
    index: &[usize],
    offset: usize,
    indent: &str,
    width: usize,
    summarise: bool,
) -> String {
    let axis = index.len();
    let stride: usize = shape[axis + 1..].iter().product();
    let inner_indent = format!("{indent} ");
    let inner_width = width.saturating_sub(1);
    let items = kept(shape[axis], summarise);
    let mut s = String::new();
    if axis + 1 == shape.len() {
        // The last axis: words fill lines up to the width (minus room for a `]` or `,`).
        let room = width.saturating_sub(1);
        let mut line = indent.to_string();
        for (k, i) in items.iter().enumerate() {
            let word = match i {
                Some(i) => cells.text[&(offset + i)].as_str(),
                None => "...",
            };
            if line.len() + word.chars().count() > room && line.len() > indent.len() {
                s.push_str(line.trim_end());
                s.push('\n');
                line = indent.to_string();
            }
            line.push_str(word);
            if k + 1 < items.len() {
                line.push_str(", ");
            }
        }
        s.push_str(&line);
    } else {
        // Higher axes: one sub-tensor per line, with axes-left − 1 blank lines between.
        let gap = format!(",{}", "\n".repeat(shape.len() - axis - 1));
        for (k, i) in items.iter().enumerate() {
            s.push_str(indent);
            match i {
                Some(i) => {
                    let mut sub = index.to_vec();
                    sub.push(*i);
                    s.push_str(&lay_out(
                        cells,
                        shape,
                        &sub,
                        offset + i * stride,
                        &inner_indent,
                        inner_width,
                        summarise,
                    ));
                }
                None => s.push_str("..."),
            }
            if k + 1 < items.len() {
                s.push_str(&gap);
            }
        }
    }
    format!("[{}]", &s[indent.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn};

    fn ints(shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        Array::I64(ArrayD::from_shape_vec(IxDyn(shape), (0..n as i64).collect()).expect("shape"))
    }

    fn floats(shape: &[usize], f: impl Fn(usize) -> f32) -> Array {
        let n: usize = shape.iter().product();
        Array::F32(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).expect("shape"))
    }

    fn bools(shape: &[usize], f: impl Fn(usize) -> bool) -> Array {
        let n: usize = shape.iter().product();
        Array::Bool(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).expect("shape"))
    }

    // Each expectation is NumPy 2's `repr` of the same values (/work/venv/bin/python,
    // `np.set_printoptions(linewidth=…)`), named `array` as NumPy names it, with the shape and
    // dtype after the values (on the last line if they fit in the width, else on their own).

    #[test]
    fn a_long_vector_wraps_under_its_first_element() {
        // np.arange(40), linewidth 75.
        assert_eq!(
            wide_repr(&ints(&[40]), "array", "", 75),
            [
                "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,",
                "       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,",
                "       34, 35, 36, 37, 38, 39], shape=(40,), dtype=int64)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn a_narrow_line_wraps_sooner() {
        // np.arange(20), linewidth 30.
        assert_eq!(
            wide_repr(&ints(&[20]), "array", "", 30),
            [
                "array([ 0,  1,  2,  3,  4,",
                "        5,  6,  7,  8,  9,",
                "       10, 11, 12, 13, 14,",
                "       15, 16, 17, 18, 19],",
                "      shape=(20,), dtype=int64)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn rows_of_a_matrix_line_up() {
        // np.arange(60).reshape(3, 20), linewidth 75.
        assert_eq!(
            wide_repr(&ints(&[3, 20]), "array", "", 75),
            [
                "array([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15,",
                "        16, 17, 18, 19],",
                "       [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,",
                "        36, 37, 38, 39],",
                "       [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,",
                "        56, 57, 58, 59]], shape=(3, 20), dtype=int64)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn blocks_of_a_3d_tensor_are_set_apart_and_large_ones_summarised() {
        // np.arange(2000).reshape(10, 10, 20), linewidth 75.
        assert_eq!(
            wide_repr(&ints(&[10, 10, 20]), "array", "", 75),
            [
                "array([[[   0,    1,    2, ...,   17,   18,   19],",
                "        [  20,   21,   22, ...,   37,   38,   39],",
                "        [  40,   41,   42, ...,   57,   58,   59],",
                "        ...,",
                "        [ 140,  141,  142, ...,  157,  158,  159],",
                "        [ 160,  161,  162, ...,  177,  178,  179],",
                "        [ 180,  181,  182, ...,  197,  198,  199]],",
                "",
                "       [[ 200,  201,  202, ...,  217,  218,  219],",
                "        [ 220,  221,  222, ...,  237,  238,  239],",
                "        [ 240,  241,  242, ...,  257,  258,  259],",
                "        ...,",
                "        [ 340,  341,  342, ...,  357,  358,  359],",
                "        [ 360,  361,  362, ...,  377,  378,  379],",
                "        [ 380,  381,  382, ...,  397,  398,  399]],",
                "",
                "       [[ 400,  401,  402, ...,  417,  418,  419],",
                "        [ 420,  421,  422, ...,  437,  438,  439],",
                "        [ 440,  441,  442, ...,  457,  458,  459],",
                "        ...,",
                "        [ 540,  541,  542, ...,  557,  558,  559],",
                "        [ 560,  561,  562, ...,  577,  578,  579],",
                "        [ 580,  581,  582, ...,  597,  598,  599]],",
                "",
                "       ...,",
                "",
                "       [[1400, 1401, 1402, ..., 1417, 1418, 1419],",
                "        [1420, 1421, 1422, ..., 1437, 1438, 1439],",
                "        [1440, 1441, 1442, ..., 1457, 1458, 1459],",
                "        ...,",
                "        [1540, 1541, 1542, ..., 1557, 1558, 1559],",
                "        [1560, 1561, 1562, ..., 1577, 1578, 1579],",
                "        [1580, 1581, 1582, ..., 1597, 1598, 1599]],",
                "",
                "       [[1600, 1601, 1602, ..., 1617, 1618, 1619],",
                "        [1620, 1621, 1622, ..., 1637, 1638, 1639],",
                "        [1640, 1641, 1642, ..., 1657, 1658, 1659],",
                "        ...,",
                "        [1740, 1741, 1742, ..., 1757, 1758, 1759],",
                "        [1760, 1761, 1762, ..., 1777, 1778, 1779],",
                "        [1780, 1781, 1782, ..., 1797, 1798, 1799]],",
                "",
                "       [[1800, 1801, 1802, ..., 1817, 1818, 1819],",
                "        [1820, 1821, 1822, ..., 1837, 1838, 1839],",
                "        [1840, 1841, 1842, ..., 1857, 1858, 1859],",
                "        ...,",
                "        [1940, 1941, 1942, ..., 1957, 1958, 1959],",
                "        [1960, 1961, 1962, ..., 1977, 1978, 1979],",
                "        [1980, 1981, 1982, ..., 1997, 1998, 1999]]],",
                "      shape=(10, 10, 20), dtype=int64)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn floats_align_on_the_decimal_point() {
        // (np.arange(24) * 0.25 + 0.5).astype(np.float32), linewidth 60 (NumPy writes
        // `1.` where DGL writes `1.0`: the same width once padded).
        assert_eq!(
            wide_repr(&floats(&[24], |i| i as f32 * 0.25 + 0.5), "array", "", 60),
            [
                "array([0.5 , 0.75, 1.0 , 1.25, 1.5 , 1.75, 2.0 , 2.25,",
                "       2.5 , 2.75, 3.0 , 3.25, 3.5 , 3.75, 4.0 , 4.25,",
                "       4.5 , 4.75, 5.0 , 5.25, 5.5 , 5.75, 6.0 , 6.25],",
                "      shape=(24,), dtype=float32)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn bools_align_right() {
        // np.arange(1200).reshape(2, 600) > 3, linewidth 80.
        assert_eq!(
            wide_repr(&bools(&[2, 600], |i| i > 3), "array", "", 80),
            [
                "array([[False, False, False, ...,  True,  True,  True],",
                "       [ True,  True,  True, ...,  True,  True,  True]],",
                "      shape=(2, 600), dtype=bool)",
            ]
            .join("\n")
        );
    }

    #[test]
    fn a_tensor_is_laid_out_under_its_name() {
        let text = wide_repr(&ints(&[12]), "tensor", "", 40);
        assert_eq!(
            text,
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,\n         8,  9, 10, 11],\n       shape=(12,), dtype=int64)"
        );
    }

    #[test]
    fn a_variable_keeps_its_name_after_the_dtype() {
        // (np.arange(6) - 2.5).astype(np.float32).reshape(2, 3), linewidth 30.
        let text = wide_repr(&floats(&[2, 3], |i| i as f32 - 2.5), "Variable", ", name='w'", 30);
        assert_eq!(text, "Variable([[-2.5, -1.5, -0.5],\n          [ 0.5,  1.5,  2.5]],\n         shape=(2, 3), dtype=float32, name='w')");
    }
}
