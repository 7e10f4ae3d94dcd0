//! Open documents and the two ways of pointing into them: DGL's byte offsets (spans)
//! and the protocol's positions (a zero-based line and a column counted in the
//! negotiated position encoding: UTF-16 code units unless the client offers another,
//! LSP 3.17 §"Position" and §"positionEncodings"). This is the only place positions
//! and offsets are converted, and the only place the server cuts the text at a
//! cursor: every conversion clamps (a position past the end of its line or of the
//! document, or inside a surrogate pair or a UTF-8 sequence, lands on the nearest
//! character boundary before it), and every offset it returns is a char boundary.
//!
//! Lines end at `\n`, `\r\n` and a lone `\r` only, the protocol's three terminators:
//! U+2028, U+2029 and U+0085 are characters inside a line (one unit each in UTF-16),
//! as they are for DGL's lexer, which ends lines at `\n` alone.

use lsp_types::{Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent};

/// What a protocol column counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: the protocol's default and the only one a client must support.
    #[default]
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl Encoding {
    /// The encoding to use for a client offering `offered` (in its order of preference):
    /// the first one the server knows, else UTF-16 (which every server must support).
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        offered
            .unwrap_or(&[])
            .iter()
            .find_map(|k| match k.as_str() {
                "utf-8" => Some(Encoding::Utf8),
                "utf-16" => Some(Encoding::Utf16),
                "utf-32" => Some(Encoding::Utf32),
                _ => None,
            })
            .unwrap_or_default()
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    /// The units `c` takes in a column.
    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// One open document: its text (as the client last sent it) and where its lines start.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub version: i32,
    encoding: Encoding,
    /// Byte offset of the start of each line; `\n`, `\r\n` and a lone `\r` end a line
    /// (the protocol's three line terminators).
    line_starts: Vec<usize>,
}

impl Document {
    pub fn new(text: String, version: i32, encoding: Encoding) -> Document {
        let line_starts = line_starts(&text);
        Document { text, version, encoding, line_starts }
    }

    /// Applies the changes of one `didChange`, in order: a change without a range
    /// replaces the whole text; one with a range replaces that part (the server asks
    /// for full sync, but a client sending ranges is still understood).
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let start = self.offset(range.start);
                    let end = self.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
            self.line_starts = line_starts(&self.text);
        }
        self.version = version;
    }

    /// The byte offset of protocol position `p`, clamped into the document.
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.line_starts.get(p.line as usize) else { return self.text.len() };
        let end = self.line_end(p.line as usize);
        let mut units = 0u32;
        for (i, c) in self.text[start..end].char_indices() {
            let next = units.saturating_add(self.encoding.units(c));
            if next > p.character {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The protocol position of byte `offset` (clamped to the text and to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.boundary(offset);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        // An offset on a line's terminator (inside a `\r\n` pair too) is the end of the line's
        // content: a column never counts a terminator.
        let offset = offset.min(self.line_end(line));
        let character = self.text[start..offset].chars().map(|c| self.encoding.units(c)).sum();
        Position { line: line as u32, character }
    }

    /// The protocol range of the byte range `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range { start: self.position(start), end: self.position(end.max(start)) }
    }

    /// The byte offset `offset` clamped into the text and moved back to a char boundary.
    pub fn boundary(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The run of characters satisfying `part` that holds byte `offset`: from the start of
    /// the run before it to its end after it (`start..end`, both char boundaries; empty
    /// when no such character touches `offset`).
    pub fn run_around(&self, offset: usize, part: impl Fn(char) -> bool) -> (usize, usize) {
        let offset = self.boundary(offset);
        let (before, after) = self.text.split_at(offset);
        let start = before.char_indices().rev().find(|&(_, c)| !part(c)).map_or(0, |(i, c)| i + c.len_utf8());
        let end = after.char_indices().find(|&(_, c)| !part(c)).map_or(self.text.len(), |(i, _)| offset + i);
        (start, end)
    }

    /// Where line `line`'s content ends (before its terminator).
    fn line_end(&self, line: usize) -> usize {
        let next = self.line_starts.get(line + 1).copied().unwrap_or(self.text.len());
        let content = &self.text[self.line_starts[line]..next];
        self.line_starts[line] + content.trim_end_matches(['\n', '\r']).len()
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => starts.push(i + 1),
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                starts.push(i + 2);
                i += 1;
            }
            b'\r' => starts.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn columns_count_utf16_code_units() {
        // 'é' is 2 bytes and 1 unit; '𝜃' is 4 bytes and 2 units (a surrogate pair).
        let d = Document::new("é = 1\nx𝜃 = (\r\ny\rz".into(), 0, Encoding::Utf16);
        assert_eq!(d.position(0), pos(0, 0));
        assert_eq!(d.position(2), pos(0, 1)); // after 'é'
        assert_eq!(d.position(7), pos(1, 0));
        assert_eq!(d.position(8), pos(1, 1));
        assert_eq!(d.position(12), pos(1, 3)); // after '𝜃'
        assert_eq!(d.offset(pos(1, 3)), 12);
        assert_eq!(d.offset(pos(1, 2)), 8); // inside the pair: back to its start
        assert_eq!(d.position(d.text.find('y').unwrap()), pos(2, 0));
        assert_eq!(d.position(d.text.find('z').unwrap()), pos(3, 0));
        // Past the end of a line, past the last line, inside a UTF-8 sequence: clamped.
        assert_eq!(d.offset(pos(0, 99)), 6);
        assert_eq!(d.offset(pos(99, 0)), d.text.len());
        assert_eq!(d.position(1), pos(0, 0));
        assert_eq!(d.position(usize::MAX), pos(3, 1));
    }

    #[test]
    fn ranged_changes_edit_in_place() {
        let mut d = Document::new("αβ\nγ".into(), 1, Encoding::Utf16);
        let change = |line, a, b, text: &str| TextDocumentContentChangeEvent {
            range: Some(Range { start: pos(line, a), end: pos(line, b) }),
            range_length: None,
            text: text.into(),
        };
        d.apply(vec![change(0, 1, 2, "x"), change(1, 0, 9, "yz")], 2);
        assert_eq!((d.text.as_str(), d.version), ("αx\nyz", 2));
        // A range ending before it starts inserts at its start.
        d.apply(vec![change(0, 2, 0, "!")], 3);
        assert_eq!(d.text, "αx!\nyz");
    }

    /// Every position of lines holding a BOM, `→`, `“`, an emoji, U+2028, in every encoding:
    /// each maps to a char boundary, and each char boundary maps back to itself.
    #[test]
    fn every_position_round_trips() {
        let text = "\u{feff}a→b\r\n“c”😀\u{2028}d\re\u{85}f\n\n😀";
        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let d = Document::new(text.into(), 0, encoding);
            // U+2028 and U+0085 are inside their lines: 5 lines, split at \r\n, \r, \n, \n.
            assert_eq!(d.position(text.len()).line, 4, "{encoding:?}");
            for line in 0..7 {
                for character in 0..24 {
                    let o = d.offset(pos(line, character));
                    assert!(text.is_char_boundary(o), "{encoding:?} {line}:{character}");
                    let back = d.position(o);
                    assert!((back.line, back.character) <= (line, character), "{encoding:?} {line}:{character}");
                }
            }
            for (o, c) in text.char_indices() {
                if c != '\r' && c != '\n' {
                    assert_eq!(d.offset(d.position(o)), o, "{encoding:?} at {o}");
                }
            }
            // The run of word characters around an offset stops at non-ASCII punctuation.
            let (start, end) = d.run_around(text.find('b').unwrap(), char::is_alphanumeric);
            assert_eq!(&text[start..end], "b");
            assert_eq!(d.run_around(usize::MAX, char::is_alphanumeric), (text.len(), text.len()));
        }
        let d = Document::new("x = 'é'\r\n".into(), 0, Encoding::Utf16);
        // An offset on a terminator is the end of its line.
        assert_eq!(d.position(d.text.len() - 1), pos(0, 7));
    }
}
