//! `einsum`, composed of recorded operations: a diagonal (repeated label in one operand)
//! is a `take`, a label only one operand has and the output lacks is a `reduce_sum`,
//! ellipsis axes broadcast with `broadcast_to`, and each pairwise contraction is one
//! batched `matmul` between transposes and reshapes ([batch, left, contracted] @
//! [batch, contracted, right]). So the gradient — the VJP of a contraction is again a
//! contraction — and higher orders come from those operations' rules.

use crate::autodiff::recorder::Recorder;
use crate::error::R;
use crate::tensor::einsum::{parse, Label};
use crate::tensor::kernels::Reduce;
use crate::tensor::Tensor;
use std::rc::Rc;

/// An intermediate operand: a tensor with one distinct label per axis.
struct Term {
    t: Tensor,
    labels: Vec<Label>,
}

impl Recorder {
    /// `einsum(equation, *inputs)`.
    ///
    /// Errors: as [`parse`]; TypeError for operands of different dtypes (from matmul).
    pub fn einsum(&mut self, equation: &str, xs: &[Tensor]) -> R<Tensor> {
        let shapes: Vec<&[usize]> = xs.iter().map(|t| t.shape()).collect();
        let plan = parse(equation, &shapes)?;
        if let Some(d) = xs.iter().map(|t| t.dtype()).find(|&d| d != xs[0].dtype()) {
            crate::bail!(Type, "einsum: operands must have one dtype, got {} and {}", xs[0].dtype(), d);
        }
        let mut terms = Vec::with_capacity(xs.len());
        for (k, (x, labels)) in xs.iter().zip(&plan.inputs).enumerate() {
            let term = self.diagonal(x, labels)?;
            // Ellipsis axes of size 1 broadcast to the size the other operands give.
            let full: Vec<usize> = term.labels.iter().map(|l| plan.sizes[l]).collect();
            let term =
                if full != term.t.shape() { Term { t: self.broadcast_to(&term.t, &full)?, ..term } } else { term };
            // Labels nothing else needs are summed out now.
            let others = |l: &Label| {
                plan.output.contains(l) || plan.inputs.iter().enumerate().any(|(j, ls)| j != k && ls.contains(l))
            };
            terms.push(self.sum_labels(term, |l| !others(l))?);
        }
        let mut rest = terms.into_iter();
        let mut acc = rest.next().expect("at least one operand (parse checked the count)");
        let later: Vec<Term> = rest.collect();
        for (i, b) in later.iter().enumerate() {
            let keep = |l: &Label| plan.output.contains(l) || later[i + 1..].iter().any(|t| t.labels.contains(l));
            acc = self.contract(&acc, b, keep)?;
        }
        let acc = self.sum_labels(acc, |l| !plan.output.contains(l))?;
        let perm: Vec<i64> = plan
            .output
            .iter()
            .map(|l| acc.labels.iter().position(|m| m == l).expect("every output label kept") as i64)
            .collect();
        if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
            return Ok(acc.t);
        }
        self.transpose(&acc.t, Some(perm))
    }

    /// Takes the diagonal over repeated labels of one operand (`ii->i`).
    fn diagonal(&mut self, x: &Tensor, labels: &[Label]) -> R<Term> {
        let mut distinct: Vec<Label> = Vec::new();
        for l in labels {
            if !distinct.contains(l) {
                distinct.push(*l);
            }
        }
        if distinct.len() == labels.len() {
            return Ok(Term { t: x.clone(), labels: labels.to_vec() });
        }
        let shape = x.shape();
        let mut strides = vec![1usize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1];
        }
        // The stride of each distinct label: the sum of its axes' strides.
        let dims: Vec<usize> =
            distinct.iter().map(|l| shape[labels.iter().position(|m| m == l).expect("from labels")]).collect();
        let dstr: Vec<usize> = distinct
            .iter()
            .map(|l| labels.iter().zip(&strides).filter(|(m, _)| *m == l).map(|(_, s)| s).sum())
            .collect();
        let n: usize = dims.iter().product();
        let mut idx = Vec::with_capacity(n);
        let mut pos = vec![0usize; dims.len()];
        for _ in 0..n {
            idx.push(pos.iter().zip(&dstr).map(|(p, s)| p * s).sum());
            for a in (0..dims.len()).rev() {
                pos[a] += 1;
                if pos[a] < dims[a] {
                    break;
                }
                pos[a] = 0;
            }
        }
        Ok(Term { t: self.take(x, Rc::new(idx), &dims)?, labels: distinct })
    }

    /// Sums out the axes whose labels satisfy `drop`.
    fn sum_labels(&mut self, term: Term, drop: impl Fn(&Label) -> bool) -> R<Term> {
        let axes: Vec<i64> = (0..term.labels.len()).filter(|&i| drop(&term.labels[i])).map(|i| i as i64).collect();
        if axes.is_empty() {
            return Ok(term);
        }
        let labels = term.labels.iter().filter(|l| !drop(l)).copied().collect();
        Ok(Term { t: self.reduce(Reduce::Sum, &term.t, Some(&axes), false)?, labels })
    }

    /// Contracts two terms over their shared labels that `keep` rejects; shared labels it
    /// keeps are batch axes. The result's labels: batch, a's own, b's own.
    fn contract(&mut self, a: &Term, b: &Term, keep: impl Fn(&Label) -> bool) -> R<Term> {
        let batch: Vec<Label> = a.labels.iter().filter(|l| b.labels.contains(l) && keep(l)).copied().collect();
        let summed: Vec<Label> = a.labels.iter().filter(|l| b.labels.contains(l) && !keep(l)).copied().collect();
        let left: Vec<Label> = a.labels.iter().filter(|l| !b.labels.contains(l)).copied().collect();
        let right: Vec<Label> = b.labels.iter().filter(|l| !a.labels.contains(l)).copied().collect();
        let size = |t: &Term, ls: &[Label]| -> Vec<usize> {
            ls.iter().map(|l| t.t.shape()[t.labels.iter().position(|m| m == l).expect("label of t")]).collect()
        };
        let (bs, ls, cs, rs) = (size(a, &batch), size(a, &left), size(a, &summed), size(b, &right));
        let prod = |v: &[usize]| v.iter().product::<usize>();
        let a3 = self.arrange(a, &[&batch, &left, &summed], &[prod(&bs), prod(&ls), prod(&cs)])?;
        let b3 = self.arrange(b, &[&batch, &summed, &right], &[prod(&bs), prod(&cs), prod(&rs)])?;
        let p = self.matmul(&a3, &b3)?;
        let shape: Vec<usize> = bs.iter().chain(&ls).chain(&rs).copied().collect();
        let t = if p.shape() == shape.as_slice() { p } else { self.reshape_to(&p, &shape)? };
        Ok(Term { t, labels: batch.into_iter().chain(left).chain(right).collect() })
    }

    /// Transposes `t` so its labels come in the order of `groups` and reshapes to `shape`.
    fn arrange(&mut self, t: &Term, groups: &[&Vec<Label>], shape: &[usize]) -> R<Tensor> {
        let perm: Vec<i64> = groups
            .iter()
            .flat_map(|g| g.iter())
            .map(|l| t.labels.iter().position(|m| m == l).expect("label of t") as i64)
            .collect();
        let x = if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
            t.t.clone()
        } else {
            self.transpose(&t.t, Some(perm))?
        };
        if x.shape() == shape {
            Ok(x)
        } else {
            self.reshape_to(&x, shape)
        }
    }
}
