//! The board for people (B5): coordinates on all four sides, star points,
//! captures, the player to move, komi and clocks, and the newest stone
//! marked unmistakably.
//!
//! The newest stone is written between parentheses, `(X)` or `(O)`; no
//! other character on the board or in the status lines uses parentheses.
//! With `ansi` (a terminal), stones are also coloured and the newest one
//! is shown in reverse video.

use super::Game;
use crate::rules::score::fmt_points;
use crate::rules::{Color, Move, Point};

const COLUMNS: &str = "ABCDEFGHJKLMNOPQRST";

/// The star points (hoshi) of a board of `size`.
pub fn star_points(size: usize) -> Vec<Point> {
    if size < 7 {
        return if size % 2 == 1 && size >= 5 {
            vec![Point::new(size / 2, size / 2)]
        } else {
            Vec::new()
        };
    }
    let e = if size >= 13 { 3 } else { 2 };
    let (lo, mid, hi) = (e, size / 2, size - 1 - e);
    let mut v = vec![
        Point::new(lo, lo),
        Point::new(hi, lo),
        Point::new(lo, hi),
        Point::new(hi, hi),
    ];
    if size % 2 == 1 {
        v.push(Point::new(mid, mid));
        if size >= 15 {
            v.extend([
                Point::new(lo, mid),
                Point::new(hi, mid),
                Point::new(mid, lo),
                Point::new(mid, hi),
            ]);
        }
    }
    v
}

/// The board and status lines as text, one line per row. No line is
/// empty, so the text can be a GTP reply.
pub fn render(game: &Game, ansi: bool) -> String {
    let pos = game.position();
    let board = pos.board();
    let size = pos.size();
    let stars = star_points(size);
    let last = match game.last_move() {
        Some((_, Move::Place(p))) if board.get(p).is_some() => Some(p),
        _ => None,
    };
    let letters: String = COLUMNS
        .chars()
        .take(size)
        .map(|c| format!(" {c}"))
        .collect();
    let header = format!("  {letters}");
    let mut s = String::new();
    s.push_str(&header);
    s.push('\n');
    for y in 0..size {
        let row = size - y;
        s.push_str(&format!("{row:>2}"));
        let mut prev_marked = false;
        for x in 0..size {
            let p = Point::new(x, y);
            let marked = last == Some(p);
            s.push(if marked {
                '('
            } else if prev_marked {
                ')'
            } else {
                ' '
            });
            let (ch, color) = match board.get(p) {
                Some(Color::Black) => ('X', Some(Color::Black)),
                Some(Color::White) => ('O', Some(Color::White)),
                None if stars.contains(&p) => ('+', None),
                None => ('.', None),
            };
            if ansi {
                let code = match (color, marked) {
                    (Some(Color::Black), false) => "\x1b[1;30;43m",
                    (Some(Color::White), false) => "\x1b[1;97;43m",
                    (Some(Color::Black), true) => "\x1b[1;30;46m",
                    (Some(Color::White), true) => "\x1b[1;97;46m",
                    (None, _) => "\x1b[33m",
                };
                s.push_str(&format!("{code}{ch}\x1b[0m"));
            } else {
                s.push(ch);
            }
            prev_marked = marked;
        }
        s.push(if prev_marked { ')' } else { ' ' });
        s.push_str(&format!(" {row}\n"));
    }
    s.push_str(&header);
    s.push('\n');
    let rules = pos.rules();
    let moves = game.move_count();
    let last_text = match game.last_move() {
        Some((c, mv)) => format!("{} {}", c, mv.to_gtp(size)),
        None => "none".to_string(),
    };
    s.push_str(&format!(
        "Move {moves}, {} to move; last move: {last_text}\n",
        capitalize(pos.to_move())
    ));
    s.push_str(&format!(
        "Captured by Black: {}, by White: {}\n",
        board.captures(Color::Black),
        board.captures(Color::White)
    ));
    let handicap = if game.handicap() > 0 {
        format!(", handicap {}", game.handicap())
    } else {
        String::new()
    };
    s.push_str(&format!(
        "Komi {}{handicap}; {}, {}\n",
        fmt_points(rules.komi),
        rules.ko,
        if rules.suicide_allowed {
            "suicide allowed"
        } else {
            "no suicide"
        }
    ));
    s.push_str(&format!("Time: {}\n", game.clock().describe()));
    if let Some(r) = game.result() {
        s.push_str(&format!("Result: {r}\n"));
    } else if pos.is_over() {
        s.push_str("Game over: two passes\n");
    }
    s.pop();
    s
}

fn capitalize(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;

    #[test]
    fn last_move_is_the_only_bracketed_thing() {
        let mut g = Game::new(9, Ruleset::chinese()).unwrap();
        g.play(Color::Black, Move::parse_gtp("C3", 9).unwrap())
            .unwrap();
        g.play(Color::White, Move::parse_gtp("D3", 9).unwrap())
            .unwrap();
        let text = render(&g, false);
        assert_eq!(text.matches('(').count(), 1, "{text}");
        assert_eq!(text.matches(')').count(), 1, "{text}");
        assert!(text.contains(" 3 . . X(O). . + . .  3"), "{text}");
        assert!(text.contains(" 7 . . + . . . + . .  7"), "{text}");
        assert!(!text.lines().any(|l| l.trim().is_empty()));
    }
}
