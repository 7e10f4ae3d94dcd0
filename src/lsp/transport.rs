//! The base protocol: messages framed by a `Content-Length` header, read and written
//! on the server's own thread.
//!
//! lsp-server's stdio transport is not used: its reader thread ends at the first
//! malformed message (and the server with it), and it allocates whatever length a
//! header claims. Here a bad frame is reported and skipped, the header lines and the
//! body are bounded, and the message types are still lsp-server's.

use lsp_server::Message;
use std::io::{BufRead, Read, Write};

/// The longest header line read (bytes); a longer one is a malformed header.
const MAX_HEADER_LINE: u64 = 8 * 1024;
/// The largest message body accepted (bytes); a larger one is read past and refused.
pub const MAX_BODY: usize = 64 << 20;

/// What reading the next frame gave.
#[derive(Debug)]
pub enum Frame {
    /// A well-formed message.
    Message(Message),
    /// A frame that could not be read as a message: what was wrong. The stream is
    /// left at the next frame (or, after a broken header, at the next line).
    Malformed(String),
    /// The input ended.
    Eof,
}

/// Reads one frame from `r`. Errors are only the stream's own.
pub fn read(r: &mut impl BufRead) -> std::io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut problem: Option<String> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        let n = r.by_ref().take(MAX_HEADER_LINE).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(if saw_header {
                Frame::Malformed("the input ended inside a header".into())
            } else {
                Frame::Eof
            });
        }
        if !line.ends_with(b"\n") {
            if (n as u64) < MAX_HEADER_LINE {
                return Ok(Frame::Malformed("the input ended inside a header".into()));
            }
            // Too long: skip the rest of the line, a bounded piece at a time.
            loop {
                let mut rest = Vec::new();
                let m = r.by_ref().take(MAX_HEADER_LINE).read_until(b'\n', &mut rest)?;
                if m == 0 || rest.ends_with(b"\n") {
                    break;
                }
            }
            return Ok(Frame::Malformed(format!("a header line longer than {MAX_HEADER_LINE} bytes")));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if !saw_header {
                continue; // blank lines between frames are skipped
            }
            break;
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => problem = Some(format!("Content-Length is not a number: {:?}", value.trim())),
                }
            }
            Some(_) => {} // Content-Type and any other header: ignored
            None => problem = Some(format!("malformed header line: {text:?}")),
        }
    }
    if let Some(p) = problem {
        return Ok(Frame::Malformed(p));
    }
    let Some(length) = length else { return Ok(Frame::Malformed("a header without Content-Length".into())) };
    if length > MAX_BODY {
        std::io::copy(&mut r.by_ref().take(length as u64), &mut std::io::sink())?;
        return Ok(Frame::Malformed(format!("a message of {length} bytes, over the limit of {MAX_BODY}")));
    }
    let mut body = vec![0; length];
    if let Err(e) = r.read_exact(&mut body) {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            return Ok(Frame::Malformed("the input ended inside a message".into()));
        }
        return Err(e);
    }
    let Ok(body) = String::from_utf8(body) else { return Ok(Frame::Malformed("a message that is not UTF-8".into())) };
    match serde_json::from_str::<Message>(&body) {
        Ok(m) => Ok(Frame::Message(m)),
        Err(e) => Ok(Frame::Malformed(format!("not a JSON-RPC message: {e}"))),
    }
}

/// Writes `msg` as one frame and flushes.
pub fn write(w: &mut impl Write, msg: Message) -> std::io::Result<()> {
    msg.write(w)
}

/// Writes the JSON-RPC error response with a null id that answers a message that
/// could not be read (JSON-RPC 2.0 §5: -32700 parse error).
pub fn write_parse_error(w: &mut impl Write, message: &str) -> std::io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": lsp_server::ErrorCode::ParseError as i32, "message": message },
    })
    .to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<String> {
        let mut r = std::io::BufReader::new(input.as_bytes());
        let mut out = vec![];
        loop {
            match read(&mut r).expect("reading a byte slice") {
                Frame::Eof => return out,
                Frame::Message(m) => out.push(format!("message {}", serde_json::to_string(&m).expect("json"))),
                Frame::Malformed(why) => out.push(format!("malformed: {why}")),
            }
        }
    }

    #[test]
    fn bad_frames_are_skipped_and_the_next_one_is_read() {
        let ok = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let input = format!(
            "garbage\r\n\r\nContent-Length: x\r\n\r\nContent-Length: 3\r\n\r\n{{}}!\
             Content-Length: {}\r\nContent-Type: x\r\n\r\n{ok}Content-Length: 5\r\n\r\nab",
            ok.len()
        );
        let got = frames(&input);
        assert_eq!(got.len(), 5, "{got:#?}");
        assert!(got[0].starts_with("malformed: malformed header line"), "{}", got[0]);
        assert!(got[1].starts_with("malformed: Content-Length is not a number"), "{}", got[1]);
        assert!(got[2].starts_with("malformed: not a JSON-RPC message"), "{}", got[2]);
        assert_eq!(got[3], r#"message {"method":"exit"}"#);
        assert_eq!(got[4], "malformed: the input ended inside a message");
    }

    #[test]
    fn oversized_frames_are_read_past_not_allocated() {
        let got = frames("Content-Length: 99999999999\r\n\r\nabc");
        assert_eq!(got.len(), 1, "{got:#?}");
        assert!(got[0].contains("over the limit"), "{}", got[0]);
        let long = format!("X-{}: 1\r\n\r\n", "a".repeat(20_000));
        let got = frames(&long);
        assert!(got[0].contains("longer than"), "{got:#?}");
    }
}
