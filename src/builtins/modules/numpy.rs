//! `import numpy as np`: the NumPy functions DGL has an equivalent of, bound to
//! DGL's values. Reductions, elementwise functions and shape functions are DGL's builtins,
//! which compute what NumPy's do on the same array; where NumPy's conventions differ (float64
//! and int64 arrays from Python numbers, `argmax` over the flattened array, `dot`, the mean of
//! integers) the name is an adapter written in DGL (stdlib/_numpy.dgl). A Python number or
//! list passed straight to a builtin becomes a float32 tensor, as everywhere in DGL: make
//! arrays with `np.array` to get NumPy's dtypes.

use super::foreign::Library;
use crate::error::R;
use crate::runtime::value::{ModuleHooks, Value};
use crate::runtime::Interp;

/// NumPy's modules and the DGL values of their names (see [`Library::table`]).
const TABLE: &[(&str, &str)] = &[
    (
        "numpy",
        "array=_numpy.array asarray=_numpy.array zeros=_numpy.zeros ones=_numpy.ones full=_numpy.full \
         eye=_numpy.eye identity=_numpy.eye arange=_numpy.arange linspace=_numpy.linspace zeros_like ones_like \
         sum=reduce_sum prod=reduce_prod max=reduce_max min=reduce_min amax=reduce_max amin=reduce_min \
         mean=_numpy.mean std=_numpy.std var=_numpy.var argmax=_numpy.argmax argmin=_numpy.argmin \
         all=reduce_all any=reduce_any \
         exp log log1p sqrt square abs absolute=abs sign floor ceil sin cos tan tanh negative \
         add subtract multiply divide power=pow maximum minimum clip=clip_by_value where \
         equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor logical_not \
         isnan=is_nan isinf=is_inf isfinite=is_finite \
         matmul dot=_numpy.dot einsum transpose reshape expand_dims squeeze stack concatenate=_numpy.concatenate \
         tile sort \
         float32 float64 int64 int32 bool_=bool newaxis pi=math.pi e=math.e inf=math.inf nan=math.nan",
    ),
    ("numpy.linalg", "norm inv=linalg.inv det=linalg.det solve=_numpy.solve cholesky=linalg.cholesky"),
];

/// NumPy, as DGL provides it.
pub static NUMPY: Library =
    Library { root: "numpy", alias: "np", title: "NumPy", table: TABLE, other_names: &[], hooks: &HOOKS };

static HOOKS: ModuleHooks =
    ModuleHooks { missing: |rt, m, name| NUMPY.missing(rt, m, name), unbound: |m| NUMPY.unbound(m) };

/// Builds `numpy` and `numpy.linalg` (the importer then finds the one it asked for).
pub fn build(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    NUMPY.register(rt)?;
    Ok(vec![])
}
