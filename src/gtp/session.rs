//! A GTP session: the game, the engine and autosave, and the [`Call`] a
//! handler runs in. Executing an input line is `dispatch`'s.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::protocol;
use crate::engine::Engine;
use crate::game::{save, Game};

/// The game being played, the engine, and where to autosave.
pub struct Session {
    pub game: Game,
    pub engine: Engine,
    /// The net's raw outputs in KataGo's `kata-raw-nn` text, when a net is
    /// loaded (`--model`).
    pub raw_nn: Option<RawNn>,
    autosave: Option<PathBuf>,
    saved_revision: Option<u64>,
    quit: bool,
    /// Whether `kgs-game_over` was received.
    pub game_over_announced: bool,
    /// A genmove just played: the opponent's time starts (pondering).
    pub(crate) ponder_pending: bool,
}

/// Runs the loaded net on one input under KataGo's symmetry number and
/// an optional policy optimism, and formats the result as `kata-raw-nn`
/// prints it.
pub type RawNn = std::sync::Arc<
    dyn Fn(&crate::eval::EvalInput, usize, Option<f32>) -> Result<String, String> + Send + Sync,
>;

/// One command being executed: its arguments, the stop flag, and the output
/// for streaming commands.
pub struct Call<'a> {
    pub args: &'a [String],
    /// Set when new input arrives (or `stop`); long commands return soon
    /// after.
    pub stop: &'a AtomicBool,
    /// Set only by an explicit interrupt (GoGui's `# interrupt` line).
    /// Commands that owe a full answer (genmove and its variants) stop on
    /// this, not on `stop`: a controller may send the next commands before
    /// the move comes back, and they must not cut the search short.
    pub interrupt: &'a AtomicBool,
    /// When the command line was read (the clock starts here).
    pub received: Instant,
    pub(super) id: Option<&'a str>,
    pub(super) out: &'a mut dyn Write,
    pub(super) streaming: bool,
}

impl Call<'_> {
    /// Starts a streaming reply: writes `=id` and a newline. The handler
    /// then writes lines with [`Call::stream_line`]; the session ends the
    /// reply with an empty line when the handler returns.
    pub fn stream_begin(&mut self) -> io::Result<()> {
        self.streaming = true;
        writeln!(self.out, "={}", self.id.unwrap_or(""))?;
        self.out.flush()
    }

    /// Writes one line of a streaming reply (empty lines are skipped, as
    /// they would end the reply).
    pub fn stream_line(&mut self, line: &str) -> io::Result<()> {
        let line = protocol::sanitize(line);
        if line.trim().is_empty() {
            return Ok(());
        }
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }
}

impl Session {
    pub fn new(game: Game, engine: Engine) -> Session {
        Session {
            game,
            engine,
            raw_nn: None,
            autosave: None,
            saved_revision: None,
            quit: false,
            game_over_announced: false,
            ponder_pending: false,
        }
    }

    /// Autosave to `path` after every change from now on (`None`: never).
    /// Nothing is written until the game changes.
    pub fn set_autosave(&mut self, path: Option<PathBuf>) {
        self.autosave = path;
        self.saved_revision = Some(self.game.revision());
    }

    pub fn autosave_path(&self) -> Option<&PathBuf> {
        self.autosave.as_ref()
    }

    /// Replaces the whole game (clear_board, boardsize, loadsgf); the next
    /// autosave always writes.
    pub fn replace_game(&mut self, game: Game) {
        self.game = game;
        self.saved_revision = None;
    }

    /// Whether the engine should ponder now: pondering is on and the last
    /// command played a generated move in a game still going.
    pub fn wants_ponder(&self) -> bool {
        self.ponder_pending && self.engine.settings().ponder && !self.game.is_over()
    }

    /// Searches on the opponent's time until `stop` is set (see
    /// [`crate::engine::Engine::ponder`]).
    pub fn ponder(&mut self, stop: &AtomicBool) {
        self.ponder_pending = false;
        let game = &self.game;
        self.engine.ponder(game, stop);
    }

    /// The move generator (its last search, its settings).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether `quit` was executed.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    pub(crate) fn request_quit(&mut self) {
        self.quit = true;
    }

    /// Saves the game now, changed or not.
    pub fn force_autosave(&mut self) {
        self.saved_revision = None;
        self.autosave_now();
    }

    /// Saves the game if it changed since the last save. Errors are logged
    /// to stderr, never fatal.
    pub fn autosave_now(&mut self) {
        let Some(path) = &self.autosave else { return };
        let rev = self.game.revision();
        if self.saved_revision == Some(rev) {
            return;
        }
        match save::save_game(path, &self.game) {
            Ok(()) => self.saved_revision = Some(rev),
            Err(e) => eprintln!("tengen: autosave to {} failed: {e}", path.display()),
        }
    }
}
