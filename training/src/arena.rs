//! Games between two players under our own referee: `match` (tengen
//! against a GTP engine) and `gate` (candidate net against the best).
//!
//! The referee checks every move with the rules core: an illegal or
//! unreadable move loses the game on the spot (recorded as `B+F`/`W+F`
//! with a comment), as does a resignation; otherwise the game ends after
//! two passes or `max_moves` and is counted by area, stones inside the
//! other side's pass-alive area dead. Players alternate colours.
//!
//! That count removes no other dead stones, as on servers that count
//! strictly (CGOS): a player must capture dead stones before passing
//! (GNU Go: `--capture-all-dead`). A player that gives its own count
//! (GTP `final_score`) and names another winner marks the game
//! *disputed* in its note, so a match against an engine that expects
//! dead stones to be agreed on shows the problem instead of hiding it.

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
    /// Seeds the player's randomness for the next game, so each game of a
    /// series differs and can be replayed. Default: nothing to seed.
    fn seed_game(&mut self, _seed: u64) {}
    /// A note on the move just generated, for the game record (tengen:
    /// its search's winrate, score, visits and time). Default: none.
    fn move_comment(&self) -> Option<String> {
        None
    }
    /// The player's own count of the finished game (`B+3.5`, `W+12`, `0`),
    /// if it gives one. Default: none.
    fn own_count(&mut self) -> Option<String> {
        None
    }
}

/// A boxed player plays as the player inside (series of mixed opponents).
impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn new_game(&mut self, size: usize, komi: f32) -> Result<(), String> {
        (**self).new_game(size, komi)
    }
    fn opponent_played(&mut self, color: Color, mv: Move) -> Result<(), String> {
        (**self).opponent_played(color, mv)
    }
    fn genmove(&mut self, game: &Game) -> Reply {
        (**self).genmove(game)
    }
    fn seed_game(&mut self, seed: u64) {
        (**self).seed_game(seed)
    }
    fn move_comment(&self) -> Option<String> {
        (**self).move_comment()
    }
    fn own_count(&mut self) -> Option<String> {
        (**self).own_count()
    }
}

/// tengen: a search over an evaluator, with the engine's passing rules
/// ([`tengen::search::passing::decide`]).
pub struct Tengen {
    pub label: String,
    pub search: Search,
    /// When each move's search stops (visits, time or both).
    pub limits: Limits,
    /// Thinking time over all games so far.
    pub stats: ThinkStats,
    /// What the last search said (see [`Player::move_comment`]).
    last: Option<String>,
}

/// How long a player thought: moves, total and longest time.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThinkStats {
    pub moves: u64,
    pub total: Duration,
    pub longest: Duration,
}

impl ThinkStats {
    pub fn add(&mut self, t: Duration) {
        self.moves += 1;
        self.total += t;
        self.longest = self.longest.max(t);
    }
    pub fn merge(&mut self, o: &ThinkStats) {
        self.moves += o.moves;
        self.total += o.total;
        self.longest = self.longest.max(o.longest);
    }
    /// Mean seconds per move.
    pub fn mean_secs(&self) -> f64 {
        self.total.as_secs_f64() / self.moves.max(1) as f64
    }
}

impl Tengen {
    pub fn new(
        label: &str,
        eval: Arc<dyn Evaluator>,
        config: SearchConfig,
        limits: Limits,
    ) -> Tengen {
        Tengen {
            label: label.to_string(),
            search: Search::new(eval, config),
            limits,
            stats: ThinkStats::default(),
            last: None,
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
    fn move_comment(&self) -> Option<String> {
        self.last.clone()
    }
    fn seed_game(&mut self, seed: u64) {
        let mut c = self.search.config().clone();
        c.seed = seed;
        self.search.set_config(c);
    }
    fn genmove(&mut self, game: &Game) -> Reply {
        let started = std::time::Instant::now();
        self.search
            .set_position(game.position.clone(), game.recent());
        self.search.set_eval_context(game.prev_boards.clone(), 0.0);
        // Where the passing rules below would play on anyway, the search
        // looks only at the moves it may play.
        self.search.bar_pass_if_refused();
        let stop = AtomicBool::new(false);
        let r = self
            .search
            .run(&self.limits, &stop, None, Duration::from_secs(3600));
        let took = started.elapsed();
        self.stats.add(took);
        self.last = Some(format!(
            "winrate {:.3}, score {:+.1}, {} visits, {:.2} s",
            r.winrate,
            r.score_lead,
            r.visits,
            took.as_secs_f64()
        ));
        if r.resign {
            Reply::Resign
        } else {
            // The engine's end-of-game rules (RULES B3, B4): no pass while
            // points are unsettled, none into a loss a move could avoid.
            Reply::Move(tengen::search::passing::decide(&game.position, &r).mv)
        }
    }
}

/// Any GTP engine.
pub struct GtpPlayer {
    pub engine: GtpEngine,
    /// The current board size (for vertex names).
    pub size_hint: usize,
    /// The engine knows `set_random_seed` (GNU Go does).
    pub seedable: bool,
}

impl GtpPlayer {
    pub fn start(command: &str, timeout: Duration) -> Result<GtpPlayer, String> {
        let mut engine = GtpEngine::start(command, timeout)?;
        let seedable = engine
            .send("list_commands")
            .is_ok_and(|l| l.lines().any(|c| c.trim() == "set_random_seed"));
        Ok(GtpPlayer {
            engine,
            size_hint: 19,
            seedable,
        })
    }
}

impl Player for GtpPlayer {
    fn name(&self) -> String {
        self.engine.name.clone()
    }
    fn seed_game(&mut self, seed: u64) {
        if self.seedable {
            // A refusal only costs variety, not the game.
            let _ = self
                .engine
                .send(&format!("set_random_seed {}", seed % (1 << 31)));
        }
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
    fn own_count(&mut self) -> Option<String> {
        let c = self.engine.send("final_score").ok()?;
        crate::sl::parse_result(&c).map(|_| c.trim().to_string())
    }
}

/// One finished game.
pub struct GameResult {
    /// 1 Black won, 0 White won, 0.5 draw.
    pub black_score: f64,
    pub sgf: String,
    pub moves: usize,
    /// Why it ended early (illegal move, resignation), or that a player's
    /// own count names another winner (`disputed: ...`).
    pub note: Option<String>,
    /// A player's own count names another winner than the referee's.
    pub disputed: bool,
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
                let note = me.move_comment();
                game.play(mv, note.as_deref()).map_err(|e| e.to_string())?;
                if let Err(e) = other.opponent_played(color, mv) {
                    ended = Some((color.opp(), format!("forfeit: {e}")));
                    break;
                }
            }
        }
    }
    let mut disputed = false;
    let (black_score, result, note) = match ended {
        Some((loser, why)) => {
            let tag = if why == "resigned" { "R" } else { "F" };
            let s = if loser == Color::Black { 0.0 } else { 1.0 };
            (s, format!("{}+{tag}", loser.opp().letter()), Some(why))
        }
        None => {
            let m = game.outcome().margin;
            let (s, winner) = if m > 0.0 {
                (1.0, Some(Color::Black))
            } else if m < 0.0 {
                (0.0, Some(Color::White))
            } else {
                (0.5, None)
            };
            let result = result_text(m, None);
            let mut disputes = Vec::new();
            let counts = [
                (black.name(), black.own_count()),
                (white.name(), white.own_count()),
            ];
            for (name, count) in counts {
                let names = |c: &String| crate::sl::parse_result(c).map(|(w, _)| w);
                if let Some(count) = count.filter(|c| names(c) != Some(winner)) {
                    disputes.push(format!("{name} counts {count}"));
                }
            }
            disputed = !disputes.is_empty();
            let note = disputed.then(|| {
                format!(
                    "disputed: the referee counts {result}; {}",
                    disputes.join("; ")
                )
            });
            (s, result, note)
        }
    };
    game.record.result = Some(result);
    game.record.game_comment = note.clone();
    Ok(GameResult {
        black_score,
        sgf: tengen::sgf::write_record(&game.record),
        moves: game.moves.len(),
        note,
        disputed,
    })
}

/// Settings of a series of games.
#[derive(Clone, Debug)]
pub struct SeriesConfig {
    pub games: u32,
    pub size: usize,
    /// Komi of each pair of games (one with each colour): pair `k` plays
    /// at `komi[k % len]`, so `[5.5, 7.0]` alternates the two. Empty: 7.
    pub komi: Vec<f32>,
    pub max_moves: usize,
    /// SPRT bounds (Elo of H0, H1) for early stopping; None: play all.
    pub sprt: Option<(f64, f64)>,
    /// Folder for each game's SGF and `results.csv` (one row per game).
    pub sgf_dir: Option<std::path::PathBuf>,
    /// Game `i` seeds both players with [`game_seed`]`(seed, i)` (see
    /// [`Player::seed_game`]).
    pub seed: u64,
}

impl SeriesConfig {
    /// The komi of game `i`.
    pub fn komi_of(&self, i: u32) -> f32 {
        match self.komi.len() {
            0 => 7.0,
            n => self.komi[(i as usize / 2) % n],
        }
    }
}

/// The seed of game `i` of a series with seed `seed`: both mixed through
/// SplitMix64, so that series with nearby seeds share no games. (Until
/// 2026-12-02 it was `seed + i`, and seeds 41 and 51 played 178 of the same
/// 200 games, shifted by ten.)
pub fn game_seed(seed: u64, i: u32) -> u64 {
    tengen::rules::mix(tengen::rules::mix(seed, 0) ^ u64::from(i), 0)
}

/// Plays game `i` of a series: `a` is Black in even games. Returns the
/// result and `a`'s score (1 win, 0.5 draw, 0 loss).
fn play_nth(
    cfg: &SeriesConfig,
    i: u32,
    a: &mut dyn Player,
    b: &mut dyn Player,
) -> Result<(GameResult, f64), String> {
    let seed = game_seed(cfg.seed, i);
    a.seed_game(seed);
    b.seed_game(seed);
    let a_black = i.is_multiple_of(2);
    let komi = cfg.komi_of(i);
    let r = if a_black {
        play(a, b, cfg.size, komi, cfg.max_moves)?
    } else {
        play(b, a, cfg.size, komi, cfg.max_moves)?
    };
    let score = if a_black {
        r.black_score
    } else {
        1.0 - r.black_score
    };
    Ok((r, score))
}

/// Records game `i`: its SGF and a `results.csv` row.
fn record_game(cfg: &SeriesConfig, i: u32, r: &GameResult, a_score: f64) -> Result<(), String> {
    let Some(dir) = &cfg.sgf_dir else {
        return Ok(());
    };
    write_sgf(&dir.join(format!("game-{i:04}.sgf")), &r.sgf)?;
    let note = r.note.as_deref().unwrap_or("").replace([',', '\n'], " ");
    let color = if i.is_multiple_of(2) { "B" } else { "W" };
    crate::util::append_csv_row(
        &dir.join("results.csv"),
        "game,a_color,komi,moves,a_score,note",
        &format!(
            "{i},{color},{},{},{a_score},{note}",
            cfg.komi_of(i),
            r.moves
        ),
    )
}

fn prepare(cfg: &SeriesConfig) -> Result<(), String> {
    if let Some(dir) = &cfg.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let csv = dir.join("results.csv");
        if csv.exists() {
            std::fs::remove_file(&csv).map_err(|e| format!("{}: {e}", csv.display()))?;
        }
    }
    Ok(())
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
    prepare(cfg)?;
    for i in 0..cfg.games {
        let (r, score) = play_nth(cfg, i, a, b)?;
        tally.add(score);
        record_game(cfg, i, &r, score)?;
        on_game(i, &r, &tally);
        if let Some((e0, e1)) = cfg.sprt {
            if i % 2 == 1 && tally.sprt(e0, e1, 0.05, 0.05) != Sprt::Continue {
                break;
            }
        }
    }
    Ok(tally)
}

/// [`series`] on several pairs of players at once, one thread per pair;
/// games are handed out in order, so game `i` is the same game whichever
/// thread plays it (given deterministic players). Returns the tally and
/// the players (for their statistics).
pub fn series_parallel<A: Player + Send, B: Player + Send>(
    cfg: &SeriesConfig,
    pairs: Vec<(A, B)>,
    mut on_game: impl FnMut(u32, &GameResult, &Tally),
) -> Result<(Tally, Vec<(A, B)>), String> {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    prepare(cfg)?;
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<Result<(u32, GameResult, f64), String>>();
    std::thread::scope(|s| {
        let handles: Vec<_> = pairs
            .into_iter()
            .map(|(mut a, mut b)| {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                s.spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= cfg.games {
                            break;
                        }
                        let r = play_nth(cfg, i, &mut a, &mut b).map(|(r, sc)| (i, r, sc));
                        let failed = r.is_err();
                        if tx.send(r).is_err() || failed {
                            break;
                        }
                    }
                    (a, b)
                })
            })
            .collect();
        drop(tx);
        let mut tally = Tally::default();
        let mut error = None;
        for msg in rx {
            match msg {
                Ok((i, r, score)) => {
                    tally.add(score);
                    if let Err(e) = record_game(cfg, i, &r, score) {
                        error.get_or_insert(e);
                        stop.store(true, Ordering::SeqCst);
                    }
                    on_game(i, &r, &tally);
                    if let Some((e0, e1)) = cfg.sprt {
                        if tally.games() % 2 == 0
                            && tally.sprt(e0, e1, 0.05, 0.05) != Sprt::Continue
                        {
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Err(e) => {
                    error.get_or_insert(e);
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
        let players: Vec<(A, B)> = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        match error {
            Some(e) => Err(e),
            None => Ok((tally, players)),
        }
    })
}

fn write_sgf(path: &Path, text: &str) -> Result<(), String> {
    crate::util::write_atomic(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}
