//! Writing SGF.
//!
//! This file owns the output side: [`write_record`] turns a [`GameRecord`]
//! into an FF[4] file (UTF-8, `GM[1]`, game information, root setup, the
//! main line with passes as `[]` and escaped comments, extra root properties
//! such as a GTP engine's `TE[...]` clock data), and [`write_tree`] /
//! [`write_collection`] write raw trees with all their variations
//! (iteratively, so deep trees are safe).
//!
//! Reading back what [`write_record`] wrote gives the same size, komi,
//! game information, setup, moves and comments.

use std::fmt::Write as _;

use crate::rules::{Color, Move, Point};

use super::parse::{escape_text, Property, SgfTree};
use super::record::{GameRecord, RecordNode, KNOWN_ROOT};

/// The `AP` value written when the record has none.
const APPLICATION: &str = concat!("tengen:", env!("CARGO_PKG_VERSION"));

/// Writes the record's game information and main line as an FF[4] file.
pub fn write_record(rec: &GameRecord) -> String {
    let mut out = String::with_capacity(64 + rec.nodes.len() * 12);
    out.push_str("(;FF[4]CA[UTF-8]GM[1]");
    let _ = write!(out, "SZ[{}]", rec.size);
    if let Some(k) = rec.komi.filter(|k| k.is_finite()) {
        let _ = write!(out, "KM[{k}]");
    }
    if let Some(h) = rec.handicap {
        let _ = write!(out, "HA[{h}]");
    }
    for (id, value) in [
        ("RU", &rec.rules),
        ("PB", &rec.black),
        ("PW", &rec.white),
        ("DT", &rec.date),
        ("RE", &rec.result),
        ("GC", &rec.game_comment),
    ] {
        if let Some(v) = value {
            text_prop(&mut out, id, v);
        }
    }
    if !rec.root_extra.iter().any(|p| p.id == "AP") {
        text_prop(&mut out, "AP", APPLICATION);
    }
    for p in &rec.root_extra {
        raw_prop(&mut out, p);
    }
    for (i, node) in rec.nodes.iter().enumerate() {
        if i > 0 {
            out.push_str("\n;");
        }
        write_node(&mut out, node);
    }
    out.push_str(")\n");
    out
}

/// Writes one main-line node's setup, `PL`, move and comment.
fn write_node(out: &mut String, node: &RecordNode) {
    for (id, color) in [
        ("AB", Some(Color::Black)),
        ("AW", Some(Color::White)),
        ("AE", None),
    ] {
        let pts: Vec<Point> = node
            .setup
            .iter()
            .filter(|s| s.0 == color)
            .map(|s| s.1)
            .collect();
        if !pts.is_empty() {
            out.push_str(id);
            for p in pts {
                let _ = write!(out, "[{}]", p.to_sgf());
            }
        }
    }
    if let Some(c) = node.to_play {
        let _ = write!(out, "PL[{}]", c.letter());
    }
    if let Some((color, mv)) = node.mv {
        let v = match mv {
            Move::Pass => String::new(),
            Move::Place(p) => p.to_sgf(),
        };
        let _ = write!(out, "{}[{v}]", color.letter());
    }
    if let Some(c) = &node.comment {
        text_prop(out, "C", c);
    }
}

fn text_prop(out: &mut String, id: &str, value: &str) {
    let _ = write!(out, "{id}[{}]", escape_text(value));
}

/// Writes a property with its raw values. The identifier is reduced to its
/// upper-case letters; properties with no valid identifier, with no value,
/// or that [`write_record`] writes itself, are skipped.
fn raw_prop(out: &mut String, p: &Property) {
    let id: String = p.id.chars().filter(|c| c.is_ascii_uppercase()).collect();
    if id.is_empty() || p.values.is_empty() || KNOWN_ROOT.contains(&id.as_str()) {
        return;
    }
    out.push_str(&id);
    for v in &p.values {
        let _ = write!(out, "[{}]", sanitize_raw(v));
    }
}

/// A raw value is written as is, unless it would not read back as one value
/// (an unescaped `]`, or a lone trailing backslash): then those characters
/// are escaped.
fn sanitize_raw(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            ']' => out.push_str("\\]"),
            c => out.push(c),
        }
    }
    out
}

/// Writes one raw tree with all its variations.
pub fn write_tree(tree: &SgfTree) -> String {
    let mut out = String::new();
    write_tree_into(&mut out, tree);
    out
}

/// Writes several raw trees, one after the other.
pub fn write_collection(trees: &[SgfTree]) -> String {
    let mut out = String::new();
    for t in trees {
        write_tree_into(&mut out, t);
    }
    out
}

fn write_tree_into(out: &mut String, tree: &SgfTree) {
    if tree.nodes.is_empty() {
        return;
    }
    // Explicit stack: Open(node) starts a variation at `node` (or just
    // continues the sequence when `paren` is false); Close ends one.
    enum Step {
        Open { node: usize, paren: bool },
        Close,
    }
    out.push('(');
    let mut stack = vec![
        Step::Close,
        Step::Open {
            node: 0,
            paren: false,
        },
    ];
    let mut visited = 0usize;
    while let Some(step) = stack.pop() {
        match step {
            Step::Close => out.push_str(")\n"),
            Step::Open { node, paren } => {
                visited += 1;
                // A hand-built tree could contain a cycle.
                let Some(n) = tree.nodes.get(node).filter(|_| visited <= tree.nodes.len()) else {
                    continue;
                };
                if paren {
                    out.push('(');
                }
                out.push(';');
                for p in &n.props {
                    let id: String = p.id.chars().filter(|c| c.is_ascii_uppercase()).collect();
                    if id.is_empty() || p.values.is_empty() {
                        continue;
                    }
                    out.push_str(&id);
                    for v in &p.values {
                        let _ = write!(out, "[{}]", sanitize_raw(v));
                    }
                }
                if paren {
                    stack.push(Step::Close);
                }
                match n.children.as_slice() {
                    [] => {}
                    [only] => {
                        out.push('\n');
                        stack.push(Step::Open {
                            node: *only,
                            paren: false,
                        });
                    }
                    many => {
                        out.push('\n');
                        for &c in many.iter().rev() {
                            stack.push(Step::Open {
                                node: c,
                                paren: true,
                            });
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::parse::parse;

    #[test]
    fn builder_round_trip() {
        let mut r = GameRecord::new(9).expect("size");
        r.komi = Some(7.5);
        r.rules = Some("chinese".into());
        r.black = Some("tengen".into());
        r.add_setup(Some(Color::Black), Point::new(2, 2));
        r.add_setup(Some(Color::White), Point::new(6, 6));
        r.push_move(
            Color::Black,
            Move::Place(Point::new(4, 4)),
            Some("a ] b \\ c\nd"),
        );
        r.push_move(Color::White, Move::Pass, None);
        r.set_root_property("TE", &["b 300 0", "w 299.5 0"]);
        r.set_root_property("XX", &["odd]value\\"]);
        let text = write_record(&r);
        let back = GameRecord::from_sgf(&text).expect("reads back");
        assert_eq!(back.size, 9);
        assert_eq!(back.komi, Some(7.5));
        assert_eq!(back.nodes, r.nodes);
        assert_eq!(
            back.root_property_values("TE"),
            vec!["b 300 0", "w 299.5 0"]
        );
        assert_eq!(back.root_property("XX").as_deref(), Some("odd]value\\"));
        assert!(back.root_property("AP").is_some());
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    }

    #[test]
    fn tree_round_trip_keeps_variations() {
        let src = "(;FF[4]C[a\\]b](;B[aa];W[bb](;B[cc])(;B[dd]))(;B[ee]))";
        let c = parse(src).expect("parses");
        let text = write_collection(&c.trees);
        let back = parse(&text).expect("reads back");
        assert_eq!(back.trees.len(), 1);
        let (a, b) = (&c.trees[0], &back.trees[0]);
        assert_eq!(a.len(), b.len());
        for (x, y) in a.nodes.iter().zip(&b.nodes) {
            assert_eq!(x.children, y.children);
            let xs: Vec<_> = x.props.iter().map(|p| (&p.id, &p.values)).collect();
            let ys: Vec<_> = y.props.iter().map(|p| (&p.id, &p.values)).collect();
            assert_eq!(xs, ys);
        }
    }

    #[test]
    fn deep_tree_writes_without_recursion() {
        let n = 50_000;
        let mut s = String::new();
        for _ in 0..n {
            s.push_str("(;C[x]");
        }
        s.push_str(&")".repeat(n));
        let c = parse(&s).expect("parses");
        let text = write_tree(&c.trees[0]);
        assert_eq!(parse(&text).expect("again").trees[0].len(), n);
    }
}
