//! The game-level view of an SGF file: [`GameRecord`].
//!
//! This file owns the interpretation of Go properties in the first game
//! tree (board size, komi, handicap, rules, players, result, date, setup
//! stones, player to move, moves, comments), the main line as a list of
//! [`RecordNode`]s, the builder methods a GTP engine uses for autosave, and
//! the replay of the main line onto a [`Position`] ([`GameRecord::replay`]).
//!
//! Interpretation is forgiving where the meaning is clear (`tt` and `[]` are
//! passes, `B[R16]`/`W[Pass]` GTP-style moves are accepted with a warning,
//! setup may appear in any node) and strict where guessing would be wrong
//! (board size, moves or setup points off the board, a game other than Go).

use crate::rules::{Color, IllegalMove, KoRule, Move, Point, Position, RulesError, Ruleset};
use crate::rules::{MAX_SIZE, MIN_SIZE};

use super::error::{SgfError, SgfErrorKind, Warning};
use super::parse::{self, Collection, Node, Property, SgfTree};

/// Root properties that [`GameRecord`] interprets itself; every other root
/// property is kept in [`GameRecord::root_extra`].
pub(crate) const KNOWN_ROOT: &[&str] = &[
    "FF", "CA", "GM", "SZ", "KM", "HA", "RU", "RE", "PB", "PW", "DT", "GC", "AB", "AW", "AE", "PL",
    "C", "B", "W",
];

/// One node of the main line, reduced to what matters for play.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RecordNode {
    /// Setup edits in the order they apply: all `AE` points (`None`), then
    /// `AB`, then `AW`.
    pub setup: Vec<(Option<Color>, Point)>,
    /// `PL`: the player to move after this node's setup.
    pub to_play: Option<Color>,
    /// `B` or `W`.
    pub mv: Option<(Color, Move)>,
    /// `C`.
    pub comment: Option<String>,
}

/// A game: the game information of the first tree's root and its main line.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// `SZ`, default 19.
    pub size: usize,
    /// `KM`, read leniently (`6,5` and `6.5 points` are 6.5).
    pub komi: Option<f32>,
    /// `HA`.
    pub handicap: Option<u32>,
    /// `RU`, as written.
    pub rules: Option<String>,
    /// `RE`.
    pub result: Option<String>,
    /// `PB`.
    pub black: Option<String>,
    /// `PW`.
    pub white: Option<String>,
    /// `DT`.
    pub date: Option<String>,
    /// `GC`.
    pub game_comment: Option<String>,
    /// The main line; `nodes[0]` is the root. Never empty.
    pub nodes: Vec<RecordNode>,
    /// Other root properties (`AP`, `GN`, `TE`, …), raw as in the file.
    pub root_extra: Vec<Property>,
    /// The first game tree as parsed, variations included (`None` for a
    /// record built in code).
    pub tree: Option<SgfTree>,
    /// The file's other game trees.
    pub other_trees: Vec<SgfTree>,
    /// Parser and interpretation warnings.
    pub warnings: Vec<Warning>,
}

/// The area each colour owns at the end of a game, as marked by `TB`
/// and `TW` ([`GameRecord::final_area`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FinalArea {
    pub black: Vec<Point>,
    pub white: Vec<Point>,
}

/// Why the main line cannot be replayed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// A move breaks the rules.
    #[error("{}move {number} ({color} {vertex}) is illegal: {}", at(*line, *col), describe(*reason, *ko))]
    IllegalMove {
        /// 1-based move number (passes count).
        number: usize,
        /// Index into [`GameRecord::nodes`].
        node: usize,
        color: Color,
        mv: Move,
        /// GTP vertex and SGF point, e.g. `A18 [ab]`, or `pass`.
        vertex: String,
        reason: IllegalMove,
        /// The ko rule in force (says which superko was broken).
        ko: KoRule,
        line: usize,
        col: usize,
    },
    /// Setup stones leave a string without a liberty.
    #[error("{}setup in node {node} leaves the {color} string at {vertex} without a liberty", at(*line, *col))]
    IllegalSetup {
        node: usize,
        color: Color,
        vertex: String,
        line: usize,
        col: usize,
    },
    /// The position could not be created.
    #[error(transparent)]
    Rules(#[from] RulesError),
}

fn at(line: usize, col: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}, column {col}: ")
    }
}

fn describe(reason: IllegalMove, ko: KoRule) -> String {
    match reason {
        IllegalMove::Superko => format!("{ko}: repeats an earlier position"),
        IllegalMove::Ko => "simple ko: immediate recapture".to_string(),
        other => other.to_string(),
    }
}

fn vertex_name(mv: Move, size: usize) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Place(p) => format!("{} [{}]", p.to_gtp(size), p.to_sgf()),
    }
}

impl GameRecord {
    /// An empty record (a root node only) for a board of `size`.
    pub fn new(size: usize) -> Result<GameRecord, SgfError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(SgfError::new(SgfErrorKind::UnsupportedSize(size), 0, 0));
        }
        Ok(GameRecord {
            size,
            komi: None,
            handicap: None,
            rules: None,
            result: None,
            black: None,
            white: None,
            date: None,
            game_comment: None,
            nodes: vec![RecordNode::default()],
            root_extra: Vec::new(),
            tree: None,
            other_trees: Vec::new(),
            warnings: Vec::new(),
        })
    }

    /// Parses SGF text and interprets its first game tree.
    pub fn from_sgf(text: &str) -> Result<GameRecord, SgfError> {
        GameRecord::from_collection(parse::parse(text)?)
    }

    /// Decodes and parses the bytes of an SGF file (see
    /// [`parse_bytes`](super::parse_bytes)) and interprets its first tree.
    pub fn from_bytes(bytes: &[u8]) -> Result<GameRecord, SgfError> {
        GameRecord::from_collection(parse::parse_bytes(bytes)?)
    }

    /// Interprets the first tree of a parsed collection; the other trees are
    /// kept in [`GameRecord::other_trees`].
    pub fn from_collection(c: Collection) -> Result<GameRecord, SgfError> {
        let mut trees = c.trees.into_iter();
        let tree = trees
            .next()
            .ok_or_else(|| SgfError::new(SgfErrorKind::NoGameTree, 1, 1))?;
        let mut rec = GameRecord::from_tree(tree)?;
        let mut warnings = c.warnings;
        warnings.append(&mut rec.warnings);
        rec.warnings = warnings;
        rec.other_trees = trees.collect();
        Ok(rec)
    }

    /// Interprets one game tree.
    pub fn from_tree(tree: SgfTree) -> Result<GameRecord, SgfError> {
        let root = tree
            .root()
            .ok_or_else(|| SgfError::new(SgfErrorKind::NoGameTree, 1, 1))?;
        let main_line = tree.main_line();
        // Game information belongs in the root, but FF[4] allows it in the
        // node where games merged into one tree become distinct: take the
        // first main-line node that has the property.
        let info = |id: &str| -> Option<&Property> {
            main_line
                .iter()
                .filter_map(|&i| tree.node(i))
                .find_map(|n| n.get(id))
        };
        let mut warnings = Vec::new();
        if let Some(gm) = root.get("GM") {
            let v = gm.text(0).unwrap_or_default();
            match v.trim().parse::<u32>() {
                Ok(1) => {}
                Ok(_) => return Err(err(SgfErrorKind::NotGo(v), gm)),
                Err(_) => warnings.push(warn(gm, format!("GM[{v}] is not a number; assuming Go"))),
            }
        }
        let size = match root.get("SZ") {
            Some(p) => parse_size(p)?,
            None => 19,
        };
        let mut rec = GameRecord::new(size)?;
        rec.komi = info("KM").and_then(|p| {
            let v = p.text(0).unwrap_or_default();
            let k = parse_komi(&v);
            if k.is_none() && !v.trim().is_empty() {
                warnings.push(warn(p, format!("KM[{v}] is not a number; ignored")));
            }
            k
        });
        rec.handicap = info("HA").and_then(|p| {
            let v = p.text(0).unwrap_or_default();
            let h = v.trim().parse::<u32>().ok();
            if h.is_none() && !v.trim().is_empty() {
                warnings.push(warn(p, format!("HA[{v}] is not a number; ignored")));
            }
            h
        });
        let text = |id: &str| info(id).and_then(|p| p.text(0));
        rec.rules = text("RU");
        rec.result = text("RE");
        rec.black = text("PB");
        rec.white = text("PW");
        rec.date = text("DT");
        rec.game_comment = text("GC");
        rec.root_extra = root
            .props
            .iter()
            .filter(|p| !KNOWN_ROOT.contains(&p.id.as_str()))
            .cloned()
            .collect();

        let mut gtp_style_warned = false;
        rec.nodes.clear();
        for &idx in &main_line {
            let Some(node) = tree.node(idx) else { break };
            if idx != 0 && node.has("SZ") {
                if let Some(p) = node.get("SZ") {
                    warnings.push(warn(p, "SZ outside the root node ignored"));
                }
            }
            rec.nodes
                .push(read_node(node, size, &mut warnings, &mut gtp_style_warned)?);
        }
        if let Some(h) = rec.handicap.filter(|&h| h >= 2) {
            let black: usize = rec
                .nodes
                .iter()
                .take_while(|n| n.mv.is_none())
                .map(|n| n.setup.iter().filter(|s| s.0 == Some(Color::Black)).count())
                .sum();
            if black != h as usize {
                warnings.push(Warning::file(format!(
                    "HA[{h}] but {black} black stones are set up before the first move"
                )));
            }
        }
        if let Some(ru) = &rec.rules {
            if Ruleset::from_name(ru).is_none() {
                warnings.push(Warning::file(format!(
                    "unknown rules RU[{ru}]; replaying under Chinese rules (positional superko, no suicide)"
                )));
            }
        }
        rec.warnings = warnings;
        rec.tree = Some(tree);
        Ok(rec)
    }

    /// The moves of the main line in order.
    pub fn moves(&self) -> impl Iterator<Item = (Color, Move)> + '_ {
        self.nodes.iter().filter_map(|n| n.mv)
    }

    /// The area marked at the end of the main line: the points of `TB`
    /// (Black's) and `TW` (White's) on the last main-line node that has
    /// either, as `(black, white)`. `None` when the game marks no area
    /// (or was built in code). Off-board points are an error.
    pub fn final_area(&self) -> Result<Option<FinalArea>, SgfError> {
        let Some(tree) = &self.tree else {
            return Ok(None);
        };
        let last = tree
            .main_line()
            .into_iter()
            .rev()
            .filter_map(|i| tree.node(i))
            .find(|n| n.has("TB") || n.has("TW"));
        let Some(node) = last else {
            return Ok(None);
        };
        let mut area = FinalArea::default();
        for (id, out) in [("TB", &mut area.black), ("TW", &mut area.white)] {
            if let Some(p) = node.get(id) {
                for i in 0..p.values.len() {
                    out.extend(setup_points(p, i, self.size)?);
                }
            }
        }
        Ok(Some(area))
    }

    /// Number of moves (passes included) in the main line.
    pub fn move_count(&self) -> usize {
        self.moves().count()
    }

    /// The rules for replay: `RU` if known (`chinese`, `tromp-taylor`/`tt`,
    /// `nz`, `aga`), else Chinese; komi from `KM` if given.
    pub fn ruleset(&self) -> Ruleset {
        let base = self
            .rules
            .as_deref()
            .and_then(Ruleset::from_name)
            .unwrap_or_else(Ruleset::chinese);
        match self.komi {
            Some(k) => base.with_komi(k),
            None => base,
        }
    }

    /// Replays the main line under [`GameRecord::ruleset`]; `upto` limits
    /// the number of moves played (`None`: all).
    pub fn replay(&self, upto: Option<usize>) -> Result<Position, ReplayError> {
        self.replay_with(self.ruleset(), upto)
    }

    /// Replays the main line under the given rules (see [`GameRecord::replay`]).
    ///
    /// Setup (`AB`/`AW`/`AE`) and `PL` apply before a node's move. When the
    /// replay stops before a move, that move's colour is to play. A record
    /// with handicap stones, no moves and no `PL` has White to play.
    pub fn replay_with(
        &self,
        rules: Ruleset,
        upto: Option<usize>,
    ) -> Result<Position, ReplayError> {
        let mut pos = Position::new(self.size, rules)?;
        let limit = upto.unwrap_or(usize::MAX);
        let mut played = 0usize;
        let mut any_pl = false;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some((color, _)) = node.mv {
                if played >= limit {
                    if pos.to_move() != color {
                        pos.set_to_move(color);
                    }
                    return Ok(pos);
                }
            }
            for &(c, p) in &node.setup {
                // Points were checked against the size when reading.
                let _ = pos.setup(c, p);
            }
            if !node.setup.is_empty() {
                self.check_setup(&pos, i)?;
            }
            if let Some(c) = node.to_play {
                any_pl = true;
                if pos.to_move() != c {
                    pos.set_to_move(c);
                }
            }
            if let Some((color, mv)) = node.mv {
                played += 1;
                if let Err(reason) = pos.play(color, mv) {
                    let (line, col) = self.location(i, Some(color));
                    return Err(ReplayError::IllegalMove {
                        number: played,
                        node: i,
                        color,
                        mv,
                        vertex: vertex_name(mv, self.size),
                        reason,
                        ko: rules.ko,
                        line,
                        col,
                    });
                }
            }
        }
        let has_black_setup = self
            .nodes
            .iter()
            .any(|n| n.setup.iter().any(|s| s.0 == Some(Color::Black)));
        if played == 0 && !any_pl && has_black_setup && self.handicap.is_some_and(|h| h >= 2) {
            pos.set_to_move(Color::White);
        }
        Ok(pos)
    }

    fn check_setup(&self, pos: &Position, node: usize) -> Result<(), ReplayError> {
        let board = pos.board();
        for p in board.points() {
            if let Some(color) = board.get(p) {
                if board.liberties(p) == 0 {
                    let (line, col) = self.location(node, None);
                    return Err(ReplayError::IllegalSetup {
                        node,
                        color,
                        vertex: vertex_name(Move::Place(p), self.size),
                        line,
                        col,
                    });
                }
            }
        }
        Ok(())
    }

    /// Line and column of main-line node `i` (of its move property when
    /// `mover` is given), if the record came from a file.
    fn location(&self, i: usize, mover: Option<Color>) -> (usize, usize) {
        let Some(tree) = &self.tree else {
            return (0, 0);
        };
        let Some(node) = tree.main_line().get(i).and_then(|&n| tree.node(n)) else {
            return (0, 0);
        };
        let id = match mover {
            Some(Color::Black) => "B",
            Some(Color::White) => "W",
            None => "",
        };
        match node.get(id) {
            Some(p) => (p.line, p.col),
            None => (node.line, node.col),
        }
    }

    // --- Building (for a GTP engine's autosave) ---

    /// Appends a node with a move and an optional comment.
    pub fn push_move(&mut self, color: Color, mv: Move, comment: Option<&str>) {
        self.nodes.push(RecordNode {
            mv: Some((color, mv)),
            comment: comment.map(str::to_string),
            ..RecordNode::default()
        });
    }

    /// Adds a setup edit to the root node (`None` empties the point).
    pub fn add_setup(&mut self, color: Option<Color>, p: Point) {
        if let Some(root) = self.nodes.first_mut() {
            root.setup.push((color, p));
            // Keep the reading order: AE, then AB, then AW.
            root.setup.sort_by_key(|(c, _)| match c {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            });
        }
    }

    /// Sets (replaces) an extra root property such as `TE` from plain text
    /// values; an empty list removes it. SGF identifiers are upper-case
    /// letters: other characters of `id` are dropped. Identifiers that
    /// [`GameRecord`] interprets itself (`KM`, `PB`, …) must be set through
    /// their fields; the writer skips them here.
    pub fn set_root_property<S: AsRef<str>>(&mut self, id: &str, values: &[S]) {
        let id: String = id.chars().filter(|c| c.is_ascii_uppercase()).collect();
        if id.is_empty() {
            return;
        }
        if values.is_empty() {
            self.root_extra.retain(|p| p.id != id);
            return;
        }
        let prop = Property::from_text(&id, values);
        match self.root_extra.iter_mut().find(|p| p.id == id) {
            Some(p) => *p = prop,
            None => self.root_extra.push(prop),
        }
    }

    /// The first value of an extra root property, as text.
    pub fn root_property(&self, id: &str) -> Option<String> {
        self.root_extra
            .iter()
            .find(|p| p.id == id)
            .and_then(|p| p.text(0))
    }

    /// All values of an extra root property, as text.
    pub fn root_property_values(&self, id: &str) -> Vec<String> {
        self.root_extra
            .iter()
            .find(|p| p.id == id)
            .map(Property::texts)
            .unwrap_or_default()
    }
}

fn err(kind: SgfErrorKind, p: &Property) -> SgfError {
    SgfError::new(kind, p.line, p.col)
}

fn warn(p: &Property, msg: impl Into<String>) -> Warning {
    Warning::new(p.line, p.col, msg)
}

/// `SZ[19]` or `SZ[19:19]`.
fn parse_size(p: &Property) -> Result<usize, SgfError> {
    let (a, b) = p.composed(0).unwrap_or_default();
    let num = |s: &str| -> Result<usize, SgfError> {
        let t = s.trim();
        t.parse::<usize>()
            .map_err(|_| err(SgfErrorKind::BadSize(p.text(0).unwrap_or_default()), p))
    };
    let w = num(&a)?;
    if let Some(b) = b {
        let h = num(&b)?;
        if h != w {
            return Err(err(SgfErrorKind::RectangularBoard(w, h), p));
        }
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&w) {
        return Err(err(SgfErrorKind::UnsupportedSize(w), p));
    }
    Ok(w)
}

/// Lenient komi: trims, accepts a decimal comma, and reads the longest
/// numeric prefix (`6.5 points`). Non-finite values are rejected.
pub(crate) fn parse_komi(s: &str) -> Option<f32> {
    let t = s.trim().replace(',', ".");
    let end = t
        .char_indices()
        .take_while(|&(i, c)| c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+')))
        .map(|(i, c)| i + c.len_utf8())
        .last()?;
    let mut prefix = &t[..end];
    // "6.5." or "7." : drop trailing dots until it parses.
    loop {
        if let Ok(k) = prefix.parse::<f32>() {
            return k.is_finite().then_some(k);
        }
        prefix = prefix.strip_suffix('.')?;
    }
}

/// Reads the Go content of one main-line node.
fn read_node(
    node: &Node,
    size: usize,
    warnings: &mut Vec<Warning>,
    gtp_style_warned: &mut bool,
) -> Result<RecordNode, SgfError> {
    let mut out = RecordNode::default();
    for (id, color) in [
        ("AE", None),
        ("AB", Some(Color::Black)),
        ("AW", Some(Color::White)),
    ] {
        if let Some(p) = node.get(id) {
            for i in 0..p.values.len() {
                for pt in setup_points(p, i, size)? {
                    out.setup.push((color, pt));
                }
            }
        }
    }
    if let Some(p) = node.get("PL") {
        let v = p.text(0).unwrap_or_default();
        match Color::parse(v.trim()) {
            Some(c) => out.to_play = Some(c),
            None => warnings.push(warn(p, format!("PL[{v}] is not a colour; ignored"))),
        }
    }
    for p in &node.props {
        let color = match p.id.as_str() {
            "B" => Color::Black,
            "W" => Color::White,
            _ => continue,
        };
        if out.mv.is_some() {
            warnings.push(warn(p, format!("second move {} in one node ignored", p.id)));
            continue;
        }
        let v = p.text(0).unwrap_or_default();
        let (mv, gtp_style) = parse_move(&v, size).ok_or_else(|| {
            err(
                SgfErrorKind::BadMove {
                    prop: p.id.clone(),
                    value: v.clone(),
                    size,
                },
                p,
            )
        })?;
        if gtp_style && !*gtp_style_warned {
            *gtp_style_warned = true;
            warnings.push(warn(p, format!("GTP-style move {}[{v}] accepted", p.id)));
        }
        if p.values.len() > 1 {
            warnings.push(warn(p, format!("extra values of {} ignored", p.id)));
        }
        out.mv = Some((color, mv));
    }
    out.comment = node.text("C");
    Ok(out)
}

/// A move value: `[]` or `tt` (on boards up to 19x19) is a pass, two
/// lower-case letters are a point; GTP-style `R16` / `pass` are accepted
/// and flagged (second element `true`).
fn parse_move(v: &str, size: usize) -> Option<(Move, bool)> {
    let t = v.trim();
    if t.is_empty() || (t == "tt" && size <= 19) {
        return Some((Move::Pass, false));
    }
    if let Some(p) = Point::parse_sgf(t, size) {
        return Some((Move::Place(p), false));
    }
    let b = t.as_bytes();
    let gtp_like = t.eq_ignore_ascii_case("pass")
        || (b.len() >= 2
            && b.len() <= 3
            && b[0].is_ascii_alphabetic()
            && b[1..].iter().all(u8::is_ascii_digit));
    if gtp_like {
        return Move::parse_gtp(t, size).map(|m| (m, true));
    }
    None
}

/// The points of setup value `i`: one point, or a rectangle `aa:cc`.
fn setup_points(p: &Property, i: usize, size: usize) -> Result<Vec<Point>, SgfError> {
    let (a, b) = p.composed(i).unwrap_or_default();
    let bad = |value: String| {
        err(
            SgfErrorKind::BadPoint {
                prop: p.id.clone(),
                value,
                size,
            },
            p,
        )
    };
    let a = a.trim();
    if a.is_empty() && b.is_none() {
        return Ok(Vec::new());
    }
    let first = Point::parse_sgf(a, size).ok_or_else(|| bad(a.to_string()))?;
    let Some(b) = b else {
        return Ok(vec![first]);
    };
    let b = b.trim();
    let second = Point::parse_sgf(b, size).ok_or_else(|| bad(format!("{a}:{b}")))?;
    let (x0, x1) = (first.x().min(second.x()), first.x().max(second.x()));
    let (y0, y1) = (first.y().min(second.y()), first.y().max(second.y()));
    let mut pts = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
    for y in y0..=y1 {
        for x in x0..=x1 {
            pts.push(Point::new(x, y));
        }
    }
    Ok(pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_area_reads_tb_and_tw_of_the_last_marked_node() {
        let rec =
            GameRecord::from_sgf("(;SZ[5];B[cc]TB[aa];W[dd];B[]TB[aa:ab][cc]TW[ee])").unwrap();
        let area = rec.final_area().unwrap().unwrap();
        let names = |v: &[Point]| v.iter().map(|p| p.to_sgf()).collect::<Vec<_>>();
        assert_eq!(names(&area.black), ["aa", "ab", "cc"]);
        assert_eq!(names(&area.white), ["ee"]);
        assert_eq!(
            GameRecord::from_sgf("(;SZ[5];B[cc])")
                .unwrap()
                .final_area()
                .unwrap(),
            None
        );
        assert!(GameRecord::from_sgf("(;SZ[5];B[cc]TW[zz])")
            .unwrap()
            .final_area()
            .is_err());
    }

    #[test]
    fn komi_is_lenient() {
        assert_eq!(parse_komi("6.5"), Some(6.5));
        assert_eq!(parse_komi(" 6,5 "), Some(6.5));
        assert_eq!(parse_komi("7.5 points"), Some(7.5));
        assert_eq!(parse_komi("-3"), Some(-3.0));
        assert_eq!(parse_komi("7."), Some(7.0));
        assert_eq!(parse_komi("inf"), None);
        assert_eq!(parse_komi("x"), None);
        assert_eq!(parse_komi(""), None);
        assert_eq!(parse_komi("."), None);
    }

    #[test]
    fn moves_and_passes() {
        assert_eq!(parse_move("", 19), Some((Move::Pass, false)));
        assert_eq!(parse_move("tt", 19), Some((Move::Pass, false)));
        assert_eq!(parse_move("tt", 9), Some((Move::Pass, false)));
        assert_eq!(
            parse_move("aa", 9),
            Some((Move::Place(Point::new(0, 0)), false))
        );
        assert_eq!(parse_move("ss", 9), None);
        assert_eq!(
            parse_move("R16", 19),
            Some((Move::Place(Point::new(16, 3)), true))
        );
        assert_eq!(parse_move("Pass", 19), Some((Move::Pass, true)));
        assert_eq!(parse_move("Z99", 19), None);
    }

    #[test]
    fn record_fields() {
        let r = GameRecord::from_sgf(
            "(;GM[1]FF[4]SZ[9]KM[6.5]HA[2]RU[Chinese]PB[A]PW[B]RE[W+R]DT[2020]GC[gc]TE[x]\
             AB[aa:bb]AE[cc]PL[W]C[root];W[dd]C[first];B[];W[tt])",
        )
        .expect("reads");
        assert_eq!(r.size, 9);
        assert_eq!(r.komi, Some(6.5));
        assert_eq!(r.handicap, Some(2));
        assert_eq!(r.black.as_deref(), Some("A"));
        assert_eq!(r.root_property("TE").as_deref(), Some("x"));
        assert_eq!(r.nodes.len(), 4);
        assert_eq!(r.nodes[0].setup.len(), 5);
        assert_eq!(r.nodes[0].setup[0], (None, Point::new(2, 2)));
        assert_eq!(r.nodes[0].to_play, Some(Color::White));
        assert_eq!(r.nodes[1].comment.as_deref(), Some("first"));
        assert_eq!(r.move_count(), 3);
        assert_eq!(r.nodes[3].mv, Some((Color::White, Move::Pass)));
        // HA[2] with 4 black stones: a warning.
        assert!(r.warnings.iter().any(|w| w.message.contains("HA[2]")));
    }

    #[test]
    fn size_errors() {
        let e = GameRecord::from_sgf("(;SZ[25])").expect_err("25");
        assert!(e.to_string().contains("board size 25 not supported"), "{e}");
        assert_eq!((e.line, e.col), (1, 3));
        assert!(GameRecord::from_sgf("(;SZ[19:19])").is_ok());
        let e = GameRecord::from_sgf("(;SZ[19:13])").expect_err("rect");
        assert_eq!(e.kind, SgfErrorKind::RectangularBoard(19, 13));
        let e = GameRecord::from_sgf("(;SZ[big])").expect_err("text");
        assert!(matches!(e.kind, SgfErrorKind::BadSize(_)));
        let e = GameRecord::from_sgf("(;SZ[9]\n;B[zz])").expect_err("off board");
        assert_eq!((e.line, e.col), (2, 2));
        assert!(e.to_string().contains("B[zz]"), "{e}");
        let e = GameRecord::from_sgf("(;GM[2])").expect_err("chess");
        assert!(matches!(e.kind, SgfErrorKind::NotGo(_)));
    }
}
