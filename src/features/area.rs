//! KataGo's "area" for the net's features: pass-alive stones and territory
//! (Benson), plus empty regions bordered by one colour only, plus every
//! other stone as its own colour.
//!
//! This is KataGo's `Board::calculateArea` with `nonPassAliveStones`,
//! `safeBigTerritories` and `unsafeBigTerritories` all on, as `fillRowV7`
//! calls it. It differs from [`crate::rules::benson`] in small ways that
//! matter for exact feature parity: a region may have at most one point not
//! adjacent to the player's stones to count as vital territory ("internal
//! spaces"), and with suicide illegal only the empty points of a region
//! decide which strings it is vital for.

use crate::rules::{Board, Cell, Color, Point, CELLS};

/// One maximal region of points that are empty or hold an opponent stone.
struct Region {
    points: Vec<Point>,
    /// Heads of the player's strings this region is vital for.
    vital: Vec<Point>,
    /// Points not adjacent to any player stone, counted up to 2.
    internal: u8,
    contains_opp: bool,
    borders_dead: bool,
}

fn head(board: &Board, p: Point) -> Point {
    board.string_id(p).unwrap_or(p)
}

fn adjacent_to(board: &Board, p: Point, c: Color) -> bool {
    p.neighbors().iter().any(|&n| board.get(n) == Some(c))
}

fn adjacent_to_string(board: &Board, p: Point, c: Color, h: Point) -> bool {
    p.neighbors()
        .iter()
        .any(|&n| board.get(n) == Some(c) && head(board, n) == h)
}

/// Marks `pla`'s pass-alive stones, pass-alive territory and big
/// territories into `result` (KataGo's `calculateAreaForPla`).
fn area_for(board: &Board, pla: Color, suicide_legal: bool, result: &mut [Option<Color>]) {
    let opp = pla.opp();
    let mut region_of = vec![usize::MAX; CELLS];
    let mut regions: Vec<Region> = Vec::new();
    let mut any_pla = false;
    for p in board.points() {
        if region_of[p.index()] != usize::MAX {
            continue;
        }
        match board.cell(p) {
            Cell::Empty => {}
            _ => {
                any_pla |= board.get(p) == Some(pla);
                continue;
            }
        }
        let idx = regions.len();
        let mut vital: Vec<Point> = Vec::new();
        for n in p.neighbors() {
            if board.get(n) == Some(pla) {
                let h = head(board, n);
                if !vital.contains(&h) {
                    vital.push(h);
                }
            }
        }
        let mut region = Region {
            points: Vec::new(),
            vital,
            internal: 0,
            contains_opp: false,
            borders_dead: false,
        };
        let mut queue = vec![p];
        region_of[p.index()] = idx;
        let mut qi = 0;
        while qi < queue.len() {
            let q = queue[qi];
            qi += 1;
            if !region.vital.is_empty() && (suicide_legal || board.is_empty(q)) {
                region
                    .vital
                    .retain(|&h| adjacent_to_string(board, q, pla, h));
            }
            if region.internal < 2 && !adjacent_to(board, q, pla) {
                region.internal += 1;
            }
            if board.get(q) == Some(opp) {
                region.contains_opp = true;
            }
            region.points.push(q);
            for n in q.neighbors() {
                let c = board.cell(n);
                let fits = c == Cell::Empty || board.get(n) == Some(opp);
                if fits && region_of[n.index()] == usize::MAX {
                    region_of[n.index()] = idx;
                    queue.push(n);
                }
            }
        }
        regions.push(region);
    }

    // The player's strings, by head, with their vital region counts.
    let mut heads: Vec<Point> = board
        .points()
        .filter(|&p| board.get(p) == Some(pla) && head(board, p) == p)
        .collect();
    heads.sort();
    let mut vital_count = vec![0i32; CELLS];
    for r in &regions {
        for h in &r.vital {
            vital_count[h.index()] += 1;
        }
    }
    let mut killed = vec![false; heads.len()];
    loop {
        let mut any = false;
        for (i, &h) in heads.iter().enumerate() {
            if killed[i] || vital_count[h.index()] >= 2 {
                continue;
            }
            killed[i] = true;
            any = true;
            for s in board.string_stones(h) {
                for n in s.neighbors() {
                    let r = region_of[n.index()];
                    if r == usize::MAX || regions[r].borders_dead {
                        continue;
                    }
                    if board.is_empty(n) || board.get(n) == Some(opp) {
                        regions[r].borders_dead = true;
                        for v in regions[r].vital.clone() {
                            vital_count[v.index()] -= 1;
                        }
                    }
                }
            }
        }
        if !any {
            break;
        }
    }
    for (i, &h) in heads.iter().enumerate() {
        if !killed[i] {
            for s in board.string_stones(h) {
                result[s.index()] = Some(pla);
            }
        }
    }
    for r in &regions {
        let alive_territory = r.internal <= 1 && !r.borders_dead && any_pla;
        let safe_big = !r.contains_opp && !r.borders_dead && any_pla;
        if alive_territory || safe_big {
            for p in &r.points {
                result[p.index()] = Some(pla);
            }
        } else if !r.contains_opp && any_pla {
            for p in &r.points {
                if result[p.index()].is_none() {
                    result[p.index()] = Some(pla);
                }
            }
        }
    }
}

/// KataGo's area map, indexed by [`Point::index`]: who the point counts
/// for (`None`: nobody). `suicide_legal` selects the pass-alive definition
/// for rules where multi-stone suicide is legal.
pub fn katago_area(board: &Board, suicide_legal: bool) -> Vec<Option<Color>> {
    let mut result = vec![None; CELLS];
    area_for(board, Color::Black, suicide_legal, &mut result);
    area_for(board, Color::White, suicide_legal, &mut result);
    for p in board.points() {
        if result[p.index()].is_none() {
            result[p.index()] = board.get(p);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Position, Ruleset};

    fn position(size: usize, moves: &[(&str, &str)]) -> Position {
        let mut pos = Position::new(size, Ruleset::chinese()).unwrap();
        for (c, v) in moves {
            let c = Color::parse(c).unwrap();
            pos.play(c, Move::parse_gtp(v, size).unwrap()).unwrap();
        }
        pos
    }

    #[test]
    fn empty_board_is_nobodys() {
        let pos = position(9, &[]);
        let area = katago_area(pos.board(), false);
        assert!(pos.board().points().all(|p| area[p.index()].is_none()));
    }

    #[test]
    fn lone_stone_owns_the_whole_empty_board_as_unsafe_territory() {
        let pos = position(9, &[("b", "E5")]);
        let area = katago_area(pos.board(), false);
        assert!(pos
            .board()
            .points()
            .all(|p| area[p.index()] == Some(Color::Black)));
    }

    #[test]
    fn two_eyed_corner_group_is_pass_alive() {
        // Black wall on column C and row 3 with eyes at A1 and A3... a
        // simple two-eye shape in the corner of a 5x5 board.
        let moves = [
            ("b", "A2"),
            ("b", "B2"),
            ("b", "B1"),
            ("b", "B3"),
            ("b", "B4"),
            ("b", "A4"),
            ("w", "D4"),
            ("w", "D2"),
        ];
        let pos = position(5, &moves);
        let area = katago_area(pos.board(), false);
        let a1 = Point::parse_gtp("A1", 5).unwrap();
        let a3 = Point::parse_gtp("A3", 5).unwrap();
        assert_eq!(area[a1.index()], Some(Color::Black));
        assert_eq!(area[a3.index()], Some(Color::Black));
        // Shared open space is nobody's.
        let c3 = Point::parse_gtp("C3", 5).unwrap();
        assert_eq!(area[c3.index()], None);
    }
}
