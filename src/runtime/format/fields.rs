//! `str.format` (Python's format-string syntax): replacement fields
//! `{[name][.attr|[index]]*[!r|!s|!a][:spec]}` with automatic (`{}`), positional
//! (`{0}`) and keyword (`{name}`) arguments, attribute and index accessors
//! (`{x.shape}`, `{0[1]}`, `{d[key]}`), and replacement fields nested inside the
//! spec (`{:>{width}}`), with CPython 3.11's messages. The spec itself goes
//! through [`Interp::format_field`], shared with f-strings and `format()`.

use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::Value;
use crate::runtime::Interp;
use crate::{bail, err};
use std::rc::Rc;

/// Automatic or manual field numbering: a format string uses one or the other.
#[derive(PartialEq)]
enum Numbering {
    Unknown,
    Auto(usize),
    Manual,
}

/// The arguments of one `str.format` call.
struct FormatArgs<'a> {
    pos: &'a [Value],
    kw: &'a [(Rc<str>, Value)],
    numbering: Numbering,
}

impl Interp {
    /// `fmt.format(*pos, **kw)`.
    ///
    /// Errors: ValueError "Single '{' encountered in format string", "cannot switch from
    /// manual field specification to automatic field numbering", "Max string recursion
    /// exceeded"; IndexError "Replacement index 2 out of range for positional args tuple";
    /// KeyError for a missing keyword; the accessors' own errors.
    pub fn str_format(&mut self, fmt: &str, pos: &[Value], kw: &[(Rc<str>, Value)]) -> R<String> {
        let mut args = FormatArgs { pos, kw, numbering: Numbering::Unknown };
        self.format_with(fmt, &mut args, 2)
    }

    fn format_with(&mut self, fmt: &str, args: &mut FormatArgs, depth: u32) -> R<String> {
        if depth == 0 {
            bail!(Value, "Max string recursion exceeded");
        }
        let chars: Vec<char> = fmt.chars().collect();
        let mut out = String::with_capacity(fmt.len());
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '{' if chars.get(i + 1) == Some(&'{') => {
                    out.push('{');
                    i += 2;
                }
                '}' if chars.get(i + 1) == Some(&'}') => {
                    out.push('}');
                    i += 2;
                }
                '}' => bail!(Value, "Single '}}' encountered in format string"),
                '{' => {
                    let end = field_end(&chars, i + 1)?;
                    let field: String = chars[i + 1..end].iter().collect();
                    out.push_str(&self.replace_field(&field, args, depth)?);
                    i = end + 1;
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        Ok(out)
    }

    /// One replacement field's text (between the braces).
    fn replace_field(&mut self, field: &str, args: &mut FormatArgs, depth: u32) -> R<String> {
        let chars: Vec<char> = field.chars().collect();
        // The field name runs to the first '!' or ':' outside brackets.
        let mut k = 0;
        while k < chars.len() && chars[k] != '!' && chars[k] != ':' {
            if chars[k] == '[' {
                while k < chars.len() && chars[k] != ']' {
                    k += 1;
                }
            }
            k += 1;
        }
        let k = k.min(chars.len());
        let name: String = chars[..k].iter().collect();
        let mut conversion = None;
        let mut rest = k;
        if chars.get(k) == Some(&'!') {
            let Some(&c) = chars.get(k + 1) else {
                bail!(Value, "end of string while looking for conversion specifier")
            };
            conversion = Some(c);
            rest = k + 2;
            if rest < chars.len() && chars[rest] != ':' {
                bail!(Value, "expected ':' after conversion specifier");
            }
        }
        let spec: String = if rest < chars.len() { chars[rest + 1..].iter().collect() } else { String::new() };
        let value = self.field_value(&name, args)?;
        // A spec may hold replacement fields of its own, expanded first (one level, as CPython).
        let spec = if spec.contains('{') { self.format_with(&spec, args, depth - 1)? } else { spec };
        match conversion {
            None => self.format_field(&value, false, &spec),
            Some('r') => self.format_field(&value, true, &spec),
            Some('s') => {
                let s = self.str_of(&value)?;
                self.format_field(&Value::str(&s), false, &spec)
            }
            Some('a') => {
                let s = super::percent::ascii(&self.repr_of(&value)?);
                self.format_field(&Value::str(&s), false, &spec)
            }
            Some(c) => bail!(Value, "Unknown conversion specifier {c}"),
        }
    }

    /// The value a field name selects: the argument, then each `.attr` and `[index]`.
    fn field_value(&mut self, name: &str, args: &mut FormatArgs) -> R<Value> {
        let first_end = name.find(['.', '[']).unwrap_or(name.len());
        let (head, mut rest) = name.split_at(first_end);
        let mut v = if head.is_empty() {
            let n = match args.numbering {
                Numbering::Manual => {
                    bail!(Value, "cannot switch from manual field specification to automatic field numbering")
                }
                Numbering::Auto(n) => n,
                Numbering::Unknown => 0,
            };
            args.numbering = Numbering::Auto(n + 1);
            positional(args.pos, n)?
        } else if let Ok(n) = head.parse::<usize>() {
            if matches!(args.numbering, Numbering::Auto(_)) {
                bail!(Value, "cannot switch from automatic field numbering to manual field specification");
            }
            args.numbering = Numbering::Manual;
            positional(args.pos, n)?
        } else {
            match args.kw.iter().find(|(k, _)| k.as_ref() == head) {
                Some((_, v)) => v.clone(),
                None => return Err(self.key_error(&Value::str(head))),
            }
        };
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('.') {
                let end = r.find(['.', '[']).unwrap_or(r.len());
                if end == 0 {
                    bail!(Value, "Empty attribute in format string");
                }
                v = self.get_attr(&v, intern(&r[..end]))?;
                rest = &r[end..];
            } else if let Some(r) = rest.strip_prefix('[') {
                let Some(close) = r.find(']') else { bail!(Value, "Missing ']' in format string") };
                let key = &r[..close];
                if key.is_empty() {
                    bail!(Value, "Empty attribute in format string");
                }
                // CPython: an index of digits is an int, anything else a string key.
                let index = match key.parse::<i64>() {
                    Ok(n) if key.bytes().all(|b| b.is_ascii_digit()) => Value::Int(n),
                    _ => Value::str(key),
                };
                v = self.get_item(&v, &index)?;
                rest = &r[close + 1..];
                if !rest.is_empty() && !rest.starts_with(['.', '[']) {
                    bail!(Value, "Only '.' or '[' may follow ']' in format field specifier");
                }
            } else {
                bail!(Value, "Only '.' or '[' may follow ']' in format field specifier");
            }
        }
        Ok(v)
    }
}

fn positional(pos: &[Value], n: usize) -> R<Value> {
    pos.get(n).cloned().ok_or_else(|| err!(Index, "Replacement index {n} out of range for positional args tuple"))
}

/// The index of the `}` closing the field that starts at `chars[start]`, allowing one
/// level of nested `{…}` in the spec and skipping `[...]` in the field name.
fn field_end(chars: &[char], start: usize) -> R<usize> {
    let mut depth = 0;
    let mut i = start;
    let mut in_name = true;
    while i < chars.len() {
        match chars[i] {
            '[' if in_name => {
                while i < chars.len() && chars[i] != ']' {
                    i += 1;
                }
                if i == chars.len() {
                    break;
                }
            }
            '!' | ':' if in_name => in_name = false,
            '{' => depth += 1,
            '}' if depth == 0 => return Ok(i),
            '}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    if start == chars.len() {
        bail!(Value, "Single '{{' encountered in format string");
    }
    bail!(Value, "expected '}}' before end of string")
}
