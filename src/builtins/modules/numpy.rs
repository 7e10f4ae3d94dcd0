//! `import numpy as np`: the NumPy functions DGL has an equivalent of, bound to
//! DGL's values. Reductions, elementwise functions and shape functions are DGL's builtins,
//! which compute what NumPy's do on the same array; where NumPy's conventions differ (float64
//! and int64 arrays from Python numbers, `argmax` over the flattened array, `dot`, the mean of
//! integers) the name is an adapter written in DGL (stdlib/_numpy.dgl). A Python number or
//! list passed straight to a builtin becomes a float32 tensor, as everywhere in DGL: make
//! arrays with `np.array` to get NumPy's dtypes.

use super::foreign::Library;
use crate::error::R;
use crate::runtime::value::{Dialect, ModuleHooks, Value};
use crate::runtime::Interp;

/// NumPy's names that no builtin's declaration spells (see [`Library::table`]): adapters
/// written in DGL (stdlib/_numpy.dgl), constants and dtypes. A builtin's own NumPy names
/// (`np.sum` on `reduce_sum`) are in its declaration.
const TABLE: &[(&str, &str)] = &[
    (
        "numpy",
        "array=_numpy.array asarray=_numpy.asarray ndarray=_numpy_kernels.ndarray dtype=_numpy.dtype \
         shares_memory=_numpy.shares_memory may_share_memory=_numpy.shares_memory zeros=_numpy.zeros ones=_numpy.ones full=_numpy.full \
         eye=_numpy.eye identity=_numpy.eye arange=_numpy.arange linspace=_numpy.linspace mean=_numpy.mean \
         std=_numpy.std var=_numpy.var argmax=_numpy.argmax argmin=_numpy.argmin dot=_numpy.dot \
         concatenate=_numpy.concatenate stack=_numpy.np_stack select=_numpy.select \
         result_type=_numpy.result_type cumsum=_numpy.np_cumsum \
         cumprod=_numpy.np_cumprod argsort=_numpy.np_argsort sort=_numpy.np_sort round=_numpy.np_round around=_numpy.np_round \
         any=_numpy.np_any all=_numpy.np_all array_equal=_numpy.array_equal float16 half float32 float64 uint8 int8 int16 int64 int32 bool newaxis pi=math.pi e=math.e inf=math.inf \
         nan=math.nan",
    ),
    ("numpy.linalg", "solve=_numpy.solve"),
    (
        "numpy.testing",
        "assert_allclose=_numpy.assert_allclose assert_array_equal=_numpy.assert_array_equal \
         assert_equal=_numpy.assert_equal assert_almost_equal=_numpy.assert_almost_equal",
    ),
    (
        "numpy.random",
        "seed=_nprandom.seed rand=_nprandom.rand randn=_nprandom.randn random=_nprandom.random \
         random_sample=_nprandom.random_sample uniform=_nprandom.uniform normal=_nprandom.normal \
         randint=_nprandom.randint binomial=_nprandom.binomial choice=_nprandom.choice shuffle=_nprandom.shuffle \
         permutation=_nprandom.permutation standard_normal=_nprandom.standard_normal \
         default_rng=_nprandom.default_rng RandomState=_nprandom.RandomState Generator=_nprandom.Generator \
         exponential=_nprandom.exponential standard_exponential=_nprandom.standard_exponential \
         gamma=_nprandom.gamma standard_gamma=_nprandom.standard_gamma beta=_nprandom.beta \
         lognormal=_nprandom.lognormal laplace=_nprandom.laplace logistic=_nprandom.logistic \
         poisson=_nprandom.poisson geometric=_nprandom.geometric multinomial=_nprandom.multinomial \
         dirichlet=_nprandom.dirichlet get_state=_nprandom.get_state set_state=_nprandom.set_state",
    ),
];

/// NumPy, as DGL provides it.
pub static NUMPY: Library = Library {
    root: "numpy",
    alias: "np",
    title: "NumPy",
    table: TABLE,
    other_names: &[],
    hooks: &HOOKS,
    dialect: Dialect::NumPy,
};

static HOOKS: ModuleHooks =
    ModuleHooks { missing: |rt, m, name| NUMPY.missing(rt, m, name), unbound: |m| NUMPY.unbound(m) };

/// Builds `numpy` and `numpy.linalg` (the importer then finds the one it asked for).
pub fn build(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    NUMPY.register(rt)?;
    Ok(vec![])
}
