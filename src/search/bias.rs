//! Subtree value bias (KataGo's `subtreeValueBiasFactor`): a correction of
//! the net's value learned during the search from where the net and the
//! search below a node disagree, shared between nodes that look alike.
//!
//! The idea: a net that misjudges a local shape (a group it thinks alive,
//! a ladder it misreads) makes the same mistake in every node where that
//! shape has just been played. Once some of those nodes have children,
//! the difference between what their subtrees found and what the net said
//! estimates that mistake, and every node of the same shape, searched or
//! not, can be corrected by part of it.
//!
//! # The key
//! A node reached by a move onto the board (never a pass) whose previous
//! move is known gets a [`key`]: the colour that moved, the move, the
//! move before it, the 5×5 neighbourhood of the move on the board before
//! it was played (each point off the board, empty, the mover's or the
//! opponent's) and that board's simple-ko point. Nodes without a key (the
//! root, passes) take no part.
//!
//! # The table
//! Each entry sums, over the expanded nodes with its key, `(U_children -
//! U_net) * W^e` and `W^e`, where `U_children` is the node's utility from
//! its children alone, `U_net` its own evaluation's utility, `W` its
//! children's total weight and `e` the weight exponent (KataGo: 0.85).
//! Each node's contribution is replaced, never added twice, whenever the
//! node's means are recomputed. A node's own evaluation then counts as
//! `U_net + f * (sum of deltas / sum of weights)` with the bias factor
//! `f` (KataGo: 0.45), both in its first visit and in every
//! recomputation.
//!
//! When the tree is cut down to a subtree (tree reuse), the kept nodes'
//! contributions stay whole and a fifth of the dropped ones' remains
//! (KataGo's `subtreeValueBiasFreeProp` 0.8), so what the last search
//! learned still helps the next one a little.
//!
//! Utilities are from the view of the player to move at the node, which
//! is the opponent of the colour in the key: entries of one key always
//! share a view.

use std::collections::HashMap;

use crate::rules::{mix, Color, Move, Point, Position};

/// One key's sums (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Entry {
    pub delta: f64,
    pub weight: f64,
}

impl Entry {
    /// The mean delta, or `None` while the entry weighs (almost) nothing.
    pub fn mean(&self) -> Option<f64> {
        (self.weight > 1e-3).then(|| self.delta / self.weight)
    }
}

/// The table, keyed by [`key`].
pub(crate) type Table = HashMap<u64, Entry>;

/// Share of a dropped node's contribution that leaves the table when the
/// tree is cut down (KataGo's `subtreeValueBiasFreeProp`).
pub(crate) const FREE_PROP: f64 = 0.8;

/// The key of the node reached from `before` by `mv`, the move before
/// that being `prev` (`None`: not known). `None` for a pass or without a
/// previous move (module docs). Never 0, which nodes use for "no key".
pub(crate) fn key(before: &Position, mv: Move, prev: Option<Move>) -> Option<u64> {
    let Move::Place(p) = mv else {
        return None;
    };
    let prev = prev?;
    let size = before.size();
    let board = before.board();
    let me = before.to_move();
    let mut h = mix(
        0x5b7e_c0de_0000_0000 | size as u64,
        if me == Color::Black { 1 } else { 2 },
    );
    h = mix(h, p.index() as u64);
    h = mix(
        h,
        match prev {
            Move::Place(q) => q.index() as u64 + 1,
            Move::Pass => 0,
        },
    );
    let (x, y) = (p.x() as i64, p.y() as i64);
    let mut pattern = 0u64;
    for dy in -2..=2i64 {
        for dx in -2..=2i64 {
            let (a, b) = (x + dx, y + dy);
            let cell = if a < 0 || b < 0 || a >= size as i64 || b >= size as i64 {
                3
            } else {
                match board.get(Point::new(a as usize, b as usize)) {
                    None => 0,
                    Some(c) if c == me => 1,
                    Some(_) => 2,
                }
            };
            pattern = pattern * 4 + cell;
        }
    }
    h = mix(h, pattern);
    h = mix(h, board.ko_point().map_or(u64::MAX, |k| k.index() as u64));
    Some(h.max(1))
}

/// The table after the tree was cut down: `kept` holds the kept nodes'
/// contributions by key; a fifth of everything else stays (module docs).
pub(crate) fn after_cut(old: &Table, kept: &Table) -> Table {
    let rest = 1.0 - FREE_PROP;
    let mut out = Table::new();
    for (&k, e) in old {
        let keep = kept.get(&k).copied().unwrap_or_default();
        let entry = Entry {
            delta: keep.delta + rest * (e.delta - keep.delta),
            weight: keep.weight + rest * (e.weight - keep.weight),
        };
        if entry.weight > 1e-9 {
            out.insert(k, entry);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;

    fn position(moves: &[&str]) -> Position {
        let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
        for m in moves {
            pos.play_move(Move::parse_gtp(m, 9).unwrap()).unwrap();
        }
        pos
    }

    fn mv(s: &str) -> Move {
        Move::parse_gtp(s, 9).unwrap()
    }

    #[test]
    fn passes_and_unknown_previous_moves_have_no_key() {
        let pos = position(&["E5"]);
        assert_eq!(key(&pos, Move::Pass, Some(mv("E5"))), None);
        assert_eq!(key(&pos, mv("C3"), None), None);
        assert!(key(&pos, mv("C3"), Some(mv("E5"))).is_some());
    }

    #[test]
    fn the_key_sees_the_neighbourhood_the_moves_and_the_mover() {
        let base = position(&["E5", "C7"]);
        let k = key(&base, mv("D4"), Some(mv("C7"))).unwrap();
        // A stone far away (more than two lines from D4) does not count.
        let far = position(&["E5", "C7", "J9", "H1"]);
        assert_eq!(key(&far, mv("D4"), Some(mv("C7"))), Some(k));
        // One inside the 5x5 window does.
        let near = position(&["E5", "C7", "F6", "H1"]);
        assert_ne!(key(&near, mv("D4"), Some(mv("C7"))), Some(k));
        // So do the previous move, the move and the colour.
        assert_ne!(key(&base, mv("D4"), Some(mv("G7"))), Some(k));
        assert_ne!(key(&base, mv("D3"), Some(mv("C7"))), Some(k));
        let mut white = base.clone();
        white.set_to_move(Color::White);
        assert_ne!(key(&white, mv("D4"), Some(mv("C7"))), Some(k));
    }

    #[test]
    fn a_cut_keeps_live_contributions_and_a_fifth_of_the_rest() {
        let mut old = Table::new();
        old.insert(
            7,
            Entry {
                delta: 1.0,
                weight: 4.0,
            },
        );
        old.insert(
            9,
            Entry {
                delta: -2.0,
                weight: 2.0,
            },
        );
        let mut kept = Table::new();
        kept.insert(
            7,
            Entry {
                delta: 0.5,
                weight: 1.0,
            },
        );
        let t = after_cut(&old, &kept);
        let e7 = t[&7];
        assert!((e7.delta - (0.5 + 0.2 * 0.5)).abs() < 1e-12);
        assert!((e7.weight - (1.0 + 0.2 * 3.0)).abs() < 1e-12);
        let e9 = t[&9];
        assert!((e9.delta + 0.4).abs() < 1e-12 && (e9.weight - 0.4).abs() < 1e-12);
        assert_eq!(Entry::default().mean(), None);
        assert_eq!(e9.mean(), Some(-1.0));
    }
}
