//! Losses and normalisations composed of recorded operations (TF writes them the same way, in
//! Python over its ops): their VJPs are those of the parts, so every order of derivative comes
//! for free and the gradients at the kinks are TF's.

use crate::autodiff::recorder::Recorder;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Reduce, Unary};
use crate::tensor::{shape_str, Tensor};

impl Recorder {
    /// `sigmoid_cross_entropy_with_logits(labels, logits)`: elementwise
    /// `max(x, 0) − x·z + log(1 + e^(−|x|))` for logits x and labels z, which never overflows.
    ///
    /// Shapes: labels and logits alike → the same shape. Dtypes: float32, float64.
    /// Gradient: σ(x) − z for the logits and −x for the labels, through TF's own composition
    /// (`where(x ≥ 0, …)`, so at x = 0 the logits get σ(0) − z = ½ − z, as TF).
    /// Errors: ShapeError naming both shapes when they differ; TypeError for other dtypes.
    /// See: tf.nn.sigmoid_cross_entropy_with_logits.
    pub fn sigmoid_xent(&mut self, labels: &Tensor, logits: &Tensor) -> R<Tensor> {
        if labels.shape() != logits.shape() {
            bail!(
                Shape,
                "sigmoid_cross_entropy_with_logits: labels of shape {} do not match logits of shape {}",
                shape_str(labels.shape()),
                shape_str(logits.shape())
            );
        }
        float_only("sigmoid_cross_entropy_with_logits", logits)?;
        if labels.dtype() != logits.dtype() {
            bail!(
                Type,
                "sigmoid_cross_entropy_with_logits: cannot mix {} labels and {} logits (use cast)",
                labels.dtype(),
                logits.dtype()
            );
        }
        let zero = self.scalar(logits.dtype(), 0.0);
        let cond = Tensor::new(kernels::compare(Compare::Ge, &logits.data, &zero.data)?);
        let zeros = self.constant_like(logits, 0.0);
        let relu = self.where_(&cond, logits, &zeros)?;
        let neg = self.unary(Unary::Neg, logits)?;
        let neg_abs = self.where_(&cond, &neg, logits)?;
        let xz = self.mul(logits, labels)?;
        let a = self.binary(Binary::Sub, &relu, &xz)?;
        let e = self.unary(Unary::Exp, &neg_abs)?;
        let l = self.unary(Unary::Log1p, &e)?;
        self.add(&a, &l)
    }

    /// `l2_loss(t)`: `sum(t²) / 2`, a scalar.
    ///
    /// Dtypes: float32, float64 (accumulated in float64). Gradient: t times the upstream.
    /// Errors: TypeError for other dtypes.
    /// See: tf.nn.l2_loss.
    pub fn l2_loss(&mut self, t: &Tensor) -> R<Tensor> {
        float_only("l2_loss", t)?;
        let sq = self.unary(Unary::Square, t)?;
        let s = self.reduce(Reduce::Sum, &sq, None, false)?;
        self.mul_scalar(&s, 0.5)
    }

    /// `l2_normalize(x, axis=None, epsilon=1e-12)`: `x / sqrt(max(sum(x², axis), epsilon))`.
    ///
    /// Shapes: x's. Dtypes: float32, float64.
    /// Gradient: through the parts (rsqrt, maximum: at sum = epsilon the sum's side, as TF).
    /// Errors: ShapeError for an axis out of range; TypeError for other dtypes.
    /// See: tf.math.l2_normalize.
    pub fn l2_normalize(&mut self, x: &Tensor, axes: Option<&[i64]>, epsilon: f64) -> R<Tensor> {
        float_only("l2_normalize", x)?;
        let sq = self.unary(Unary::Square, x)?;
        let s = self.reduce(Reduce::Sum, &sq, axes, true)?;
        let eps = self.scalar(x.dtype(), epsilon);
        let m = self.binary(Binary::Maximum, &s, &eps)?;
        let inv = self.unary(Unary::Rsqrt, &m)?;
        self.mul(x, &inv)
    }
}

fn float_only(what: &str, t: &Tensor) -> R<()> {
    if !t.dtype().is_float() {
        bail!(Type, "{what} needs a float tensor, got {} (use cast)", t.dtype());
    }
    Ok(())
}
