//! `einsum` equations: parsing and checking against the operands' shapes, giving one
//! label per axis of each operand and of the output (`autodiff/ops/einsum.rs` runs it).
//!
//! Grammar (TF's, NumPy's): `TERM(,TERM)*(->TERM)?`, a TERM being letters with at most
//! one `...`; spaces are ignored. Without `->` the output is the ellipsis axes, then the
//! letters that appear exactly once, in alphabetical (ASCII) order.

use super::error::{tensor_bail, TensorResult as R};
use super::shape_str;
use rustc_hash::FxHashMap;

/// An axis label: a letter (its ASCII code) or an ellipsis axis (`ELLIPSIS + k`, k counted
/// from the left of the broadcast ellipsis shape).
pub type Label = u32;

/// The first label of ellipsis axes (above every ASCII letter).
pub const ELLIPSIS: Label = 256;

/// A checked equation.
#[derive(Debug, Clone)]
pub struct Plan {
    /// One label per axis of each operand (repeats allowed: a diagonal).
    pub inputs: Vec<Vec<Label>>,
    /// One label per axis of the output (no repeats).
    pub output: Vec<Label>,
    /// The size of each label (ellipsis axes: the broadcast size).
    pub sizes: FxHashMap<Label, usize>,
}

/// A term split into letters with the ellipsis position, if any.
struct Term {
    before: Vec<Label>,
    after: Option<Vec<Label>>,
}

fn parse_term(t: &str, eq: &str) -> R<Term> {
    let (head, tail) = match t.find("...") {
        Some(i) => (&t[..i], Some(&t[i + 3..])),
        None => (t, None),
    };
    let letters = |s: &str| -> R<Vec<Label>> {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphabetic() {
                    Ok(c as Label)
                } else if c == '.' {
                    tensor_bail!(Value, "einsum: equation '{eq}' has a '.' outside an ellipsis '...' (or more than one ellipsis in a term)")
                } else {
                    tensor_bail!(Value, "einsum: equation '{eq}' has an invalid character '{c}' (subscripts are letters)")
                }
            })
            .collect()
    };
    Ok(Term { before: letters(head)?, after: tail.map(letters).transpose()? })
}

/// Parses `equation` for operands of `shapes`.
///
/// Errors: ValueError for a malformed equation, a wrong operand count, subscripts that do
/// not match an operand's rank, or an output label that is repeated or not in the inputs;
/// ShapeError when one label has two sizes (ellipsis axes broadcast).
pub fn parse(equation: &str, shapes: &[&[usize]]) -> R<Plan> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => {
            if r.contains("->") {
                tensor_bail!(Value, "einsum: equation '{equation}' has more than one '->'");
            }
            (l, Some(r))
        }
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        tensor_bail!(
            Value,
            "einsum: equation '{equation}' has {} input term{} but {} operand{} given",
            terms.len(),
            if terms.len() == 1 { "" } else { "s" },
            shapes.len(),
            if shapes.len() == 1 { " was" } else { "s were" }
        );
    }
    let parsed: Vec<Term> = terms.iter().map(|t| parse_term(t, equation)).collect::<R<_>>()?;
    // The ellipsis rank of each operand, and the broadcast ellipsis shape.
    let mut ell_ranks = Vec::with_capacity(shapes.len());
    for (k, (t, s)) in parsed.iter().zip(shapes).enumerate() {
        let named = t.before.len() + t.after.as_ref().map_or(0, |a| a.len());
        let ok = if t.after.is_some() { s.len() >= named } else { s.len() == named };
        if !ok {
            tensor_bail!(
                Value,
                "einsum: operand {k} has rank {} but its subscripts '{}' name {named} axes",
                s.len(),
                terms[k]
            );
        }
        ell_ranks.push(if t.after.is_some() { s.len() - named } else { 0 });
    }
    let ell = ell_ranks.iter().copied().max().unwrap_or(0);
    let mut sizes: FxHashMap<Label, usize> = FxHashMap::default();
    let mut inputs = Vec::with_capacity(shapes.len());
    for (k, (t, s)) in parsed.iter().zip(shapes).enumerate() {
        let mut labels = t.before.clone();
        if let Some(after) = &t.after {
            let e = ell_ranks[k];
            labels.extend((0..e).map(|j| ELLIPSIS + (ell - e + j) as Label));
            labels.extend(after);
        }
        for (&l, &d) in labels.iter().zip(s.iter()) {
            match sizes.get(&l).copied() {
                None => {
                    sizes.insert(l, d);
                }
                Some(have) if have == d => {}
                // Ellipsis axes broadcast (NumPy rules); letters must agree.
                Some(have) if l >= ELLIPSIS && (have == 1 || d == 1) => {
                    sizes.insert(l, have.max(d));
                }
                Some(have) => tensor_bail!(
                    Shape,
                    "einsum: {} has size {have} in one operand and {d} in operand {k} (shape {})",
                    label_name(l),
                    shape_str(s)
                ),
            }
        }
        inputs.push(labels);
    }
    let ell_labels: Vec<Label> = (0..ell).map(|j| ELLIPSIS + j as Label).collect();
    let output = match rhs {
        Some(r) => {
            let t = parse_term(r, equation)?;
            let mut out = t.before.clone();
            if let Some(after) = &t.after {
                out.extend(&ell_labels);
                out.extend(after);
            }
            for (i, l) in out.iter().enumerate() {
                if out[..i].contains(l) {
                    tensor_bail!(Value, "einsum: output subscripts of '{equation}' repeat {}", label_name(*l));
                }
                if !sizes.contains_key(l) {
                    tensor_bail!(
                        Value,
                        "einsum: output subscript {} of '{equation}' is not in the inputs",
                        label_name(*l)
                    );
                }
            }
            out
        }
        None => {
            let mut count: FxHashMap<Label, usize> = FxHashMap::default();
            for l in inputs.iter().flatten().filter(|&&l| l < ELLIPSIS) {
                *count.entry(*l).or_default() += 1;
            }
            let mut once: Vec<Label> = count.into_iter().filter(|(_, n)| *n == 1).map(|(l, _)| l).collect();
            once.sort_unstable();
            ell_labels.iter().copied().chain(once).collect()
        }
    };
    Ok(Plan { inputs, output, sizes })
}

/// How a label reads in messages: `'j'`, or `ellipsis axis 0`.
pub fn label_name(l: Label) -> String {
    if l >= ELLIPSIS {
        format!("ellipsis axis {}", l - ELLIPSIS)
    } else {
        format!("'{}'", char::from_u32(l).unwrap_or('?'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(s: &str) -> Vec<Label> {
        s.chars().map(|c| c as Label).collect()
    }

    #[test]
    fn implicit_outputs_are_the_single_labels_sorted() {
        let p = parse("ba,ab", &[&[2, 2], &[2, 2]]).unwrap();
        assert!(p.output.is_empty());
        let p = parse("ij,jk", &[&[2, 3], &[3, 4]]).unwrap();
        assert_eq!(p.output, labels("ik"));
        let p = parse("ii", &[&[2, 2]]).unwrap();
        assert!(p.output.is_empty());
    }

    #[test]
    fn ellipsis_axes_broadcast_right_aligned() {
        let p = parse("...ij,...jk->...ik", &[&[2, 1, 2, 3], &[5, 3, 4]]).unwrap();
        assert_eq!(p.output, vec![ELLIPSIS, ELLIPSIS + 1, 'i' as Label, 'k' as Label]);
        assert_eq!(p.sizes[&(ELLIPSIS + 1)], 5);
        assert_eq!(p.inputs[1][0], ELLIPSIS + 1);
    }

    #[test]
    fn bad_equations_are_errors() {
        for (eq, shapes) in [
            ("ij,jk", vec![&[2usize, 3][..]]),
            ("i->j", vec![&[2][..]]),
            ("ij->jj", vec![&[2, 2][..]]),
            ("ij->i", vec![&[2][..]]),
            ("i1->i", vec![&[2][..]]),
            ("i.->i", vec![&[2][..]]),
            ("i->i->i", vec![&[2][..]]),
            ("i,i", vec![&[2][..], &[3][..]]),
        ] {
            assert!(parse(eq, &shapes).is_err(), "{eq}");
        }
    }
}
