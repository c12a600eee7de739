//! Benson's algorithm: strings that can never be captured even if their
//! owner always passes ("pass-alive"), and the regions they surround.
//!
//! Used for safe passing, for the net's features and for scoring help.

use super::board::Board;
use super::color::Color;
use super::point::{Point, CELLS};

/// Pass-alive stones and territory of one colour.
#[derive(Clone)]
pub struct PassAlive {
    /// `stones[p.index()]`: a stone of the colour that is unconditionally
    /// alive.
    pub stones: Box<[bool; CELLS]>,
    /// `territory[p.index()]`: a point (empty or holding an opponent stone)
    /// inside a region enclosed by pass-alive stones, where the opponent can
    /// never make a living group.
    pub territory: Box<[bool; CELLS]>,
}

impl PassAlive {
    /// Whether `p` is a pass-alive stone or pass-alive territory.
    pub fn owns(&self, p: Point) -> bool {
        self.stones[p.index()] || self.territory[p.index()]
    }
}

/// Runs Benson's algorithm for `color`.
///
/// Regions are the maximal connected sets of points not occupied by
/// `color`. A region is vital to a string when every empty point of the
/// region is a liberty of that string. Repeatedly drop strings with fewer
/// than two vital regions, and regions that touch a dropped string; what
/// remains is unconditionally alive.
pub fn pass_alive(board: &Board, color: Color) -> PassAlive {
    // Label strings of `color` by their id (head point index).
    let mut region_of = vec![usize::MAX; CELLS];
    let mut regions: Vec<Vec<Point>> = Vec::new();
    for p in board.points() {
        if board.get(p) == Some(color) || region_of[p.index()] != usize::MAX {
            continue;
        }
        let id = regions.len();
        let mut pts = vec![p];
        let mut stack = vec![p];
        region_of[p.index()] = id;
        while let Some(q) = stack.pop() {
            for n in q.neighbors() {
                if n.on_board(board.size())
                    && board.get(n) != Some(color)
                    && region_of[n.index()] == usize::MAX
                {
                    region_of[n.index()] = id;
                    pts.push(n);
                    stack.push(n);
                }
            }
        }
        regions.push(pts);
    }

    // For each region: the strings bordering it, and the strings for which
    // it is vital.
    let mut strings: Vec<Point> = board
        .points()
        .filter(|&p| board.get(p) == Some(color))
        .filter_map(|p| board.string_id(p))
        .collect();
    strings.sort();
    strings.dedup();
    let string_index = |id: Point| strings.binary_search(&id).ok();

    let mut borders: Vec<Vec<usize>> = vec![Vec::new(); regions.len()];
    let mut vital_for: Vec<Vec<usize>> = vec![Vec::new(); regions.len()];
    for (r, pts) in regions.iter().enumerate() {
        let mut b: Vec<usize> = Vec::new();
        for &q in pts {
            for n in q.neighbors() {
                if board.get(n) == Some(color) {
                    if let Some(s) = board.string_id(n).and_then(string_index) {
                        b.push(s);
                    }
                }
            }
        }
        b.sort_unstable();
        b.dedup();
        for &s in &b {
            let sid = strings[s];
            let vital = pts.iter().filter(|q| board.is_empty(**q)).all(|&q| {
                q.neighbors()
                    .iter()
                    .any(|&n| board.get(n) == Some(color) && board.string_id(n) == Some(sid))
            });
            if vital {
                vital_for[r].push(s);
            }
        }
        borders[r] = b;
    }

    let mut alive_string = vec![true; strings.len()];
    let mut alive_region = vec![true; regions.len()];
    loop {
        let mut changed = false;
        // Count vital regions per string.
        let mut vital_count = vec![0usize; strings.len()];
        for r in 0..regions.len() {
            if alive_region[r] {
                for &s in &vital_for[r] {
                    vital_count[s] += 1;
                }
            }
        }
        for s in 0..strings.len() {
            if alive_string[s] && vital_count[s] < 2 {
                alive_string[s] = false;
                changed = true;
            }
        }
        for r in 0..regions.len() {
            if alive_region[r] && borders[r].iter().any(|&s| !alive_string[s]) {
                alive_region[r] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    let mut out = PassAlive {
        stones: Box::new([false; CELLS]),
        territory: Box::new([false; CELLS]),
    };
    for p in board.points() {
        if board.get(p) == Some(color) {
            if let Some(s) = board.string_id(p).and_then(string_index) {
                out.stones[p.index()] = alive_string[s];
            }
        }
    }
    for (r, pts) in regions.iter().enumerate() {
        // Territory needs a surviving region that is vital to some alive
        // string: then every empty point touches that string, so the
        // opponent can never make an eye inside it. (A large region can
        // survive the loop yet hold a living opponent group.)
        if alive_region[r] && vital_for[r].iter().any(|&s| alive_string[s]) {
            for q in pts {
                out.territory[q.index()] = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        let n = rows.len();
        let mut b = Board::new(n);
        for (y, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                let c = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    _ => None,
                };
                if c.is_some() {
                    b.set(Point::new(x, y), c);
                }
            }
        }
        b
    }

    #[test]
    fn two_eyes_are_pass_alive_one_eye_is_not() {
        let b = board(&[
            ".X.X.", //
            "XXXXX", //
            ".....", //
            "OOOOO", //
            ".O.OO", //
        ]);
        let black = pass_alive(&b, Color::Black);
        assert!(black.stones[Point::new(0, 1).index()]);
        assert!(black.territory[Point::new(0, 0).index()]);
        let white = pass_alive(&b, Color::White);
        // White's bottom string has two eyes (A1 and C1).
        assert!(white.stones[Point::new(1, 4).index()]);
        assert!(!white.territory[Point::new(2, 2).index()]);
        assert!(!black.territory[Point::new(2, 2).index()]);
        assert!(white.territory[Point::new(0, 4).index()]);
    }

    #[test]
    fn empty_board_has_nothing() {
        let b = Board::new(9);
        let black = pass_alive(&b, Color::Black);
        assert!(b.points().all(|p| !black.owns(p)));
    }
}
