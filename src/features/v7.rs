//! KataGo's input features, version 7: 22 spatial planes and 19 global
//! inputs, as KataGo's `NNInputs::fillRowV7` computes them outside the
//! encore (no button): area scoring, or territory scoring, which KataGo
//! encodes with global 9 (and 10 for the seki tax), no area planes (18/19
//! wait for the encore's scoring phase) and no komi parity wave.
//!
//! Planes, all from the view of the player to move ("pla"):
//! 0 on board; 1/2 pla/opp stones; 3/4/5 strings with 1/2/3 liberties;
//! 6 ko or superko banned points; 7/8 encore (always 0 here);
//! 9..=13 the last five moves (newest first, only while colours
//! alternate); 14 stones of laddered strings; 15/16 the same one and two
//! moves ago; 17 ataris that ladder-capture an opponent string; 18/19
//! pla/opp area ([`super::area`]); 20/21 second encore (always 0).
//!
//! Globals: 0..=4 the last five moves were passes; 5 komi from pla's view
//! / 20 (handicap bonus included); 6/7 ko rule; 8 multi-stone suicide;
//! 9 territory scoring; 10/11 tax; 12/13 encore; 14 a pass would end the
//! game; 15/16 playout doubling; 17 button; 18 komi parity wave.
//!
//! Passing: with KataGo's `friendlyPassOk` (on for the rules this engine
//! plays), after one pass the history planes are hidden and global 14 is
//! 0; without it they stay and global 14 is 1. After two or more passes
//! only the last move is shown and global 14 is 1.

use super::area::katago_area;
use super::ladder::for_each_laddered_stone;
use crate::rules::{Board, Color, KoRule, Move, Point, Position, Scoring, Tax};

/// Number of spatial planes.
pub const SPATIAL: usize = 22;
/// Number of global inputs.
pub const GLOBAL: usize = 19;
/// KataGo clips komi to the board area plus this.
const KOMI_CLIP_RADIUS: f32 = 20.0;

/// Everything the V7 encoder needs about a position.
#[derive(Clone, Copy, Debug)]
pub struct V7Input<'a> {
    /// The position; its history gives superko bans.
    pub position: &'a Position,
    /// The moves of the position's history segment (since the start or the
    /// last setup edit), newest last. Only the last six matter; a shorter
    /// tail is fine.
    pub moves: &'a [(Color, Move)],
    /// The board before the last move and before the last two moves, when
    /// known (for the ladder planes 15 and 16).
    pub prev_boards: [Option<&'a Board>; 2],
    /// Points White receives for Black's handicap stones; KataGo feeds them
    /// to the net as part of the komi.
    pub white_handicap_bonus: f32,
    /// KataGo's `friendlyPassOk`: after one pass, hide the move history and
    /// the "a pass would end the game" input (the net then plays on as if
    /// the opponent's pass did not invite ending the game).
    pub friendly_pass_ok: bool,
}

/// Writes the V7 features of `input` into `spatial` (`SPATIAL` planes of
/// `size * size`, plane-major, dense point order) and `global` (`GLOBAL`).
/// Both slices are overwritten.
///
/// # Panics
/// If the slices are shorter than described.
pub fn encode(input: &V7Input<'_>, spatial: &mut [f32], global: &mut [f32]) {
    let pos = input.position;
    let board = pos.board();
    let size = board.size();
    let area_n = size * size;
    let spatial = &mut spatial[..SPATIAL * area_n];
    let global = &mut global[..GLOBAL];
    spatial.fill(0.0);
    global.fill(0.0);
    let pla = pos.to_move();
    let opp = pla.opp();
    let mut set = |plane: usize, p: Point| spatial[plane * area_n + p.dense(size)] = 1.0;

    for p in board.points() {
        set(0, p);
        if let Some(c) = board.get(p) {
            set(if c == pla { 1 } else { 2 }, p);
            match board.liberties(p) {
                1 => set(3, p),
                2 => set(4, p),
                3 => set(5, p),
                _ => {}
            }
        }
    }

    // Plane 6: the simple-ko point and superko bans for the player to move.
    if let Some(k) = board.ko_point() {
        set(6, k);
    }
    if pos.rules().ko != KoRule::Simple {
        for p in board.points() {
            if board.is_empty(p)
                && board.ko_point() != Some(p)
                && pos.check(pla, Move::Place(p)) == Err(crate::rules::IllegalMove::Superko)
            {
                set(6, p);
            }
        }
    }

    // Planes 18/19: area (area scoring only).
    let territory = pos.rules().scoring == Scoring::Territory;
    if !territory {
        let suicide_legal = pos.rules().suicide_allowed;
        let area = katago_area(board, suicide_legal);
        for p in board.points() {
            match area[p.index()] {
                Some(c) if c == pla => set(18, p),
                Some(_) => set(19, p),
                None => {}
            }
        }
    }

    // History depth: hidden after one pass (friendly pass), one move after
    // the game ended by two passes.
    let passes = pos.passes();
    let (max_turns, suppress_pass_end) = match passes {
        0 => (5, false),
        1 if input.friendly_pass_ok => (0, true),
        1 => (5, false),
        _ => (1, false),
    };
    let valid_turns = valid_turns(pos, input.moves);
    let usable = max_turns.min(valid_turns);
    let moves = input.moves;
    let mut included = 0;
    for k in 0..usable.min(moves.len()) {
        let (c, mv) = moves[moves.len() - 1 - k];
        let expected = if k % 2 == 0 { opp } else { pla };
        if c != expected {
            break;
        }
        included = k + 1;
        match mv {
            Move::Pass => global[k] = 1.0,
            Move::Place(p) => set(9 + k, p),
        }
    }

    // Ladders: now, one and two moves ago.
    for_each_laddered_stone(board, |p, working| {
        set(14, p);
        if board.get(p) == Some(opp) && board.liberties(p) > 1 {
            for &w in working {
                set(17, w);
            }
        }
    });
    let prev1 = if included >= 1 {
        input.prev_boards[0].unwrap_or(board)
    } else {
        board
    };
    for_each_laddered_stone(prev1, |p, _| set(15, p));
    let prev2 = if included >= 2 {
        input.prev_boards[1].unwrap_or(prev1)
    } else {
        prev1
    };
    for_each_laddered_stone(prev2, |p, _| set(16, p));

    // Globals.
    let white_komi = pos.rules().komi + input.white_handicap_bonus;
    let self_komi = if pla == Color::White {
        white_komi
    } else {
        -white_komi
    };
    set_ko_and_suicide(global, pos.rules().ko, pos.rules().suicide_allowed);
    if territory {
        global[9] = 1.0;
    }
    if pos.rules().tax == Tax::Seki {
        global[10] = 1.0;
    }
    global[14] = if !suppress_pass_end && passes >= 1 {
        1.0
    } else {
        0.0
    };
    set_komi(global, self_komi, size);
}

/// Writes the ko rule (globals 6 and 7) and whether multi-stone suicide
/// is legal (global 8) into `global`.
pub fn set_ko_and_suicide(global: &mut [f32], ko: KoRule, suicide_allowed: bool) {
    (global[6], global[7]) = match ko {
        KoRule::Simple => (0.0, 0.0),
        KoRule::Positional => (1.0, 0.5),
        KoRule::Situational => (1.0, -0.5),
    };
    global[8] = if suicide_allowed { 1.0 } else { 0.0 };
}

/// The ko rule and suicide legality that `global` encodes (the inverse of
/// [`set_ko_and_suicide`]).
pub fn ko_and_suicide(global: &[f32]) -> (KoRule, bool) {
    let ko = if global[6] == 0.0 {
        KoRule::Simple
    } else if global[7] > 0.0 {
        KoRule::Positional
    } else {
        KoRule::Situational
    };
    (ko, global[8] != 0.0)
}

/// The komi from the player to move's view that `global` encodes (global
/// 5, to the half point).
pub fn self_komi(global: &[f32]) -> f32 {
    (global[5] * 40.0).round() / 2.0
}

/// Rewrites the komi inputs of `global` (global 5, and the parity wave of
/// global 18 under area scoring, which global 9 tells) for `self_komi`,
/// clipped as KataGo clips it on a board of `size`. Training uses this to
/// see one position at several komis.
pub fn set_komi(global: &mut [f32], self_komi: f32, size: usize) {
    let area_n = size * size;
    let b_area = area_n as f32;
    let k = self_komi.clamp(-b_area - KOMI_CLIP_RADIUS, b_area + KOMI_CLIP_RADIUS);
    global[5] = k / 20.0;
    global[18] = if global[9] == 0.0 {
        komi_wave(k, area_n)
    } else {
        0.0
    };
}

/// KataGo's `numApproxValidTurnsThisPhase`: moves since the segment began,
/// capped at one whenever a move is made after the game ended.
fn valid_turns(pos: &Position, moves: &[(Color, Move)]) -> usize {
    let total = pos.history().len().saturating_sub(1);
    let start = moves.len().min(total);
    let tail = &moves[moves.len() - start..];
    let mut n = total - start;
    let mut consecutive_passes = 0;
    for &(_, mv) in tail {
        if consecutive_passes >= 2 {
            n = n.min(1);
        }
        n += 1;
        consecutive_passes = if mv == Move::Pass {
            consecutive_passes + 1
        } else {
            0
        };
    }
    n
}

/// The triangle wave of komi parity (global 18) for area scoring.
fn komi_wave(self_komi: f32, area: usize) -> f32 {
    let even = area.is_multiple_of(2);
    let floor = if even {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;

    fn planes(pos: &Position, moves: &[(Color, Move)]) -> (Vec<f32>, Vec<f32>) {
        let n = pos.size() * pos.size();
        let mut s = vec![0.0; SPATIAL * n];
        let mut g = vec![0.0; GLOBAL];
        let input = V7Input {
            position: pos,
            moves,
            prev_boards: [None, None],
            white_handicap_bonus: 0.0,
            friendly_pass_ok: true,
        };
        encode(&input, &mut s, &mut g);
        (s, g)
    }

    #[test]
    fn territory_scoring_is_encoded_as_katago_does_outside_the_encore() {
        let mut area = Position::new(9, Ruleset::chinese().with_komi(6.5)).unwrap();
        let mut terr = Position::new(9, Ruleset::japanese()).unwrap();
        for mv in ["E5", "C3", "G7"] {
            let m = Move::parse_gtp(mv, 9).unwrap();
            area.play_move(m).unwrap();
            terr.play_move(m).unwrap();
        }
        let (sa, ga) = planes(&area, &[]);
        let (st, gt) = planes(&terr, &[]);
        let n = 81;
        assert!(sa[18 * n..20 * n].contains(&1.0));
        assert!(st[18 * n..20 * n].iter().all(|&v| v == 0.0));
        assert_eq!((ga[9], ga[10], ga[11]), (0.0, 0.0, 0.0));
        assert_eq!((gt[9], gt[10], gt[11]), (1.0, 1.0, 0.0));
        assert_ne!(ga[18], 0.0);
        assert_eq!(gt[18], 0.0);
        // Simple ko: globals 6/7 off.
        assert_eq!((gt[6], gt[7]), (0.0, 0.0));
    }

    #[test]
    fn empty_board_globals() {
        let pos = Position::new(9, Ruleset::chinese().with_komi(7.5)).unwrap();
        let (s, g) = planes(&pos, &[]);
        assert!(s[..81].iter().all(|&v| v == 1.0));
        assert!(s[81..].iter().all(|&v| v == 0.0));
        assert_eq!(g[5], -7.5 / 20.0);
        assert_eq!((g[6], g[7], g[8]), (1.0, 0.5, 0.0));
        // Black's komi -7.5 on an odd board: drawable komis are odd; floor
        // is -9, delta 1.5 -> wave -0.5.
        assert_eq!(g[18], -0.5);
    }

    #[test]
    fn history_and_liberties() {
        let mut pos = Position::new(9, Ruleset::chinese()).unwrap();
        let mut moves = Vec::new();
        for (c, v) in [
            (Color::Black, "E5"),
            (Color::White, "E6"),
            (Color::Black, "pass"),
        ] {
            let mv = Move::parse_gtp(v, 9).unwrap();
            pos.play(c, mv).unwrap();
            moves.push((c, mv));
        }
        // After one pass the history is hidden (friendly pass).
        let (_, g) = planes(&pos, &moves);
        assert_eq!(g[0], 0.0);
        assert_eq!(g[14], 0.0);
        pos.play(Color::White, Move::parse_gtp("D4", 9).unwrap())
            .unwrap();
        moves.push((Color::White, Move::parse_gtp("D4", 9).unwrap()));
        let (s, g) = planes(&pos, &moves);
        let d4 = Point::parse_gtp("D4", 9).unwrap().dense(9);
        let e6 = Point::parse_gtp("E6", 9).unwrap().dense(9);
        assert_eq!(s[9 * 81 + d4], 1.0);
        assert_eq!(g[1], 1.0, "black's pass two moves ago");
        assert_eq!(s[11 * 81 + e6], 1.0);
        // Black to move: E5 is pla's, with 3 liberties.
        let e5 = Point::parse_gtp("E5", 9).unwrap().dense(9);
        assert_eq!(s[81 + e5], 1.0);
        assert_eq!(s[5 * 81 + e5], 1.0);
    }

    #[test]
    fn wave_matches_katago_examples() {
        // Even area (komi parity even): komi 0 is drawable -> wave 0.
        assert_eq!(komi_wave(0.0, 100), 0.0);
        assert_eq!(komi_wave(0.5, 100), 0.5);
        assert_eq!(komi_wave(1.0, 100), 0.0);
        assert_eq!(komi_wave(7.5, 361), 0.5);
    }
}
