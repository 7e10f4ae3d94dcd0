//! The tree-walking interpreter: state ([`Interp`]), statements ([`exec`]),
//! expressions ([`eval`]), calls ([`call`]), operators ([`ops`]), printing
//! ([`format`]), modules ([`import`]) and the interpreter's side of
//! differentiation ([`differentiation`]).

pub mod autograph;
pub mod call;
pub mod complex;
pub mod concat;
pub mod convert;
pub mod differentiation;
mod dunder;
pub mod eval;
pub mod exec;
pub mod file;
pub mod format;
pub mod generator;
pub mod import;
pub mod index;
mod inspect;
pub mod native;
pub mod numeric;
pub mod numpy;
mod numpy_assign;
mod numpy_natives;
pub mod ops;
pub mod suggest;
pub mod trace;
pub mod value;

use crate::autodiff::Recorder;
use crate::diagnostic::{render, render_all, Diagnostic};
use crate::error::{ErrorKind, Exc, R};
use crate::intern::Sym;
use crate::source::{SourceId, SourceMap};
use crate::syntax::SyntaxError;
use crate::tensor::random::RandomState;
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
/// with RecursionError instead of overflowing the native stack (docs/language.md §7).
pub const STACK_RESERVE: usize = 256 * 1024;

impl Interp {
    /// Runs one level of a recursive walk over user data (comparing, printing, hashing,
    /// converting, watching nested values): each level counts toward the recursion depth,
    /// as Python's do, so a cyclic or absurdly deep value is a quick RecursionError.
    pub fn nested<T>(&mut self, what: &str, f: impl FnOnce(&mut Interp) -> R<T>) -> R<T> {
        if self.run.depth >= MAX_DEPTH {
            return Err(crate::err!(Recursion, "maximum recursion depth exceeded {what}"));
        }
        stack_guard(what)?;
        self.run.depth += 1;
        let r = f(self);
        self.run.depth -= 1;
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
    /// How the front end configured this interpreter.
    config: Config,
    /// What the builtins layer and the front end installed.
    hooks: Hooks,
    /// Where the running code is: its source, frame, depth, the exceptions it handles.
    run: RunState,
    pub(crate) sources: SourceMap,
    pub(crate) builtins: FxHashMap<Sym, Value>,
    /// Loaded modules by name (a module runs once).
    pub(crate) modules: HashMap<String, Rc<Module>>,
    pub(crate) out: Output,
    /// Differentiation state: tapes recording and paused, Variable reads, capture probes.
    pub(crate) ad: Recorder,
    /// The random state: the global stream and op seeds (tensor/random.rs), replayed by recompute_grad.
    pub(crate) rng: RandomState,
    /// Folder of the main script: relative paths and imports start here.
    pub(crate) script_dir: PathBuf,
    pub(crate) argv: Vec<String>,
    /// The `random` module's generator, apart from the tensor RNG (`rng`, `set_seed`);
    /// seeded from the clock on first use unless `random.seed(n)` came first.
    pub(crate) py_rng: Option<rand_chacha::ChaCha8Rng>,
    /// Where `sys.stderr` and `print(..., file=sys.stderr)` write (the process's stderr).
    pub(crate) err_out: Output,
    /// What watches the run from outside the language ([`RunObserver`]); usually none.
    observer: Option<Box<dyn RunObserver>>,
    /// The type objects `type(x)` returns for kinds no builtin name stands for
    /// (`NoneType`, `function`, `module`…), made once each so that `type(None) is type(None)`.
    pub(crate) type_objects: FxHashMap<&'static str, Value>,
    /// The builtin `NotImplemented` (an instance of `NotImplementedType`): a binary special
    /// method returns it to let the other operand try (docs/python.md "Classes").
    pub(crate) not_implemented: Value,
    /// Equality classes of hashed instances whose class defines `__eq__` and `__hash__`:
    /// for each hash, the first instance seen of each class of equal ones. An instance's
    /// dict key is its hash and the index of its class here, so two instances are one key
    /// exactly when their hashes are equal and `==` says they are equal, as in CPython.
    hash_classes: FxHashMap<i64, Vec<Value>>,
    /// The rules of the native call running now (set by each call: runtime/call.rs).
    pub(crate) dialect: value::Dialect,
    /// The `tf.function` trace running, if any (runtime/trace.rs).
    pub(crate) trace: Option<Box<trace::Tracing>>,
}

/// How a front end configures the interpreter ([`Interp::set_config`]), before code runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Config {
    color: bool,
    check_recompute: bool,
    quiet_progress: bool,
    tf_dtypes: bool,
    interactive_logging: bool,
}

impl Config {
    /// Diagnostics may use colour (a terminal).
    pub fn with_color(self, on: bool) -> Config {
        Config { color: on, ..self }
    }

    /// `recompute_grad` functions check their recomputations by default (`check=True`): on in
    /// the golden runner (`dgl test`), off otherwise.
    pub fn with_check_recompute(self, on: bool) -> Config {
        Config { check_recompute: on, ..self }
    }

    /// `progress` bars stay silent unless a call says `disable=False`: on in the golden
    /// runner (`dgl test`, `cargo test`), whose expected outputs hold no bars.
    pub fn with_quiet_progress(self, on: bool) -> Config {
        Config { quiet_progress: on, ..self }
    }

    /// Whether `progress` bars are silent unless told otherwise.
    pub fn quiet_progress(&self) -> bool {
        self.quiet_progress
    }

    /// A dtype prints as TensorFlow prints it (`<dtype: 'float32'>`): on once the program
    /// imports `tensorflow`, whose code gets TF's rules (docs/language.md §4).
    pub fn with_tf_dtypes(self, on: bool) -> Config {
        Config { tf_dtypes: on, ..self }
    }

    /// Whether dtypes print as TensorFlow prints them.
    pub fn tf_dtypes(&self) -> bool {
        self.tf_dtypes
    }
}

/// What layers above the runtime install into it, so that it calls them without importing
/// them (no import circle): the builtins layer's attribute tables and native modules
/// ([`Hooks::new`]), and a front end's rich display ([`Interp::set_display_hook`]).
#[derive(Clone)]
pub struct Hooks {
    /// Attribute reads on builtin values ([`BuiltinAttr`]).
    builtin_attr: BuiltinAttr,
    /// The attribute names of a builtin value's type, for "did you mean" hints and `dir`.
    builtin_attr_names: fn(&Value) -> Vec<Rc<str>>,
    /// Attribute reads on a subscript of a builtin value (`v[0, 1].assign`, TF's sliced
    /// assignment of a Variable): `None` where the subscript's value is read as usual.
    subscript_attr: SubscriptAttr,
    /// The modules built in Rust (`math`, `time`, `random`, `sys`) ([`NativeModules`]).
    native_modules: NativeModules,
    /// Where `display(x)` sends a value: set by a front end that shows rich output (the
    /// Jupyter kernel sends a `display_data` message); when unset, `display` prints `repr(x)`.
    display: Option<DisplayHook>,
}

impl Hooks {
    /// The builtins layer's hooks: attribute reads and names of builtin values, native modules.
    pub fn new(
        builtin_attr: BuiltinAttr,
        builtin_attr_names: fn(&Value) -> Vec<Rc<str>>,
        subscript_attr: SubscriptAttr,
        native_modules: NativeModules,
    ) -> Hooks {
        Hooks { builtin_attr, builtin_attr_names, subscript_attr, native_modules, display: None }
    }
}

impl Default for Hooks {
    /// No builtin value has attributes, no native module exists, `display` prints.
    fn default() -> Hooks {
        Hooks {
            builtin_attr: |_, _, _| Ok(None),
            builtin_attr_names: |_| Vec::new(),
            subscript_attr: |_, _, _, _| Ok(None),
            native_modules: |_| None,
            display: None,
        }
    }
}

/// Where the running code is, changed only as code runs ([`Interp::running_in`], calls,
/// `try`): private to the runtime.
struct RunState {
    /// Nesting of calls and recursive walks, for the one depth guard.
    depth: usize,
    /// The source of the code running now.
    src: SourceId,
    /// The name of the function running now, for tracebacks.
    frame: Rc<str>,
    /// Exceptions being handled, for a bare `raise`.
    handling: Vec<Exc>,
    /// The globals of the module whose top-level code runs now (the script, an importing
    /// module, the REPL session): what `dir()` without an argument lists.
    scope: Option<Rc<value::Globals>>,
    /// Containers being printed (by identity), so that a cycle prints as `[...]`.
    printing: Vec<usize>,
    /// Modules being loaded, for cycle detection.
    loading: Vec<String>,
}

impl Default for RunState {
    fn default() -> RunState {
        RunState {
            depth: 0,
            src: SourceId(0),
            frame: "<module>".into(),
            handling: Vec::new(),
            scope: None,
            printing: Vec::new(),
            loading: Vec::new(),
        }
    }
}

impl Interp {
    /// Makes `tf.print` write to standard output by default, as TF's interactive logging
    /// does in a notebook (the kernel and the guide corpus set it).
    pub fn set_interactive_logging(&mut self, on: bool) {
        self.config.interactive_logging = on;
    }

    /// Whether `tf.print` writes to standard output by default ([`Interp::set_interactive_logging`]).
    pub fn interactive_logging(&self) -> bool {
        self.config.interactive_logging
    }

    /// The configuration the front end set.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Configures the interpreter (before code runs).
    pub fn set_config(&mut self, config: Config) {
        self.config = config;
    }

    /// Installs the builtins layer's hooks (the front end's display hook is kept).
    pub fn install_hooks(&mut self, hooks: Hooks) {
        let display = self.hooks.display.take();
        self.hooks = Hooks { display, ..hooks };
    }

    /// Sets where `display(x)` sends a value (a front end with rich output).
    pub fn set_display_hook(&mut self, hook: DisplayHook) {
        self.hooks.display = Some(hook);
    }

    /// Where `display(x)` sends a value, if a front end said.
    pub fn display_hook(&self) -> Option<DisplayHook> {
        self.hooks.display.clone()
    }

    /// The attribute names of a builtin value's type (the builtins layer's table).
    pub fn builtin_attr_names(&self, v: &Value) -> Vec<Rc<str>> {
        (self.hooks.builtin_attr_names)(v)
    }

    /// The builtin names and their values (read-only: the builtins layer installs them).
    pub fn builtins(&self) -> &FxHashMap<Sym, Value> {
        &self.builtins
    }

    /// Whether the module `name` has been imported (a module runs once).
    pub fn is_loaded(&self, name: &str) -> bool {
        self.modules.contains_key(name)
    }

    /// Adds source text named `name` (no file) and returns its id, to run with
    /// [`Interp::run_source`].
    pub fn add_source(&mut self, name: &str, text: &str) -> SourceId {
        self.sources.add(name, None, text)
    }

    /// The globals of the module whose top-level code runs now, if any.
    pub fn scope(&self) -> Option<Rc<value::Globals>> {
        self.run.scope.clone()
    }
}

/// A front end's handler for `display(x)` (see [`Interp::set_display_hook`]).
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

/// How the builtins layer reads attribute `name` of the subscript `base[index]` before the
/// subscript is evaluated ([`Hooks::subscript_attr`]).
pub type SubscriptAttr = fn(&mut Interp, &Value, &Value, Sym) -> R<Option<Value>>;

impl Interp {
    /// An interpreter with no builtins installed: the builtins layer's `Interp::new` fills
    /// them in (`builtins::install`).
    pub fn bare(out: Output) -> Interp {
        Interp {
            config: Config::default(),
            hooks: Hooks::default(),
            run: RunState::default(),
            sources: SourceMap::default(),
            builtins: FxHashMap::default(),
            type_objects: FxHashMap::default(),
            not_implemented: value::not_implemented_value(),
            hash_classes: FxHashMap::default(),
            dialect: value::Dialect::Dgl,
            trace: None,
            modules: HashMap::new(),
            out,
            ad: Recorder::with_tools(),
            rng: RandomState::default(),
            script_dir: PathBuf::from("."),
            argv: Vec::new(),
            py_rng: None,
            err_out: Rc::new(RefCell::new(std::io::stderr())),
            observer: None,
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
        let scope = self.run.scope.take();
        let r = self.running_in(src_id, "<module>".into(), |rt| rt.exec_module(&block, globals));
        self.run.scope = scope;
        r.map_err(Failure::Runtime)
    }

    /// Runs `f` as code of `src` in the frame named `frame` (a module's top level is
    /// `<module>`, a function's its name): what tracebacks name and recorded entries point
    /// at. The running code's own are back when `f` returns, whatever it returns. The one
    /// place the running code changes (calls, modules, REPL entries, magics).
    #[inline]
    pub fn running_in<T>(&mut self, src: SourceId, frame: Rc<str>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved_src = std::mem::replace(&mut self.run.src, src);
        let saved_frame = std::mem::replace(&mut self.run.frame, frame);
        let r = f(self);
        self.run.src = saved_src;
        self.run.frame = saved_frame;
        r
    }

    /// Renders a failure as its diagnostic text (stderr content), with this run's sources
    /// and colour setting: the first syntax error, as a run reports it (`dgl check`, which
    /// reports every one, calls [`Failure::render`] itself).
    pub fn report(&self, failure: &Failure) -> String {
        failure.render(&self.sources, self.config.color, false)
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
    /// Process exit status (docs/language.md §1): 2 for syntax errors, 1 for runtime errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Syntax(..) => 2,
            // A parse failure of an imported module is still a parse failure;
            // a raised `SyntaxError(...)` is not.
            Failure::Runtime(e) if e.0.from_parse => 2,
            Failure::Runtime(_) => 1,
        }
    }

    /// Its diagnostic text (stderr content), drawn from `sources` (no interpreter needed):
    /// the first syntax error, as Python reports it, or every one when `all_syntax_errors`
    /// (`dgl check`); a runtime error with its call stack, deep recursion's repeats collapsed.
    pub fn render(&self, sources: &SourceMap, color: bool, all_syntax_errors: bool) -> String {
        match self {
            Failure::Syntax(src, errs) => {
                let diags: Vec<Diagnostic> = errs
                    .iter()
                    .take(if all_syntax_errors { usize::MAX } else { 1 })
                    .map(|e| Diagnostic {
                        kind: "SyntaxError".into(),
                        message: e.message.clone(),
                        at: Some((*src, e.span)),
                        label: None,
                        trace: vec![],
                        library: vec![],
                    })
                    .collect();
                render_all(sources, &diags, color)
            }
            Failure::Runtime(exc) => {
                let d = Diagnostic {
                    kind: exc.type_name(),
                    message: format!("{}{}", exc.message(), exc.0.hint.as_deref().unwrap_or("")),
                    at: exc.0.at,
                    label: None,
                    trace: collapse_repeats(exc.0.trace.iter().rev().cloned().collect()),
                    library: vec![],
                };
                render(sources, &d.user_first(sources), color)
            }
        }
    }
}

/// A watcher of a run from outside the language, installed by a front end (`dgl export`
/// records the random draws its exported script replays, and leaves out the statements
/// `--drop-inspection` drops: src/export/record.rs). The evaluator tells it of each
/// statement before it runs and of each random op's result; without one, neither is asked.
pub trait RunObserver {
    /// Whether the statement starting at `pos` of `src` runs. The first statement asked
    /// about is the main script's first.
    fn runs(&mut self, src: SourceId, pos: u32) -> bool;
    /// `t` is the result of the random op `op` (dropout: its scaled keep mask; Python's
    /// `random` module: a float64 or int64 scalar or vector).
    fn drawn(&mut self, op: &'static str, t: &crate::tensor::Tensor);
}

impl Interp {
    /// `t`, the result of the random op `op`, shown to the run's observer if there is one.
    pub fn drawn(&mut self, op: &'static str, t: crate::tensor::Tensor) -> crate::tensor::Tensor {
        if let Some(o) = self.observer.as_mut() {
            o.drawn(op, &t);
        }
        t
    }

    /// Whether a [`RunObserver`] watches this run (so a draw is worth making a tensor of).
    pub fn observed(&self) -> bool {
        self.observer.is_some()
    }

    /// Installs the observer of the runs to come.
    pub fn observe(&mut self, observer: Box<dyn RunObserver>) {
        self.observer = Some(observer);
    }
}
