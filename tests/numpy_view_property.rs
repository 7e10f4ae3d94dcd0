//! NumPy views over generated chains of view-making operations (docs/language.md §4 "NumPy
//! arrays", views): basic indices (ints, slices of any step, `None`, `...`), `.T`,
//! `transpose(axes)`, iterating over rows, and `reshape`/`ravel` of a contiguous array, applied
//! one after another to `np.arange(n).reshape(shape)`. A reference model here follows each
//! element's position in the owner by NumPy's indexing rules; DGL must
//!
//! - show the elements at those positions (the owner holds 0..n, so a view's elements are its
//!   positions);
//! - write a change made through the view into the owner there, and nowhere else;
//! - show a change made to the owner afterwards;
//! - keep writing through when the view is itself viewed again.
//!
//! A view that copied, a view of a view composed wrongly, or a stale read fails here.

use proptest::prelude::*;

/// An index item of one axis.
#[derive(Clone, Debug)]
enum Item {
    Int(i64),
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
}

/// What the test knows of an array: its shape and, in C order, each element's position in the
/// owner.
#[derive(Clone, Debug)]
struct Model {
    shape: Vec<usize>,
    pos: Vec<i64>,
}

impl Model {
    fn strides(&self) -> Vec<usize> {
        let mut s = vec![1; self.shape.len()];
        for i in (0..self.shape.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1] * self.shape[i + 1];
        }
        s
    }

    /// `a[items]`, the items applying to the first axes (or, with `ellipsis`, the last ones).
    fn index(&self, items: &[Item], ellipsis: bool) -> Model {
        let used = items.iter().filter(|i| !matches!(i, Item::NewAxis)).count();
        let mut full: Vec<Item> = Vec::new();
        let fill = self.shape.len() - used;
        if ellipsis {
            full.extend((0..fill).map(|_| Item::Slice(None, None, 1)));
            full.extend(items.iter().cloned());
        } else {
            full.extend(items.iter().cloned());
            full.extend((0..fill).map(|_| Item::Slice(None, None, 1)));
        }
        // Per output axis or fixed input index: (input axis, indices); new axes as None.
        let strides = self.strides();
        let mut axis = 0;
        let mut base = 0usize;
        let mut out_axes: Vec<Option<(usize, Vec<usize>)>> = Vec::new();
        for item in &full {
            match item {
                Item::NewAxis => out_axes.push(None),
                Item::Int(i) => {
                    let n = self.shape[axis] as i64;
                    base += (if *i < 0 { i + n } else { *i }) as usize * strides[axis];
                    axis += 1;
                }
                Item::Slice(a, b, s) => {
                    out_axes.push(Some((axis, slice_indices(self.shape[axis] as i64, *a, *b, *s))));
                    axis += 1;
                }
            }
        }
        let shape: Vec<usize> = out_axes.iter().map(|o| o.as_ref().map_or(1, |(_, v)| v.len())).collect();
        let mut pos = Vec::new();
        fn walk(m: &Model, axes: &[Option<(usize, Vec<usize>)>], strides: &[usize], flat: usize, out: &mut Vec<i64>) {
            match axes.split_first() {
                None => out.push(m.pos[flat]),
                Some((None, rest)) => walk(m, rest, strides, flat, out),
                Some((Some((axis, idx)), rest)) => {
                    for &i in idx {
                        walk(m, rest, strides, flat + i * strides[*axis], out);
                    }
                }
            }
        }
        walk(self, &out_axes, &strides, base, &mut pos);
        Model { shape, pos }
    }

    fn transpose(&self, perm: &[usize]) -> Model {
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let strides = self.strides();
        let size = self.pos.len();
        let mut pos = Vec::with_capacity(size);
        let mut idx = vec![0usize; shape.len()];
        for _ in 0..size {
            let flat: usize = idx.iter().zip(perm).map(|(&i, &p)| i * strides[p]).sum();
            pos.push(self.pos[flat]);
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Model { shape, pos }
    }

    fn contiguous(&self) -> bool {
        self.pos.windows(2).all(|w| w[1] == w[0] + 1)
    }
}

/// Python's `range(*slice(a, b, s).indices(n))`.
fn slice_indices(n: i64, a: Option<i64>, b: Option<i64>, s: i64) -> Vec<usize> {
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + n } else { v };
    let (start, stop) = if s > 0 {
        (a.map_or(0, |v| clamp(norm(v), 0, n)), b.map_or(n, |v| clamp(norm(v), 0, n)))
    } else {
        (a.map_or(n - 1, |v| clamp(norm(v), -1, n - 1)), b.map_or(-1, |v| clamp(norm(v), -1, n - 1)))
    };
    let mut out = Vec::new();
    let mut i = start;
    while (s > 0 && i < stop) || (s < 0 && i > stop) {
        out.push(i as usize);
        i += s;
    }
    out
}

fn item_text(i: &Item) -> String {
    let o = |v: &Option<i64>| v.map_or(String::new(), |x| x.to_string());
    match i {
        Item::Int(v) => v.to_string(),
        Item::Slice(a, b, s) => format!("{}:{}:{}", o(a), o(b), s),
        Item::NewAxis => "None".into(),
    }
}

/// One step of a chain, read from random words against the current model: the DGL expression
/// of the step applied to `v`, and the model after it; None when the step does not apply (a
/// scalar result, a reshape of a non-contiguous array).
fn step(m: &Model, r: &mut impl Iterator<Item = u64>) -> Option<(String, Model)> {
    let mut next = || r.next().unwrap_or(0);
    let rank = m.shape.len();
    match next() % 6 {
        0 | 1 => {
            let k = (next() as usize) % (rank + 1);
            let mut items = vec![Item::Slice(None, None, 1); k];
            let ellipsis = next() % 3 == 0;
            let offset = if ellipsis { rank - k } else { 0 };
            for (j, item) in items.iter_mut().enumerate() {
                let n = m.shape[offset + j] as i64;
                *item = if n > 0 && next() % 3 == 0 {
                    Item::Int((next() % (2 * n as u64)) as i64 - n)
                } else {
                    let steps = [1, 1, 2, -1, 3, -2];
                    let s = steps[(next() % 6) as usize];
                    let bound = |w: u64| if w % 3 == 0 { None } else { Some((w % 9) as i64 - 4) };
                    Item::Slice(bound(next()), bound(next()), s)
                };
            }
            if next() % 4 == 0 {
                let at = (next() as usize) % (items.len() + 1);
                items.insert(at, Item::NewAxis);
            }
            let out = m.index(&items, ellipsis);
            if out.shape.is_empty() {
                return None;
            }
            let mut text: Vec<String> = items.iter().map(item_text).collect();
            if ellipsis {
                text.insert(0, "...".into());
            }
            if text.is_empty() {
                text.push("...".into());
            }
            Some((format!("v[{}]", text.join(", ")), out))
        }
        2 => Some(("v.T".into(), m.transpose(&(0..rank).rev().collect::<Vec<_>>()))),
        3 => {
            let mut perm: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                perm.swap(i, (next() as usize) % (i + 1));
            }
            let text: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
            Some((format!("v.transpose({})", text.join(", ")), m.transpose(&perm)))
        }
        4 if rank >= 2 && m.shape[0] > 0 => {
            let i = (next() as usize) % m.shape[0];
            let out = m.index(&[Item::Int(i as i64)], false);
            Some((format!("[row for row in v][{i}]"), out))
        }
        5 if m.contiguous() && !m.pos.is_empty() => {
            let size = m.pos.len();
            let divisors: Vec<usize> = (1..=size).filter(|d| size % d == 0).collect();
            let d = divisors[(next() as usize) % divisors.len()];
            let (text, shape) = match next() % 3 {
                0 => ("v.ravel()".to_string(), vec![size]),
                1 => (format!("v.reshape({d}, -1)"), vec![d, size / d]),
                _ => (format!("v.reshape(({}, {d}))", size / d), vec![size / d, d]),
            };
            Some((text, Model { shape, pos: m.pos.clone() }))
        }
        _ => None,
    }
}

fn list_text(xs: &[i64]) -> String {
    format!("[{}]", xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn views_read_and_write_their_owners_elements(
        shape in prop::collection::vec(0usize..5, 1..4),
        words in prop::collection::vec(any::<u64>(), 40),
    ) {
        let size: usize = shape.iter().product();
        let owner = Model { shape: shape.clone(), pos: (0..size as i64).collect() };
        let mut words = words.into_iter();
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let mut src = format!("import numpy as np\na = np.arange({size}).reshape(({},))\nv = a\n", dims.join(", "));
        let mut m = owner.clone();
        let mut views = Vec::new();
        for _ in 0..4 {
            if let Some((text, next)) = step(&m, &mut words) {
                src += &format!("v = {text}\n");
                m = next;
                views.push(m.clone());
            }
        }
        prop_assume!(!views.is_empty());
        // Read: the view's elements are its positions.
        src += "print(v.flatten().tolist())\n";
        // Write through the view: each element becomes -1 - itself in the owner.
        src += "v[...] = -1 - v\nprint(a.flatten().tolist())\n";
        // The owner changes: the view shows it.
        src += "a[...] = a * 10\nprint(v.flatten().tolist())\n";
        let out = dgl::testing::run_text(&src);
        prop_assert_eq!(out.code, 0, "{}\n{}", src, out.stderr);
        let mut written: Vec<i64> = owner.pos.clone();
        for &p in &m.pos {
            written[p as usize] = -1 - p;
        }
        let shown: Vec<i64> = m.pos.iter().map(|&p| written[p as usize] * 10).collect();
        let expected = format!("{}\n{}\n{}\n", list_text(&m.pos), list_text(&written), list_text(&shown));
        prop_assert_eq!(out.stdout, expected, "{}", src);
    }
}
