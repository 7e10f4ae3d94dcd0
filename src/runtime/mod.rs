//! The tree-walking interpreter: state ([`Interp`]), statements ([`exec`]),
//! expressions ([`eval`]), calls ([`call`]), operators ([`ops`]), printing
//! ([`format`]), modules ([`import`]) and the interpreter's side of
//! differentiation ([`differentiation`]).

pub mod call;
pub mod concat;
pub mod convert;
pub mod differentiation;
/// The crate's error type, here under its old path (`crate::runtime::error`).
pub use crate::error;
pub mod eval;
pub mod exec;
pub mod file;
pub mod format;
pub mod generator;
pub mod import;
pub mod index;
mod inspect;
pub mod intern;
pub mod ops;
pub mod suggest;
pub mod value;

use crate::autodiff::Recorder;
use crate::diagnostic::{render, render_all, Diagnostic};
use crate::source::{SourceId, SourceMap};
use crate::syntax::SyntaxError;
use crate::tensor::random::RandomState;
use error::{ErrorKind, Exc, R};
use intern::Sym;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use value::{Module, Value};

/// Set by Ctrl-C (from a signal handler, so a plain atomic); polled by loops,
/// calls and the backward pass, which raise KeyboardInterrupt.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Calls nested deeper than this raise RecursionError (Python's default limit).
pub const MAX_DEPTH: usize = 1000;

/// Native stack that must remain for a recursive walk (an expression, a call, printing,
/// comparing or converting a nested value) to go one level deeper; below it the walk stops
/// with RecursionError instead of overflowing the native stack (LANGUAGE.md §7).
pub const STACK_RESERVE: usize = 256 * 1024;

impl Interp {
    /// Runs one level of a recursive walk over user data (comparing, printing, hashing,
    /// converting, watching nested values): each level counts toward the recursion depth,
    /// as Python's do, so a cyclic or absurdly deep value is a quick RecursionError.
    pub fn nested<T>(&mut self, what: &str, f: impl FnOnce(&mut Interp) -> R<T>) -> R<T> {
        if self.depth >= MAX_DEPTH {
            return Err(crate::err!(Recursion, "maximum recursion depth exceeded {what}"));
        }
        stack_guard(what)?;
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }
}

/// The one depth guard of every recursive walk over user code or user data: a
/// RecursionError when the native stack is nearly used up, whatever the kind of nesting.
/// It runs for every expression, so it compares an address on the stack with the
/// thread's cached floor (stack limit + [`STACK_RESERVE`]) and asks the system only once.
#[inline]
pub fn stack_guard(what: &str) -> R<()> {
    let here = std::ptr::addr_of!(what) as usize;
    let floor = STACK_FLOOR.with(|f| f.get());
    if floor != 0 && here >= floor {
        return Ok(());
    }
    stack_guard_slow(what, here)
}

thread_local! {
    /// The lowest stack address at which [`stack_guard`] still lets a walk go deeper
    /// (0 until first asked). A generator body runs on a stack of its own: while it runs,
    /// the floor is that stack's ([`enter_stack`]).
    static STACK_FLOOR: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Whether the floor is a generator stack's, which the system knows nothing about.
    static STACK_PINNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Switches the depth guard to a generator body's stack, whose lowest usable address
/// is `floor`; returns what [`leave_stack`] restores.
pub(crate) fn enter_stack(floor: usize) -> (usize, bool) {
    let old = (STACK_FLOOR.with(|f| f.replace(floor)), STACK_PINNED.with(|p| p.replace(true)));
    old
}

/// Back to the stack the guard watched before [`enter_stack`].
pub(crate) fn leave_stack((floor, pinned): (usize, bool)) {
    STACK_FLOOR.with(|f| f.set(floor));
    STACK_PINNED.with(|p| p.set(pinned));
}

#[cold]
fn stack_guard_slow(what: &str, here: usize) -> R<()> {
    if STACK_PINNED.with(|p| p.get()) {
        return Err(crate::err!(Recursion, "maximum recursion depth exceeded {what}"));
    }
    match stacker::remaining_stack() {
        Some(left) => {
            let floor = here.saturating_sub(left).saturating_add(STACK_RESERVE).max(1);
            STACK_FLOOR.with(|f| f.set(floor));
            if here < floor {
                return Err(crate::err!(Recursion, "maximum recursion depth exceeded {what}"));
            }
            Ok(())
        }
        None => Ok(()),
    }
}

/// A shared output sink (stdout of the script). Library code never prints
/// elsewhere (STYLE.md lesson 4), so golden tests can capture it in-process.
pub type Output = Rc<RefCell<dyn Write>>;

/// The interpreter: every piece of state a running program can touch.
pub struct Interp {
    pub sources: SourceMap,
    pub builtins: FxHashMap<Sym, Value>,
    /// Attribute reads on builtin values ([`BuiltinAttr`]).
    pub builtin_attr: BuiltinAttr,
    /// Loaded modules by name (a module runs once).
    pub modules: HashMap<String, Rc<Module>>,
    /// Modules being loaded, for cycle detection.
    pub loading: Vec<String>,
    pub out: Output,
    /// Differentiation state: tapes recording and paused, Variable reads, capture probes.
    pub ad: Recorder,
    /// The random state: the global stream and op seeds (tensor/random.rs), replayed by recompute_grad.
    pub rng: RandomState,
    pub depth: usize,
    /// The source of the code running now.
    pub src: SourceId,
    /// The name of the function running now, for tracebacks.
    pub frame: Rc<str>,
    /// Folder of the main script: relative paths and imports start here.
    pub script_dir: PathBuf,
    pub argv: Vec<String>,
    /// Containers being printed (by identity), so that a cycle prints as `[...]`.
    pub printing: Vec<usize>,
    /// Exceptions being handled, for a bare `raise`.
    pub handling: Vec<Exc>,
    /// Whether diagnostics may use color (a terminal).
    pub color: bool,
    /// Report every syntax error (`dgl check`), not only the first.
    pub all_syntax_errors: bool,
    /// The attribute names of a builtin value's type, for "did you mean" hints (installed
    /// by the builtins layer, like `builtin_attr`).
    pub builtin_attr_names: fn(&Value) -> Vec<Rc<str>>,
    /// The modules built in Rust (`math`, `time`, `random`, `sys`), installed by the
    /// builtins layer ([`NativeModules`]).
    pub native_modules: NativeModules,
    /// The `random` module's generator, apart from the tensor RNG (`rng`, `set_seed`);
    /// seeded from the clock on first use unless `random.seed(n)` came first.
    pub py_rng: Option<rand_chacha::ChaCha8Rng>,
    /// Where `sys.stderr` and `print(..., file=sys.stderr)` write (the process's stderr).
    pub err_out: Output,
    /// What `dgl export` records while it runs the program ([`ExportRun`]); None otherwise.
    pub export: Option<Box<ExportRun>>,
    /// Whether `recompute_grad` functions check their recomputations by default
    /// (`check=True`): on in the golden runner (`dgl test`), off otherwise.
    pub check_recompute: bool,
    /// Where `display(x)` sends a value: set by a front end that shows rich output (the
    /// Jupyter kernel sends a `display_data` message); when unset, `display` prints `repr(x)`.
    pub display_hook: Option<DisplayHook>,
    /// The globals of the module whose top-level code runs now (the script, an importing
    /// module, the REPL session): what `dir()` without an argument lists.
    pub scope: Option<Rc<value::Globals>>,
    /// Whether `progress` bars stay silent unless a call says `disable=False`: on in the
    /// golden runner (`dgl test`, `cargo test`), whose expected outputs hold no bars.
    pub quiet_progress: bool,
    /// The type objects `type(x)` returns for kinds no builtin name stands for
    /// (`NoneType`, `function`, `module`…), made once each so that `type(None) is type(None)`.
    pub type_objects: FxHashMap<&'static str, Value>,
    /// The builtin `NotImplemented` (an instance of `NotImplementedType`): a binary special
    /// method returns it to let the other operand try (docs/python.md "Classes").
    pub not_implemented: Value,
    /// Equality classes of hashed instances whose class defines `__eq__` and `__hash__`:
    /// for each hash, the first instance seen of each class of equal ones. An instance's
    /// dict key is its hash and the index of its class here, so two instances are one key
    /// exactly when their hashes are equal and `==` says they are equal, as in CPython.
    pub hash_classes: FxHashMap<i64, Vec<Value>>,
}

/// A front end's handler for `display(x)` (see [`Interp::display_hook`]).
pub type DisplayHook = Rc<dyn Fn(&mut Interp, &value::Value) -> R<()>>;

/// A native module's contents: its names and values, built when it is first imported
/// (never at start-up, which a benchmark measures).
pub type ModuleBuilder = fn(&mut Interp) -> R<Vec<(&'static str, Value)>>;

/// Finds the builder of a native module by name: installed by the builtins layer, so
/// `import` reaches Rust modules without the runtime importing builtins/.
pub type NativeModules = fn(&str) -> Option<ModuleBuilder>;

/// Attributes of builtin values (list/str/tensor/Variable methods and properties): installed
/// by the builtins layer, so the runtime calls it without importing it (no import circle).
/// Returns `None` for a name the value's type does not have.
pub type BuiltinAttr = fn(&mut Interp, &Value, Sym) -> R<Option<Value>>;

impl Interp {
    /// An interpreter with no builtins installed: the builtins layer's `Interp::new` fills
    /// them in (`builtins::install`).
    pub fn bare(out: Output) -> Interp {
        Interp {
            sources: SourceMap::default(),
            builtins: FxHashMap::default(),
            type_objects: FxHashMap::default(),
            not_implemented: value::not_implemented_value(),
            hash_classes: FxHashMap::default(),
            modules: HashMap::new(),
            loading: Vec::new(),
            out,
            ad: Recorder::with_tools(),
            rng: RandomState::default(),
            depth: 0,
            src: SourceId(0),
            frame: "<module>".into(),
            script_dir: PathBuf::from("."),
            argv: Vec::new(),
            handling: Vec::new(),
            printing: Vec::new(),
            color: false,
            all_syntax_errors: false,
            builtin_attr: |_, _, _| Ok(None),
            native_modules: |_| None,
            builtin_attr_names: |_| Vec::new(),
            py_rng: None,
            err_out: Rc::new(RefCell::new(std::io::stderr())),
            check_recompute: false,
            export: None,
            display_hook: None,
            scope: None,
            quiet_progress: false,
        }
    }

    /// Raises KeyboardInterrupt once Ctrl-C has been pressed, and MemoryError once the memory
    /// in use has passed the limit (crate::memory: this is its poll).
    pub fn check_interrupt(&self) -> R<()> {
        if INTERRUPTED.load(Ordering::Relaxed) && INTERRUPTED.swap(false, Ordering::Relaxed) {
            return Err(Exc::new(ErrorKind::KeyboardInterrupt, "interrupted"));
        }
        if let Some(message) = crate::memory::exhausted() {
            return Err(Exc::new(ErrorKind::Memory, message));
        }
        Ok(())
    }

    /// Writes text to the program's stdout.
    pub fn write_out(&mut self, text: &str) -> R<()> {
        let mut out = self.out.borrow_mut();
        out.write_all(text.as_bytes()).map_err(|e| crate::err!(IO, "cannot write output: {e}"))?;
        // A line, or a `\r` that redraws one in place (`print(..., end="\r")`), shows at once.
        if text.contains(['\n', '\r']) {
            let _ = out.flush();
        }
        Ok(())
    }

    /// Parses and runs source text as the module whose globals are `globals`.
    pub fn run_source(&mut self, src_id: SourceId, globals: &Rc<value::Globals>) -> Result<Value, Failure> {
        let text = self.sources.get(src_id).text.clone();
        let block = crate::syntax::parse_module(&text).map_err(|errs| Failure::Syntax(src_id, errs))?;
        let saved = (self.src, self.frame.clone(), self.scope.take());
        self.src = src_id;
        self.frame = "<module>".into();
        let r = self.exec_module(&block, globals);
        self.src = saved.0;
        self.frame = saved.1;
        self.scope = saved.2;
        r.map_err(Failure::Runtime)
    }

    /// Renders a failure as its diagnostic text (stderr content).
    pub fn report(&self, failure: &Failure) -> String {
        match failure {
            // A run reports the first syntax error, as Python does; `dgl check` reports them all.
            Failure::Syntax(src, errs) => {
                let diags: Vec<Diagnostic> = errs
                    .iter()
                    .take(if self.all_syntax_errors { usize::MAX } else { 1 })
                    .map(|e| Diagnostic {
                        kind: "SyntaxError".into(),
                        message: e.message.clone(),
                        at: Some((*src, e.span)),
                        label: None,
                        trace: vec![],
                    })
                    .collect();
                render_all(&self.sources, &diags, self.color)
            }
            Failure::Runtime(exc) => {
                let d = Diagnostic {
                    kind: exc.type_name(),
                    message: format!("{}{}", exc.message(), exc.0.hint.as_deref().unwrap_or("")),
                    at: exc.0.at,
                    label: None,
                    trace: collapse_repeats(exc.0.trace.iter().rev().cloned().collect()),
                };
                render(&self.sources, &d, self.color)
            }
        }
    }
}

/// Call stacks of deep recursion repeat one frame many times: keep the first
/// three of a run and note how many more there were, as Python does.
fn collapse_repeats(
    trace: Vec<(SourceId, crate::source::Span, String)>,
) -> Vec<(SourceId, crate::source::Span, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < trace.len() {
        let mut n = 1;
        while i + n < trace.len() && trace[i + n] == trace[i] {
            n += 1;
        }
        out.extend(trace[i..i + n.min(3)].iter().cloned());
        if n > 3 {
            let (src, span, name) = trace[i].clone();
            out.push((src, span, format!("{name} [the call above repeated {} more times]", n - 3)));
        }
        i += n;
    }
    out
}

/// Why running source failed.
#[derive(Debug)]
pub enum Failure {
    Syntax(SourceId, Vec<SyntaxError>),
    Runtime(Exc),
}

impl Failure {
    /// Process exit status (LANGUAGE.md §1): 2 for syntax errors, 1 for runtime errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Syntax(..) => 2,
            // A parse failure of an imported module is still a parse failure;
            // a raised `SyntaxError(...)` is not.
            Failure::Runtime(e) if e.0.from_parse => 2,
            Failure::Runtime(_) => 1,
        }
    }
}

/// The run `dgl export --tf` makes of a program (src/export/record.rs): the random tensors
/// it draws, in order, to be replayed by the exported script, and the statements of the main
/// script that `--drop-inspection` leaves out, which this run skips too.
#[derive(Default)]
pub struct ExportRun {
    /// (op, tensor) for every random op's result (dropout: its scaled keep mask).
    pub draws: Vec<(&'static str, crate::tensor::Tensor)>,
    /// Start offsets of the main script's statements to skip.
    pub skip: std::collections::HashSet<u32>,
    /// The main script's source, once it runs.
    pub skip_src: Option<SourceId>,
}

impl Interp {
    /// `t`, the result of the random op `op`, noted when `dgl export` is recording.
    pub fn drawn(&mut self, op: &'static str, t: crate::tensor::Tensor) -> crate::tensor::Tensor {
        if let Some(x) = self.export.as_mut() {
            x.draws.push((op, t.clone()));
        }
        t
    }
}
