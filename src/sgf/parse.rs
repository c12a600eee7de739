//! The SGF syntax layer: text to a tree of nodes, for FF[1] to FF[4].
//!
//! This file owns the raw tree types ([`Collection`], [`SgfTree`], [`Node`],
//! [`Property`]), the parser ([`parse`], [`parse_strict`], [`parse_bytes`])
//! and text escaping ([`escape_text`], [`unescape_text`]).
//!
//! The parser is iterative (an explicit stack of open variations, nodes in
//! an arena), so neither parsing nor dropping a tree recurses: 100 000 nested
//! variations cost memory, not stack.
//!
//! Property values are stored *raw*: exactly the text between `[` and the
//! closing unescaped `]`. [`Property::text`] unescapes; [`Property::composed`]
//! splits at the first unescaped `:` first, so `AP[a\:b:1.0]` is `("a:b",
//! "1.0")`. Identifiers keep only their upper-case letters, so old verbose
//! names such as `AddBlack` read as `AB`.
//!
//! Lenient by default: malformed input is skipped or repaired and each repair
//! is recorded as a [`Warning`] with its line and column. [`parse_strict`]
//! turns the first such repair into an [`SgfError`] instead. Either way the
//! only inputs that fail outright are those without any game tree.

use super::encoding;
use super::error::{SgfError, SgfErrorKind, Warning};

/// At most this many warnings are kept; a last one says the rest were
/// dropped.
const MAX_WARNINGS: usize = 100;

/// One property: an identifier and its raw (still escaped) values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The identifier, upper-case letters only (`B`, `AB`, `KM`).
    pub id: String,
    /// The values as written between the brackets, escapes included.
    pub values: Vec<String>,
    /// Where the identifier starts (1-based; 0 for properties built in code).
    pub line: usize,
    pub col: usize,
}

impl Property {
    /// A property from plain text values, escaped for writing.
    pub fn from_text<S: AsRef<str>>(id: &str, values: &[S]) -> Property {
        Property {
            id: id.to_string(),
            values: values.iter().map(|v| escape_text(v.as_ref())).collect(),
            line: 0,
            col: 0,
        }
    }

    /// The `i`-th value as text (escapes and soft line breaks removed).
    pub fn text(&self, i: usize) -> Option<String> {
        self.values.get(i).map(|v| unescape_text(v))
    }

    /// All values as text.
    pub fn texts(&self) -> Vec<String> {
        self.values.iter().map(|v| unescape_text(v)).collect()
    }

    /// The `i`-th value split at its first unescaped `:` (a composed value
    /// such as `AB[aa:cc]` or `AP[name:version]`), each part unescaped.
    /// A value without `:` gives `(value, None)`.
    pub fn composed(&self, i: usize) -> Option<(String, Option<String>)> {
        let raw = self.values.get(i)?;
        Some(match split_composed(raw) {
            Some((a, b)) => (unescape_text(a), Some(unescape_text(b))),
            None => (unescape_text(raw), None),
        })
    }
}

/// Splits a raw value at its first unescaped `:`.
fn split_composed(raw: &str) -> Option<(&str, &str)> {
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => i += 1,
        }
    }
    None
}

/// A node: its properties in file order, and its place in the tree.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Node {
    pub props: Vec<Property>,
    /// Index of the parent in [`SgfTree::nodes`]; `None` for the root.
    pub parent: Option<usize>,
    /// Indices of the children; the first one continues the main line.
    pub children: Vec<usize>,
    /// Where the node's `;` is (1-based; 0 for nodes built in code).
    pub line: usize,
    pub col: usize,
}

impl Node {
    /// The property with identifier `id`.
    pub fn get(&self, id: &str) -> Option<&Property> {
        self.props.iter().find(|p| p.id == id)
    }

    /// The first value of `id` as text.
    pub fn text(&self, id: &str) -> Option<String> {
        self.get(id).and_then(|p| p.text(0))
    }

    /// Whether the node has property `id`.
    pub fn has(&self, id: &str) -> bool {
        self.get(id).is_some()
    }
}

/// One game tree. Nodes live in an arena; `nodes[0]` is the root.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SgfTree {
    pub nodes: Vec<Node>,
}

impl SgfTree {
    /// The root node (`None` only for a tree built empty in code).
    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
    }

    /// The node at index `i`.
    pub fn node(&self, i: usize) -> Option<&Node> {
        self.nodes.get(i)
    }

    /// Indices of the main line: the root, then the first child each time.
    pub fn main_line(&self) -> Vec<usize> {
        let mut line = Vec::new();
        let mut cur = if self.nodes.is_empty() { None } else { Some(0) };
        while let Some(i) = cur {
            // Guard against a hand-built tree with a cycle.
            if line.len() > self.nodes.len() {
                break;
            }
            line.push(i);
            cur = self.nodes.get(i).and_then(|n| n.children.first().copied());
        }
        line
    }

    /// Number of nodes in the whole tree, variations included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether any node has more than one child.
    pub fn has_variations(&self) -> bool {
        self.nodes.iter().any(|n| n.children.len() > 1)
    }
}

/// All game trees of a file, plus what the reader had to repair.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Collection {
    /// The game trees in file order; the first is "the game". Never empty
    /// when returned by the parser.
    pub trees: Vec<SgfTree>,
    /// Encoding guesses and skipped or repaired input.
    pub warnings: Vec<Warning>,
    /// The encoding the bytes were decoded with (`None` when parsing text).
    pub encoding: Option<&'static str>,
}

/// Parses SGF text leniently (see the module docs).
pub fn parse(text: &str) -> Result<Collection, SgfError> {
    Parser::new(text, false).run()
}

/// Parses SGF text; any malformed construct is an error.
pub fn parse_strict(text: &str) -> Result<Collection, SgfError> {
    Parser::new(text, true).run()
}

/// Decodes raw file bytes (BOM, `CA`, heuristics) and parses leniently.
/// Encoding warnings come first in [`Collection::warnings`].
pub fn parse_bytes(bytes: &[u8]) -> Result<Collection, SgfError> {
    let decoded = encoding::decode(bytes);
    let mut c = parse(&decoded.text)?;
    let mut warnings = decoded.warnings;
    warnings.append(&mut c.warnings);
    c.warnings = warnings;
    c.encoding = Some(decoded.encoding);
    Ok(c)
}

/// Escapes text for an SGF value: `\` and `]` get a backslash.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Unescapes a raw SGF value: a backslash makes the next character literal,
/// and a backslash before a line break (`\n`, `\r\n`, `\r`, `\n\r`) removes
/// both (a soft line break). Other whitespace is kept as written.
pub fn unescape_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            // A soft line break: drop it, with the other half of a
            // two-character line break.
            Some(c @ ('\n' | '\r')) => {
                let other = if c == '\n' { '\r' } else { '\n' };
                chars.next_if_eq(&other);
            }
            Some(c) => out.push(c),
            None => {}
        }
    }
    out
}

/// The parser state: a byte cursor with line and column, the tree being
/// built, and the stack of open variations.
struct Parser<'a> {
    text: &'a str,
    src: &'a [u8],
    pos: usize,
    line: usize,
    col: usize,
    strict: bool,
    warnings: Vec<Warning>,
    trees: Vec<SgfTree>,
    /// The tree being built, if a `(;` opened one.
    tree: Option<SgfTree>,
    /// For each open `(`: the node the variation hangs from.
    stack: Vec<Option<usize>>,
    /// The last node of the current sequence.
    cur: Option<usize>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, strict: bool) -> Parser<'a> {
        Parser {
            text,
            src: text.as_bytes(),
            pos: 0,
            line: 1,
            col: 1,
            strict,
            warnings: Vec::new(),
            trees: Vec::new(),
            tree: None,
            stack: Vec::new(),
            cur: None,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Consumes one byte, keeping line and column (in characters) current.
    fn bump(&mut self) {
        let Some(&b) = self.src.get(self.pos) else {
            return;
        };
        self.pos += 1;
        match b {
            b'\r' => {
                self.line += 1;
                self.col = 1;
            }
            b'\n' => {
                if self.pos < 2 || self.src.get(self.pos - 2) != Some(&b'\r') {
                    self.line += 1;
                }
                self.col = 1;
            }
            // UTF-8 continuation bytes do not start a character.
            _ if b & 0xC0 == 0x80 => {}
            _ => self.col += 1,
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.bump();
        }
    }

    /// Records a repair; in strict mode it is an error instead.
    fn warn(&mut self, line: usize, col: usize, msg: impl Into<String>) -> Result<(), SgfError> {
        let msg = msg.into();
        if self.strict {
            return Err(SgfError::new(SgfErrorKind::Malformed(msg), line, col));
        }
        self.note(Warning::new(line, col, msg));
        Ok(())
    }

    /// Records a warning that is never an error.
    fn note(&mut self, w: Warning) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        } else if self.warnings.len() == MAX_WARNINGS {
            self.warnings
                .push(Warning::file("too many problems; further warnings dropped"));
        }
    }

    fn run(mut self) -> Result<Collection, SgfError> {
        while self.pos < self.src.len() {
            if self.tree.is_none() {
                self.top_level();
            } else {
                self.in_tree()?;
            }
        }
        if self.tree.is_some() {
            let open = self.stack.len();
            self.warn(
                self.line,
                self.col,
                format!("file ends inside a game tree ({open} unclosed '(')"),
            )?;
            self.finish_tree();
        }
        if self.trees.is_empty() {
            return Err(SgfError::new(SgfErrorKind::NoGameTree, 1, 1));
        }
        Ok(Collection {
            trees: self.trees,
            warnings: self.warnings,
            encoding: None,
        })
    }

    /// Outside any game tree: skip to the next `(` that is followed by `;` (or
    /// by a property identifier).
    fn top_level(&mut self) {
        let (line, col) = (self.line, self.col);
        let mut junk = false;
        while let Some(b) = self.peek() {
            if b == b'(' {
                let mut j = self.pos + 1;
                while self.src.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
                    j += 1;
                }
                // `(;` starts a tree; so does `(` + identifier, for files
                // that omit the root's `;` (some Nihon Kiin files do).
                if self
                    .src
                    .get(j)
                    .is_some_and(|&b| b == b';' || b.is_ascii_uppercase())
                {
                    break;
                }
            }
            junk |= !b.is_ascii_whitespace();
            self.bump();
        }
        if junk {
            let what = if self.trees.is_empty() {
                "text before the first game tree skipped"
            } else {
                "text between game trees skipped"
            };
            self.note(Warning::new(line, col, what));
        }
        if self.peek() == Some(b'(') {
            self.bump();
            self.tree = Some(SgfTree::default());
            self.stack.push(None);
            self.cur = None;
        }
    }

    /// Inside a game tree: one token.
    fn in_tree(&mut self) -> Result<(), SgfError> {
        self.skip_ws();
        let Some(b) = self.peek() else {
            return Ok(());
        };
        let (line, col) = (self.line, self.col);
        match b {
            b'(' => {
                self.bump();
                self.stack.push(self.cur);
            }
            b')' => {
                self.bump();
                self.cur = self.stack.pop().flatten();
                if self.stack.is_empty() {
                    self.finish_tree();
                }
            }
            b';' => {
                self.bump();
                self.new_node(line, col)?;
            }
            b'[' => {
                self.read_value()?;
                self.warn(line, col, "value without a property identifier skipped")?;
            }
            _ if b.is_ascii_alphabetic() => self.property()?,
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !b"()[;".contains(&b) && !b.is_ascii_alphanumeric())
                {
                    self.bump();
                }
                // Digits are not part of SGF syntax either.
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.bump();
                }
                self.warn(line, col, "unexpected characters between nodes skipped")?;
            }
        }
        Ok(())
    }

    fn finish_tree(&mut self) {
        if let Some(t) = self.tree.take() {
            if t.nodes.is_empty() {
                self.note(Warning::file("empty game tree (no node) skipped"));
            } else {
                self.trees.push(t);
            }
        }
        self.stack.clear();
        self.cur = None;
    }

    fn new_node(&mut self, line: usize, col: usize) -> Result<(), SgfError> {
        let needs_new_tree =
            self.cur.is_none() && self.tree.as_ref().is_some_and(|t| !t.is_empty());
        if needs_new_tree {
            // `((;a)(;b))`: a second sequence with no common root. Every
            // open entry is empty here, so the stack stays valid.
            self.warn(
                line,
                col,
                "game tree without a root sequence; starting a new game tree",
            )?;
            if let Some(t) = self.tree.take() {
                self.trees.push(t);
            }
            self.tree = Some(SgfTree::default());
        }
        let Some(tree) = self.tree.as_mut() else {
            return Ok(());
        };
        let idx = tree.nodes.len();
        tree.nodes.push(Node {
            props: Vec::new(),
            parent: self.cur,
            children: Vec::new(),
            line,
            col,
        });
        if let Some(parent) = self.cur.and_then(|p| tree.nodes.get_mut(p)) {
            parent.children.push(idx);
        }
        self.cur = Some(idx);
        Ok(())
    }

    /// Reads one `[...]` value, the cursor on the `[`. Returns the raw text.
    fn read_value(&mut self) -> Result<&'a str, SgfError> {
        let (line, col) = (self.line, self.col);
        self.bump();
        let start = self.pos;
        loop {
            match self.peek() {
                None => {
                    self.warn(line, col, "value not terminated at end of file")?;
                    return Ok(self.text.get(start..).unwrap_or(""));
                }
                Some(b'\\') => {
                    self.bump();
                    self.bump();
                }
                Some(b']') => {
                    let raw = self.text.get(start..self.pos).unwrap_or("");
                    self.bump();
                    return Ok(raw);
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// Reads an identifier and its values, the cursor on the first letter.
    fn property(&mut self) -> Result<(), SgfError> {
        let (line, col) = (self.line, self.col);
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.bump();
        }
        let written = self.text.get(start..self.pos).unwrap_or("");
        let id: String = written.chars().filter(|c| c.is_ascii_uppercase()).collect();
        self.skip_ws();
        let mut values = Vec::new();
        while self.peek() == Some(b'[') {
            values.push(self.read_value()?.to_string());
            self.skip_ws();
        }
        if values.is_empty() {
            return self.warn(
                line,
                col,
                format!("property {written} without a value skipped"),
            );
        }
        if id.is_empty() {
            return self.warn(
                line,
                col,
                format!("property {written} has no upper-case letter; skipped"),
            );
        }
        if self.cur.is_none() {
            self.warn(
                line,
                col,
                format!("property {id} before any ';'; starting a node"),
            )?;
            self.new_node(line, col)?;
        }
        let Some(node) = self
            .cur
            .and_then(|i| self.tree.as_mut().and_then(|t| t.nodes.get_mut(i)))
        else {
            return Ok(());
        };
        if let Some(p) = node.props.iter_mut().find(|p| p.id == id) {
            p.values.extend(values);
            return self.warn(
                line,
                col,
                format!("property {id} repeated in one node; values merged"),
            );
        }
        node.props.push(Property {
            id,
            values,
            line,
            col,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> SgfTree {
        let mut c = parse(text).expect("parses");
        c.trees.remove(0)
    }

    #[test]
    fn simple_tree_with_variations() {
        let t = one("(;FF[4]SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))");
        assert_eq!(t.len(), 5);
        assert_eq!(t.main_line(), vec![0, 1, 2, 3]);
        assert_eq!(t.nodes[1].children, vec![2, 4]);
        assert!(t.has_variations());
        assert_eq!(t.nodes[4].text("W").as_deref(), Some("dd"));
        assert_eq!(t.nodes[4].parent, Some(1));
    }

    #[test]
    fn escapes_and_soft_breaks() {
        let t = one("(;C[a\\]b\\\\c\\\nd\\\r\ne\\:f]AP[x\\:y:1.0])");
        let root = t.root().expect("root");
        assert_eq!(root.text("C").as_deref(), Some("a]b\\cde:f"));
        let ap = root.get("AP").expect("AP");
        assert_eq!(
            ap.composed(0),
            Some(("x:y".to_string(), Some("1.0".to_string())))
        );
        assert_eq!(unescape_text(&escape_text("a]\\\n")), "a]\\\n");
    }

    #[test]
    fn verbose_identifiers_and_whitespace() {
        let t = one("( ; AddBlack [aa] \n [bb] SiZe[9] ; Black [cc] )");
        let root = t.root().expect("root");
        assert_eq!(
            root.get("AB").map(|p| p.values.clone()),
            Some(vec!["aa".into(), "bb".into()])
        );
        assert_eq!(root.text("SZ").as_deref(), Some("9"));
        assert_eq!(t.nodes[1].text("B").as_deref(), Some("cc"));
    }

    #[test]
    fn several_trees_and_preamble() {
        let c = parse("junk (x) (;GN[a])\n(;GN[b])").expect("parses");
        assert_eq!(c.trees.len(), 2);
        assert_eq!(c.trees[1].nodes[0].text("GN").as_deref(), Some("b"));
        // A root without its `;`.
        let c = parse("(\r\nGN[a]\r\n;B[aa])").expect("parses");
        assert_eq!(c.trees[0].len(), 2);
        assert_eq!(c.trees[0].nodes[0].text("GN").as_deref(), Some("a"));
        assert_eq!(c.warnings.len(), 1);
    }

    #[test]
    fn recovery_records_warnings_with_positions() {
        let c = parse("(;B[aa]\n;W[bb").expect("lenient");
        assert_eq!(c.trees[0].nodes[1].text("W").as_deref(), Some("bb"));
        assert!(
            c.warnings.iter().any(|w| w.line == 2 && w.col == 3),
            "{:?}",
            c.warnings
        );
        let e = parse_strict("(;B[aa]\n;W[bb").expect_err("strict");
        assert_eq!((e.line, e.col), (2, 3));
        assert!(parse("(;B[aa]) 12 ))").is_ok());
        assert!(parse_strict("(;B[aa] 12 ;W[bb])").is_err());
        let e = parse(";B[aa]").expect_err("no tree");
        assert_eq!(e.kind, SgfErrorKind::NoGameTree);
        assert!(parse("").is_err());
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let n = 100_000;
        let mut s = String::with_capacity(n * 8);
        for _ in 0..n {
            s.push_str("(;B[aa]");
        }
        for _ in 0..n {
            s.push(')');
        }
        let t = one(&s);
        assert_eq!(t.len(), n);
        assert_eq!(t.main_line().len(), n);
    }

    #[test]
    fn lines_and_columns_count_characters() {
        let c = parse("(;C[é]\r\n;B[aa]\r;W[é)").expect("lenient");
        let t = &c.trees[0];
        assert_eq!((t.nodes[1].line, t.nodes[1].col), (2, 1));
        assert_eq!((t.nodes[2].line, t.nodes[2].col), (3, 1));
        let p = t.nodes[2].get("W").expect("W");
        assert_eq!((p.line, p.col), (3, 2));
    }
}
