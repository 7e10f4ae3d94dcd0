//! Modules (docs/language.md §6): `import NAME` looks in the importing script's
//! folder, then the `DGL_PATH` folders, then the built-in standard library.
//! A module runs once; later imports share it.

use super::value::{Frame, Globals, Module, ModuleHooks, Value};
use super::{Failure, Interp};
use crate::error::{Exc, R};
use crate::intern::Sym;
use crate::syntax::resolve::Slot;
use crate::{bail, err};
use std::path::PathBuf;
use std::rc::Rc;

/// The standard library, written in DGL and embedded in the binary.
pub const STDLIB: &[(&str, &str)] = &[
    ("nn", include_str!("../../stdlib/nn.dgl")),
    ("optim", include_str!("../../stdlib/optim.dgl")),
    ("losses", include_str!("../../stdlib/losses.dgl")),
    ("data", include_str!("../../stdlib/data.dgl")),
    ("metrics", include_str!("../../stdlib/metrics.dgl")),
    ("initializers", include_str!("../../stdlib/initializers.dgl")),
    // Private modules (a leading underscore): the builtin `Module` and the Keras layer machinery.
    ("_module", include_str!("../../stdlib/_module.dgl")),
    ("_layers", include_str!("../../stdlib/_layers.dgl")),
    ("_model", include_str!("../../stdlib/_model.dgl")),
    ("_checkpoint", include_str!("../../stdlib/_checkpoint.dgl")),
    ("_figures", include_str!("../../stdlib/_figures.dgl")),
    ("_progress", include_str!("../../stdlib/_progress.dgl")),
    // Adapters where Keras's or NumPy's functions differ from DGL's (`import tensorflow`, `numpy`).
    ("_tf", include_str!("../../stdlib/_tf.dgl")),
    // TF's control flow run eagerly (`tf.cond`, `tf.while_loop`, `tf.scan`, ...).
    ("_control", include_str!("../../stdlib/_control.dgl")),
    ("_function", include_str!("../../stdlib/_function.dgl")),
    ("_keras", include_str!("../../stdlib/_keras.dgl")),
    ("_numpy", include_str!("../../stdlib/_numpy.dgl")),
    ("_nprandom", include_str!("../../stdlib/_nprandom.dgl")),
    // TF's segment reductions and tf.math's other reductions (also builtins, below).
    ("_segments", include_str!("../../stdlib/_segments.dgl")),
    // TF's ragged and sparse tensors over DGL's dense ones (`tf.ragged`, `tf.sparse`).
    ("_ragged", include_str!("../../stdlib/_ragged.dgl")),
    ("_sparse", include_str!("../../stdlib/_sparse.dgl")),
    // Keras's `.keras`/`.weights.h5` files and TF's `tf.train.Checkpoint` (`model.save`, `tf.train`).
    ("_saving", include_str!("../../stdlib/_saving.dgl")),
    // Keras's functional API: keras.Input, layers called on KerasTensors, Model(inputs, outputs).
    ("_functional", include_str!("../../stdlib/_functional.dgl")),
    // Model.summary() drawn as Keras 3 draws it.
    ("_summary", include_str!("../../stdlib/_summary.dgl")),
    // Keras 3's callbacks and weight regularizers (`keras.callbacks`, `keras.regularizers`).
    ("_callbacks", include_str!("../../stdlib/_callbacks.dgl")),
    ("_regularizers", include_str!("../../stdlib/_regularizers.dgl")),
    // keras.ops and keras.random; keras.utils, keras.datasets and the config-based model helpers.
    ("_keras_ops", include_str!("../../stdlib/_keras_ops.dgl")),
    ("_keras_utils", include_str!("../../stdlib/_keras_utils.dgl")),
    // matplotlib's names over the figures (`import matplotlib.pyplot as plt`).
    ("matplotlib", include_str!("../../stdlib/matplotlib.dgl")),
    ("matplotlib.pyplot", include_str!("../../stdlib/matplotlib/pyplot.dgl")),
    // Python's `datetime`, the part programs stamp their runs with.
    ("datetime", include_str!("../../stdlib/datetime.dgl")),
    // Python's `timeit`, for a callable.
    ("timeit", include_str!("../../stdlib/timeit.dgl")),
];

/// Builtins written in DGL: (name, stdlib module defining it). Each loads on the first
/// read of its name ([`Interp::lazy_builtin`]), so start-up does not parse them.
pub const LAZY_BUILTINS: &[(&str, &str)] = &[
    ("Module", "_module"),
    ("checkpoint_sequential", "_checkpoint"),
    ("Figure", "_figures"),
    ("plot", "_figures"),
    ("hist", "_figures"),
    ("imshow", "_figures"),
    ("progress", "_progress"),
    ("segment_sum", "_segments"),
    ("segment_mean", "_segments"),
    ("segment_max", "_segments"),
    ("segment_min", "_segments"),
    ("segment_prod", "_segments"),
    ("unsorted_segment_sum", "_segments"),
    ("unsorted_segment_mean", "_segments"),
    ("unsorted_segment_max", "_segments"),
    ("unsorted_segment_min", "_segments"),
    ("unsorted_segment_prod", "_segments"),
    ("unsorted_segment_sqrt_n", "_segments"),
    ("bincount", "_segments"),
    ("confusion_matrix", "_segments"),
    ("cumulative_logsumexp", "_segments"),
    ("in_top_k", "_segments"),
    ("invert_permutation", "_segments"),
    ("is_non_decreasing", "_segments"),
    ("is_strictly_increasing", "_segments"),
    ("accumulate_n", "_segments"),
    ("polyval", "_segments"),
    ("approx_max_k", "_segments"),
    ("approx_min_k", "_segments"),
    ("sobol_sample", "_segments"),
];

impl Interp {
    /// The value of a builtin written in DGL, loading its stdlib module on first use, for a
    /// module-level name that is otherwise unbound (`None` when `name` is no such builtin).
    /// The global entry of the running module then reads it directly.
    pub fn lazy_builtin(&mut self, name: Sym, slot: Slot, env: &Frame) -> R<Option<Value>> {
        let (Slot::Global(i) | Slot::ClassGlobal(i)) = slot else { return Ok(None) };
        let Some((_, module)) = LAZY_BUILTINS.iter().find(|(n, _)| *n == &*name.name()) else { return Ok(None) };
        let value = match self.builtins.get(&name) {
            Some(v) => v.clone(),
            None => {
                let m = self.import_from(module, false)?;
                let v =
                    m.globals.get(name).ok_or_else(|| err!(Runtime, "internal error: {module} defines no {name}"))?;
                self.builtins.insert(name, v.clone());
                v
            }
        };
        if let Some(g) = env.globals.slots.borrow_mut().get_mut(i as usize) {
            g.builtin = Some(value.clone());
        }
        Ok(Some(value))
    }

    /// `import NAME`: the loaded module, or the module file found and run, or a
    /// built-in module (DGL's stdlib, then the native ones).
    ///
    /// Errors: ImportError for a module that does not exist (with what to do
    /// instead for TensorFlow, NumPy and PyTorch); the module's own errors.
    pub fn import(&mut self, name: &str) -> R<Rc<Module>> {
        self.import_from(name, true)
    }

    /// `import NAME` from DGL's standard library or the native modules only, never a
    /// file: what the language server loads to list and describe `nn.`, `math.`.
    ///
    /// Errors: ImportError for any other name.
    pub fn import_stdlib(&mut self, name: &str) -> R<Rc<Module>> {
        self.import_from(name, false)
    }

    /// Imports `name`, looking in the script's and `DGL_PATH` folders first when `search`
    /// is set, else in the standard library only.
    fn import_from(&mut self, name: &str, search: bool) -> R<Rc<Module>> {
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        if self.run.loading.iter().any(|n| n == name) {
            let mut cycle = self.run.loading.clone();
            cycle.push(name.to_string());
            bail!(Runtime, "import cycle: {}", cycle.join(" -> "));
        }
        let file = format!("{}.dgl", name.replace('.', "/"));
        let folders = if search { self.search_folders() } else { vec![] };
        let found = folders.into_iter().map(|d| d.join(&file)).find(|p| p.is_file());
        let (display, path, text) = match found {
            Some(p) => {
                let text = crate::files::read_source(&p).map_err(|m| err!(IO, "cannot import '{name}': {m}"))?;
                let shown = p.strip_prefix(&self.script_dir).unwrap_or(&p).display().to_string();
                (shown, Some(p), text)
            }
            None => match STDLIB.iter().find(|(n, _)| *n == name) {
                Some((n, src)) => (format!("<stdlib>/{n}.dgl"), None::<PathBuf>, src.to_string()),
                None => match (self.hooks.native_modules)(name) {
                    Some(build) => return self.native_module(name, build),
                    None if search && self.is_package_folder(name) => {
                        // A folder of modules with no `NAME.dgl`: an empty package (Python's
                        // namespace package) whose submodules become its attributes as
                        // they are imported.
                        let module = Rc::new(Module::new(name, Rc::new(Globals::default()), None));
                        self.modules.insert(name.to_string(), module.clone());
                        return Ok(module);
                    }
                    None => return Err(missing_module(name)),
                },
            },
        };
        let id = self.sources.add(display, path, &text);
        let globals = Rc::new(Globals::default());
        let doc = crate::syntax::module_docstring(&text);
        self.run.loading.push(name.to_string());
        let result = self.run_source(id, &globals);
        self.run.loading.pop();
        match result {
            Ok(_) => {
                let mut module = Module::new(name, globals.clone(), doc);
                // A module defining `__getattr__(name)` is asked for the names it does not
                // bind, as in Python (docs/language.md §6).
                if globals.get(crate::intern::sym::GETATTR).is_some() {
                    module.hooks = Some(&MODULE_GETATTR);
                }
                let module = Rc::new(module);
                self.modules.insert(name.to_string(), module.clone());
                Ok(module)
            }
            Err(Failure::Runtime(e)) => Err(e),
            // A syntax error inside a module points into that module's file.
            Err(Failure::Syntax(src, errs)) => {
                let first = errs.into_iter().next().expect("at least one syntax error");
                let mut e = Exc::new(crate::error::ErrorKind::Syntax, first.message);
                e.0.at = Some((src, first.span));
                e.0.from_parse = true;
                Err(e)
            }
        }
    }
}

impl Interp {
    /// `import a.b.c` (and the module part of `from a.b.c import x`): imports `a`, `a.b` and
    /// `a.b.c` in turn, as Python does, and makes each submodule an attribute of its parent
    /// (`a.b` is `a`'s attribute `b`) unless the parent already binds that name. Returns
    /// every module of the path, outermost first.
    ///
    /// Errors: ImportError naming the first part of the path that is not a module; the
    /// modules' own errors.
    pub fn import_path(&mut self, path: &[&str]) -> R<Vec<Rc<Module>>> {
        let mut out: Vec<Rc<Module>> = Vec::with_capacity(path.len());
        for k in 1..=path.len() {
            let name = path[..k].join(".");
            let m = self.import(&name)?;
            if let Some(parent) = out.last() {
                let attr = crate::intern::intern(path[k - 1]);
                if parent.globals.get(attr).is_none() {
                    parent.globals.set(attr, Value::Module(m.clone()));
                }
            }
            out.push(m);
        }
        Ok(out)
    }

    /// Where imports look for module files: the script's folder, then `DGL_PATH`'s folders.
    fn search_folders(&self) -> Vec<PathBuf> {
        let mut folders = vec![self.script_dir.clone()];
        if let Ok(path) = std::env::var("DGL_PATH") {
            folders.extend(std::env::split_paths(&path));
        }
        folders
    }

    /// Whether `package.name` names a module file or folder of its own (`a/b.dgl` or `a/b/`),
    /// for `from a import b`.
    pub fn is_submodule(&self, package: &str, name: &str) -> bool {
        let rel = format!("{}/{name}", package.replace('.', "/"));
        let folders = self.search_folders();
        folders.iter().any(|d| d.join(&rel).is_dir() || d.join(format!("{rel}.dgl")).is_file())
    }

    /// Whether a folder `a/b` for the module name `a.b` exists where imports look for files.
    fn is_package_folder(&self, name: &str) -> bool {
        let rel = name.replace('.', "/");
        let folders = self.search_folders();
        folders.iter().any(|d| d.join(&rel).is_dir())
    }

    /// A native module, built now (on first import) and kept like any other.
    fn native_module(&mut self, name: &str, build: super::ModuleBuilder) -> R<Rc<Module>> {
        let entries = build(self)?;
        // A builder may register a family of modules itself (`tensorflow` and its
        // submodules, built together): the one registered under `name` is the module.
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let globals = Rc::new(Globals::default());
        {
            let mut names = globals.names.borrow_mut();
            let mut slots = globals.slots.borrow_mut();
            for (n, v) in entries {
                let i = names.slot(crate::intern::intern(n)) as usize;
                if slots.len() <= i {
                    slots.resize_with(i + 1, Default::default);
                }
                slots[i].value = Some(v);
            }
        }
        let module = Rc::new(Module::new(name, globals, None));
        self.modules.insert(name.to_string(), module.clone());
        Ok(module)
    }
}

/// The hooks of a module written in DGL that defines `__getattr__`: a name the module does not
/// bind is the result of calling it with the name (Python's module `__getattr__`).
static MODULE_GETATTR: ModuleHooks = ModuleHooks { missing: module_getattr, unbound: |_| Vec::new() };

fn module_getattr(rt: &mut Interp, m: &Module, name: Sym) -> R<Value> {
    match m.globals.get(crate::intern::sym::GETATTR) {
        // Its AttributeError says the name is missing: reported at the attribute's use, as a
        // missing name of any other module is, not inside `__getattr__`.
        Some(f) => rt.call_value(&f, vec![Value::Str(name.name().into())], vec![]).map_err(|mut e| {
            if e.0.kind == crate::error::ErrorKind::Attribute {
                e.0.at = None;
                e.0.trace.clear();
            }
            e
        }),
        None => bail!(Attribute, "module '{}' has no attribute '{}'", m.name, name),
    }
}

/// The ImportError for a module that does not exist. `tensorflow` and `numpy` are DGL's own
/// namespaces (built by the builtins layer), so a missing submodule of theirs is an API DGL
/// lacks; PyTorch's names are pointed to DGL's.
fn missing_module(name: &str) -> Exc {
    let top = name.split('.').next().unwrap_or(name);
    let rest = &name[top.len()..];
    let hint = match top {
        "tensorflow" => format!("; DGL has no module tf{rest}"),
        "keras" => format!("; DGL has no module tf.keras{rest}"),
        "numpy" => format!("; DGL has no module np{rest}"),
        "torch" => "; DGL follows TensorFlow, not PyTorch: `torch.tensor` is `constant`, `torch.sum` is `reduce_sum`, \
             `nn.Linear` is `nn.Dense` (import nn), gradients come from `GradientTape`"
            .to_string(),
        _ => String::new(),
    };
    crate::err!(Import, "No module named '{name}'{hint}")
}
