//! What each DGL builtin becomes in an exported TensorFlow script: a native builtin's first
//! `tf.` spelling in its declaration (runtime/native.rs), the name `import tensorflow as tf`
//! binds it to; for the rest (stdlib functions, classes) and for refusals, the help entries'
//! `TF:` lines (src/help/*.md, the text `help()` shows); and the few overrides below where
//! DGL's semantics differ from the TF op's and the support module `dgl_tf.py` carries DGL's.

use crate::help::entries::Registry;

/// (DGL's keyword, TF's keyword) pairs.
type Renames = &'static [(&'static str, &'static str)];

/// Keyword arguments a TF op spells differently from the DGL builtin it exports: the op's
/// exported name, then (DGL's keyword, TF's keyword) pairs.
const KEYWORD_RENAMES: &[(&str, Renames)] =
    &[("tf.nn.relu", &[("x", "features")]), ("tf.math.softplus", &[("x", "features")])];

/// The keyword renames of a call of `callee` (its exported text), none for most.
pub fn keyword_renames(callee: &str) -> Renames {
    KEYWORD_RENAMES.iter().find(|(c, _)| *c == callee).map_or(&[], |(_, r)| r)
}

/// The exported form of a builtin name.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapping {
    /// A Python builtin of the same name (`len`, `range`, `zip`, `ValueError`).
    Python,
    /// A Python expression: `tf.reduce_sum`, `dgl_tf.constant`, `tf.float32`.
    Expr(String),
    /// Not exportable: TF has no such thing. The text names the nearest TF equivalent.
    Refused(String),
}

/// Names whose exported form is written by hand and that no declaration carries (a native
/// builtin's is its declaration's `exported_as`): stdlib functions, dtypes, error classes.
const OVERRIDES: &[(&str, &str)] = &[
    ("progress", "dgl_tf.progress"),
    // The segment reductions and tf.math's other reductions (stdlib/_segments.dgl): TF's own.
    ("segment_sum", "tf.math.segment_sum"),
    ("segment_mean", "tf.math.segment_mean"),
    ("segment_max", "tf.math.segment_max"),
    ("segment_min", "tf.math.segment_min"),
    ("segment_prod", "tf.math.segment_prod"),
    ("unsorted_segment_sum", "tf.math.unsorted_segment_sum"),
    ("unsorted_segment_mean", "tf.math.unsorted_segment_mean"),
    ("unsorted_segment_max", "tf.math.unsorted_segment_max"),
    ("unsorted_segment_min", "tf.math.unsorted_segment_min"),
    ("unsorted_segment_prod", "tf.math.unsorted_segment_prod"),
    ("unsorted_segment_sqrt_n", "tf.math.unsorted_segment_sqrt_n"),
    ("bincount", "tf.math.bincount"),
    ("confusion_matrix", "tf.math.confusion_matrix"),
    ("cumulative_logsumexp", "tf.math.cumulative_logsumexp"),
    ("in_top_k", "tf.math.in_top_k"),
    ("invert_permutation", "tf.math.invert_permutation"),
    ("is_non_decreasing", "tf.math.is_non_decreasing"),
    ("is_strictly_increasing", "tf.math.is_strictly_increasing"),
    ("accumulate_n", "tf.math.accumulate_n"),
    ("polyval", "tf.math.polyval"),
    ("approx_max_k", "tf.math.approx_max_k"),
    ("approx_min_k", "tf.math.approx_min_k"),
    ("sobol_sample", "tf.math.sobol_sample"),
    // The dtypes.
    ("float32", "tf.float32"),
    ("float64", "tf.float64"),
    ("float16", "tf.float16"),
    ("bfloat16", "tf.bfloat16"),
    ("half", "tf.half"),
    ("int64", "tf.int64"),
    ("int32", "tf.int32"),
    ("int16", "tf.int16"),
    ("int8", "tf.int8"),
    ("uint8", "tf.uint8"),
    ("uint16", "tf.uint16"),
    ("uint32", "tf.uint32"),
    ("uint64", "tf.uint64"),
    ("complex64", "tf.complex64"),
    ("complex128", "tf.complex128"),
    ("Tensor", "tf.Tensor"),
    ("UnconnectedGradients", "tf.UnconnectedGradients"),
    ("newaxis", "tf.newaxis"),
    ("ShapeError", "dgl_tf.ShapeError"),
    ("IOError", "OSError"),
];

/// Python's builtins that DGL has under the same name and meaning.
const PYTHON: &[&str] = &[
    "abs",
    "all",
    "any",
    "bin",
    "bool",
    "callable",
    "chr",
    "classmethod",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "getattr",
    "hasattr",
    "hash",
    "hex",
    "input",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "open",
    "ord",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "set",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
    "object",
    "super",
    "setattr",
    "delattr",
    "id",
    "issubclass",
    "pow",
    "slice",
    "frozenset",
    "vars",
    "Exception",
    "AssertionError",
    "AttributeError",
    "EOFError",
    "ImportError",
    "IndexError",
    "KeyError",
    "KeyboardInterrupt",
    "NameError",
    "NotImplementedError",
    "OverflowError",
    "RecursionError",
    "RuntimeError",
    "StopIteration",
    "SyntaxError",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "BaseException",
    "NotImplemented",
    "Ellipsis",
];

/// Tape and recompute inspection: DGL shows what TF keeps hidden. `--drop-inspection` leaves
/// statements that only use these out.
pub const INSPECTION: &[&str] = &[
    "recompute_ledger",
    "trace_gradients",
    "watch_gradient",
    "draw_graph",
    "checkpoint_report",
    // Figures: a look at results, as DGL draws them (matplotlib is the nearest in Python).
    "plot",
    "hist",
    "imshow",
    "Figure",
];

/// DGL's figures, refused with their nearest Python equivalent.
pub const FIGURES: &[(&str, &str)] = &[
    ("plot", "matplotlib's `plt.plot` (then `plt.savefig`)"),
    ("hist", "matplotlib's `plt.hist`"),
    ("imshow", "matplotlib's `plt.imshow`"),
    ("Figure", "matplotlib's `plt.figure`"),
];

/// The tape methods TF's GradientTape lacks (all inspection), with the nearest TF tool.
pub const TAPE_METHODS: &[(&str, &str)] = &[
    ("stats", "none: TF does not report what a tape holds; the TensorFlow Profiler's memory view is the nearest"),
    ("summary", "none: TF does not list a tape's entries; the TensorFlow Profiler's trace viewer is the nearest"),
    ("explain", "none: TF returns None without a reason; print the gradient and check `tape.watched_variables()`"),
    ("suggest_checkpoints", "none: TF has no checkpoint planner; wrap blocks in `tf.recompute_grad` by hand"),
    ("draw", "none: TF does not draw tapes; TensorBoard's graph view is the nearest"),
    ("peak_backward_bytes", "none: the TensorFlow Profiler's memory view is the nearest"),
];

/// Python builtins whose output in Python is not DGL's, with what Python shows instead.
const PYTHON_REFUSED: &[(&str, &str)] = &[
    ("help", "Python's `help()` shows Python's and TensorFlow's documentation, not DGL's"),
    ("dir", "Python's `dir()` lists TensorFlow's attributes, not DGL's"),
    ("display", "IPython's `display()`, in a notebook"),
    ("is_recomputing", "none: TF's recompute_grad does not tell a function it is being recomputed"),
];

/// Whether `name`'s exported form is written by hand (the table above).
pub fn is_override(name: &str) -> bool {
    OVERRIDES.iter().any(|(n, _)| *n == name) || declared_export(name).is_some()
}

/// The exported form of the builtin `name`, or None when `name` is no builtin.
pub fn builtin(name: &str) -> Option<Mapping> {
    if let Some(e) = OVERRIDES.iter().find(|(n, _)| *n == name).map(|(_, e)| *e).or_else(|| declared_export(name)) {
        return Some(Mapping::Expr(e.to_string()));
    }
    if let Some((_, why)) = PYTHON_REFUSED.iter().find(|(n, _)| *n == name) {
        return Some(Mapping::Refused(format!("nearest: {why}")));
    }
    if PYTHON.contains(&name) {
        return Some(Mapping::Python);
    }
    if let Some(tf) = declared_tf(name) {
        return Some(Mapping::Expr(tf.to_string()));
    }
    let entry = Registry::get().entry(name)?;
    let line = entry.body.lines().find_map(|l| l.trim().strip_prefix("- TF:"))?.trim();
    if let Some(rest) = line.strip_prefix('`') {
        let tf = rest.split('`').next().unwrap_or("");
        if let Some(path) = tf.strip_prefix("tf.") {
            // `tf.foo(x)`-shaped names only: the entry may show a call or a method.
            let path: String = path.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.').collect();
            if !path.is_empty() && !path.ends_with('.') {
                return Some(Mapping::Expr(format!("tf.{path}")));
            }
        }
        if tf.starts_with("tf.keras.") {
            return Some(Mapping::Expr(tf.to_string()));
        }
    }
    Some(Mapping::Refused(refusal_text(line)))
}

/// The declaration of the native builtin reached by the bare name `name`.
fn native(name: &str) -> Option<&'static crate::runtime::native::Native> {
    crate::builtins::declared().iter().find(|(k, _)| k == name).map(|&(_, n)| n)
}

/// The first `tf.` spelling of the native builtin `name`'s declaration, if it has one.
pub fn declared_tf(name: &str) -> Option<&'static str> {
    native(name)?.spellings.iter().copied().find(|s| s.starts_with("tf."))
}

/// What the native builtin `name`'s declaration says an exported script writes for it.
fn declared_export(name: &str) -> Option<&'static str> {
    native(name)?.exported
}

/// The nearest equivalent an entry's `TF:` line names, for a refusal.
fn refusal_text(line: &str) -> String {
    let line = line.trim_end_matches('.');
    let inner =
        line.strip_prefix("none").map(|r| r.trim().trim_start_matches('(').trim_end_matches(')')).unwrap_or(line);
    let inner = inner.trim_start_matches("DGL only").trim_start_matches(';').trim();
    if inner.is_empty() {
        "TensorFlow has no equivalent".to_string()
    } else {
        format!("nearest in TensorFlow: {inner}")
    }
}

/// Python's keywords and the names an exported script binds itself: a DGL name that clashes
/// gets a trailing underscore.
pub const RESERVED: &[&str] = &["tf", "np", "dgl_tf", "dgl_stdlib"];

/// The mapping table of docs/export.md: every builtin of the help reference, by section, with
/// what an exported script says for it (tests/export.rs keeps the page equal to this).
pub fn mapping_table() -> String {
    let mut out = String::new();
    for section in &Registry::get().sections {
        let rows: Vec<String> = section
            .entries
            .iter()
            .filter(|e| !e.key.contains('.') && !e.key.starts_with('_'))
            .filter_map(|e| {
                let shown = match builtin(&e.key)? {
                    Mapping::Python => format!("`{}` (Python's)", e.key),
                    Mapping::Expr(x) => format!("`{x}`"),
                    Mapping::Refused(why) => format!("refused: {}", why.replace('|', "\\|").replace('\n', " ")),
                };
                Some(format!("| `{}` | {shown} |\n", e.key))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!("\n**{}**\n\n| DGL | exported as |\n|---|---|\n", section.title));
        for r in rows {
            out.push_str(&r);
        }
    }
    out
}

/// The builtins whose support-module form (`dgl_tf.constant`) exists only for DGL's own dtype
/// rules (numbers become float32, int64 ranges, shapes and indices): reached through `tf.`,
/// DGL follows TensorFlow's rules (docs/language.md §4), so TF's own op is exported.
pub const TF_RULES_EXPORT_AS_TF: &[&str] =
    &["constant", "convert_to_tensor", "fill", "range_tensor", "rank", "top_k", "argsort", "unique"];
