//! Introspection for the attribute walks of `Module` and Keras-style layers
//! (stdlib/_module.dgl, stdlib/_layers.dgl): `vars(obj)` and `_parameter_names(fn)`.

use crate::bail;
use crate::builtins::Native;
use crate::error::R;
use crate::runtime::value::{Args, Dict, HashKey, Value};
use crate::runtime::Interp;
use crate::syntax::ast::ParamKind;
use std::cell::RefCell;
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&VARS);
    reg(&_PARAMETER_NAMES);
}

static VARS: Native = Native::new("vars", &["object"], vars);

/// `vars(object)`: an instance's attributes as a new dict, in first-assignment order
/// (Python's `__dict__`; unlike Python's, the dict is a copy, so writing to it does not
/// change the object).
///
/// Errors: TypeError for a value that is not an instance of a user class.
fn vars(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = VARS.bind(rt, args)?.value("object")?;
    let Value::Instance(inst) = &v else {
        bail!(Type, "vars() argument must be an instance of a class, not {}", v.type_name())
    };
    let mut d = Dict::default();
    for (k, val) in inst.attrs.borrow().iter() {
        let name: Rc<str> = k.name();
        let name = crate::text::Text::from(name);
        d.insert(HashKey::Str(name.clone()), (Value::Str(name), val.clone()));
    }
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

static _PARAMETER_NAMES: Native = Native::new("_parameter_names", &["fn"], parameter_names)
    // Dense gradients, as DGL's (TF's gradient of a gather is IndexedSlices).
    .exported_as("dgl_tf._parameter_names");

/// `_parameter_names(fn)`: the names a DGL function accepts as keywords, in order (a bound
/// method's receiver left out; `*args` and `**kwargs` are not names). Keras passes
/// `training=` to a layer's `call` only when `call` names it (stdlib/_layers.dgl).
///
/// Errors: TypeError for a value that is not a DGL function or method.
fn parameter_names(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = _PARAMETER_NAMES.bind(rt, args)?.value("fn")?;
    let (func, skip) = match &v {
        Value::Func(f) => (f.clone(), 0),
        Value::Method(m) => match &m.1 {
            Value::Func(f) => (f.clone(), 1),
            other => bail!(Type, "_parameter_names() needs a function, not {}", other.type_name()),
        },
        other => bail!(Type, "_parameter_names() needs a function, not {}", other.type_name()),
    };
    let names = func
        .def
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Normal | ParamKind::KwOnly))
        .skip(skip)
        .map(|p| Value::Str(p.name.name().into()))
        .collect();
    Ok(Value::list(names))
}
