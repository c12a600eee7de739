//! The board: stones, strings, exact liberty counts, captures, the simple-ko
//! point and an incremental Zobrist hash.
//!
//! The layout is a flat padded array (see [`crate::rules::point`]) with wall
//! sentinels around the playing area, and strings kept as circular linked
//! lists with one head per string that holds the string's stone and liberty
//! counts. Everything is allocation-free and `Clone` is a plain copy, so the
//! search can copy boards freely.
//!
//! The board knows nothing about whose turn it is or about superko: that is
//! [`crate::rules::Position`]'s job. It does know the simple-ko point, because
//! that falls out of the capture bookkeeping for free.

use super::color::Color;
use super::point::{Point, CELLS, MAX_SIZE, MIN_SIZE, STRIDE};
use super::zobrist;

/// What occupies a cell of the padded array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cell {
    Empty = 0,
    Black = 1,
    White = 2,
    Wall = 3,
}

impl Cell {
    #[inline]
    fn stone(c: Color) -> Cell {
        match c {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    /// The colour of a stone cell.
    #[inline]
    pub fn color(self) -> Option<Color> {
        match self {
            Cell::Black => Some(Color::Black),
            Cell::White => Some(Color::White),
            _ => None,
        }
    }
}

/// "No string": the head of every empty or wall cell. Cell 0 is a wall, so it
/// is never the head of a real string.
const NO_STRING: u16 = 0;

/// What placing a stone did, for callers that keep history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Placed {
    /// Opponent stones removed.
    pub captured: u16,
    /// Own stones removed by a suicide (only when suicide is allowed).
    pub suicided: u16,
}

/// A Go board of any size from 2×2 to 19×19.
#[derive(Clone)]
pub struct Board {
    size: u8,
    cells: [Cell; CELLS],
    /// Head point of the string a stone belongs to; `NO_STRING` elsewhere.
    head: [u16; CELLS],
    /// Next stone in the string's circular list.
    next: [u16; CELLS],
    /// Indexed by head: exact number of distinct liberties.
    libs: [u16; CELLS],
    /// Indexed by head: number of stones.
    stones: [u16; CELLS],
    /// The empty points, in no particular order.
    empty: [u16; MAX_SIZE * MAX_SIZE],
    /// Position of each empty point in `empty`.
    empty_pos: [u16; CELLS],
    n_empty: u16,
    /// Zobrist hash of the stones (no side to move).
    hash: u64,
    /// Point where the player to move may not retake a ko at once.
    ko: Option<Point>,
    /// Stones captured by each colour (index by `Color::index`).
    captures: [u32; 2],
}

impl Board {
    /// An empty board. `size` must be in `MIN_SIZE..=MAX_SIZE`; use
    /// [`Board::try_new`] for unchecked input.
    pub fn new(size: usize) -> Board {
        Board::try_new(size).expect("board size out of range")
    }

    /// An empty board, or `None` for a size outside 2..=19.
    pub fn try_new(size: usize) -> Option<Board> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return None;
        }
        let mut b = Board {
            size: size as u8,
            cells: [Cell::Wall; CELLS],
            head: [NO_STRING; CELLS],
            next: [0; CELLS],
            libs: [0; CELLS],
            stones: [0; CELLS],
            empty: [0; MAX_SIZE * MAX_SIZE],
            empty_pos: [0; CELLS],
            n_empty: 0,
            hash: 0,
            ko: None,
            captures: [0; 2],
        };
        for y in 0..size {
            for x in 0..size {
                let p = Point::new(x, y);
                b.cells[p.index()] = Cell::Empty;
                b.add_empty(p);
            }
        }
        Some(b)
    }

    /// Board size (number of lines).
    #[inline]
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// What is at `p` (walls outside the board).
    #[inline]
    pub fn cell(&self, p: Point) -> Cell {
        self.cells[p.index()]
    }

    /// The colour of the stone at `p`, if any.
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        self.cells[p.index()].color()
    }

    /// Whether `p` is an empty point on the board.
    #[inline]
    pub fn is_empty(&self, p: Point) -> bool {
        self.cells[p.index()] == Cell::Empty
    }

    /// Zobrist hash of the stones on the board.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The simple-ko point: where the player to move may not play because it
    /// would retake a single-stone ko at once.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        self.ko
    }

    /// Stones captured so far by `c`.
    #[inline]
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[c.index()]
    }

    /// All points on the board, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let n = self.size();
        (0..n * n).map(move |i| Point::from_dense(i, n))
    }

    /// The empty points (order unspecified).
    #[inline]
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        self.empty[..self.n_empty as usize]
            .iter()
            .map(|&i| Point::from_index(i as usize))
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.n_empty as usize
    }

    /// The `i`-th empty point (`i < empty_count()`), for random move choice.
    #[inline]
    pub fn empty_at(&self, i: usize) -> Point {
        Point::from_index(self.empty[i] as usize)
    }

    /// Number of liberties of the string through `p` (0 for an empty point).
    #[inline]
    pub fn liberties(&self, p: Point) -> usize {
        match self.head[p.index()] {
            NO_STRING => 0,
            h => self.libs[h as usize] as usize,
        }
    }

    /// Number of stones in the string through `p` (0 for an empty point).
    #[inline]
    pub fn string_size(&self, p: Point) -> usize {
        match self.head[p.index()] {
            NO_STRING => 0,
            h => self.stones[h as usize] as usize,
        }
    }

    /// A stable identifier of the string through `p` (its head point), or
    /// `None` for an empty point. Two stones are in one string exactly when
    /// their ids are equal.
    #[inline]
    pub fn string_id(&self, p: Point) -> Option<Point> {
        match self.head[p.index()] {
            NO_STRING => None,
            h => Some(Point::from_index(h as usize)),
        }
    }

    /// The stones of the string through `p` (empty for an empty point).
    pub fn string_stones(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if self.head[p.index()] == NO_STRING {
            return out;
        }
        let start = p.index() as u16;
        let mut q = start;
        loop {
            out.push(Point::from_index(q as usize));
            q = self.next[q as usize];
            if q == start {
                break;
            }
        }
        out
    }

    /// The liberties of the string through `p`, sorted, without duplicates.
    pub fn string_liberties(&self, p: Point) -> Vec<Point> {
        let mut libs: Vec<Point> = self
            .string_stones(p)
            .into_iter()
            .flat_map(|s| s.neighbors())
            .filter(|&n| self.is_empty(n))
            .collect();
        libs.sort();
        libs.dedup();
        libs
    }

    /// Whether playing `c` at the empty point `p` would capture something.
    #[inline]
    pub fn would_capture(&self, c: Color, p: Point) -> bool {
        let opp = Cell::stone(c.opp());
        p.neighbors()
            .iter()
            .any(|&n| self.cells[n.index()] == opp && self.libs[self.head[n.index()] as usize] == 1)
    }

    /// Whether playing `c` at the empty point `p` would be suicide: the new
    /// stone's string would have no liberty and nothing would be captured.
    #[inline]
    pub fn is_suicide(&self, c: Color, p: Point) -> bool {
        let own = Cell::stone(c);
        for n in p.neighbors() {
            match self.cells[n.index()] {
                Cell::Empty => return false,
                Cell::Wall => {}
                cell => {
                    let libs = self.libs[self.head[n.index()] as usize];
                    if (cell == own) == (libs > 1) {
                        // A friend with another liberty, or an enemy in atari.
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Whether `p` is an empty point where `c` may place a stone on this
    /// board under simple ko, with or without suicide. Superko is not
    /// checked here.
    #[inline]
    pub fn is_pseudo_legal(&self, c: Color, p: Point, suicide_allowed: bool) -> bool {
        self.is_empty(p) && self.ko != Some(p) && (suicide_allowed || !self.is_suicide(c, p))
    }

    /// Whether the empty point `p` is an eye-like point of `c`: all
    /// orthogonal neighbours are `c` or off the board, and the diagonals do
    /// not let the opponent break it (at most one enemy diagonal in the
    /// middle, none on the edge). Playouts do not fill such points.
    #[inline]
    pub fn is_eye(&self, c: Color, p: Point) -> bool {
        let own = Cell::stone(c);
        for n in p.neighbors() {
            let cell = self.cells[n.index()];
            if cell != own && cell != Cell::Wall {
                return false;
            }
        }
        let opp = Cell::stone(c.opp());
        let mut bad = 0;
        let mut edge = 0;
        for d in p.diagonals() {
            match self.cells[d.index()] {
                Cell::Wall => edge = 1,
                cell if cell == opp => bad += 1,
                _ => {}
            }
        }
        bad + edge < 2
    }

    /// Zobrist hash the board would have after `c` plays at the empty,
    /// non-suicidal point `p` (captures included), without playing it.
    pub fn hash_after(&self, c: Color, p: Point) -> u64 {
        let mut h = self.hash ^ zobrist::stone(c, p);
        let opp = Cell::stone(c.opp());
        let mut seen = [NO_STRING; 4];
        for (k, n) in p.neighbors().into_iter().enumerate() {
            if self.cells[n.index()] != opp {
                continue;
            }
            let head = self.head[n.index()];
            if self.libs[head as usize] != 1 || seen[..k].contains(&head) {
                continue;
            }
            seen[k] = head;
            let mut q = head;
            loop {
                h ^= zobrist::stone(c.opp(), Point::from_index(q as usize));
                q = self.next[q as usize];
                if q == head {
                    break;
                }
            }
        }
        h
    }

    /// Places a stone of colour `c` on the empty point `p` and resolves
    /// captures: the opponent's strings without liberties first (C4), then,
    /// if the new string has no liberty, the string itself (suicide).
    ///
    /// This is the fast path: it does not check the ko point or whether
    /// suicide is allowed. Preconditions: `p` is an empty point on the board.
    pub fn place(&mut self, c: Color, p: Point) -> Placed {
        debug_assert!(self.is_empty(p), "place on a non-empty point");
        let pi = p.index();
        let own = Cell::stone(c);
        let opp = Cell::stone(c.opp());

        // Put the stone down as a one-stone string.
        self.cells[pi] = own;
        self.remove_empty(p);
        self.hash ^= zobrist::stone(c, p);
        self.head[pi] = pi as u16;
        self.next[pi] = pi as u16;
        self.stones[pi] = 1;
        let mut own_libs = 0;
        for n in p.neighbors() {
            if self.cells[n.index()] == Cell::Empty {
                own_libs += 1;
            }
        }
        self.libs[pi] = own_libs;

        // Every distinct neighbouring string loses the liberty at p.
        let mut seen = [NO_STRING; 4];
        let nbrs = p.neighbors();
        for (k, n) in nbrs.into_iter().enumerate() {
            let cell = self.cells[n.index()];
            if cell != Cell::Black && cell != Cell::White {
                continue;
            }
            let h = self.head[n.index()];
            if seen[..k].contains(&h) {
                continue;
            }
            seen[k] = h;
            self.libs[h as usize] -= 1;
        }

        // Merge with friendly neighbours.
        for (k, n) in nbrs.into_iter().enumerate() {
            if self.cells[n.index()] == own && seen[k] != NO_STRING {
                let a = self.head[pi];
                let b = self.head[n.index()];
                if a != b {
                    self.merge(a, b);
                }
            }
        }

        // Capture enemy strings left without liberties.
        let mut captured = 0u16;
        let mut single_capture = None;
        for (k, n) in nbrs.into_iter().enumerate() {
            if self.cells[n.index()] == opp && seen[k] != NO_STRING {
                let h = self.head[n.index()];
                if self.libs[h as usize] == 0 {
                    let removed = self.remove_string(h);
                    if removed == 1 {
                        single_capture = Some(n);
                    }
                    captured += removed;
                }
            }
        }
        self.captures[c.index()] += captured as u32;

        // Suicide: our own string has no liberty left.
        let h = self.head[pi];
        let mut suicided = 0;
        if self.libs[h as usize] == 0 {
            suicided = self.remove_string(h);
            self.captures[c.opp().index()] += suicided as u32;
        }

        // Simple ko: one stone captured one stone and is itself in atari
        // with no friends.
        self.ko = match single_capture {
            Some(k)
                if captured == 1
                    && suicided == 0
                    && self.stones[h as usize] == 1
                    && self.libs[h as usize] == 1 =>
            {
                Some(k)
            }
            _ => None,
        };
        Placed { captured, suicided }
    }

    /// A pass: only clears the ko point.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = None;
    }

    /// Puts a stone of colour `c` on `p` or empties it (`None`), for
    /// position setup and editing. No captures happen; the board may end up
    /// with strings that have no liberties (an illegal setup), which
    /// [`Board::has_dead_strings`] reports. Clears the ko point.
    /// Precondition: `p` is on the board.
    pub fn set(&mut self, p: Point, c: Option<Color>) {
        debug_assert!(p.on_board(self.size()));
        self.ko = None;
        if self.get(p) == c {
            return;
        }
        // Rebuild from scratch: setup is rare and this keeps it obviously
        // right.
        let mut stones: Vec<(Point, Color)> = self
            .points()
            .filter_map(|q| self.get(q).map(|col| (q, col)))
            .filter(|&(q, _)| q != p)
            .collect();
        if let Some(col) = c {
            stones.push((p, col));
        }
        let captures = self.captures;
        *self = Board::new(self.size());
        self.captures = captures;
        for (q, col) in stones {
            self.put_raw(q, col);
        }
    }

    /// Whether some string has no liberty (only possible after setup).
    pub fn has_dead_strings(&self) -> bool {
        self.points()
            .any(|p| self.get(p).is_some() && self.liberties(p) == 0)
    }

    /// Removes every string that has no liberty (after an illegal setup) and
    /// returns how many stones went. Captured counts are not changed.
    pub fn remove_dead_strings(&mut self) -> usize {
        let dead: Vec<Point> = self
            .points()
            .filter(|&p| self.get(p).is_some() && self.liberties(p) == 0)
            .collect();
        for &p in &dead {
            self.set(p, None);
        }
        dead.len()
    }

    /// Places a stone without resolving captures (setup only).
    fn put_raw(&mut self, p: Point, c: Color) {
        let pi = p.index();
        self.cells[pi] = Cell::stone(c);
        self.remove_empty(p);
        self.hash ^= zobrist::stone(c, p);
        self.head[pi] = pi as u16;
        self.next[pi] = pi as u16;
        self.stones[pi] = 1;
        self.libs[pi] = p
            .neighbors()
            .iter()
            .filter(|n| self.cells[n.index()] == Cell::Empty)
            .count() as u16;
        let mut seen = [NO_STRING; 4];
        for (k, n) in p.neighbors().into_iter().enumerate() {
            let cell = self.cells[n.index()];
            if cell != Cell::Black && cell != Cell::White {
                continue;
            }
            let h = self.head[n.index()];
            if seen[..k].contains(&h) {
                continue;
            }
            seen[k] = h;
            self.libs[h as usize] -= 1;
        }
        for n in p.neighbors() {
            if self.cells[n.index()] == Cell::stone(c) {
                let a = self.head[pi];
                let b = self.head[n.index()];
                if a != b {
                    self.merge(a, b);
                }
            }
        }
    }

    /// Merges the strings with heads `a` and `b` (same colour), keeping the
    /// larger one's head. Liberty counts stay exact: a liberty of the
    /// smaller string is new to the larger one unless it already touches it.
    fn merge(&mut self, a: u16, b: u16) {
        let (big, small) = if self.stones[a as usize] >= self.stones[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        let mut q = small;
        loop {
            let qp = Point::from_index(q as usize);
            for e in qp.neighbors() {
                if self.cells[e.index()] == Cell::Empty
                    && !e.neighbors().iter().any(|f| self.head[f.index()] == big)
                {
                    self.libs[big as usize] += 1;
                }
            }
            self.head[q as usize] = big;
            q = self.next[q as usize];
            if q == small {
                break;
            }
        }
        self.stones[big as usize] += self.stones[small as usize];
        // Splice the two circular lists.
        let (bn, sn) = (self.next[big as usize], self.next[small as usize]);
        self.next[big as usize] = sn;
        self.next[small as usize] = bn;
    }

    /// Removes the string with head `h`, giving liberties back to its
    /// neighbours. Returns the number of stones removed.
    fn remove_string(&mut self, h: u16) -> u16 {
        let color = self.cells[h as usize]
            .color()
            .expect("remove_string on an empty point");
        let mut removed = 0;
        let mut q = h;
        loop {
            let next = self.next[q as usize];
            let qp = Point::from_index(q as usize);
            self.cells[q as usize] = Cell::Empty;
            self.head[q as usize] = NO_STRING;
            self.hash ^= zobrist::stone(color, qp);
            self.add_empty(qp);
            removed += 1;
            let mut seen = [NO_STRING; 4];
            for (k, n) in qp.neighbors().into_iter().enumerate() {
                let nh = self.head[n.index()];
                if nh == NO_STRING || seen[..k].contains(&nh) {
                    continue;
                }
                seen[k] = nh;
                self.libs[nh as usize] += 1;
            }
            q = next;
            if q == h {
                break;
            }
        }
        removed
    }

    #[inline]
    fn add_empty(&mut self, p: Point) {
        self.empty_pos[p.index()] = self.n_empty;
        self.empty[self.n_empty as usize] = p.index() as u16;
        self.n_empty += 1;
    }

    #[inline]
    fn remove_empty(&mut self, p: Point) {
        let i = self.empty_pos[p.index()] as usize;
        self.n_empty -= 1;
        let last = self.empty[self.n_empty as usize];
        self.empty[i] = last;
        self.empty_pos[last as usize] = i as u16;
    }

    /// Text diagram: rows from the top, `X` black, `O` white, `.` empty, with
    /// GTP coordinates. For people and for test failure messages.
    pub fn diagram(&self) -> String {
        let n = self.size();
        let cols: Vec<char> = "ABCDEFGHJKLMNOPQRST".chars().take(n).collect();
        let mut s = String::new();
        for y in 0..n {
            s.push_str(&format!("{:>2} ", n - y));
            for x in 0..n {
                s.push(match self.get(Point::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
                s.push(' ');
            }
            s.pop();
            s.push('\n');
        }
        s.push_str("   ");
        for c in cols {
            s.push(c);
            s.push(' ');
        }
        s.pop();
        s.push('\n');
        s
    }
}

impl PartialEq for Board {
    /// Boards are equal when they have the same size and stones (captures,
    /// ko point and internal layout are ignored).
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size
            && self.hash == other.hash
            && self.points().all(|p| self.get(p) == other.get(p))
    }
}

impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\n{}", self.diagram())
    }
}

/// Checks every internal invariant against a from-scratch recount: string
/// membership, stone counts, exact liberties, the empty list and the hash.
/// For tests; returns a description of the first mismatch.
pub fn check_invariants(b: &Board) -> Result<(), String> {
    let n = b.size();
    let mut hash = 0;
    let mut empties = 0;
    for p in b.points() {
        match b.get(p) {
            None => {
                empties += 1;
                if b.empty[b.empty_pos[p.index()] as usize] as usize != p.index() {
                    return Err(format!("empty list broken at {}", p.to_gtp(n)));
                }
            }
            Some(c) => {
                hash ^= zobrist::stone(c, p);
                // Flood fill the string from scratch.
                let mut seen = vec![p];
                let mut stack = vec![p];
                let mut libs = Vec::new();
                while let Some(q) = stack.pop() {
                    for r in q.neighbors() {
                        if b.get(r) == Some(c) && !seen.contains(&r) {
                            seen.push(r);
                            stack.push(r);
                        } else if b.is_empty(r) && !libs.contains(&r) {
                            libs.push(r);
                        }
                    }
                }
                if b.string_size(p) != seen.len() {
                    return Err(format!(
                        "string at {} has {} stones, counted {}",
                        p.to_gtp(n),
                        seen.len(),
                        b.string_size(p)
                    ));
                }
                if b.liberties(p) != libs.len() {
                    return Err(format!(
                        "string at {} has {} liberties, counted {}",
                        p.to_gtp(n),
                        libs.len(),
                        b.liberties(p)
                    ));
                }
                let mut listed = b.string_stones(p);
                listed.sort();
                seen.sort();
                if listed != seen {
                    return Err(format!("string list at {} is wrong", p.to_gtp(n)));
                }
            }
        }
    }
    if empties != b.empty_count() {
        return Err(format!(
            "{} empty points, list has {}",
            empties,
            b.empty_count()
        ));
    }
    if hash != b.hash() {
        return Err("incremental hash differs from a from-scratch hash".into());
    }
    let _ = STRIDE;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(s: &str, b: &Board) -> Point {
        Point::parse_gtp(s, b.size()).unwrap()
    }

    #[test]
    fn capture_and_liberties() {
        let mut b = Board::new(9);
        b.place(Color::Black, pt("E5", &b));
        assert_eq!(b.liberties(pt("E5", &b)), 4);
        for v in ["E6", "D5", "F5"] {
            b.place(Color::White, pt(v, &b));
        }
        assert_eq!(b.liberties(pt("E5", &b)), 1);
        let placed = b.place(Color::White, pt("E4", &b));
        assert_eq!(placed.captured, 1);
        assert!(b.is_empty(pt("E5", &b)));
        assert_eq!(b.captures(Color::White), 1);
        check_invariants(&b).unwrap();
    }

    #[test]
    fn simple_ko_point() {
        // Black: D5 E6 E4; White: E5's neighbours F6 F4 G5, then W E5.
        let mut b = Board::new(9);
        for v in ["D5", "E6", "E4"] {
            b.place(Color::Black, pt(v, &b));
        }
        for v in ["F6", "F4", "G5", "E5"] {
            b.place(Color::White, pt(v, &b));
        }
        // Black captures at F5: a ko.
        let placed = b.place(Color::Black, pt("F5", &b));
        assert_eq!(placed.captured, 1);
        assert_eq!(b.ko_point(), Some(pt("E5", &b)));
        assert!(!b.is_pseudo_legal(Color::White, pt("E5", &b), false));
        check_invariants(&b).unwrap();
    }

    #[test]
    fn corner_suicide_detected() {
        let mut b = Board::new(9);
        b.place(Color::White, pt("A2", &b));
        b.place(Color::White, pt("B1", &b));
        assert!(b.is_suicide(Color::Black, pt("A1", &b)));
        assert!(!b.is_suicide(Color::White, pt("A1", &b)));
        let placed = b.place(Color::Black, pt("A1", &b));
        assert_eq!(placed.suicided, 1);
        assert!(b.is_empty(pt("A1", &b)));
        check_invariants(&b).unwrap();
    }
}
