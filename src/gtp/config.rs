//! Building a [`Session`] from command-line settings: board, rules, komi,
//! evaluator, engine, clocks, autosave and resume. Shared by `tengen gtp`
//! and `tengen play`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::Session;
use crate::engine::{Engine, EngineSettings};
use crate::eval::fake::{HeuristicEvaluator, UniformEvaluator};
use crate::eval::Evaluator;
use crate::game::{save, Clock, Game, TimeControl};
use crate::rules::{Ruleset, MAX_SIZE, MIN_SIZE};

/// Where to autosave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Autosave {
    /// [`default_autosave_path`].
    Default,
    Off,
    File(PathBuf),
}

/// Everything needed to start a session.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub size: usize,
    pub komi: Option<f32>,
    pub rules: String,
    pub seed: u64,
    /// Lag buffer kept back from every time budget.
    pub lag: Duration,
    /// Thinking time per move when there is no time limit, and the cap in
    /// any case.
    pub max_time: Option<Duration>,
    /// `heuristic` or `uniform`.
    pub evaluator: String,
    /// Playouts per evaluation for the heuristic evaluator.
    pub playouts: u32,
    pub time: TimeControl,
    pub resume: Option<PathBuf>,
    pub autosave: Autosave,
}

impl Default for SessionConfig {
    fn default() -> SessionConfig {
        SessionConfig {
            size: 19,
            komi: None,
            rules: "chinese".into(),
            seed: 0,
            lag: Duration::from_millis(500),
            max_time: None,
            evaluator: "heuristic".into(),
            playouts: 16,
            time: TimeControl::None,
            resume: None,
            autosave: Autosave::Default,
        }
    }
}

/// The default autosave file: `$XDG_DATA_HOME/tengen/autosave.sgf`, else
/// `$HOME/.local/share/tengen/autosave.sgf`, else `tengen-autosave.sgf` in
/// the current directory.
pub fn default_autosave_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        });
    match base {
        Some(b) => b.join("tengen").join("autosave.sgf"),
        None => PathBuf::from("tengen-autosave.sgf"),
    }
}

impl SessionConfig {
    /// Builds the session. Resuming reads the file; a fresh session keeps
    /// an existing autosave file as `<name>.prev.sgf` before it is
    /// overwritten. Only the autosave file (and that one backup) is ever
    /// written.
    pub fn build(&self) -> Result<Session, String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&self.size) {
            return Err(format!("unsupported board size {}", self.size));
        }
        let mut rules = Ruleset::from_name(&self.rules)
            .ok_or_else(|| format!("unknown rules '{}'", self.rules))?;
        if let Some(k) = self.komi {
            if !k.is_finite() || k.abs() > 1000.0 {
                return Err("komi must be a finite number".into());
            }
            rules = rules.with_komi(k);
        }
        let eval: Arc<dyn Evaluator> = match self.evaluator.as_str() {
            "heuristic" => {
                Arc::new(HeuristicEvaluator::new(self.seed).with_playouts(self.playouts))
            }
            "uniform" => Arc::new(UniformEvaluator),
            other => return Err(format!("unknown evaluator '{other}'")),
        };
        let engine = Engine::new(
            eval,
            EngineSettings {
                seed: self.seed,
                max_time: self.max_time,
                ..EngineSettings::default()
            },
        );
        let mut clock = Clock::new(self.time, self.lag);
        if let Some(m) = self.max_time {
            clock.unlimited_budget = m;
        }
        let game = match &self.resume {
            Some(path) => {
                let mut g = save::load_file(path, None, &clock).map_err(|e| e.to_string())?;
                let mut c = g.clock().clone();
                c.lag = self.lag;
                c.unlimited_budget = clock.unlimited_budget;
                g.set_clock(c);
                g
            }
            None => {
                let mut g = Game::new(self.size, rules).map_err(|e| e.to_string())?;
                g.set_clock(clock);
                g
            }
        };
        let mut session = Session::new(game, engine);
        let path = match &self.autosave {
            Autosave::Off => None,
            Autosave::File(p) => Some(p.clone()),
            Autosave::Default => Some(default_autosave_path()),
        };
        if let Some(p) = &path {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            let resuming_it = self.resume.as_deref().is_some_and(|r| same_file(r, p));
            if !resuming_it && p.exists() {
                let prev = p.with_extension("prev.sgf");
                std::fs::rename(p, &prev).map_err(|e| {
                    format!("cannot keep {} as {}: {e}", p.display(), prev.display())
                })?;
                eprintln!(
                    "tengen: previous autosave kept as {} (resume with --resume)",
                    prev.display()
                );
            }
            eprintln!("tengen: autosaving to {}", p.display());
        }
        session.set_autosave(path);
        if self.resume.is_some() {
            // Write the restored game at once, so the autosave file is
            // current even before the next change.
            session.force_autosave();
        }
        Ok(session)
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
