//! GTP version 2 framing: cleaning and splitting input lines, and
//! formatting replies.
//!
//! Input (GTP 2 §2): control characters other than tab and newline are
//! dropped (so CR of a CRLF goes), tabs become spaces, `#` starts a comment
//! that runs to the end of the line, and a line that is then blank is
//! ignored. Invalid UTF-8 is replaced, never rejected. A command is an
//! optional numeric id, a name (case-insensitive; stored lower-case) and
//! arguments. Replies are `=id result` or `?id message` followed by one
//! empty line; a result never contains an empty line.

/// Longest input line accepted, in bytes; longer lines are refused with a
/// syntax error (and the rest of the line is skipped unread).
pub const MAX_LINE: usize = 64 * 1024;

/// A parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The id as written (digits only), if any.
    pub id: Option<String>,
    /// The command name, lower-case.
    pub name: String,
    pub args: Vec<String>,
}

/// What an input line holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Nothing: blank or comment only. No reply is due.
    Empty,
    Command(Command),
    /// Something that is not a command; reply with this error.
    Error {
        id: Option<String>,
        message: String,
    },
}

/// Cleans a raw line (see the module docs).
pub fn clean(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '#' => break,
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Parses one raw input line (without its newline).
pub fn parse(raw: &[u8]) -> Parsed {
    let line = clean(raw);
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Parsed::Empty;
    };
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        let id = Some(first.to_string());
        match words.next() {
            Some(n) => (id, n),
            None => {
                return Parsed::Error {
                    id,
                    message: "syntax error: missing command name".into(),
                }
            }
        }
    } else {
        (None, first)
    };
    Parsed::Command(Command {
        id,
        name: name.to_lowercase(),
        args: words.map(str::to_string).collect(),
    })
}

/// Just the id of a line, for errors about the line as a whole.
pub fn id_of(raw: &[u8]) -> Option<String> {
    match parse(raw) {
        Parsed::Command(c) => c.id,
        Parsed::Error { id, .. } => id,
        Parsed::Empty => None,
    }
}

/// Text made safe for a reply body: no empty lines after the first, no
/// trailing newline.
pub fn sanitize(text: &str) -> String {
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let mut out = lines.next().unwrap_or("").to_string();
    for l in lines.filter(|l| !l.trim().is_empty()) {
        out.push('\n');
        out.push_str(l);
    }
    out
}

/// `=id result` plus the empty line.
pub fn success(id: Option<&str>, result: &str) -> String {
    format!("={} {}\n\n", id.unwrap_or(""), sanitize(result))
}

/// `?id message` plus the empty line.
pub fn failure(id: Option<&str>, message: &str) -> String {
    format!(
        "?{} {}\n\n",
        id.unwrap_or(""),
        sanitize(message).replace('\n', " ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_case_comments_and_control_chars() {
        assert_eq!(parse(b"  # just a comment"), Parsed::Empty);
        assert_eq!(parse(b"\r"), Parsed::Empty);
        let Parsed::Command(c) = parse(b"12 GenMove\tB # think\r") else {
            panic!()
        };
        assert_eq!(c.id.as_deref(), Some("12"));
        assert_eq!(c.name, "genmove");
        assert_eq!(c.args, ["B"]);
        assert!(matches!(parse(b"7"), Parsed::Error { .. }));
        assert_eq!(success(Some("3"), "a\n\nb\n"), "=3 a\nb\n\n");
        assert_eq!(failure(None, "illegal move"), "? illegal move\n\n");
    }
}
