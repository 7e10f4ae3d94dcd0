//! 2-D convolution and pooling kernels over NHWC float tensors (TF's `tf.nn.conv2d`,
//! `max_pool2d`, `avg_pool2d` and their gradients), without tapes.
//!
//! Convolution is im2col + GEMM: each output position's receptive field is copied into one
//! row of a `[batch·out_h·out_w, kh·kw·in_c]` matrix, whose product with the filters viewed
//! as `[kh·kw·in_c, out_c]` is the output (the one GEMM of `kernels`). The two gradients
//! are products with the same matrices: the input's is `dy · Wᵀ` folded back (col2im), the
//! filters' is `colsᵀ · dy`. Pooling walks the windows directly.

use super::array::{Array, DType};
use super::budget::check_shape;
use super::error::{tensor_bail, TensorResult as R};
use super::kernels::matmul_2d_transposed;
use super::shape_str;
use ndarray::{ArrayD, IxDyn};
use num_traits::Float;

/// How the input is padded (TF's `padding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Output size `ceil(in / stride)`; the padding is split with the extra row or column after.
    Same,
    /// No padding: only windows that fit.
    Valid,
    /// `[[top, bottom], [left, right]]`.
    Explicit([[usize; 2]; 2]),
}

/// The geometry of one convolution or pooling: input `[n, h, w, c]`, a `kh × kw` window
/// moved by `(sh, sw)` with dilation `(dh, dw)`, padding `pt` rows above and `pl` columns to
/// the left, output `[n, oh, ow, oc]` (`oc = c` for pooling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geom {
    pub n: usize,
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub kh: usize,
    pub kw: usize,
    pub oc: usize,
    pub oh: usize,
    pub ow: usize,
    pub sh: usize,
    pub sw: usize,
    pub dh: usize,
    pub dw: usize,
    pub pt: usize,
    pub pl: usize,
}

/// Output size and padding before along one spatial axis, as TF computes them
/// (`GetWindowedOutputSize`): SAME gives `ceil(in / stride)`, VALID and explicit padding
/// `(in + pads − effective_k + stride) / stride`, truncated.
fn out_size(input: usize, k: usize, stride: usize, dil: usize, pad: Padding, axis: usize) -> Option<(usize, usize)> {
    let eff = (k - 1) * dil + 1;
    match pad {
        Padding::Same => {
            let out = input.div_ceil(stride);
            let need = ((out.max(1) - 1) * stride + eff).saturating_sub(input);
            Some((out, need / 2))
        }
        Padding::Valid | Padding::Explicit(_) => {
            let (before, after) = match pad {
                Padding::Explicit(p) => (p[axis][0], p[axis][1]),
                _ => (0, 0),
            };
            let num = (input + before + after + stride) as i64 - eff as i64;
            // TF truncates toward zero and rejects only a negative result.
            let out = num / stride as i64;
            (out >= 0).then_some((out as usize, before))
        }
    }
}

/// The window parameters of a convolution or pooling: strides and dilations along
/// (rows, columns), and the padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub strides: (usize, usize),
    pub dilations: (usize, usize),
    pub padding: Padding,
}

impl Geom {
    /// The geometry of `conv2d(x, w)` with x `[n, h, w, c]` and w `[kh, kw, c, oc]`.
    ///
    /// Errors: ShapeError naming both shapes when a rank is not 4, the channels differ, or
    /// the window does not fit.
    pub fn conv(x: &[usize], w: &[usize], win: Window) -> R<Geom> {
        if x.len() != 4 || w.len() != 4 {
            tensor_bail!(
                Shape,
                "conv2d needs an input of rank 4 [batch, height, width, channels] and filters of rank 4 \
                 [height, width, in_channels, out_channels], got shapes {} and {}",
                shape_str(x),
                shape_str(w)
            );
        }
        if x[3] != w[2] {
            tensor_bail!(
                Shape,
                "conv2d: the input has {} channels but the filters expect {}, in shapes {} and {}",
                x[3],
                w[2],
                shape_str(x),
                shape_str(w)
            );
        }
        if w[0] == 0 || w[1] == 0 {
            tensor_bail!(Shape, "conv2d: empty filters of shape {} for the input {}", shape_str(w), shape_str(x));
        }
        let what = format!("filters of shape {}", shape_str(w));
        Geom::new("conv2d", x, &what, (w[0], w[1], w[3]), win.strides, win.dilations, win.padding)
    }

    /// The geometry of a `kh × kw` pooling of x `[n, h, w, c]`; `what` names it.
    ///
    /// Errors: ShapeError when x's rank is not 4 or the window does not fit.
    pub fn pool(what: &str, x: &[usize], (kh, kw): (usize, usize), win: Window) -> R<Geom> {
        if x.len() != 4 {
            tensor_bail!(
                Shape,
                "{what} needs an input of rank 4 [batch, height, width, channels], got shape {}",
                shape_str(x)
            );
        }
        Geom::new(what, x, &format!("a {kh}×{kw} window"), (kh, kw, x[3]), win.strides, win.dilations, win.padding)
    }

    /// The geometry of `input` (shape `[n, h, w, c]`) under a `kh × kw` window with `oc`
    /// output channels; `what` names the operation and `window` describes the window in messages.
    ///
    /// Errors: ShapeError when the output size would be negative (naming both shapes);
    /// ValueError when an intermediate buffer is over budget.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        what: &str,
        input: &[usize],
        window: &str,
        (kh, kw, oc): (usize, usize, usize),
        (sh, sw): (usize, usize),
        (dh, dw): (usize, usize),
        padding: Padding,
    ) -> R<Geom> {
        let [n, h, w, c] = [input[0], input[1], input[2], input[3]];
        let rows = out_size(h, kh, sh, dh, padding, 0);
        let cols = out_size(w, kw, sw, dw, padding, 1);
        let (Some((oh, pt)), Some((ow, pl))) = (rows, cols) else {
            tensor_bail!(
                Shape,
                "{what}: the input of shape {} is too small for {window} (the output size would be negative)",
                shape_str(input)
            );
        };
        let g = Geom { n, h, w, c, kh, kw, oc, oh, ow, sh, sw, dh, dw, pt, pl };
        check_shape(&g.out_shape())?;
        Ok(g)
    }

    /// `[n, h, w, c]`
    pub fn in_shape(&self) -> [usize; 4] {
        [self.n, self.h, self.w, self.c]
    }

    /// `[n, oh, ow, oc]`
    pub fn out_shape(&self) -> [usize; 4] {
        [self.n, self.oh, self.ow, self.oc]
    }

    /// `[kh, kw, c, oc]`
    pub fn filter_shape(&self) -> [usize; 4] {
        [self.kh, self.kw, self.c, self.oc]
    }

    /// The input row of window row `ky` at output row `oy`, if inside the input.
    #[inline]
    fn in_row(&self, oy: usize, ky: usize) -> Option<usize> {
        (oy * self.sh + ky * self.dh).checked_sub(self.pt).filter(|&r| r < self.h)
    }

    /// The input column of window column `kx` at output column `ox`, if inside the input.
    #[inline]
    fn in_col(&self, ox: usize, kx: usize) -> Option<usize> {
        (ox * self.sw + kx * self.dw).checked_sub(self.pl).filter(|&c| c < self.w)
    }

    /// The window taps `k` (of `0..k_len`) at output position `o` that land inside an axis of
    /// `size` (o·stride + k·dil − pad in [0, size)): computed, not scanned, so a huge window
    /// over a small input costs only its taps inside.
    fn taps(
        &self,
        o: usize,
        stride: usize,
        dil: usize,
        pad: usize,
        size: usize,
        k_len: usize,
    ) -> std::ops::Range<usize> {
        let start = o * stride;
        // k·dil ≥ pad − start and k·dil < size + pad − start
        let lo = pad.saturating_sub(start).div_ceil(dil);
        let hi = (size + pad).saturating_sub(start).div_ceil(dil);
        lo.min(k_len)..hi.min(k_len)
    }

    /// The length of one im2col row, `kh·kw·c`.
    fn patch(&self) -> usize {
        self.kh * self.kw * self.c
    }
}

/// The im2col matrix `[n·oh·ow, kh·kw·c]` (zeros where the window overhangs the input).
fn im2col<T: Float + Send + Sync>(x: &[T], g: &Geom) -> Vec<T> {
    use rayon::prelude::*;
    let k = g.patch();
    let mut cols = vec![T::zero(); g.n * g.oh * g.ow * k];
    let per_image = g.oh * g.ow * k;
    if per_image == 0 {
        return cols;
    }
    let fill = |(b, img): (usize, &mut [T])| {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let row = &mut img[(oy * g.ow + ox) * k..][..k];
                for ky in 0..g.kh {
                    let Some(iy) = g.in_row(oy, ky) else { continue };
                    for kx in 0..g.kw {
                        let Some(ix) = g.in_col(ox, kx) else { continue };
                        let src = ((b * g.h + iy) * g.w + ix) * g.c;
                        row[(ky * g.kw + kx) * g.c..][..g.c].copy_from_slice(&x[src..src + g.c]);
                    }
                }
            }
        }
    };
    if super::kernels::parallel_for(cols.len()) {
        cols.par_chunks_mut(per_image).enumerate().for_each(fill);
    } else {
        cols.chunks_mut(per_image).enumerate().for_each(fill);
    }
    cols
}

/// Folds an im2col-shaped matrix back onto the input, summing overlapping windows (the
/// adjoint of [`im2col`]).
fn col2im<T: Float + Send + Sync>(cols: &[T], g: &Geom) -> Vec<T> {
    use rayon::prelude::*;
    let k = g.patch();
    let per_image = g.h * g.w * g.c;
    let mut x = vec![T::zero(); g.n * per_image];
    if per_image == 0 {
        return x;
    }
    let fold = |(b, img): (usize, &mut [T])| {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let row = &cols[((b * g.oh + oy) * g.ow + ox) * k..][..k];
                for ky in 0..g.kh {
                    let Some(iy) = g.in_row(oy, ky) else { continue };
                    for kx in 0..g.kw {
                        let Some(ix) = g.in_col(ox, kx) else { continue };
                        let dst = &mut img[(iy * g.w + ix) * g.c..][..g.c];
                        for (d, &s) in dst.iter_mut().zip(&row[(ky * g.kw + kx) * g.c..][..g.c]) {
                            *d = *d + s;
                        }
                    }
                }
            }
        }
    };
    // Each image folds into its own slice, so threads never share an output element.
    if super::kernels::parallel_for(cols.len()) {
        x.par_chunks_mut(per_image).enumerate().for_each(fold);
    } else {
        x.chunks_mut(per_image).enumerate().for_each(fold);
    }
    x
}

/// The float element types the kernels run on, with their [`Array`] variant.
trait Elem: Float + Send + Sync + 'static {
    fn wrap(a: ArrayD<Self>) -> Array;
    fn unwrap(a: Array) -> ArrayD<Self>;
}

impl Elem for f32 {
    fn wrap(a: ArrayD<f32>) -> Array {
        Array::F32(a)
    }
    fn unwrap(a: Array) -> ArrayD<f32> {
        match a {
            Array::F32(x) => x,
            _ => unreachable!("a float32 GEMM returns float32"),
        }
    }
}

impl Elem for f64 {
    fn wrap(a: ArrayD<f64>) -> Array {
        Array::F64(a)
    }
    fn unwrap(a: Array) -> ArrayD<f64> {
        match a {
            Array::F64(x) => x,
            _ => unreachable!("a float64 GEMM returns float64"),
        }
    }
}

/// The elements in row-major order: borrowed when the array is contiguous, else copied.
fn slice_of<T: Clone>(a: &ArrayD<T>) -> std::borrow::Cow<'_, [T]> {
    match a.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(a.as_standard_layout().iter().cloned().collect()),
    }
}

/// A row-major `[rows, cols]` matrix holding `a`'s elements.
fn matrix<T: Clone>(a: &ArrayD<T>, rows: usize, cols: usize) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(&[rows, cols]), slice_of(a).into_owned()).expect("rows·cols elements")
}

/// `op(lhs) · op(rhs)` through the GEMM kernel (`op` transposes where asked).
fn gemm<T: Elem>(lhs: ArrayD<T>, rhs: ArrayD<T>, ta: bool, tb: bool) -> R<ArrayD<T>> {
    let out = matmul_2d_transposed(&T::wrap(lhs), &T::wrap(rhs), ta, tb).expect("2-D float operands")?;
    Ok(T::unwrap(out))
}

/// Reshapes a fresh (row-major) GEMM result.
fn shaped<T>(a: ArrayD<T>, shape: &[usize]) -> ArrayD<T> {
    a.into_shape_with_order(IxDyn(shape)).expect("same element count")
}

/// The most elements one im2col buffer holds (64 Mi: 256 MB of float32): a batch whose buffer
/// would be larger is processed in runs of images that fit, so memory stays bounded and no
/// buffer goes over the tensor size limit however large the batch. Below it, one run.
const IM2COL_ELEMENTS: usize = 1 << 26;

/// The runs of images `[start, end)` that each fit in one im2col buffer of `limit` elements.
fn image_runs(g: &Geom, limit: usize) -> Vec<(usize, usize)> {
    let per_image = (g.oh * g.ow * g.patch()).max(1);
    let per_run = (limit / per_image).max(1);
    (0..g.n).step_by(per_run).map(|start| (start, (start + per_run).min(g.n))).collect()
}

/// The geometry of images `[start, end)` of `g`'s batch.
fn run_geom(g: &Geom, (start, end): (usize, usize)) -> Geom {
    Geom { n: end - start, ..*g }
}

fn conv_t<T: Elem>(x: &ArrayD<T>, w: &ArrayD<T>, g: &Geom) -> R<ArrayD<T>> {
    conv_runs(x, w, g, IM2COL_ELEMENTS)
}

fn conv_runs<T: Elem>(x: &ArrayD<T>, w: &ArrayD<T>, g: &Geom, limit: usize) -> R<ArrayD<T>> {
    let k = g.patch();
    let xs = slice_of(x);
    let filters = matrix(w, k, g.oc);
    let mut out: Vec<T> = Vec::with_capacity(g.n * g.oh * g.ow * g.oc);
    let per_image_in = g.h * g.w * g.c;
    for run in image_runs(g, limit) {
        let rg = run_geom(g, run);
        let cols = im2col(&xs[run.0 * per_image_in..run.1 * per_image_in], &rg);
        let cols = ArrayD::from_shape_vec(IxDyn(&[rg.n * rg.oh * rg.ow, k]), cols).expect("im2col size");
        let y = gemm(cols, filters.clone(), false, false)?;
        out.extend_from_slice(y.as_slice().expect("a fresh GEMM result is contiguous"));
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&g.out_shape()), out).expect("output size"))
}

fn backprop_input_t<T: Elem>(dy: &ArrayD<T>, w: &ArrayD<T>, g: &Geom) -> R<ArrayD<T>> {
    backprop_input_runs(dy, w, g, IM2COL_ELEMENTS)
}

fn backprop_input_runs<T: Elem>(dy: &ArrayD<T>, w: &ArrayD<T>, g: &Geom, limit: usize) -> R<ArrayD<T>> {
    let k = g.patch();
    let dys = slice_of(dy);
    let filters = matrix(w, k, g.oc);
    let per_image_out = g.oh * g.ow * g.oc;
    let mut x: Vec<T> = Vec::with_capacity(g.n * g.h * g.w * g.c);
    for run in image_runs(g, limit) {
        let rg = run_geom(g, run);
        let rows = rg.n * rg.oh * rg.ow;
        let part = ArrayD::from_shape_vec(IxDyn(&[rows, g.oc]), dys[run.0 * per_image_out..run.1 * per_image_out].to_vec())
            .expect("upstream size");
        let dcols = gemm(part, filters.clone(), false, true)?;
        x.extend(col2im(dcols.as_slice().expect("a fresh GEMM result is contiguous"), &rg));
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&g.in_shape()), x).expect("input size"))
}

fn backprop_filter_t<T: Elem>(x: &ArrayD<T>, dy: &ArrayD<T>, g: &Geom) -> R<ArrayD<T>> {
    backprop_filter_runs(x, dy, g, IM2COL_ELEMENTS)
}

fn backprop_filter_runs<T: Elem>(x: &ArrayD<T>, dy: &ArrayD<T>, g: &Geom, limit: usize) -> R<ArrayD<T>> {
    let k = g.patch();
    let (xs, dys) = (slice_of(x), slice_of(dy));
    let (per_image_in, per_image_out) = (g.h * g.w * g.c, g.oh * g.ow * g.oc);
    let mut total: Option<ArrayD<T>> = None;
    for run in image_runs(g, limit) {
        let rg = run_geom(g, run);
        let rows = rg.n * rg.oh * rg.ow;
        let cols = im2col(&xs[run.0 * per_image_in..run.1 * per_image_in], &rg);
        let cols = ArrayD::from_shape_vec(IxDyn(&[rows, k]), cols).expect("im2col size");
        let part = ArrayD::from_shape_vec(IxDyn(&[rows, g.oc]), dys[run.0 * per_image_out..run.1 * per_image_out].to_vec())
            .expect("upstream size");
        let dw = gemm(cols, part, true, false)?;
        total = Some(match total {
            None => dw,
            Some(t) => t + dw,
        });
    }
    let dw = total.unwrap_or_else(|| ArrayD::from_elem(IxDyn(&[k, g.oc]), T::zero()));
    Ok(shaped(dw, &g.filter_shape()))
}

/// Checks that both operands are float tensors of one dtype.
fn float_pair(what: &str, a: &Array, b: &Array) -> R<DType> {
    if a.dtype() != b.dtype() {
        tensor_bail!(Type, "{what}: cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype());
    }
    if !a.dtype().is_float() {
        tensor_bail!(Type, "{what} needs float tensors, got {}", a.dtype());
    }
    Ok(a.dtype())
}

/// Runs one of the three bilinear kernels on two float arrays of one dtype.
macro_rules! dispatch {
    ($what:expr, $f:ident, $a:expr, $b:expr, $g:expr) => {{
        float_pair($what, $a, $b)?;
        // One image's im2col buffer must fit; a batch is processed in runs (`image_runs`).
        check_shape(&[$g.oh * $g.ow, $g.patch()])?;
        match ($a, $b) {
            (Array::F32(x), Array::F32(y)) => Ok(Array::F32($f(x, y, $g)?)),
            (Array::F64(x), Array::F64(y)) => Ok(Array::F64($f(x, y, $g)?)),
            _ => unreachable!("float operands of one dtype (checked)"),
        }
    }};
}

/// `conv2d(x, w)`: x `[n, h, w, c]`, w `[kh, kw, c, oc]` → `[n, oh, ow, oc]`.
pub fn conv2d(x: &Array, w: &Array, g: &Geom) -> R<Array> {
    dispatch!("conv2d", conv_t, x, w, g)
}

/// The gradient of conv2d with respect to its input (TF's `Conv2DBackpropInput`, a transposed
/// convolution): dy `[n, oh, ow, oc]`, w `[kh, kw, c, oc]` → `[n, h, w, c]`.
pub fn conv2d_backprop_input(dy: &Array, w: &Array, g: &Geom) -> R<Array> {
    dispatch!("conv2d_backprop_input", backprop_input_t, dy, w, g)
}

/// The gradient of conv2d with respect to its filters (TF's `Conv2DBackpropFilter`):
/// x `[n, h, w, c]`, dy `[n, oh, ow, oc]` → `[kh, kw, c, oc]`.
pub fn conv2d_backprop_filter(x: &Array, dy: &Array, g: &Geom) -> R<Array> {
    dispatch!("conv2d_backprop_filter", backprop_filter_t, x, dy, g)
}

/// Visits each output pixel of a pooling as `(output pixel, the input pixels of its window inside
/// the input, in row-major window order)`; pixels index `[n, h, w]` (times `c` for elements).
fn windows(g: &Geom, mut f: impl FnMut(usize, &[usize])) {
    let mut taps = Vec::with_capacity(g.kh.min(g.h) * g.kw.min(g.w));
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                taps.clear();
                for ky in g.taps(oy, g.sh, g.dh, g.pt, g.h, g.kh) {
                    let Some(iy) = g.in_row(oy, ky) else { continue };
                    for kx in g.taps(ox, g.sw, g.dw, g.pl, g.w, g.kw) {
                        let Some(ix) = g.in_col(ox, kx) else { continue };
                        taps.push((b * g.h + iy) * g.w + ix);
                    }
                }
                f((b * g.oh + oy) * g.ow + ox, &taps);
            }
        }
    }
}

/// Runs a pooling kernel on x's elements (float32 or float64) and wraps its result.
macro_rules! pool_dispatch {
    ($what:expr, $x:expr, $f:ident $(, $arg:expr)*) => {
        match $x {
            Array::F32(x) => Array::F32($f(&slice_of(x), $($arg),*)),
            Array::F64(x) => Array::F64($f(&slice_of(x), $($arg),*)),
            other => tensor_bail!(Type, "{} needs a float tensor, got {}", $what, other.dtype()),
        }
    };
}

fn max_pool_t<T: Elem>(x: &[T], g: &Geom, arg: &mut Vec<usize>) -> ArrayD<T> {
    let c = g.c;
    let mut out = vec![T::neg_infinity(); g.n * g.oh * g.ow * c];
    arg.clear();
    arg.resize(out.len(), usize::MAX);
    windows(g, |o, taps| {
        let (out, arg) = (&mut out[o * c..][..c], &mut arg[o * c..][..c]);
        for &p in taps {
            for (ch, (m, a)) in out.iter_mut().zip(arg.iter_mut()).enumerate() {
                let v = x[p * c + ch];
                if *a == usize::MAX || v > *m || (v.is_nan() && !m.is_nan()) {
                    *m = v;
                    *a = p * c + ch;
                }
            }
        }
    });
    ArrayD::from_shape_vec(IxDyn(&g.out_shape()), out).expect("output size")
}

/// `max_pool2d(x)`: the maximum of each window (padding never wins) and, for the gradient, the
/// input index it came from: the first maximum in row-major window order (TF's CPU tie rule). A
/// NaN in a window is its maximum. A window with no input element (possible only with explicit
/// padding) gives -inf and routes no gradient (index `usize::MAX`).
pub fn max_pool(x: &Array, g: &Geom) -> R<(Array, Vec<usize>)> {
    let mut arg = Vec::new();
    let out = pool_dispatch!("max_pool2d", x, max_pool_t, g, &mut arg);
    Ok((out, arg))
}

/// Adds each element of `dy` (pool-output shaped) into zeros of the input shape at its `argmax`
/// index: max_pool2d's VJP.
///
/// Errors: MemoryError when its float64 work buffers pass the memory limit.
pub fn max_pool_scatter(dy: &Array, argmax: &[usize], in_shape: &[usize]) -> R<Array> {
    let dv = dy.try_to_f64_vec()?;
    let n: usize = in_shape.iter().product();
    super::budget::check_elements(n, 8)?;
    let mut out = vec![0.0; n];
    for (&i, &d) in argmax.iter().zip(&dv) {
        if i != usize::MAX {
            out[i] += d;
        }
    }
    Ok(Array::from_f64(dy.dtype(), in_shape, out))
}

/// Reads `u` (input shaped) at each `argmax` index: the adjoint of [`max_pool_scatter`].
///
/// Errors: MemoryError when its float64 work buffers pass the memory limit.
pub fn max_pool_gather(u: &Array, argmax: &[usize], out_shape: &[usize]) -> R<Array> {
    let uv = u.try_to_f64_vec()?;
    super::budget::check_elements(argmax.len(), 8)?;
    let out = argmax.iter().map(|&i| if i == usize::MAX { 0.0 } else { uv[i] }).collect();
    Ok(Array::from_f64(u.dtype(), out_shape, out))
}

fn avg_pool_t<T: Elem>(x: &[T], g: &Geom) -> ArrayD<T> {
    let c = g.c;
    let mut out = vec![T::zero(); g.n * g.oh * g.ow * c];
    let mut acc = vec![0.0f64; c];
    windows(g, |o, taps| {
        acc.iter_mut().for_each(|a| *a = 0.0);
        for &p in taps {
            for (a, v) in acc.iter_mut().zip(&x[p * c..][..c]) {
                *a += v.to_f64().unwrap_or(f64::NAN);
            }
        }
        let k = taps.len().max(1) as f64;
        for (o, a) in out[o * c..][..c].iter_mut().zip(&acc) {
            *o = T::from(a / k).unwrap_or_else(T::nan);
        }
    });
    ArrayD::from_shape_vec(IxDyn(&g.out_shape()), out).expect("output size")
}

/// `avg_pool2d(x)`: the mean of each window over the input elements inside it (padding is
/// not counted, as TF's SAME), accumulated in float64.
pub fn avg_pool(x: &Array, g: &Geom) -> R<Array> {
    Ok(pool_dispatch!("avg_pool2d", x, avg_pool_t, g))
}

fn avg_spread_t<T: Elem>(dy: &[T], g: &Geom) -> ArrayD<T> {
    let c = g.c;
    let mut out = vec![0.0f64; g.n * g.h * g.w * c];
    windows(g, |o, taps| {
        let k = taps.len().max(1) as f64;
        for &p in taps {
            for (d, v) in out[p * c..][..c].iter_mut().zip(&dy[o * c..][..c]) {
                *d += v.to_f64().unwrap_or(f64::NAN) / k;
            }
        }
    });
    let out = out.into_iter().map(|v| T::from(v).unwrap_or_else(T::nan)).collect();
    ArrayD::from_shape_vec(IxDyn(&g.in_shape()), out).expect("input size")
}

/// avg_pool2d's VJP: each output gradient spread evenly over the input elements of its window.
pub fn avg_pool_grad(dy: &Array, g: &Geom) -> R<Array> {
    Ok(pool_dispatch!("avg_pool2d", dy, avg_spread_t, g))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], seed: u64) -> Array {
        let n: usize = shape.iter().product();
        let v = (0..n).map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64) / 500.0 - 1.0).collect();
        Array::from_f64(DType::F64, shape, v)
    }

    /// conv2d by the definition, for comparison.
    fn naive(x: &[f64], w: &[f64], g: &Geom) -> Vec<f64> {
        let mut out = vec![0.0; g.n * g.oh * g.ow * g.oc];
        for b in 0..g.n {
            for oy in 0..g.oh {
                for ox in 0..g.ow {
                    for o in 0..g.oc {
                        let mut s = 0.0;
                        for ky in 0..g.kh {
                            for kx in 0..g.kw {
                                let iy = (oy * g.sh + ky * g.dh) as i64 - g.pt as i64;
                                let ix = (ox * g.sw + kx * g.dw) as i64 - g.pl as i64;
                                if iy < 0 || ix < 0 || iy >= g.h as i64 || ix >= g.w as i64 {
                                    continue;
                                }
                                for ci in 0..g.c {
                                    s += x[((b * g.h + iy as usize) * g.w + ix as usize) * g.c + ci]
                                        * w[((ky * g.kw + kx) * g.c + ci) * g.oc + o];
                                }
                            }
                        }
                        out[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = s;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn conv2d_matches_the_definition_with_strides_dilations_and_padding() {
        for (pad, s, d) in [(Padding::Same, 2, 1), (Padding::Valid, 1, 2), (Padding::Explicit([[1, 2], [0, 1]]), 2, 1)]
        {
            let x = arr(&[2, 7, 6, 3], 1);
            let w = arr(&[3, 2, 3, 4], 2);
            let g = Geom::new("conv2d", &[2, 7, 6, 3], "filters", (3, 2, 4), (s, s), (d, d), pad).unwrap();
            let got = conv2d(&x, &w, &g).unwrap().to_f64_vec();
            let want = naive(&x.to_f64_vec(), &w.to_f64_vec(), &g);
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() < 1e-12, "{pad:?}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn tf_output_sizes() {
        let g =
            |h, k, s, p| Geom::new("t", &[1, h, h, 1], "a window", (k, k, 1), (s, s), (1, 1), p).map(|g| (g.oh, g.pt));
        assert_eq!(g(8, 3, 1, Padding::Same).unwrap(), (8, 1));
        assert_eq!(g(8, 3, 2, Padding::Same).unwrap(), (4, 0));
        assert_eq!(g(7, 4, 2, Padding::Same).unwrap(), (4, 1));
        assert_eq!(g(8, 3, 2, Padding::Valid).unwrap(), (3, 0));
        // TF: a window one larger than the input gives an empty output, two larger an error.
        assert_eq!(g(9, 10, 1, Padding::Valid).unwrap(), (0, 0));
        assert!(g(9, 11, 1, Padding::Valid).is_err());
    }

    /// At scale, float32 conv2d and its gradients stay within float32 accuracy of float64.
    #[test]
    fn float32_at_scale_agrees_with_float64() {
        let (xs, ws) = ([4, 24, 24, 64], [3, 3, 64, 48]);
        let win = Window { strides: (1, 1), dilations: (1, 1), padding: Padding::Same };
        let g = Geom::conv(&xs, &ws, win).unwrap();
        let (x, w) = (arr(&xs, 3), arr(&ws, 4));
        let dy = arr(&g.out_shape(), 5);
        let f32s = |a: &Array| a.cast(DType::F32);
        let pairs = [
            (conv2d(&x, &w, &g).unwrap(), conv2d(&f32s(&x), &f32s(&w), &g).unwrap()),
            (conv2d_backprop_input(&dy, &w, &g).unwrap(), conv2d_backprop_input(&f32s(&dy), &f32s(&w), &g).unwrap()),
            (conv2d_backprop_filter(&x, &dy, &g).unwrap(), conv2d_backprop_filter(&f32s(&x), &f32s(&dy), &g).unwrap()),
        ];
        for (i, (a, b)) in pairs.iter().enumerate() {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let err = a.iter().zip(&b).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
            assert!(err <= 1e-5 * scale, "kernel {i}: max error {err} at scale {scale}");
        }
    }

    /// A batch processed in runs of images (as when its im2col buffer would be too large) gives
    /// what one run gives, for every run length and all three kernels.
    #[test]
    fn runs_of_images_agree_with_one_run() {
        let win = Window { strides: (2, 1), dilations: (1, 1), padding: Padding::Same };
        let (xs, ws) = ([5, 6, 5, 3], [3, 2, 3, 4]);
        let g = Geom::conv(&xs, &ws, win).unwrap();
        let (x, w, dy) = (arr(&xs, 7), arr(&ws, 8), arr(&g.out_shape(), 9));
        let f = |a: &Array| match a {
            Array::F64(v) => v.clone(),
            _ => unreachable!("float64 test data"),
        };
        let (x, w, dy) = (f(&x), f(&w), f(&dy));
        let whole = (
            conv_runs(&x, &w, &g, usize::MAX).unwrap(),
            backprop_input_runs(&dy, &w, &g, usize::MAX).unwrap(),
            backprop_filter_runs(&x, &dy, &g, usize::MAX).unwrap(),
        );
        let per_image = g.oh * g.ow * g.patch();
        for images in 1..=g.n {
            let limit = images * per_image;
            assert_eq!(image_runs(&g, limit).len(), g.n.div_ceil(images));
            assert_eq!(conv_runs(&x, &w, &g, limit).unwrap(), whole.0);
            assert_eq!(backprop_input_runs(&dy, &w, &g, limit).unwrap(), whole.1);
            let bf = backprop_filter_runs(&x, &dy, &g, limit).unwrap();
            let err = bf.iter().zip(whole.2.iter()).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
            assert!(err < 1e-12, "filter gradient in runs of {images}: error {err}");
        }
    }
}
