//! f-strings: the body is split into text and `{expr!r:spec}` fields, each
//! field parsed as an expression at its own offset in the file.

use super::*;

/// Splits an f-string body into text and `{expr!r:spec}` fields; `offset` is
/// the body's byte offset in the file, so field errors point into the string.
pub(super) fn parse_fstring(raw: &str, offset: usize) -> Result<Vec<FPart>, SyntaxError> {
    parse_body(raw, offset, 0)
}

/// `nesting`: how many format specs this body sits in (CPython allows two levels).
fn parse_body(raw: &str, offset: usize, nesting: usize) -> Result<Vec<FPart>, SyntaxError> {
    if nesting > 1 {
        return Err(SyntaxError {
            message: "f-string: expressions nested too deeply".into(),
            span: Span::new(offset, offset + raw.len()),
        });
    }
    let mut parts = Vec::new();
    let mut text = String::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let c = bytes[i];
        if c == b'{' && bytes.get(i + 1) == Some(&b'{') {
            text.push('{');
            i += 2;
        } else if c == b'}' && bytes.get(i + 1) == Some(&b'}') {
            text.push('}');
            i += 2;
        } else if c == b'{' {
            if !text.is_empty() {
                parts.push(FPart::Text(crate::syntax::token::unescape_body(&std::mem::take(&mut text)).into()));
            }
            // Find the closing brace at depth 0, and the `!r` / `:spec` split points.
            let start = i + 1;
            let mut depth = 0;
            let mut j = start;
            let mut colon = None;
            let mut bang = None;
            while j < raw.len() {
                match bytes[j] {
                    // A string inside the field: its ':', '!' and '}' are text.
                    q @ (b'\'' | b'"') => {
                        j += 1;
                        while j < raw.len() && bytes[j] != q {
                            j += if bytes[j] == b'\\' { 2 } else { 1 };
                        }
                    }
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' => depth -= 1,
                    b'}' if depth == 0 => break,
                    b'}' => depth -= 1,
                    b':' if depth == 0 && colon.is_none() => colon = Some(j),
                    b'!' if depth == 0 && colon.is_none() && bytes.get(j + 1) != Some(&b'=') => bang = Some(j),
                    _ => {}
                }
                j += 1;
            }
            if j >= raw.len() {
                return Err(SyntaxError {
                    message: "f-string: expected '}'".into(),
                    span: Span::new(offset + i, offset + raw.len()),
                });
            }
            let expr_end = bang.or(colon).unwrap_or(j);
            let repr = match bang {
                Some(b) => {
                    let conv = &raw[b + 1..colon.unwrap_or(j)];
                    if conv != "r" && conv != "s" {
                        return Err(SyntaxError {
                            message: format!("f-string: unknown conversion '!{conv}'"),
                            span: Span::new(offset + b, offset + colon.unwrap_or(j)),
                        });
                    }
                    conv == "r"
                }
                None => false,
            };
            // `{x:{width}.{prec}f}`: the spec is an f-string body of its own.
            let spec = match colon {
                Some(c) => parse_body(&raw[c + 1..j], offset + c + 1, nesting + 1)?,
                None => vec![],
            };
            let mut src = &raw[start..expr_end];
            // `{x=}`, `{x = :.3f}`: the expression's text (with its spaces and the `=`)
            // comes first; without a conversion or spec the value is shown by repr.
            let mut repr = repr;
            let trimmed = src.trim_end();
            let debug = trimmed.ends_with('=')
                && !trimmed.ends_with("==")
                && !trimmed.ends_with("!=")
                && !trimmed.ends_with("<=")
                && !trimmed.ends_with(">=");
            if debug {
                if !text.is_empty() {
                    parts.push(FPart::Text(crate::syntax::token::unescape_body(&std::mem::take(&mut text)).into()));
                }
                parts.push(FPart::Text(src.into()));
                if bang.is_none() && colon.is_none() {
                    repr = true;
                }
                src = &trimmed[..trimmed.len() - 1];
            }
            if src.trim().is_empty() {
                return Err(SyntaxError {
                    message: "f-string: empty expression".into(),
                    span: Span::new(offset + i, offset + j + 1),
                });
            }
            let expr = parse_expr_at(src, offset + start)?;
            parts.push(FPart::Field { expr, repr, spec });
            i = j + 1;
        } else if c == b'}' {
            return Err(SyntaxError {
                message: "f-string: single '}' is not allowed".into(),
                span: Span::new(offset + i, offset + i + 1),
            });
        } else {
            let ch = raw[i..].chars().next().unwrap();
            text.push(ch);
            i += ch.len_utf8();
        }
    }
    if !text.is_empty() {
        parts.push(FPart::Text(crate::syntax::token::unescape_body(&text).into()));
    }
    Ok(parts)
}
