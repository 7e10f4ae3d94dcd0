//! Raw tokens, produced by logos. The layout pass ([`super::layout`]) turns
//! physical newlines into `Newline`/`Indent`/`Dedent` before the parser sees them.

use logos::{Lexer, Logos};
use std::fmt;
use std::rc::Rc;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\f\r]+")]
#[logos(skip r"#[^\n]*")]
#[logos(skip r"\\\r?\n")]
pub enum Tok {
    #[token("\n")]
    Newline,
    /// Inserted by the layout pass: the start of an indented block.
    Indent,
    /// Inserted by the layout pass: the end of an indented block.
    Dedent,

    #[regex(r"[\p{XID_Start}_][\p{XID_Continue}]*", |lex| Rc::<str>::from(lex.slice()), priority = 1)]
    Name(Rc<str>),
    #[regex(r"[0-9][0-9_]*", |lex| lex.slice().replace('_', ""))]
    #[regex(r"0[xX]_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*", |lex| radix_int(lex.slice(), 16))]
    #[regex(r"0[oO]_?[0-7]+(_[0-7]+)*", |lex| radix_int(lex.slice(), 8))]
    #[regex(r"0[bB]_?[01]+(_[01]+)*", |lex| radix_int(lex.slice(), 2))]
    Int(String),
    #[regex(r"[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9]+)?", |lex| lex.slice().replace('_', ""))]
    #[regex(r"\.[0-9][0-9_]*([eE][+-]?[0-9]+)?", |lex| lex.slice().replace('_', ""))]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9]+", |lex| lex.slice().replace('_', ""))]
    Float(String),
    /// An imaginary literal (`4j`, `1.5J`, `1e3j`, `.5j`, `1_0j`): its digits without the
    /// underscores and the `j`. Underscores go only between digits, as in Python, so `1_j`
    /// is not one (it lexes as `1_` and `j`, a syntax error).
    #[regex(r"[0-9](_?[0-9])*[jJ]", imag)]
    #[regex(r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?[jJ]", imag)]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?[jJ]", imag)]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*[jJ]", imag)]
    Imag(String),
    /// A string literal with its escapes already resolved.
    #[regex(r#""([^"\\\n]|\\.)*""#, |lex| unescape(lex.slice(), 1))]
    #[regex(r#"'([^'\\\n]|\\.)*'"#, |lex| unescape(lex.slice(), 1))]
    #[token(r#"""""#, |lex| triple(lex, "\"\"\""))]
    #[token("'''", |lex| triple(lex, "'''"))]
    Str(Rc<str>),
    /// An f-string's raw body (between the quotes); the parser splits out `{…}` fields.
    #[regex(r#"f"([^"\\\n]|\\.)*""#, |lex| raw_body(lex.slice()))]
    #[regex(r#"f'([^'\\\n]|\\.)*'"#, |lex| raw_body(lex.slice()))]
    FStr(Rc<str>),

    // Keywords.
    #[token("def")]
    Def,
    #[token("return")]
    Return,
    #[token("if")]
    If,
    #[token("elif")]
    Elif,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("not")]
    Not,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("is")]
    Is,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("pass")]
    Pass,
    #[token("class")]
    Class,
    #[token("with")]
    With,
    #[token("as")]
    As,
    #[token("import")]
    Import,
    #[token("from")]
    From,
    #[token("assert")]
    Assert,
    #[token("raise")]
    Raise,
    #[token("try")]
    Try,
    #[token("except")]
    Except,
    #[token("finally")]
    Finally,
    #[token("global")]
    Global,
    #[token("nonlocal")]
    Nonlocal,
    #[token("lambda")]
    Lambda,
    #[token("del")]
    Del,
    #[token("yield")]
    Yield,
    #[token("True")]
    True,
    #[token("False")]
    False,
    #[token("None")]
    None,

    // Operators and delimiters.
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("**")]
    DoubleStar,
    #[token("/")]
    Slash,
    #[token("//")]
    DoubleSlash,
    #[token("%")]
    Percent,
    #[token("@")]
    At,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("//=")]
    DoubleSlashEq,
    #[token("%=")]
    PercentEq,
    #[token("**=")]
    DoubleStarEq,
    #[token("@=")]
    AtEq,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("<<")]
    LShift,
    #[token(">>")]
    RShift,
    #[token("&=")]
    AmpEq,
    #[token("|=")]
    PipeEq,
    #[token("^=")]
    CaretEq,
    #[token("<<=")]
    LShiftEq,
    #[token(">>=")]
    RShiftEq,
    #[token("==")]
    Eq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semicolon,
    #[token(".")]
    Dot,
    #[token("...")]
    Ellipsis,
    #[token("->")]
    Arrow,

    /// A character no token starts with, or an unterminated string.
    Error(Rc<str>),
}

/// Resolves the escapes of a quoted literal; `q` is the quote length.
/// The number of an imaginary literal: its text without underscores and the final `j`.
fn imag(lex: &mut Lexer<Tok>) -> String {
    let text = lex.slice();
    text[..text.len() - 1].replace('_', "")
}

/// A `0x`/`0o`/`0b` literal (Python's, underscores allowed between digits) as decimal
/// digits; one beyond 128 bits keeps its text, which the parser reports as too large.
fn radix_int(text: &str, radix: u32) -> String {
    let digits = text[2..].replace('_', "");
    u128::from_str_radix(&digits, radix).map_or_else(|_| text.to_string(), |v| v.to_string())
}

fn unescape(slice: &str, q: usize) -> Rc<str> {
    unescape_body(&slice[q..slice.len() - q]).into()
}

/// A string literal's escapes, as Python reads them: `\n \t \\ \' \"` (docs/language.md §2),
/// `\r \a \b \f \v`, octal `\0`–`\777` (up to three digits), `\xhh`, `\uhhhh` and
/// `\Uhhhhhhhh`, and a backslash before a newline continues the line. Any other backslash,
/// and an escape with too few hex digits or past the last code point, stays as written.
pub fn unescape_body(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(c) = after.chars().next() else {
            out.push('\\');
            return out;
        };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' => Some(c),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            rest = &after[1..];
            continue;
        }
        if c == '\n' {
            rest = &after[1..];
            continue;
        }
        let (value, used) = match c {
            '0'..='7' => {
                let n = after.bytes().take(3).take_while(|b| (b'0'..=b'7').contains(b)).count();
                (u32::from_str_radix(&after[..n], 8).ok(), n)
            }
            'x' | 'u' | 'U' => {
                let want = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex = after[1..].bytes().take(want).take_while(u8::is_ascii_hexdigit).count();
                let v = if hex == want { u32::from_str_radix(&after[1..1 + want], 16).ok() } else { None };
                (v, 1 + want)
            }
            _ => (None, 0),
        };
        match value.and_then(char::from_u32) {
            Some(ch) => {
                out.push(ch);
                rest = &after[used..];
            }
            None => {
                out.push('\\');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn raw_body(slice: &str) -> Rc<str> {
    slice[2..slice.len() - 1].into()
}

/// Scans a triple-quoted string up to its closing quotes.
fn triple(lex: &mut Lexer<Tok>, quote: &str) -> Option<Rc<str>> {
    let rest = lex.remainder();
    let end = rest.find(quote)?;
    let body = unescape_body(&rest[..end]);
    lex.bump(end + quote.len());
    Some(body.into())
}

impl fmt::Display for Tok {
    /// Tokens as a user reads them in source (STYLE.md §7: never Rust variant names).
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let text = match self {
            Tok::Newline => "newline",
            Tok::Indent => "indented block",
            Tok::Dedent => "end of block",
            Tok::Name(n) => return write!(f, "name '{n}'"),
            Tok::Int(n) | Tok::Float(n) => return write!(f, "number {n}"),
            Tok::Imag(n) => return write!(f, "number {n}j"),
            Tok::Str(_) => "string",
            Tok::FStr(_) => "f-string",
            Tok::Error(s) => return write!(f, "'{s}'"),
            other => return write!(f, "'{}'", other.text()),
        };
        f.write_str(text)
    }
}

impl Tok {
    /// The source text of a keyword, operator or delimiter token.
    pub fn text(&self) -> &'static str {
        use Tok::*;
        match self {
            Def => "def",
            Return => "return",
            If => "if",
            Elif => "elif",
            Else => "else",
            While => "while",
            For => "for",
            In => "in",
            Not => "not",
            And => "and",
            Or => "or",
            Is => "is",
            Break => "break",
            Continue => "continue",
            Pass => "pass",
            Class => "class",
            With => "with",
            As => "as",
            Import => "import",
            From => "from",
            Assert => "assert",
            Raise => "raise",
            Try => "try",
            Except => "except",
            Finally => "finally",
            Global => "global",
            Nonlocal => "nonlocal",
            Lambda => "lambda",
            Del => "del",
            Yield => "yield",
            True => "True",
            False => "False",
            None => "None",
            Plus => "+",
            Minus => "-",
            Star => "*",
            DoubleStar => "**",
            Slash => "/",
            DoubleSlash => "//",
            Percent => "%",
            At => "@",
            Assign => "=",
            PlusEq => "+=",
            MinusEq => "-=",
            StarEq => "*=",
            SlashEq => "/=",
            DoubleSlashEq => "//=",
            PercentEq => "%=",
            DoubleStarEq => "**=",
            AtEq => "@=",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Tilde => "~",
            LShift => "<<",
            RShift => ">>",
            AmpEq => "&=",
            PipeEq => "|=",
            CaretEq => "^=",
            LShiftEq => "<<=",
            RShiftEq => ">>=",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Comma => ",",
            Colon => ":",
            Semicolon => ";",
            Dot => ".",
            Ellipsis => "...",
            Arrow => "->",
            Newline | Indent | Dedent | Name(_) | Int(_) | Float(_) | Imag(_) | Str(_) | FStr(_) | Error(_) => "",
        }
    }
}
