//! Building a [`Session`] from command-line settings: board, rules, komi,
//! evaluator, search, clocks, autosave and resume. Shared by `tengen gtp`,
//! `tengen play` and `tengen judge`.
//!
//! [`build_evaluator`] is the one place that turns the settings into an
//! `Arc<dyn Evaluator>`: the neural net (`--model`, `--device`) plugs in
//! there.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::session::RawNn;
use super::Session;
use crate::engine::{Engine, EngineSettings};
use crate::eval::fake::{HeuristicEvaluator, UniformEvaluator};
use crate::eval::Evaluator;
use crate::game::{save, Clock, Game, TimeControl};
use crate::rules::{Ruleset, MAX_SIZE, MIN_SIZE};
use crate::search::passing::PassStyle;

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
    /// `net` (the shipped nets; needs the `net` feature), `heuristic` or
    /// `uniform`; ignored when `model` is set.
    pub evaluator: String,
    /// A net file (our `.safetensors` or a KataGo `.bin.gz`); needs the
    /// `net` feature.
    pub model: Option<PathBuf>,
    /// Where the net runs: `auto`, `cpu` or `wgpu`.
    pub device: String,
    /// Random rollouts per evaluation for the heuristic evaluator.
    pub rollouts: u32,
    /// Search threads; 0 picks them by the evaluator ([`auto_threads`]).
    pub threads: usize,
    /// Leaves the search gathers per round (all threads together); the
    /// net evaluator accepts at least this many.
    pub batch: usize,
    /// Root visits per move (tree reuse included).
    pub visits: Option<u64>,
    /// New visits per move.
    pub playouts: Option<u64>,
    /// Search on the opponent's time.
    pub ponder: bool,
    /// Resign below this winrate (`None`: never, the default).
    pub resign_threshold: Option<f32>,
    /// Pass after the opponent's pass as soon as passing wins
    /// ([`crate::search::passing::PassStyle::Friendly`]).
    pub friendly_pass: bool,
    /// `KEY=VALUE` search parameters ([`crate::search::params`]).
    pub search_params: Vec<String>,
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
            // The library's default stays the cheap, deterministic
            // heuristic; the `tengen` binary defaults to DEFAULT_EVALUATOR.
            evaluator: "heuristic".into(),
            model: None,
            device: "auto".into(),
            rollouts: 16,
            threads: 1,
            batch: 8,
            visits: None,
            playouts: None,
            ponder: false,
            resign_threshold: None,
            friendly_pass: false,
            search_params: Vec::new(),
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
        let (evaluator, raw_nn) = build_evaluators(self)?;
        let settings = self.engine_settings(&*evaluator)?;
        let engine = Engine::new(evaluator, settings);
        let clock = Clock::new(self.time, self.lag);
        let game = match &self.resume {
            Some(path) => {
                let mut g = save::load_file(path, None, &clock).map_err(|e| e.to_string())?;
                let mut c = g.clock().clone();
                c.lag = self.lag;
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
        session.raw_nn = raw_nn;
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

impl SessionConfig {
    /// The engine's settings (search limits, threads, pondering,
    /// resignation) for searches over `eval` (which decides the threads
    /// when `threads` is 0: [`auto_threads`]).
    pub fn engine_settings(&self, eval: &dyn Evaluator) -> Result<EngineSettings, String> {
        if let Some(t) = self.resign_threshold {
            if !(0.0..=1.0).contains(&t) {
                return Err("the resignation threshold must be a winrate in [0, 1]".into());
            }
        }
        if self.threads > 1024 {
            return Err(
                "threads must be between 1 and 1024 (0: one per core on the fast CPU path)".into(),
            );
        }
        if !(1..=4096).contains(&self.batch) {
            return Err("the batch size must be between 1 and 4096".into());
        }
        crate::search::params::apply(
            &mut crate::search::SearchConfig::default(),
            &self.search_params,
        )?;
        Ok(EngineSettings {
            seed: self.seed,
            threads: auto_threads(self.threads, eval),
            batch_size: self.batch,
            visits: self.visits.filter(|&v| v > 0),
            playouts: self.playouts.filter(|&p| p > 0),
            max_time: self.max_time,
            ponder: self.ponder,
            resign_threshold: self.resign_threshold,
            pass_style: if self.friendly_pass {
                PassStyle::Friendly
            } else {
                PassStyle::Tournament
            },
            search_params: self.search_params.clone(),
            ..EngineSettings::default()
        })
    }
}

/// Search threads for `requested` (0: choose) with `eval`: one per core
/// when the evaluator's calls run side by side on the callers' cores (the
/// fast CPU path: two threads evaluate twice as fast as one), else one
/// (burn and GPUs spread a call over the machine themselves).
pub fn auto_threads(requested: usize, eval: &dyn Evaluator) -> usize {
    if requested > 0 {
        return requested;
    }
    if eval.parallel_calls() {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(64))
    } else {
        1
    }
}

/// The `tengen` binary's evaluator when none is named: the shipped nets
/// when the build has them.
pub const DEFAULT_EVALUATOR: &str = if cfg!(feature = "net") {
    "net"
} else {
    "heuristic"
};

/// The evaluator the settings ask for: the net in `model` when given,
/// else the named built-in evaluator.
pub fn build_evaluator(cfg: &SessionConfig) -> Result<Arc<dyn Evaluator>, String> {
    build_evaluators(cfg).map(|(e, _)| e)
}

/// Like [`build_evaluator`], also returning the `kata-raw-nn` hook when a
/// net is loaded.
pub fn build_evaluators(
    cfg: &SessionConfig,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), String> {
    if let Some(path) = &cfg.model {
        return load_net(path, &cfg.device, cfg.threads, cfg.batch);
    }
    match cfg.evaluator.as_str() {
        "heuristic" => Ok((
            Arc::new(HeuristicEvaluator::new(cfg.seed).with_playouts(cfg.rollouts)),
            None,
        )),
        "uniform" => Ok((Arc::new(UniformEvaluator), None)),
        "net" => load_shipped(&cfg.device, cfg.threads, cfg.batch),
        other => Err(format!(
            "unknown evaluator '{other}' (net, heuristic or uniform)"
        )),
    }
}

/// Loads a net file for the engine (see [`wrap_net`]).
#[cfg(feature = "net")]
fn load_net(
    path: &Path,
    device: &str,
    threads: usize,
    batch: usize,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), String> {
    let backend = net_backend(device)?;
    let model = crate::net::load_any(path, &backend.device)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let loaded = wrap_net(model, &backend, threads, batch)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("tengen: loaded net {}", path.display());
    Ok(loaded)
}

#[cfg(feature = "net")]
fn net_backend(device: &str) -> Result<crate::net::device::Backend, String> {
    crate::net::device::backend_named(device).map_err(|e| e.to_string())
}

/// The shipped nets (compiled in), each for its boards: the 9×9 net for
/// small boards, the 13×13 net for middle ones, the 19×19 net for the
/// rest (see [`crate::net::shipped::ROUTES`]).
#[cfg(feature = "net")]
fn load_shipped(
    device: &str,
    threads: usize,
    batch: usize,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), String> {
    use crate::eval::by_size::{route_for, BySizeEvaluator};
    use crate::net::shipped::ROUTES;
    let backend = net_backend(device)?;
    let mut evals = Vec::new();
    let mut raws = Vec::new();
    for (max, net) in ROUTES {
        let (eval, raw) = net
            .load(&backend.device)
            .and_then(|m| wrap_net(m, &backend, threads, batch))
            .map_err(|e| format!("shipped net {}: {e}", net.name))?;
        evals.push((*max, eval));
        raws.push(raw);
    }
    let eval = Arc::new(BySizeEvaluator::new(evals));
    let hook = raws
        .into_iter()
        .collect::<Option<Vec<RawNn>>>()
        .map(|raws| {
            let hook: RawNn = Arc::new(move |input, symmetry, optimism| {
                let route = route_for(ROUTES.iter().map(|r| r.0), input.position.size());
                raws[route](input, symmetry, optimism)
            });
            hook
        });
    let names: Vec<String> = ROUTES
        .iter()
        .map(|(max, net)| format!("{} (boards up to {max}x{max})", net.name))
        .collect();
    eprintln!("tengen: playing with the shipped nets {}", names.join(", "));
    Ok((eval, hook))
}

#[cfg(not(feature = "net"))]
fn load_shipped(
    _device: &str,
    _threads: usize,
    _batch: usize,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), String> {
    Err(
        "this build has no neural net (build with the `net` feature); use --evaluator heuristic"
            .into(),
    )
}

/// A net for the engine (behind an evaluation cache) and the
/// `kata-raw-nn` hook (uncached: it prints the net's own outputs).
#[cfg(feature = "net")]
fn wrap_net(
    model: crate::net::Net,
    backend: &crate::net::device::Backend,
    threads: usize,
    batch: usize,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), crate::net::NetError> {
    use crate::net::{self, NetEvaluator};
    // Batches of 8 per search thread keep the CPU backend busy without
    // adding much latency; a larger --batch (for a GPU) raises the limit
    // the evaluator reports to the search.
    let net_eval = Arc::new(NetEvaluator::on(
        model,
        batch.max(8 * threads.max(1)),
        backend,
    )?);
    let raw = net_eval.clone();
    // Transpositions and re-searched positions (tree reuse, status and
    // judging searches) are not evaluated twice. About 3 KiB per entry on
    // 19x19.
    let eval = Arc::new(crate::eval::cache::CachedEvaluator::new(
        net_eval,
        crate::eval::cache::ENGINE_ENTRIES,
    ));
    let hook: RawNn = Arc::new(move |input, symmetry, optimism| {
        let s = net::symmetry::from_katago(symmetry)
            .ok_or_else(|| format!("symmetry must be 0 to 7, got {symmetry}"))?;
        // KataGo's GTP default blends in the optimistic policy at 0.2.
        let out = raw.raw_nn(input, s, optimism.unwrap_or(0.2));
        Ok(net::output::format_kata_raw_nn(&out, symmetry))
    });
    Ok((eval, Some(hook)))
}

#[cfg(not(feature = "net"))]
fn load_net(
    path: &Path,
    _device: &str,
    _threads: usize,
    _batch: usize,
) -> Result<(Arc<dyn Evaluator>, Option<RawNn>), String> {
    Err(format!(
        "cannot load {}: this build has no neural net (build with the `net` feature)",
        path.display()
    ))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
