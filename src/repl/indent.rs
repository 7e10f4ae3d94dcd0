//! Auto-indent for `... ` lines: each continuation line starts pre-filled with the indent
//! it most likely wants, and the line that comes back is made to mean what was typed.
//!
//! - After a line ending in `:` the indent is one level (4 spaces) deeper; after
//!   `return`, `pass`, `break`, `continue` or `raise` one level shallower; otherwise the
//!   previous line's (session.rs `next_indent`). Deleting it dedents.
//! - Text that arrives with indentation of its own (a paste the terminal did not bracket,
//!   lines typed ahead while a statement ran) keeps its own: the pre-filled indent is
//!   dropped rather than added to it.
//! - A line starting with `else`, `elif`, `except` or `finally` typed after the pre-filled
//!   indent moves to the indent of the statement it continues (`if`, `try`, …).

use crate::session::next_indent;

/// One indentation level.
pub const LEVEL: &str = "    ";

/// The indent a continuation line of `entry` (its lines so far, each ending in `\n`)
/// starts with.
pub fn prefill(entry: &str) -> String {
    let indent = next_indent(entry);
    let last = entry.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    if matches!(first_word(last), "return" | "pass" | "break" | "continue" | "raise") && !last.trim_end().ends_with(':')
    {
        return indent.strip_suffix(LEVEL).unwrap_or("").to_string();
    }
    indent
}

/// The line as it joins the entry: `line` is what the editor returned for a line that
/// started pre-filled with `prefill`; `entry` is the entry's lines so far.
pub fn settle(entry: &str, prefill: &str, line: &str) -> String {
    if prefill.is_empty() || line.trim().is_empty() {
        return line.to_string();
    }
    let Some(typed) = line.strip_prefix(prefill) else {
        // The indent was edited: what is on the line is what was meant.
        return line.to_string();
    };
    if typed.starts_with([' ', '\t']) {
        return typed.to_string();
    }
    let openers: &[&str] = match first_word(typed) {
        "else" => &["if", "elif", "for", "while", "try", "except"],
        "elif" => &["if", "elif"],
        "except" => &["try", "except"],
        "finally" => &["try", "except", "else"],
        _ => return line.to_string(),
    };
    // Walking back, the nearest such statement not closed by a later line at its indent
    // or shallower, at the pre-filled indent or shallower.
    let mut bound = prefill.len() + 1;
    for earlier in entry.lines().rev() {
        let code = earlier.trim_start();
        let indent = earlier.len() - code.len();
        if code.is_empty() {
            continue;
        }
        if indent < bound && openers.contains(&first_word(code)) {
            return format!("{}{typed}", &earlier[..indent]);
        }
        bound = bound.min(indent);
    }
    line.to_string()
}

/// The word a line's code starts with (`if` of `if x:`; empty before a symbol).
pub fn first_word(line: &str) -> &str {
    line.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_indent_follows_the_block() {
        assert_eq!(prefill("def f(x):\n"), "    ");
        assert_eq!(prefill("def f(x):\n    y = x\n"), "    ");
        assert_eq!(prefill("def f(x):\n    if x:\n"), "        ");
        assert_eq!(prefill("def f(x):\n    if x:\n        return 1\n"), "    ");
        assert_eq!(prefill("for i in r:\n    pass\n"), "");
        assert_eq!(prefill("x = (1,\n"), "");
        // `return` as part of a longer name is an ordinary line.
        assert_eq!(prefill("def f():\n    returned = 1\n"), "    ");
    }

    #[test]
    fn typed_lines_keep_the_prefill() {
        assert_eq!(settle("if x:\n", "    ", "    y = 1"), "    y = 1");
        // Deleting the prefill dedents.
        assert_eq!(settle("if x:\n    if y:\n", "        ", "    z = 1"), "    z = 1");
        assert_eq!(settle("if x:\n", "    ", ""), "");
        assert_eq!(settle("if x:\n", "    ", "    "), "    ");
    }

    #[test]
    fn pasted_indentation_replaces_the_prefill() {
        assert_eq!(settle("with t:\n", "    ", "        t.watch(x)"), "    t.watch(x)");
        // The editor returns the prefill followed by the pasted line.
        assert_eq!(settle("def f():\n    if a:\n        b\n", "        ", "            c"), "    c");
    }

    #[test]
    fn clauses_move_to_their_statement() {
        assert_eq!(settle("if a:\n    b\n", "    ", "    else:"), "else:");
        assert_eq!(settle("for i in r:\n    if a:\n        b\n", "        ", "        elif c:"), "    elif c:");
        assert_eq!(settle("try:\n    if a:\n        b\n", "        ", "        except E:"), "except E:");
        assert_eq!(settle("try:\n    b\nexcept E:\n    c\n", "    ", "    finally:"), "finally:");
        // After `return` the prefill is already the inner `if`'s indent; a closed `if` is skipped.
        assert_eq!(settle("if a:\n    if b:\n        return 1\n", "    ", "    else:"), "    else:");
        assert_eq!(settle("if a:\n    if b:\n        c\n    d\n", "    ", "    else:"), "else:");
        // No statement to continue: left as typed (running it reports the syntax error).
        assert_eq!(settle("while a:\n    b\n", "    ", "    except:"), "    except:");
        // `elsewhere` is not `else`.
        assert_eq!(settle("if a:\n    b\n", "    ", "    elsewhere = 1"), "    elsewhere = 1");
    }
}
