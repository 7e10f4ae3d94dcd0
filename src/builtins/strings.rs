//! Methods of strings (docs/language.md §2), with CPython 3.11's behaviour and messages.
//!
//! Indices (`find`, `index`, `count`, the `start`/`end` of `startswith`) count
//! characters (code points), as CPython does, never bytes: a window is turned
//! into byte offsets once, the search runs on the bytes, and a byte position
//! found is turned back into a character index.

use super::{receiver, Native, Signature, NO_ARGS};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::{bail, err};

/// `(sub, start=None, end=None)`: `find`, `rfind`, `index`, `rindex`, `count`.
const SUB_RANGE: Signature = Signature::new(&["sub", "start: int | None = None", "end: int | None = None"]);
/// `(width, fillchar=' ')`: `ljust`, `rjust`, `center`.
const JUSTIFY: Signature = Signature::new(&["width: int", "fillchar=' '"]);
/// `(sep=None, maxsplit=-1)`: `split`, `rsplit`.
const SPLIT: Signature = Signature::new(&["sep=None", "maxsplit: int = -1"]);

/// Python's whitespace (`str.isspace`, `split()`, `strip()`): Unicode's White_Space
/// plus the separators U+001C–U+001F, which CPython counts too.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The byte offset of character `i` of `s` (its length when `i` is past the end).
fn byte_at(s: &str, i: usize) -> usize {
    s.char_indices().nth(i).map_or(s.len(), |(b, _)| b)
}

/// The character window `s[start:end]` as (first char, byte range), after Python's
/// slice rules (negative counts from the end, then clamped); `None` when start > len.
fn window(s: &str, start: Option<i64>, end: Option<i64>) -> Option<(usize, std::ops::Range<usize>)> {
    let n = s.chars().count() as i64;
    let fix = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) };
    let (a, b) = (start.map_or(0, fix), end.map_or(n, fix));
    let raw_start = start.map_or(0, |i| if i < 0 { (i + n).max(0) } else { i });
    if raw_start > n {
        return None;
    }
    let b = b.max(a);
    Some((a as usize, byte_at(s, a as usize)..byte_at(s, b as usize)))
}

/// A `sub` argument. Errors: TypeError naming the method, CPython's wording.
fn sub_arg(v: Value, fname: &str) -> R<crate::text::Text> {
    match v {
        Value::Str(t) => Ok(t),
        other => bail!(Type, "{fname}() argument must be str, not {}", other.type_name()),
    }
}

/// Binds `(sub, start, end)` and returns the receiver, `sub`, and the window.
fn bind_sub_range(
    rt: &mut Interp,
    args: &mut Args,
) -> R<(crate::text::Text, crate::text::Text, Option<(usize, std::ops::Range<usize>)>)> {
    let s = this_str(args)?;
    let fname = args.fname.clone();
    let mut a = SUB_RANGE.bind(rt, args)?;
    let sub = sub_arg(a.value("sub")?, &fname)?;
    let (start, end) = (a.opt_int("start")?, a.opt_int("end")?);
    let w = window(&s, start, end);
    Ok((s, sub, w))
}

/// The character index of the first (or last) `sub` inside the window, if any.
fn search(rt: &mut Interp, args: &mut Args, last: bool) -> R<Option<i64>> {
    let (s, sub, w) = bind_sub_range(rt, args)?;
    let Some((first, bytes)) = w else { return Ok(None) };
    let hay = &s[bytes.clone()];
    let found = if last { hay.rfind(sub.as_ref()) } else { hay.find(sub.as_ref()) };
    Ok(found.map(|b| (first + hay[..b].chars().count()) as i64))
}

pub(super) static STR_FIND: Native = Native::with("find", SUB_RANGE, str_find);

/// `s.find(sub[, start[, end]])`: the lowest character index of `sub`, or -1.
pub(super) fn str_find(rt: &mut Interp, args: &mut Args) -> R<Value> {
    Ok(Value::Int(search(rt, args, false)?.unwrap_or(-1)))
}

pub(super) static STR_RFIND: Native = Native::with("rfind", SUB_RANGE, str_rfind);

/// `s.rfind(sub[, start[, end]])`: the highest character index of `sub`, or -1.
pub(super) fn str_rfind(rt: &mut Interp, args: &mut Args) -> R<Value> {
    Ok(Value::Int(search(rt, args, true)?.unwrap_or(-1)))
}

pub(super) static STR_INDEX: Native = Native::with("index", SUB_RANGE, str_index);

/// `s.index(sub[, start[, end]])`: as `find`. Errors: ValueError "substring not found".
pub(super) fn str_index(rt: &mut Interp, args: &mut Args) -> R<Value> {
    search(rt, args, false)?.map(Value::Int).ok_or_else(|| err!(Value, "substring not found"))
}

pub(super) static STR_RINDEX: Native = Native::with("rindex", SUB_RANGE, str_rindex);

/// `s.rindex(sub[, start[, end]])`: as `rfind`. Errors: ValueError "substring not found".
pub(super) fn str_rindex(rt: &mut Interp, args: &mut Args) -> R<Value> {
    search(rt, args, true)?.map(Value::Int).ok_or_else(|| err!(Value, "substring not found"))
}

pub(super) static STR_COUNT: Native = Native::with("count", SUB_RANGE, str_count);

/// `s.count(sub[, start[, end]])`: non-overlapping occurrences; an empty `sub`
/// counts the gaps between characters (length + 1).
pub(super) fn str_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (s, sub, w) = bind_sub_range(rt, args)?;
    let Some((_, bytes)) = w else { return Ok(Value::Int(0)) };
    let hay = &s[bytes];
    Ok(Value::Int(if sub.is_empty() { hay.chars().count() + 1 } else { hay.matches(sub.as_ref()).count() } as i64))
}

pub(super) static STR_REPLACE: Native = Native::new("replace", &["old", "new", "count: int = -1"], str_replace);

/// `s.replace(old, new, count=-1)`: the first `count` occurrences (all when negative);
/// an empty `old` inserts `new` before every character and at the end.
pub(super) fn str_replace(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let mut a = STR_REPLACE.bind(rt, args)?;
    let (old, new) = (sub_arg(a.value("old")?, "replace")?, sub_arg(a.value("new")?, "replace")?);
    let count = a.int_or("count", -1)?;
    let limit = if count < 0 { usize::MAX } else { count as usize };
    let out = if old.is_empty() {
        let mut out = String::new();
        let mut done = 0;
        for c in s.chars() {
            if done < limit {
                out.push_str(&new);
                done += 1;
            }
            out.push(c);
        }
        if done < limit {
            out.push_str(&new);
        }
        out
    } else {
        s.replacen(old.as_ref(), &new, limit)
    };
    crate::tensor::budget::check_bytes("a string", out.len() as u128, 1)?;
    Ok(Value::str(&out))
}

/// A `fillchar` argument: exactly one character.
fn fill_arg(v: Option<Value>) -> R<char> {
    match v {
        None => Ok(' '),
        Some(Value::Str(f)) if f.chars().count() == 1 => Ok(f.chars().next().unwrap_or(' ')),
        Some(Value::Str(_)) => bail!(Type, "The fill character must be exactly one character long"),
        Some(other) => {
            bail!(Type, "The fill character must be a unicode character, not {}", other.type_name())
        }
    }
}

/// `ljust`, `rjust`, `center`: `s` padded with `fillchar` to `width` characters.
fn justify(rt: &mut Interp, args: &mut Args, how: char) -> R<Value> {
    let s = this_str(args)?;
    let mut a = JUSTIFY.bind(rt, args)?;
    let (width, fill) = (a.int("width")?, fill_arg(a.opt("fillchar")?)?);
    let n = s.chars().count() as i64;
    if width <= n {
        return Ok(Value::Str(s));
    }
    crate::tensor::budget::check_bytes("a string", width as u128 * fill.len_utf8() as u128, 1)?;
    let pad = (width - n) as usize;
    // CPython's center puts the odd character left when both the padding and the width are odd.
    let left = match how {
        '<' => 0,
        '>' => pad,
        _ => pad / 2 + (pad & width as usize & 1),
    };
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    Ok(Value::str(&format!("{}{s}{}", fills(left), fills(pad - left))))
}

pub(super) static STR_LJUST: Native = Native::with("ljust", JUSTIFY, str_ljust);

/// `s.ljust(width, fillchar=' ')`
pub(super) fn str_ljust(rt: &mut Interp, args: &mut Args) -> R<Value> {
    justify(rt, args, '<')
}

pub(super) static STR_RJUST: Native = Native::with("rjust", JUSTIFY, str_rjust);

/// `s.rjust(width, fillchar=' ')`
pub(super) fn str_rjust(rt: &mut Interp, args: &mut Args) -> R<Value> {
    justify(rt, args, '>')
}

pub(super) static STR_CENTER: Native = Native::with("center", JUSTIFY, str_center);

/// `s.center(width, fillchar=' ')`
pub(super) fn str_center(rt: &mut Interp, args: &mut Args) -> R<Value> {
    justify(rt, args, '^')
}

pub(super) static STR_ZFILL: Native = Native::new("zfill", &["width: int"], str_zfill);

/// `s.zfill(width)`: zeros on the left to `width` characters, after a leading sign.
pub(super) fn str_zfill(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let width = STR_ZFILL.bind(rt, args)?.int("width")?;
    let n = s.chars().count() as i64;
    if width <= n {
        return Ok(Value::Str(s));
    }
    crate::tensor::budget::check_bytes("a string", width as u128, 1)?;
    let zeros = "0".repeat((width - n) as usize);
    Ok(Value::str(&match s.chars().next() {
        Some(c @ ('+' | '-')) => format!("{c}{zeros}{}", &s[1..]),
        _ => format!("{zeros}{s}"),
    }))
}

/// `str.startswith(prefix, start=None, end=None)`.
const PREFIX: Signature = Signature::new(&["prefix", "start: int | None = None", "end: int | None = None"]);
/// `str.endswith(suffix, start=None, end=None)`.
const SUFFIX: Signature = Signature::new(&["suffix", "start: int | None = None", "end: int | None = None"]);

/// `startswith`/`endswith(affix, start=None, end=None)`: `affix` a string or a tuple of them.
fn affix(rt: &mut Interp, args: &mut Args, end_side: bool) -> R<Value> {
    let s = this_str(args)?;
    let fname = args.fname.clone();
    let (sig, what) = if end_side { (&SUFFIX, "suffix") } else { (&PREFIX, "prefix") };
    let mut a = sig.bind(rt, args)?;
    let (x, start, end) = (a.value(what)?, a.opt_int("start")?, a.opt_int("end")?);
    let candidates: Vec<Value> = match x {
        Value::Tuple(t) => t.to_vec(),
        other => vec![other],
    };
    let Some((_, bytes)) = window(&s, start, end) else { return Ok(Value::Bool(false)) };
    let hay = &s[bytes];
    for c in candidates {
        let Value::Str(c) = c else {
            bail!(Type, "{fname} first arg must be str or a tuple of str, not {}", c.type_name())
        };
        if (end_side && hay.ends_with(c.as_ref())) || (!end_side && hay.starts_with(c.as_ref())) {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

pub(super) static STR_STARTSWITH: Native = Native::with("startswith", PREFIX, str_startswith);

/// `s.startswith(prefix, start=None, end=None)`: `prefix` a string or a tuple of strings.
pub(super) fn str_startswith(rt: &mut Interp, args: &mut Args) -> R<Value> {
    affix(rt, args, false)
}

pub(super) static STR_ENDSWITH: Native = Native::with("endswith", SUFFIX, str_endswith);

/// `s.endswith(suffix, start=None, end=None)`: `suffix` a string or a tuple of strings.
pub(super) fn str_endswith(rt: &mut Interp, args: &mut Args) -> R<Value> {
    affix(rt, args, true)
}

/// A character mapped to a string (`to_uppercase` may give several characters).
fn mapped(out: &mut String, it: impl Iterator<Item = char>) {
    out.extend(it);
}

/// A cased character (Unicode's Cased: upper case, lower case or a titlecase letter like 'ǅ').
fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || is_titlecase_letter(c)
}

/// A titlecase letter (category Lt: 'ǅ', 'ᾈ', …), by CPython 3.11's table.
fn is_titlecase_letter(c: char) -> bool {
    super::case_tables::TITLECASE_LETTERS.binary_search(&c).is_ok()
}

/// Appends the titlecase mapping of `c` ('ß' -> 'Ss', 'ǆ' -> 'ǅ', 'ﬁ' -> 'Fi'), by CPython
/// 3.11's table where it is not the uppercase mapping.
fn push_title(out: &mut String, c: char) {
    match super::case_tables::TITLE.binary_search_by_key(&c, |&(k, _)| k) {
        Ok(i) => out.push_str(super::case_tables::TITLE[i].1),
        Err(_) => mapped(out, c.to_uppercase()),
    }
}

/// Lower-cases the characters of one string one at a time, as CPython's str methods do: a
/// capital sigma becomes 'ς' at the end of a word and 'σ' elsewhere (Unicode's final-sigma
/// rule, decided over the whole string as `str::to_lowercase` decides it).
struct Lowerer {
    /// The lowercase of each 'Σ' of the string, in order.
    sigmas: Vec<char>,
    next: usize,
}

impl Lowerer {
    fn new(s: &str) -> Lowerer {
        let mut sigmas = vec![];
        if s.contains('Σ') {
            let lower = s.to_lowercase();
            let mut it = lower.chars();
            for c in s.chars() {
                if c == 'Σ' {
                    sigmas.push(it.next().unwrap_or('σ'));
                } else {
                    it.by_ref().take(c.to_lowercase().count()).for_each(drop);
                }
            }
        }
        Lowerer { sigmas, next: 0 }
    }

    /// Notes that the string's next character is `c`, and lower-cases it into `out` if `lower`
    /// (every character passes through here, lowered or not, so sigmas stay counted).
    fn visit(&mut self, out: &mut String, c: char, lower: bool) {
        let sigma = (c == 'Σ').then(|| {
            self.next += 1;
            self.sigmas.get(self.next - 1).copied().unwrap_or('σ')
        });
        match (lower, sigma) {
            (true, Some(form)) => out.push(form),
            (true, None) => mapped(out, c.to_lowercase()),
            (false, _) => {}
        }
    }
}

pub(super) static STR_TITLE: Native = Native::with("title", NO_ARGS, str_title);

/// `s.title()`: each cased character after an uncased one in title case, the others lower case.
pub(super) fn str_title(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut out = String::with_capacity(s.len());
    let mut low = Lowerer::new(&s);
    let mut prev_cased = false;
    for c in s.chars() {
        low.visit(&mut out, c, prev_cased);
        if !prev_cased {
            push_title(&mut out, c);
        }
        prev_cased = is_cased(c);
    }
    Ok(Value::str(&out))
}

pub(super) static STR_CAPITALIZE: Native = Native::with("capitalize", NO_ARGS, str_capitalize);

/// `s.capitalize()`: the first character in title case, the rest lower case.
pub(super) fn str_capitalize(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut out = String::with_capacity(s.len());
    let mut low = Lowerer::new(&s);
    for (i, c) in s.chars().enumerate() {
        low.visit(&mut out, c, i > 0);
        if i == 0 {
            push_title(&mut out, c);
        }
    }
    Ok(Value::str(&out))
}

pub(super) static STR_SWAPCASE: Native = Native::with("swapcase", NO_ARGS, str_swapcase);

/// `s.swapcase()`: upper case to lower and lower to upper (titlecase letters stay).
pub(super) fn str_swapcase(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut out = String::with_capacity(s.len());
    let mut low = Lowerer::new(&s);
    for c in s.chars() {
        low.visit(&mut out, c, c.is_uppercase());
        if c.is_uppercase() {
            continue;
        }
        if c.is_lowercase() {
            mapped(&mut out, c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    Ok(Value::str(&out))
}

pub(super) static STR_CASEFOLD: Native = Native::with("casefold", NO_ARGS, str_casefold);

/// `s.casefold()`: Unicode's full case folding ('ß' -> 'ss', 'ſ' -> 's'), by CPython 3.11's
/// table where it is not the lowercase mapping.
pub(super) fn str_casefold(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match super::case_tables::FOLD.binary_search_by_key(&c, |&(k, _)| k) {
            Ok(i) => out.push_str(super::case_tables::FOLD[i].1),
            Err(_) => mapped(&mut out, c.to_lowercase()),
        }
    }
    Ok(Value::str(&out))
}

/// The character classes `isdigit`, `isalpha`, … test; each is true when the
/// string is non-empty and every character is of the class.
fn char_class(rt: &mut Interp, args: &mut Args, class: fn(char) -> bool) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Bool(!s.is_empty() && s.chars().all(class)))
}

/// Decimal digits (Unicode category Nd): ASCII `0-9`, and other scripts' digits
/// that Rust reads as numeric and that sit in a run of ten ending in a 9.
fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    // Unicode lays out every Nd digit run as ten consecutive code points 0…9, so a
    // numeric character whose run's first code point and the nine after it are all
    // numeric is a decimal digit (superscripts, fractions, roman numerals are not).
    if !c.is_numeric() || NOT_DECIMAL.iter().any(|r| r.contains(&(c as u32))) {
        return false;
    }
    let cp = c as u32;
    (cp.saturating_sub(9)..=cp)
        .any(|start| (start..start + 10).all(|k| char::from_u32(k).is_some_and(char::is_numeric)))
}

/// Blocks of numerals in runs of ten or more that are not decimal digits (superscripts
/// and subscripts, number forms, enclosed and circled numbers, CJK numerals).
const NOT_DECIMAL: [std::ops::RangeInclusive<u32>; 10] = [
    0xB2..=0xBE,
    0x2070..=0x209F,
    0x2150..=0x218F,
    0x2460..=0x24FF,
    0x2776..=0x2793,
    0x3007..=0x303A,
    0x3192..=0x3195,
    0x3220..=0x325F,
    0x3280..=0x32BF,
    0x10107..=0x10133,
];

/// `isdigit`: decimal digits and the superscript/subscript digits.
fn is_digit(c: char) -> bool {
    is_decimal(c) || matches!(c, '²' | '³' | '¹' | '⁰' | '⁴'..='⁹' | '₀'..='₉' | '①'..='⑨')
}

pub(super) static STR_ISDIGIT: Native = Native::with("isdigit", NO_ARGS, str_isdigit);

pub(super) fn str_isdigit(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, is_digit)
}

pub(super) static STR_ISDECIMAL: Native = Native::with("isdecimal", NO_ARGS, str_isdecimal);

pub(super) fn str_isdecimal(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, is_decimal)
}

pub(super) static STR_ISNUMERIC: Native = Native::with("isnumeric", NO_ARGS, str_isnumeric);

pub(super) fn str_isnumeric(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, char::is_numeric)
}

pub(super) static STR_ISALPHA: Native = Native::with("isalpha", NO_ARGS, str_isalpha);

pub(super) fn str_isalpha(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, char::is_alphabetic)
}

pub(super) static STR_ISALNUM: Native = Native::with("isalnum", NO_ARGS, str_isalnum);

pub(super) fn str_isalnum(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, |c| c.is_alphabetic() || c.is_numeric())
}

pub(super) static STR_ISSPACE: Native = Native::with("isspace", NO_ARGS, str_isspace);

pub(super) fn str_isspace(rt: &mut Interp, args: &mut Args) -> R<Value> {
    char_class(rt, args, is_py_space)
}

/// `isupper`/`islower`: at least one cased character, and no cased character of the other case.
fn case_test(rt: &mut Interp, args: &mut Args, upper: bool) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    // CPython: at least one character of the case asked, and none of the other case nor a
    // titlecase letter ('ǅ'.isupper() and 'ǅ'.islower() are both false).
    let (want, other): (fn(char) -> bool, fn(char) -> bool) =
        if upper { (char::is_uppercase, char::is_lowercase) } else { (char::is_lowercase, char::is_uppercase) };
    let wrong = s.chars().any(|c| other(c) || is_titlecase_letter(c));
    Ok(Value::Bool(s.chars().any(want) && !wrong))
}

pub(super) static STR_ISUPPER: Native = Native::with("isupper", NO_ARGS, str_isupper);

pub(super) fn str_isupper(rt: &mut Interp, args: &mut Args) -> R<Value> {
    case_test(rt, args, true)
}

pub(super) static STR_ISLOWER: Native = Native::with("islower", NO_ARGS, str_islower);

pub(super) fn str_islower(rt: &mut Interp, args: &mut Args) -> R<Value> {
    case_test(rt, args, false)
}

pub(super) static STR_EXPANDTABS: Native = Native::new("expandtabs", &["tabsize: int = 8"], str_expandtabs);

/// `s.expandtabs(tabsize=8)`: each tab becomes spaces up to the next multiple of
/// `tabsize` columns; a newline or carriage return restarts the count.
pub(super) fn str_expandtabs(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let tab = STR_EXPANDTABS.bind(rt, args)?.int_or("tabsize", 8)?;
    let mut out = String::with_capacity(s.len());
    let mut col: u128 = 0;
    for c in s.chars() {
        match c {
            '\t' if tab > 0 => {
                let k = tab as u128 - col % tab as u128;
                crate::tensor::budget::check_bytes("a string", out.len() as u128 + k, 1)?;
                out.extend(std::iter::repeat_n(' ', k as usize));
                col += k;
            }
            '\t' => {}
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    Ok(Value::str(&out))
}

/// The line boundaries of `str.splitlines` (CPython's set).
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

pub(super) static STR_SPLITLINES: Native = Native::new("splitlines", &["keepends: bool = False"], str_splitlines);

/// `s.splitlines(keepends=False)`: lines split at any line boundary (`\r\n` is one).
pub(super) fn str_splitlines(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let keep = STR_SPLITLINES.bind(rt, args)?.bool_or("keepends", false)?;
    let mut lines = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if !is_line_break(c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        if c == '\r' && it.peek().map(|&(_, d)| d) == Some('\n') {
            it.next();
            end += 1;
        }
        lines.push(Value::str(if keep { &s[start..end] } else { &s[start..i] }));
        start = end;
    }
    if start < s.len() {
        lines.push(Value::str(&s[start..]));
    }
    Ok(Value::list(lines))
}

/// `split`/`rsplit(sep=None, maxsplit=-1)`; `from_right` splits from the end.
fn split(rt: &mut Interp, args: &mut Args, from_right: bool) -> R<Value> {
    let s = this_str(args)?;
    let mut a = SPLIT.bind(rt, args)?;
    let (sep, maxsplit) = (a.non_none("sep")?, a.int_or("maxsplit", -1)?);
    let limit = if maxsplit < 0 { usize::MAX } else { maxsplit as usize };
    let mut parts: Vec<&str> = match sep {
        None => split_space(&s, limit, from_right),
        Some(Value::Str(p)) if p.is_empty() => bail!(Value, "empty separator"),
        Some(Value::Str(p)) => {
            if from_right {
                // `rsplitn` takes the number of pieces, one more than the splits.
                s.rsplitn(limit.saturating_add(1), p.as_ref()).collect()
            } else {
                s.splitn(limit.saturating_add(1), p.as_ref()).collect()
            }
        }
        Some(other) => bail!(Type, "must be str or None, not {}", other.type_name()),
    };
    if from_right {
        parts.reverse();
    }
    Ok(Value::list(parts.into_iter().map(Value::str).collect()))
}

/// `split()` without a separator: runs of whitespace separate, none at either end
/// gives an empty piece; after `limit` splits the rest is one piece (its inner and
/// far-side whitespace kept). Pieces come in scanning order (reversed for `rsplit`).
fn split_space(s: &str, limit: usize, from_right: bool) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s;
    loop {
        rest = if from_right { rest.trim_end_matches(is_py_space) } else { rest.trim_start_matches(is_py_space) };
        if rest.is_empty() {
            break;
        }
        if parts.len() == limit {
            parts.push(rest);
            break;
        }
        if from_right {
            match rest.rfind(is_py_space) {
                Some(i) => {
                    let w = rest[i..].chars().next().map_or(1, char::len_utf8);
                    parts.push(&rest[i + w..]);
                    rest = &rest[..i];
                }
                None => {
                    parts.push(rest);
                    break;
                }
            }
        } else {
            match rest.find(is_py_space) {
                Some(i) => {
                    parts.push(&rest[..i]);
                    rest = &rest[i..];
                }
                None => {
                    parts.push(rest);
                    break;
                }
            }
        }
    }
    parts
}

pub(super) static STR_SPLIT: Native = Native::with("split", SPLIT, str_split);

/// `s.split(sep=None, maxsplit=-1)`: on runs of whitespace by default.
pub(super) fn str_split(rt: &mut Interp, args: &mut Args) -> R<Value> {
    split(rt, args, false)
}

pub(super) static STR_RSPLIT: Native = Native::with("rsplit", SPLIT, str_rsplit);

/// `s.rsplit(sep=None, maxsplit=-1)`: as `split`, counting splits from the end.
pub(super) fn str_rsplit(rt: &mut Interp, args: &mut Args) -> R<Value> {
    split(rt, args, true)
}

const PARTITION_SIG: Signature = Signature::new(&["sep"]);

/// `partition`/`rpartition(sep)`: `(before, sep, after)` at the first (last) `sep`.
fn partition(rt: &mut Interp, args: &mut Args, last: bool) -> R<Value> {
    let s = this_str(args)?;
    let sep = match PARTITION_SIG.bind(rt, args)?.value("sep")? {
        Value::Str(p) if p.is_empty() => bail!(Value, "empty separator"),
        Value::Str(p) => p,
        other => bail!(Type, "must be str, not {}", other.type_name()),
    };
    let found = if last { s.rfind(sep.as_ref()) } else { s.find(sep.as_ref()) };
    let parts = match found {
        Some(i) => [Value::str(&s[..i]), Value::Str(sep.clone()), Value::str(&s[i + sep.len()..])],
        None if last => [Value::str(""), Value::str(""), Value::Str(s)],
        None => [Value::Str(s), Value::str(""), Value::str("")],
    };
    Ok(Value::tuple(parts.to_vec()))
}

pub(super) static STR_PARTITION: Native = Native::with("partition", PARTITION_SIG, str_partition);

pub(super) fn str_partition(rt: &mut Interp, args: &mut Args) -> R<Value> {
    partition(rt, args, false)
}

pub(super) static STR_RPARTITION: Native = Native::with("rpartition", PARTITION_SIG, str_rpartition);

pub(super) fn str_rpartition(rt: &mut Interp, args: &mut Args) -> R<Value> {
    partition(rt, args, true)
}

const REMOVE_AFFIX_SIG: Signature = Signature::new(&["affix"]);

/// `removeprefix`/`removesuffix(affix)`: `s` without the affix when it has it.
fn remove_affix(rt: &mut Interp, args: &mut Args, suffix: bool) -> R<Value> {
    let s = this_str(args)?;
    let fname = args.fname.clone();
    let x = sub_arg(REMOVE_AFFIX_SIG.bind(rt, args)?.value("affix")?, &fname)?;
    let t = if suffix { s.strip_suffix(x.as_ref()) } else { s.strip_prefix(x.as_ref()) };
    Ok(Value::str(t.unwrap_or(&s)))
}

pub(super) static STR_REMOVEPREFIX: Native = Native::with("removeprefix", REMOVE_AFFIX_SIG, str_removeprefix);

pub(super) fn str_removeprefix(rt: &mut Interp, args: &mut Args) -> R<Value> {
    remove_affix(rt, args, false)
}

pub(super) static STR_REMOVESUFFIX: Native = Native::with("removesuffix", REMOVE_AFFIX_SIG, str_removesuffix);

pub(super) fn str_removesuffix(rt: &mut Interp, args: &mut Args) -> R<Value> {
    remove_affix(rt, args, true)
}

/// `str.strip(chars=None)`, `str.lstrip(chars=None)`, `str.rstrip(chars=None)`.
const STRIP: Signature = Signature::new(&["chars=None"]);
pub(super) static STR_STRIP: Native = Native::with("strip", STRIP, |rt, a| str_strip(rt, a, true, true));
pub(super) static STR_LSTRIP: Native = Native::with("lstrip", STRIP, |rt, a| str_strip(rt, a, true, false));
pub(super) static STR_RSTRIP: Native = Native::with("rstrip", STRIP, |rt, a| str_strip(rt, a, false, true));

/// `s.strip(chars=None)` and its one-sided forms: whitespace, or any of `chars`.
pub(super) fn str_strip(rt: &mut Interp, args: &mut Args, left: bool, right: bool) -> R<Value> {
    let s = this_str(args)?;
    let fname = args.fname.clone();
    let set: Option<Vec<char>> = match STRIP.bind(rt, args)?.non_none("chars")? {
        None => None,
        Some(Value::Str(c)) => Some(c.chars().collect()),
        Some(other) => bail!(Type, "{fname} arg must be None or str, not {}", other.type_name()),
    };
    let strip = |c: char| set.as_ref().map_or(is_py_space(c), |set| set.contains(&c));
    let mut t: &str = &s;
    if left {
        t = t.trim_start_matches(strip);
    }
    if right {
        t = t.trim_end_matches(strip);
    }
    Ok(Value::str(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_python_slices() {
        assert_eq!(window("héllo", Some(1), Some(3)), Some((1, 1..4)));
        assert_eq!(window("héllo", Some(-2), None), Some((3, 4..6)));
        assert_eq!(window("abc", Some(3), None), Some((3, 3..3)));
        assert_eq!(window("abc", Some(4), None), None);
        assert_eq!(window("abc", Some(2), Some(1)), Some((2, 2..2)));
    }

    #[test]
    fn whitespace_splits_like_python() {
        assert_eq!(split_space("  a b  c  ", 1, false), vec!["a", "b  c  "]);
        assert_eq!(split_space("  a b  c  ", 1, true), vec!["c", "  a b"]);
        assert_eq!(split_space("   ", usize::MAX, false), Vec::<&str>::new());
    }

    #[test]
    fn decimal_digits_are_told_from_other_numerals() {
        assert!(is_decimal('٣') && is_decimal('7'));
        assert!(!is_decimal('²') && !is_decimal('½') && !is_decimal('Ⅻ'));
        assert!(is_digit('²'));
    }
}

pub(super) static STR_ISPRINTABLE: Native = Native::with("isprintable", NO_ARGS, str_isprintable);

/// `s.isprintable()`: every character printable (true for the empty string), the rule
/// `repr` escapes by (runtime/format.rs `is_printable`).
pub(super) fn str_isprintable(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Bool(s.chars().all(crate::runtime::format::is_printable)))
}

pub(super) static STR_ISASCII: Native = Native::with("isascii", NO_ARGS, str_isascii);

/// `s.isascii()`: every character below U+0080 (true for the empty string).
pub(super) fn str_isascii(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Bool(s.is_ascii()))
}

pub(super) static STR_ISIDENTIFIER: Native = Native::with("isidentifier", NO_ARGS, str_isidentifier);

/// `s.isidentifier()`: a letter or `_` (Unicode XID_Start), then XID_Continue characters,
/// the identifiers the lexer reads (keywords included, as CPython).
pub(super) fn str_isidentifier(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut cs = s.chars();
    let ok =
        cs.next().is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c)) && cs.all(unicode_ident::is_xid_continue);
    Ok(Value::Bool(ok))
}

pub(super) static STR_ISTITLE: Native = Native::with("istitle", NO_ARGS, str_istitle);

/// `s.istitle()`: at least one cased character; upper-case ones only after an uncased
/// character, lower-case ones only after a cased one.
pub(super) fn str_istitle(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    let (mut prev_cased, mut any) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() || is_titlecase_letter(c) {
            if prev_cased {
                return Ok(Value::Bool(false));
            }
            prev_cased = true;
            any = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return Ok(Value::Bool(false));
            }
            prev_cased = true;
            any = true;
        } else {
            prev_cased = false;
        }
    }
    Ok(Value::Bool(any))
}

pub(super) static STR_FORMAT_MAP: Native = Native::new("format_map", &["mapping"], str_format_map);

/// `s.format_map(mapping)`: `s.format(**mapping)` without copying, so the fields look
/// names up in the mapping; a dict's string keys are the names.
///
/// Errors: TypeError for a mapping that is not a dict; KeyError for a missing name.
pub(super) fn str_format_map(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let m = STR_FORMAT_MAP.bind(rt, args)?.value("mapping")?;
    let Value::Dict(d) = &m else { bail!(Type, "format_map() argument must be a dict, not {}", m.type_name()) };
    let kw: Vec<(std::rc::Rc<str>, Value)> = d
        .borrow()
        .values()
        .filter_map(|(k, v)| if let Value::Str(k) = k { Some((k.into(), v.clone())) } else { None })
        .collect();
    Ok(Value::str(&rt.str_format(&s, &[], &kw)?))
}

pub(super) static STR_MAKETRANS: Native = Native::new("maketrans", &["x", "y=None", "z=None"], str_maketrans);

/// `str.maketrans(x, y=None, z=None)`: the table `translate` reads, a dict from code
/// points to code points, strings or None. One argument: a dict whose keys are code
/// points or one-character strings; two: strings of equal length mapped character by
/// character; a third: characters mapped to None (deleted).
///
/// Errors: TypeError and ValueError with CPython's wording.
pub(super) fn str_maketrans(rt: &mut Interp, args: &mut Args) -> R<Value> {
    // Called on a string (`s.maketrans`) the receiver is ignored, as CPython's staticmethod.
    let mut b = STR_MAKETRANS.bind(rt, args)?;
    let (x, y, z) = (b.value("x")?, b.opt("y")?, b.opt("z")?);
    let mut table = crate::runtime::value::Dict::default();
    let mut put = |rt: &mut Interp, k: Value, v: Value| -> R<()> {
        let h = rt.hash_key(&k)?;
        crate::runtime::value::dict_store(&mut table, h, k, v)?;
        Ok(())
    };
    match y {
        None => {
            let Value::Dict(d) = &x else {
                bail!(Type, "if you give only one argument to maketrans it must be a dict")
            };
            let entries: Vec<(Value, Value)> = d.borrow().values().cloned().collect();
            for (k, v) in entries {
                let key = match &k {
                    Value::Int(_) => k.clone(),
                    Value::Str(s) if s.chars().count() == 1 => Value::Int(s.chars().next().map_or(0, |c| c as i64)),
                    Value::Str(_) => bail!(Value, "string keys in translate table must be of length 1"),
                    _ => bail!(Type, "keys in translate table must be strings or integers"),
                };
                put(rt, key, v)?;
            }
        }
        Some(y) => {
            let (Value::Str(xs), Value::Str(ys)) = (&x, &y) else {
                bail!(Type, "maketrans() argument 1 and 2 must be str")
            };
            if xs.chars().count() != ys.chars().count() {
                bail!(Value, "the first two maketrans arguments must have equal length");
            }
            for (a, c) in xs.chars().zip(ys.chars()) {
                put(rt, Value::Int(a as i64), Value::Int(c as i64))?;
            }
            if let Some(z) = z {
                let Value::Str(zs) = &z else {
                    bail!(Type, "maketrans() argument 3 must be str, not {}", z.type_name())
                };
                for c in zs.chars() {
                    put(rt, Value::Int(c as i64), Value::None)?;
                }
            }
        }
    }
    Ok(Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(table))))
}

pub(super) static STR_TRANSLATE: Native = Native::new("translate", &["table"], str_translate);

/// `s.translate(table)`: each character's code point looked up in `table` (`table[ord(c)]`):
/// a string replaces it, a code point gives that character, None deletes it, and a missing
/// key (LookupError) keeps it.
///
/// Errors: TypeError "character mapping must return integer, None or str"; ValueError for a
/// code point outside range(0x110000).
pub(super) fn str_translate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    let table = STR_TRANSLATE.bind(rt, args)?.value("table")?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match rt.get_item(&table, &Value::Int(c as i64)) {
            Ok(Value::Str(t)) => out.push_str(&t),
            Ok(Value::None) => {}
            Ok(Value::Int(i)) => match u32::try_from(i).ok().and_then(char::from_u32) {
                Some(t) => out.push(t),
                None => bail!(Value, "character mapping must be in range(0x110000)"),
            },
            Ok(_) => bail!(Type, "character mapping must return integer, None or str"),
            Err(e) if matches!(e.kind(), crate::error::ErrorKind::Key | crate::error::ErrorKind::Index) => out.push(c),
            Err(e) => return Err(e),
        }
    }
    Ok(Value::str(&out))
}

/// The receiver of a str method.
pub(super) fn this_str(a: &Args) -> R<crate::text::Text> {
    match receiver(a)? {
        Value::Str(s) => Ok(s.clone()),
        other => bail!(Runtime, "internal error: a str method bound to a {}", other.type_name()),
    }
}

pub(super) static STR_UPPER: Native = Native::with("upper", NO_ARGS, str_upper);

/// `s.upper()`
pub(super) fn str_upper(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::str(&s.to_uppercase()))
}

pub(super) static STR_LOWER: Native = Native::with("lower", NO_ARGS, str_lower);

/// `s.lower()`
pub(super) fn str_lower(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_str(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::str(&s.to_lowercase()))
}

pub(super) static STR_FORMAT: Native = Native::new("format", &["*args", "**kwargs"], str_format);

/// `"{} {:.2f} {name} {0[1]} {x.shape}".format(*args, **kwargs)` (runtime/format/fields.rs).
pub(super) fn str_format(rt: &mut Interp, args: &mut Args) -> R<Value> {
    // Every positional and keyword argument is a field value: there is nothing to bind.
    let s = this_str(args)?;
    let pos = std::mem::take(&mut args.pos);
    let kw = std::mem::take(&mut args.kw);
    Ok(Value::str(&rt.str_format(&s, &pos, &kw)?))
}

pub(super) static STR_JOIN: Native = Native::new("join", &["iterable"], str_join);

/// `sep.join(iterable)`. Errors: TypeError for an item that is not a string (CPython's wording).
pub(super) fn str_join(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let sep = this_str(args)?;
    let items = STR_JOIN.bind(rt, args)?.value("iterable")?;
    let items = rt.iterate(&items)?;
    let mut total = sep.len() as u128 * items.len().saturating_sub(1) as u128;
    for (i, x) in items.iter().enumerate() {
        match x {
            Value::Str(s) => total += s.len() as u128,
            other => bail!(Type, "sequence item {i}: expected str instance, {} found", other.type_name()),
        }
    }
    crate::tensor::budget::check_bytes("a string", total, 1)?;
    let mut out = String::with_capacity(total as usize);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&sep);
        }
        if let Value::Str(s) = x {
            out.push_str(s);
        }
    }
    Ok(Value::str(&out))
}
