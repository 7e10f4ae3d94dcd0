//! "Did you mean" hints for unknown names, attributes and keyword arguments
//! (CPython 3.11's wording: `name 'lenght' is not defined. Did you mean: 'length'?`).
//! One helper, [`suggest`], picks the candidate nearest to a misspelling; the
//! callers supply the candidates (the scope's names, the object's attributes,
//! the function's parameters). The hint is computed when the error is raised by
//! an expression (`x`, `obj.attr`, a call's keywords), not by `hasattr`/`getattr`.

use super::value::{Frame, Value};
use super::Interp;
use crate::error::Exc;
use crate::intern::Sym;

/// The cost of inserting, deleting or replacing a character; replacing a letter
/// by the same letter in the other case costs 1, so case slips rank first.
const EDIT: usize = 2;

/// The edit distance of `a` and `b` in the units above, or `None` once it
/// exceeds `limit` (no need to finish).
fn distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j * EDIT).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = (i + 1) * EDIT;
        let mut row_min = cur[0];
        for (j, &cb) in b.iter().enumerate() {
            let replace = if ca == cb {
                0
            } else if ca.to_lowercase().eq(cb.to_lowercase()) {
                1
            } else {
                EDIT
            };
            cur[j + 1] = (prev[j] + replace).min(prev[j + 1] + EDIT).min(cur[j] + EDIT);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= limit)
}

/// The candidate nearest to `name`, if one is near enough: within about a third
/// of the two names' length in edits (so `lenght` finds `length`, `apend` finds
/// `append`, but `x` finds nothing). The first of equally near candidates wins.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let a: Vec<char> = name.chars().collect();
    // Very long names (or very many candidates) are not worth the quadratic work.
    if a.len() > 40 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for (k, c) in candidates.into_iter().enumerate() {
        if k > 2000 {
            break;
        }
        if c == name {
            continue;
        }
        let b: Vec<char> = c.chars().collect();
        let limit = (a.len() + b.len() + 3) * EDIT / 6;
        if let Some(d) = distance(&a, &b, limit) {
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, c));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// `err` with CPython's hint when a candidate is near `name`: `". Did you mean:
/// 'length'?"`, shown after the message in the error report (not in `str(e)`, as in
/// CPython, where only the traceback shows it).
pub fn with_hint<'a>(mut err: Exc, name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Exc {
    if let Some(c) = suggest(name, candidates) {
        err.0.hint = Some(format!(". Did you mean: '{c}'?"));
    }
    err
}

impl Interp {
    /// A NameError for `name` with a hint from the names in scope: the running
    /// function's parameters, the module's globals and the builtins.
    pub fn name_hint(&self, err: Exc, name: Sym, env: &Frame) -> Exc {
        if err.kind() != crate::error::ErrorKind::Name || !err.message().starts_with("name '") {
            return err;
        }
        let mut names: Vec<Sym> = Vec::new();
        if let Some(f) = &env.func {
            names.extend(f.def.params.iter().map(|p| p.name));
        }
        names.extend(env.globals.bound().into_iter().map(|(n, _)| n));
        let mut builtins: Vec<Sym> = self.builtins.keys().copied().collect();
        // Builtins in a fixed order, so that equally near candidates pick the same one every run.
        builtins.sort_by_key(|s| s.to_string());
        names.extend(builtins);
        let texts: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        with_hint(err, &name.to_string(), texts.iter().map(String::as_str))
    }

    /// An AttributeError for `obj.name` with a hint from `obj`'s attributes.
    pub fn attr_hint(&self, err: Exc, obj: &Value, name: Sym) -> Exc {
        let mut names: Vec<String> = Vec::new();
        match obj {
            Value::Instance(i) => {
                names.extend(i.attrs.borrow().keys().map(|s| s.to_string()));
                names.extend(class_attrs(&i.class));
            }
            Value::Class(c) => names.extend(class_attrs(c)),
            Value::Module(m) => names.extend(m.names()),
            other => names.extend(self.builtin_attr_names(other).iter().map(|s| s.to_string())),
        }
        with_hint(err, &name.to_string(), names.iter().map(String::as_str))
    }
}

/// The attribute names of a class and its bases, the class's own first (each sorted,
/// so hints do not depend on hash order).
fn class_attrs(c: &super::value::Class) -> Vec<String> {
    let mut own: Vec<String> = c.attrs.borrow().keys().map(|s| s.to_string()).collect();
    own.sort();
    if let Some(b) = &c.base {
        own.extend(class_attrs(b));
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested() {
        assert_eq!(suggest("lenght", ["length", "len", "list"]), Some("length"));
        assert_eq!(suggest("apend", ["append", "extend", "pop"]), Some("append"));
        assert_eq!(suggest("reduce_summ", ["reduce_sum", "reduce_mean"]), Some("reduce_sum"));
        assert_eq!(suggest("Print", ["print", "int"]), Some("print"));
        assert_eq!(suggest("x", ["y", "abs"]), None);
        assert_eq!(suggest("learning_rat", ["learning_rate", "momentum"]), Some("learning_rate"));
        assert_eq!(suggest("totally_different", ["append"]), None);
    }
}
