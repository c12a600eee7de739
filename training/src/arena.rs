//! Games between two players under our own referee: `match` (tengen
//! against a GTP engine) and `gate` (candidate net against the best).
//!
//! The referee checks every move with the rules core: an illegal or
//! unreadable move loses the game on the spot (recorded as `B+F`/`W+F`
//! with a comment), as does a resignation; otherwise the game ends after
//! two passes or `max_moves` and is counted by area, stones inside the
//! other side's pass-alive area dead. Players alternate colours.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tengen::eval::Evaluator;
use tengen::rules::{Color, Move};
use tengen::search::{Limits, Search, SearchConfig};

use crate::elo::{Sprt, Tally};
use crate::game::{result_text, Game};
use crate::gtp_client::GtpEngine;

/// What a player answers.
pub enum Reply {
    Move(Move),
    Resign,
    /// Anything the referee cannot accept, with the reason.
    Bad(String),
}

/// A player: told the game so far, asked for a move.
pub trait Player {
    fn name(&self) -> String;
    /// Called once per game before any move.
    fn new_game(&mut self, size: usize, komi: f32) -> Result<(), String>;
    /// The opponent played `mv` (already checked by the referee).
    fn opponent_played(&mut self, color: Color, mv: Move) -> Result<(), String>;
    fn genmove(&mut self, game: &Game) -> Reply;
}

/// tengen: a search over an evaluator.
pub struct Tengen {
    pub label: String,
    pub search: Search,
    pub visits: u64,
}

impl Tengen {
    pub fn new(label: &str, eval: Arc<dyn Evaluator>, config: SearchConfig, visits: u64) -> Tengen {
        Tengen {
            label: label.to_string(),
            search: Search::new(eval, config),
            visits,
        }
    }
}

impl Player for Tengen {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn new_game(&mut self, _size: usize, _komi: f32) -> Result<(), String> {
        self.search.clear_tree();
        Ok(())
    }
    fn opponent_played(&mut self, _c: Color, _mv: Move) -> Result<(), String> {
        Ok(())
    }
    fn genmove(&mut self, game: &Game) -> Reply {
        self.search
            .set_position(game.position.clone(), game.recent());
        self.search.set_eval_context(game.prev_boards.clone(), 0.0);
        let stop = AtomicBool::new(false);
        let r = self.search.run(
            &Limits::visits(self.visits),
            &stop,
            None,
            Duration::from_secs(3600),
        );
        Reply::Move(r.best)
    }
}

/// Any GTP engine.
pub struct GtpPlayer {
    pub engine: GtpEngine,
    /// The current board size (for vertex names).
    pub size_hint: usize,
}

impl GtpPlayer {
    pub fn start(command: &str, timeout: Duration) -> Result<GtpPlayer, String> {
        Ok(GtpPlayer {
            engine: GtpEngine::start(command, timeout)?,
            size_hint: 19,
        })
    }
}

impl Player for GtpPlayer {
    fn name(&self) -> String {
        self.engine.name.clone()
    }
    fn new_game(&mut self, size: usize, komi: f32) -> Result<(), String> {
        self.size_hint = size;
        self.engine.send(&format!("boardsize {size}"))?;
        self.engine.send("clear_board")?;
        self.engine.send(&format!("komi {komi}"))?;
        Ok(())
    }
    fn opponent_played(&mut self, color: Color, mv: Move) -> Result<(), String> {
        let size = self.size_hint;
        self.engine
            .send(&format!("play {} {}", color.letter(), mv.to_gtp(size)))
            .map(|_| ())
    }
    fn genmove(&mut self, game: &Game) -> Reply {
        let c = game.to_move().letter();
        match self.engine.send(&format!("genmove {c}")) {
            Ok(r) => {
                let r = r.trim().to_ascii_lowercase();
                if r == "resign" {
                    Reply::Resign
                } else {
                    match Move::parse_gtp(&r, game.size()) {
                        Some(m) => Reply::Move(m),
                        None => Reply::Bad(format!("unreadable move {r:?}")),
                    }
                }
            }
            Err(e) => Reply::Bad(e),
        }
    }
}

/// One finished game.
pub struct GameResult {
    /// 1 Black won, 0 White won, 0.5 draw.
    pub black_score: f64,
    pub sgf: String,
    pub moves: usize,
    /// Why it ended early (illegal move, resignation), if it did.
    pub note: Option<String>,
}

/// Plays one game, `black` against `white`.
pub fn play(
    black: &mut dyn Player,
    white: &mut dyn Player,
    size: usize,
    komi: f32,
    max_moves: usize,
) -> Result<GameResult, String> {
    let mut game = Game::new(size, komi)?;
    game.record.black = Some(black.name());
    game.record.white = Some(white.name());
    black.new_game(size, komi)?;
    white.new_game(size, komi)?;
    let mut ended: Option<(Color, String)> = None; // (loser, why)
    while !game.is_over() && game.moves.len() < max_moves {
        let color = game.to_move();
        let (me, other): (&mut dyn Player, &mut dyn Player) = match color {
            Color::Black => (&mut *black, &mut *white),
            Color::White => (&mut *white, &mut *black),
        };
        match me.genmove(&game) {
            Reply::Resign => {
                ended = Some((color, "resigned".into()));
                break;
            }
            Reply::Bad(why) => {
                ended = Some((color, format!("forfeit: {why}")));
                break;
            }
            Reply::Move(mv) => {
                if let Err(e) = game.position.check(color, mv) {
                    let why = format!("forfeit: illegal move {} ({e})", mv.to_gtp(size));
                    ended = Some((color, why));
                    break;
                }
                game.play(mv, None).map_err(|e| e.to_string())?;
                if let Err(e) = other.opponent_played(color, mv) {
                    ended = Some((color.opp(), format!("forfeit: {e}")));
                    break;
                }
            }
        }
    }
    let (black_score, result, note) = match ended {
        Some((loser, why)) => {
            let tag = if why == "resigned" { "R" } else { "F" };
            let s = if loser == Color::Black { 0.0 } else { 1.0 };
            (s, format!("{}+{tag}", loser.opp().letter()), Some(why))
        }
        None => {
            let m = game.outcome().margin;
            let s = if m > 0.0 {
                1.0
            } else if m < 0.0 {
                0.0
            } else {
                0.5
            };
            (s, result_text(m, None), None)
        }
    };
    game.record.result = Some(result);
    game.record.game_comment = note.clone();
    Ok(GameResult {
        black_score,
        sgf: tengen::sgf::write_record(&game.record),
        moves: game.moves.len(),
        note,
    })
}

/// Settings of a series of games.
#[derive(Clone, Debug)]
pub struct SeriesConfig {
    pub games: u32,
    pub size: usize,
    pub komi: f32,
    pub max_moves: usize,
    /// SPRT bounds (Elo of H0, H1) for early stopping; None: play all.
    pub sprt: Option<(f64, f64)>,
    pub sgf_dir: Option<std::path::PathBuf>,
}

/// Plays `a` against `b`, alternating colours (`a` is Black in even
/// games), returning `a`'s tally. `on_game` sees each result.
pub fn series(
    cfg: &SeriesConfig,
    a: &mut dyn Player,
    b: &mut dyn Player,
    mut on_game: impl FnMut(u32, &GameResult, &Tally),
) -> Result<Tally, String> {
    let mut tally = Tally::default();
    if let Some(dir) = &cfg.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    for i in 0..cfg.games {
        let a_black = i % 2 == 0;
        let r = if a_black {
            play(a, b, cfg.size, cfg.komi, cfg.max_moves)?
        } else {
            play(b, a, cfg.size, cfg.komi, cfg.max_moves)?
        };
        tally.add(if a_black {
            r.black_score
        } else {
            1.0 - r.black_score
        });
        if let Some(dir) = &cfg.sgf_dir {
            write_sgf(&dir.join(format!("game-{i:04}.sgf")), &r.sgf)?;
        }
        on_game(i, &r, &tally);
        if let Some((e0, e1)) = cfg.sprt {
            if i % 2 == 1 && tally.sprt(e0, e1, 0.05, 0.05) != Sprt::Continue {
                break;
            }
        }
    }
    Ok(tally)
}

fn write_sgf(path: &Path, text: &str) -> Result<(), String> {
    crate::util::write_atomic(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}
