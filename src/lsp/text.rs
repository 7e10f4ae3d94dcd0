//! Open documents and the two ways of pointing into them: DGL's byte offsets (spans)
//! and the protocol's positions (a zero-based line and a column counted in UTF-16
//! code units, LSP 3.17 §"Position"). Every conversion clamps: a position past the
//! end of its line or of the document, or inside a surrogate pair or a UTF-8
//! sequence, lands on the nearest character boundary before it, never panics.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// One open document: its text (as the client last sent it) and where its lines start.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub version: i32,
    /// Byte offset of the start of each line; `\n`, `\r\n` and a lone `\r` end a line
    /// (the protocol's three line terminators).
    line_starts: Vec<usize>,
}

impl Document {
    pub fn new(text: String, version: i32) -> Document {
        let line_starts = line_starts(&text);
        Document { text, version, line_starts }
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
            let next = units + c.len_utf16() as u32;
            if next > p.character {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The protocol position of byte `offset` (clamped to the text and to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        // An offset inside a `\r\n` pair (or on the terminator) counts from its line's start.
        let character = self.text[start..offset].chars().map(|c| c.len_utf16() as u32).sum();
        Position { line: line as u32, character }
    }

    /// The protocol range of the byte range `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range { start: self.position(start), end: self.position(end.max(start)) }
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
        let d = Document::new("é = 1\nx𝜃 = (\r\ny\rz".into(), 0);
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
        let mut d = Document::new("αβ\nγ".into(), 1);
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
}
