//! `tengen-train`: the command line. Parses settings into the library's
//! config structs and calls it; no logic of its own.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use tengen::net::device::{Backend, DeviceChoice};
use tengen::search::Limits;
use tengen_train::arena::{
    series, series_parallel, GtpPlayer, Player, SeriesConfig, Tengen, ThinkStats,
};
use tengen_train::looping::{self, LoopConfig};
use tengen_train::model::{parse_arch, TrainNet};
use tengen_train::selfplay::{self, SelfplayConfig};
use tengen_train::shard;
use tengen_train::train::{self, Init, TrainConfig};

use tengen_train::{elo, sl};

#[derive(Parser)]
#[command(
    name = "tengen-train",
    version,
    about = "Train tengen's nets: self-play, training, gating, matches"
)]
struct Cli {
    /// cpu (play on the fast CPU path, train on burn flex), cpu-burn
    /// (both on burn flex) or wgpu (GPU builds).
    #[arg(long, global = true, default_value = "cpu")]
    device: String,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Self-play games → training shards and SGF.
    Selfplay {
        /// Net to play with; a fresh random net of --arch when absent.
        #[arg(long)]
        model: Option<PathBuf>,
        #[arg(long, default_value = "b6c64")]
        arch: String,
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        sp: SpArgs,
    },
    /// Train on shards (resumes from the checkpoint in --out).
    Train {
        #[arg(long)]
        data: PathBuf,
        /// Validation shards (default: ~10% of the window, by name hash).
        #[arg(long)]
        val: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Start from this exported net (when --out has no checkpoint).
        #[arg(long)]
        init: Option<PathBuf>,
        #[arg(long, default_value = "b6c64")]
        arch: String,
        #[command(flatten)]
        tr: TrArgs,
    },
    /// Supervised bootstrap: SGF files → shards, then train on them.
    Sl {
        /// SGF file or folder (searched recursively).
        #[arg(long)]
        sgf: PathBuf,
        /// Shards are written to OUT/data, checkpoints to OUT/train.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "b6c64")]
        arch: String,
        #[arg(long, default_value_t = 20000)]
        samples_per_shard: usize,
        /// Every this many games goes to OUT/val for validation (0: none).
        #[arg(long, default_value_t = 10)]
        val_every: usize,
        /// Start from this exported model instead of a fresh net.
        #[arg(long)]
        init: Option<PathBuf>,
        /// Moves by this player (the SGF's PB/PW name) get no policy target;
        /// their positions still teach value, score and ownership. Repeat
        /// for several players, e.g. to learn only the opponent's moves
        /// from match games.
        #[arg(long, value_name = "NAME")]
        no_policy_for: Vec<String>,
        #[command(flatten)]
        tr: TrArgs,
    },
    /// Supervised learning at scale from gzip SGF collections (one game
    /// per line), streamed: each game's handicap, komi and rules in the
    /// inputs, checkpoints every few minutes, exact resume (run the same
    /// command again).
    SlStream {
        /// Folder of *-train-*.sgfs.gz and *-val*.sgfs.gz, read in place.
        #[arg(long, default_value = "../shared/datasets/human-19x19/")]
        data: PathBuf,
        /// Checkpoints, metrics.csv and model.safetensors go here.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "b6c64")]
        arch: String,
        /// Start from this exported model instead of a fresh net.
        #[arg(long)]
        init: Option<PathBuf>,
        #[command(flatten)]
        s: StreamArgs,
    },
    /// Candidate against the best net; promote the winner.
    Gate {
        #[arg(long)]
        candidate: PathBuf,
        #[arg(long)]
        best: PathBuf,
        /// Where a winning candidate is copied (as best.safetensors).
        #[arg(long)]
        models: PathBuf,
        #[command(flatten)]
        m: MatchArgs,
    },
    /// Export a checkpoint (OUT/ckpt-N or its net.safetensors) as a
    /// model file the engine loads.
    Export {
        #[arg(long)]
        checkpoint: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Plot a training run's metrics.csv (losses against steps) as PNG.
    Plot {
        #[arg(long)]
        metrics: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// tengen against any GTP engine, or against a net in this process.
    Match {
        #[arg(long)]
        model: PathBuf,
        /// The opponent's command line, e.g. "gnugo --mode gtp --level 10",
        /// or `net:PATH`: tengen with that net in this process, with the
        /// same limits and temperature and its own --opponent-search-param
        /// (to match two search settings or two nets at equal visits).
        #[arg(long)]
        opponent: String,
        /// A search parameter of a `net:` opponent (KEY=VALUE, repeatable).
        #[arg(long = "opponent-search-param", value_name = "KEY=VALUE")]
        opponent_search_param: Vec<String>,
        /// Seconds the opponent may take per reply.
        #[arg(long, default_value_t = 60)]
        timeout: u64,
        #[command(flatten)]
        m: MatchArgs,
    },
    /// The net's White lead and winrate on the empty board at each komi
    /// (CSV), and how often the lead falls as komi rises.
    KomiCurve {
        #[arg(long)]
        model: PathBuf,
        #[arg(long, default_value_t = 9)]
        size: usize,
        #[arg(long, default_value_t = -10.0, allow_negative_numbers = true)]
        from: f32,
        #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
        to: f32,
        #[arg(long, default_value_t = 0.5)]
        step: f32,
        /// Ruleset name (chinese, japanese, tromp-taylor, nz, aga, korean).
        #[arg(long, default_value = "chinese")]
        rules: String,
        /// Also append the loop's summary rows (Chinese and Japanese,
        /// komi -10..10) for generation --generation to this CSV.
        #[arg(long)]
        record: Option<PathBuf>,
        #[arg(long, default_value_t = 0)]
        generation: u32,
        /// Instead of the curve, print issue 15's komi-and-rules floor for
        /// the net: 24 cases (empty and midgame 9x9, 13x13 and 19x19
        /// boards under chinese, japanese, tromp-taylor and aga rules).
        #[arg(long)]
        check: bool,
    },
    /// Plays a net against the anchors and appends the rows to a loop
    /// folder's anchors.csv (e.g. to measure an anchor again after
    /// removing its rows); anchors with rows for that generation are
    /// skipped.
    Anchor {
        /// The loop folder (anchors.csv, anchors.png and anchors/ go here).
        #[arg(long)]
        root: PathBuf,
        #[arg(long)]
        model: PathBuf,
        /// The generation the rows are for.
        #[arg(long)]
        generation: u32,
        /// Self-play hours and games for the rows [default: those of the
        /// generation's rows already there, else 0].
        #[arg(long)]
        selfplay_hours: Option<f64>,
        #[arg(long)]
        selfplay_games: Option<usize>,
        #[arg(long, default_value_t = 9)]
        size: usize,
        #[command(flatten)]
        an: AnchorArgs,
    },
    /// selfplay → train → gate, resumable.
    Loop {
        #[arg(long)]
        root: PathBuf,
        #[arg(long, default_value = "b6c64")]
        arch: String,
        #[arg(long, default_value_t = 64)]
        games_per_gen: usize,
        #[arg(long, default_value_t = 200)]
        steps_per_gen: u64,
        #[arg(long, default_value_t = 40)]
        gate_games: u32,
        #[arg(long, default_value_t = 100)]
        gate_visits: u64,
        /// Generations to run now (0: forever).
        #[arg(long, default_value_t = 0)]
        generations: u32,
        /// Stop once the run has this many generations in all, however
        /// many calls it took (the same command resumes and stops there).
        #[arg(long)]
        until_generation: Option<u32>,
        /// Start a new run from this net (default: a random --arch).
        #[arg(long)]
        init: Option<PathBuf>,
        /// Komi of the gate's games, alternating by pairs.
        #[arg(
            long,
            default_value = "5.5,7",
            value_delimiter = ',',
            allow_negative_numbers = true
        )]
        gate_komi: Vec<f32>,
        #[command(flatten)]
        an: AnchorArgs,
        #[command(flatten)]
        sp: SpArgs,
        #[command(flatten)]
        tr: TrArgs,
    },
}

#[derive(Args, Clone)]
struct AnchorArgs {
    /// A fixed opponent for every promoted net: NAME=net:PATH or
    /// NAME=gtp:COMMAND (repeatable), e.g.
    /// "gnugo10=gtp:/usr/games/gnugo --mode gtp --level 10 --capture-all-dead".
    #[arg(long = "anchor", value_name = "NAME=KIND:WHAT")]
    anchors: Vec<String>,
    /// Games against each anchor (komi alternating by pairs).
    #[arg(long, default_value_t = 20)]
    anchor_games: u32,
    #[arg(long, default_value_t = 100)]
    anchor_visits: u64,
    #[arg(
        long,
        default_value = "5.5,7",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    anchor_komi: Vec<f32>,
    /// Anchor games played at once.
    #[arg(long, default_value_t = 2)]
    anchor_parallel: usize,
}

impl AnchorArgs {
    /// The anchors' settings on `size` boards; None without anchors.
    fn config(&self, size: usize) -> Result<Option<tengen_train::anchors::AnchorConfig>, String> {
        if self.anchors.is_empty() {
            return Ok(None);
        }
        if self
            .anchor_komi
            .iter()
            .any(|k| !(k.is_finite() && k.abs() <= 150.0))
        {
            return Err("--anchor-komi must be within ±150".into());
        }
        Ok(Some(tengen_train::anchors::AnchorConfig {
            anchors: self
                .anchors
                .iter()
                .map(|a| tengen_train::anchors::Anchor::parse(a))
                .collect::<Result<_, _>>()?,
            games: self.anchor_games.max(1),
            visits: self.anchor_visits.max(1),
            komi: self.anchor_komi.clone(),
            size,
            parallel: self.anchor_parallel.clamp(1, 64),
            gtp_timeout: Duration::from_secs(120),
        }))
    }
}

/// The root search of self-play's full searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum RootSearch {
    Gumbel,
    Puct,
}

#[derive(Args, Clone)]
struct SpArgs {
    #[arg(long, default_value_t = 16)]
    games: usize,
    #[arg(long, default_value_t = 16)]
    parallel: usize,
    /// Root search of the full searches: gumbel (Gumbel AlphaZero's
    /// sequential halving, the default: more Elo per self-play hour in
    /// training/runs/9x9-rl-*) or puct (KataGo's playout cap).
    #[arg(long, value_enum, default_value_t = RootSearch::Gumbel)]
    root_search: RootSearch,
    /// Visits of a full search [default: 32 gumbel, 200 puct].
    #[arg(long)]
    visits_full: Option<u64>,
    /// Visits of a fast search (no policy target).
    #[arg(long, default_value_t = 40)]
    visits_fast: u64,
    /// Share of moves searched in full [default: 1 gumbel, 0.25 puct].
    #[arg(long)]
    full_prob: Option<f32>,
    #[arg(long, default_value_t = 9)]
    min_size: usize,
    #[arg(long, default_value_t = 9)]
    max_size: usize,
    /// Komi range (every drawn komi is clamped to it).
    #[arg(long, default_value_t = -10.0, allow_negative_numbers = true)]
    min_komi: f32,
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    max_komi: f32,
    /// Normal spread of komi around the fair komi (7 area, 6 territory).
    #[arg(long, default_value_t = 3.0)]
    komi_stdev: f32,
    /// Share of games with komi uniform over the range.
    #[arg(long, default_value_t = 0.25)]
    komi_wide: f32,
    /// Share of games with a whole-point komi (the rest: x.5).
    #[arg(long, default_value_t = 0.5)]
    komi_integer: f32,
    /// Share of games under Japanese rules (territory scoring).
    #[arg(long, default_value_t = 0.25)]
    territory_prob: f32,
    /// Share of games opening with 1-4 moves from the raw policy.
    #[arg(long, default_value_t = 0.3)]
    opening_prob: f32,
    /// Winrate below which a player resigns (negative: never).
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true)]
    resign: f32,
    #[arg(long, default_value_t = 0.1)]
    resign_check: f32,
    /// Play a decided game out with plain searches of this many visits
    /// (no policy targets) instead of resigning; 0: resign.
    #[arg(long, default_value_t = 8)]
    decided_visits: u32,
    #[arg(long, default_value_t = 16)]
    games_per_shard: usize,
    #[arg(long, default_value_t = 1)]
    sp_seed: u64,
    /// Evaluator queues at once (the games split among them): one per
    /// core to use all cores.
    #[arg(long, default_value_t = 1)]
    eval_lanes: usize,
    /// Moves a Gumbel root search samples (with --root-search gumbel).
    #[arg(long, default_value_t = 16)]
    gumbel_m: usize,
    /// The Gumbel search's c_scale (mctx's 0.1; the paper's 1.0 gives
    /// nearly one-hot targets).
    #[arg(long, default_value_t = 0.1)]
    gumbel_c_scale: f32,
}

impl SpArgs {
    fn config(&self) -> SelfplayConfig {
        SelfplayConfig {
            games: self.games,
            parallel: self.parallel,
            visits_full: self.visits_full.unwrap_or(match self.root_search {
                RootSearch::Gumbel => 32,
                RootSearch::Puct => 200,
            }),
            visits_fast: self.visits_fast,
            full_prob: self.full_prob.unwrap_or(match self.root_search {
                RootSearch::Gumbel => 1.0,
                RootSearch::Puct => 0.25,
            }),
            min_size: self.min_size,
            max_size: self.max_size,
            min_komi: self.min_komi,
            max_komi: self.max_komi,
            komi_stdev: self.komi_stdev,
            komi_wide: self.komi_wide,
            komi_integer: self.komi_integer,
            territory_prob: self.territory_prob,
            opening_prob: self.opening_prob,
            resign_threshold: (self.resign >= 0.0).then_some(self.resign),
            resign_check_fraction: self.resign_check,
            decided_visits: self.decided_visits,
            games_per_shard: self.games_per_shard,
            seed: self.sp_seed,
            eval_lanes: self.eval_lanes.clamp(1, 64),
            gumbel_m: (self.root_search == RootSearch::Gumbel).then_some(self.gumbel_m),
            gumbel_c_scale: self.gumbel_c_scale,
            ..SelfplayConfig::default()
        }
    }
}

#[derive(Args, Clone)]
struct TrArgs {
    /// Train until this many steps in total.
    #[arg(long, default_value_t = 100)]
    steps: u64,
    #[arg(long, default_value_t = 64)]
    batch: usize,
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    #[arg(long, default_value_t = 50)]
    window: usize,
    #[arg(long, default_value_t = 50)]
    checkpoint_every: u64,
    #[arg(long)]
    no_augment: bool,
    #[arg(long, default_value_t = 20)]
    val_batches: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fall linearly from --lr to this by the last step.
    #[arg(long)]
    lr_end: Option<f32>,
    /// Multiplier of the score loss (1: its weight in the loss docs).
    #[arg(long, default_value_t = 1.0)]
    score_weight: f32,
    /// Multiplier of the ownership loss.
    #[arg(long, default_value_t = 1.0)]
    ownership_weight: f32,
}

impl TrArgs {
    fn config(&self) -> TrainConfig {
        TrainConfig {
            steps: self.steps,
            batch: self.batch,
            lr: self.lr,
            window: self.window,
            checkpoint_every: self.checkpoint_every,
            augment: !self.no_augment,
            val_batches: self.val_batches,
            seed: self.seed,
            lr_end: self.lr_end,
            score_weight: self.score_weight,
            ownership_weight: self.ownership_weight,
        }
    }
}

#[derive(Args, Clone)]
struct StreamArgs {
    #[arg(long, default_value_t = 19)]
    size: usize,
    /// Policy targets only from moves of players ranked at least this
    /// (BR/WR, e.g. 6d; an unknown rank does not qualify).
    #[arg(long)]
    min_rank: Option<String>,
    /// Moves by this player (PB/PW) are no policy target; repeatable.
    #[arg(long, value_name = "NAME")]
    no_policy_for: Vec<String>,
    /// Count +Time results as value targets (default: no value target).
    #[arg(long)]
    time_value: bool,
    /// Probability of keeping each position of a game.
    #[arg(long, default_value_t = 0.5)]
    keep: f64,
    /// Games per shuffle window.
    #[arg(long, default_value_t = 2000)]
    window_games: usize,
    #[arg(long, default_value_t = 128)]
    batch: usize,
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// Fall linearly from --lr to this by the last step.
    #[arg(long)]
    lr_end: Option<f32>,
    /// Train until this many steps in total.
    #[arg(long, default_value_t = 100_000)]
    steps: u64,
    /// Checkpoint and validate after this many minutes of training.
    #[arg(long, default_value_t = 10.0)]
    checkpoint_minutes: f64,
    /// Also every this many steps (0: by time only).
    #[arg(long, default_value_t = 0)]
    checkpoint_every: u64,
    /// Val subset: games, spread over the val files...
    #[arg(long, default_value_t = 200)]
    val_games: usize,
    /// ...and one in this many of their positions.
    #[arg(long, default_value_t = 10)]
    val_every: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    no_augment: bool,
    /// Batches prepared ahead of the trainer.
    #[arg(long, default_value_t = 16)]
    queue: usize,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 60.0)]
    progress_secs: f64,
    /// Stop with a checkpoint after this many steps in this process
    /// (measurements; the run resumes with the same command).
    #[arg(long)]
    stop_after: Option<u64>,
}

impl StreamArgs {
    fn config(&self, data: &Path) -> Result<tengen_train::human::run::HumanConfig, String> {
        use tengen_train::human::record::{parse_rank, Options};
        let min_rank = match &self.min_rank {
            Some(r) => Some(parse_rank(r).ok_or_else(|| format!("bad --min-rank {r:?}"))?),
            None => None,
        };
        Ok(tengen_train::human::run::HumanConfig {
            data: data.to_path_buf(),
            size: self.size,
            options: Options {
                min_rank,
                no_policy_for: self.no_policy_for.clone(),
                time_value: self.time_value,
                keep: self.keep,
            },
            window_games: self.window_games,
            batch: self.batch,
            lr: self.lr,
            lr_end: self.lr_end,
            steps: self.steps,
            checkpoint_minutes: self.checkpoint_minutes,
            checkpoint_every: self.checkpoint_every,
            val_games: self.val_games,
            val_every: self.val_every,
            seed: self.seed,
            augment: !self.no_augment,
            queue: self.queue,
            progress_secs: self.progress_secs,
            stop_after: self.stop_after,
        })
    }
}

#[derive(Args, Clone)]
struct MatchArgs {
    #[arg(long, default_value_t = 20)]
    games: u32,
    #[arg(long, default_value_t = 9)]
    size: usize,
    /// Komi; several (`5.5,7`) alternate by pairs of games, each pair
    /// one game with each colour.
    #[arg(
        long,
        default_value = "7",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    komi: Vec<f32>,
    /// Visits per tengen move [default: 100, or no cap with --move-time].
    #[arg(long)]
    visits: Option<u64>,
    /// Seconds per tengen move (a cap; with --visits, the first bound
    /// reached ends the search). A timed search stops early once more time
    /// could not change its move.
    #[arg(long)]
    move_time: Option<f64>,
    /// Move-choice temperature for tengen's first --temp-moves moves.
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[arg(long, default_value_t = 0)]
    temp_moves: u32,
    /// Stop early by SPRT (H0: 0 Elo, H1: this many Elo).
    #[arg(long)]
    sprt_elo: Option<f64>,
    /// Folder for the games' SGF.
    #[arg(long)]
    sgf: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search threads of each tengen player.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Leaves each tengen search sends to the net at once (more suit a GPU;
    /// on a CPU a small batch loses less to virtual loss).
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Games played at once (each with its own tengen and opponent).
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// tengen resigns when its winrate falls below this (default: never).
    #[arg(long)]
    resign: Option<f32>,
    /// Games end after this many moves and are counted as they stand
    /// (default: 3 × size²).
    #[arg(long)]
    max_moves: Option<usize>,
    /// A search parameter of the tengen player as KEY=VALUE, repeatable
    /// (the keys of `tengen gtp --search-param help`), e.g. to match two
    /// settings: this side against `tengen gtp` with the defaults.
    #[arg(long = "search-param", value_name = "KEY=VALUE")]
    search_param: Vec<String>,
}

impl MatchArgs {
    fn series(&self) -> SeriesConfig {
        SeriesConfig {
            games: self.games,
            size: self.size,
            komi: self.komi.clone(),
            max_moves: self.max_moves.unwrap_or(3 * self.size * self.size),
            sprt: self.sprt_elo.map(|e| (0.0, e)),
            sgf_dir: self.sgf.clone(),
            seed: self.seed,
        }
    }
    fn search(&self) -> tengen::search::SearchConfig {
        let mut cfg = tengen::search::SearchConfig {
            temperature: self.temperature,
            temperature_moves: self.temp_moves,
            seed: self.seed,
            threads: self.threads.max(1),
            batch_size: self.batch,
            resign_threshold: self.resign,
            // A timed move ends once its choice is decided, as in play.
            early_stop: self.move_time.is_some(),
            ..Default::default()
        };
        // Checked by `check` before any game starts.
        let _ = tengen::search::params::apply(&mut cfg, &self.search_param);
        cfg
    }
    /// The evaluator's largest batch: room for every thread's leaves.
    fn max_batch(&self) -> usize {
        (self.batch * self.threads).max(16)
    }
    /// Each tengen move's bounds: --visits and/or --move-time, 100 visits
    /// when neither is given.
    fn limits(&self) -> Limits {
        let time = self.move_time.map(Duration::from_secs_f64);
        Limits {
            visits: self
                .visits
                .or(if time.is_none() { Some(100) } else { None }),
            time,
            ..Limits::default()
        }
    }
    fn check(&self) -> Result<(), String> {
        tengen::search::params::apply(&mut Default::default(), &self.search_param)?;
        if !(2..=19).contains(&self.size) || self.visits == Some(0) || self.games == 0 {
            return Err("need 2 <= size <= 19, visits >= 1 and games >= 1".into());
        }
        if self
            .komi
            .iter()
            .any(|k| !(k.is_finite() && k.abs() <= 150.0))
        {
            return Err("--komi must be within ±150".into());
        }
        if let Some(t) = self.move_time {
            if !(t.is_finite() && t > 0.0 && t <= 3600.0) {
                return Err("--move-time must be between 0 and 3600 seconds".into());
            }
        }
        if self.max_moves == Some(0) {
            return Err("--max-moves must be at least 1".into());
        }
        if !(1..=64).contains(&self.threads) || !(1..=64).contains(&self.parallel) {
            return Err("need 1 <= threads <= 64 and 1 <= parallel <= 64".into());
        }
        if !(1..=1024).contains(&self.batch) {
            return Err("--batch must be between 1 and 1024".into());
        }
        Ok(())
    }
}

fn bar(len: u64, what: &str) -> ProgressBar {
    let b = ProgressBar::new(len);
    let t = format!("{what} {{bar:30}} {{pos}}/{{len}} {{msg}} {{elapsed}}");
    b.set_style(ProgressStyle::with_template(&t).unwrap_or_else(|_| ProgressStyle::default_bar()));
    b
}

fn print_json<T: serde::Serialize>(v: &T) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

fn print_elo(t: &elo::Tally) {
    match t.elo() {
        Some(e) => println!(
            "{} wins, {} losses, {} draws: Elo {:+.0} (95% [{:+.0}, {:+.0}])",
            t.wins, t.losses, t.draws, e.elo, e.lo, e.hi
        ),
        None => println!("no games"),
    }
}

fn play_evaluator(
    model: Option<&Path>,
    arch: &str,
    backend: &Backend,
    max_batch: usize,
) -> Result<Arc<dyn tengen::eval::Evaluator>, String> {
    match model {
        Some(p) => looping::evaluator(p, backend, max_batch),
        None => {
            let net = TrainNet::random(&parse_arch(arch)?, 1, &backend.device)
                .map_err(|e| e.to_string())?;
            let e = tengen::net::NetEvaluator::on(net.net, max_batch, backend)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(e))
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let choice: DeviceChoice = cli
        .device
        .parse()
        .map_err(|e: tengen::net::NetError| e.to_string())?;
    // Play (self-play, gates, matches) on the fast CPU path for `cpu`;
    // training on burn's device.
    let backend = tengen::net::device::backend(choice).map_err(|e| e.to_string())?;
    let device = backend.device.clone();
    match cli.cmd {
        Cmd::Selfplay {
            model,
            arch,
            out,
            sp,
        } => {
            let cfg = sp.config();
            cfg.check()?;
            let eval = play_evaluator(
                model.as_deref(),
                &arch,
                &backend,
                cfg.parallel * cfg.batch_size,
            )?;
            let b = bar(cfg.games as u64, "selfplay");
            let s = selfplay::run(&cfg, eval, &out, 0, &b)?;
            b.finish();
            print_json(&s);
            println!(
                "{:.1} games/hour, {:.1} moves/s",
                s.games as f64 * 3600.0 / s.seconds.max(1e-9),
                s.moves as f64 / s.seconds.max(1e-9)
            );
        }
        Cmd::Train {
            data,
            val,
            out,
            init,
            arch,
            tr,
        } => {
            let init = match init {
                Some(p) => Init::Model(p),
                None => Init::Fresh(parse_arch(&arch)?),
            };
            let b = bar(0, "train");
            let s = train::run(
                &tr.config(),
                &data,
                val.as_deref(),
                &out,
                &init,
                &device,
                &b,
            )?;
            b.finish();
            print_json(&s);
        }
        Cmd::Sl {
            sgf,
            out,
            arch,
            samples_per_shard,
            val_every,
            init,
            no_policy_for,
            tr,
        } => {
            let (data, val) = (out.join("data"), out.join("val"));
            // A resumed run keeps the shards it made: converting again
            // would add the same games twice.
            if shard::list(&data).map_err(|e| e.to_string())?.is_empty() {
                let s = sl::convert(
                    &sgf,
                    &data,
                    &val,
                    val_every,
                    samples_per_shard,
                    &no_policy_for,
                )?;
                print_json(&s);
            } else {
                println!("using the shards already in {}", data.display());
            }
            let b = bar(0, "train");
            let init = match init {
                Some(p) => Init::Model(p),
                None => Init::Fresh(parse_arch(&arch)?),
            };
            let val_dir = val.exists().then_some(val.as_path());
            let t = train::run(
                &tr.config(),
                &data,
                val_dir,
                &out.join("train"),
                &init,
                &device,
                &b,
            )?;
            b.finish();
            print_json(&t);
        }
        Cmd::SlStream {
            data,
            out,
            arch,
            init,
            s,
        } => {
            let cfg = s.config(&data)?;
            let init = match init {
                Some(p) => Init::Model(p),
                None => Init::Fresh(parse_arch(&arch)?),
            };
            let t = tengen_train::human::run::run(&cfg, &out, &init, &device)?;
            print_json(&t);
        }
        Cmd::Gate {
            candidate,
            best,
            models,
            m,
        } => {
            m.check()?;
            let mut a = Tengen::new(
                "candidate",
                looping::evaluator(&candidate, &backend, m.max_batch())?,
                m.search(),
                m.limits(),
            );
            let mut b_ = Tengen::new(
                "best",
                looping::evaluator(&best, &backend, m.max_batch())?,
                m.search(),
                m.limits(),
            );
            let mut cfg = m.series();
            cfg.sprt.get_or_insert((0.0, 35.0));
            let pb = bar(cfg.games as u64, "gate");
            let t = series(&cfg, &mut a, &mut b_, |_, _, _| pb.inc(1))?;
            pb.finish();
            print_elo(&t);
            if t.wins + t.draws / 2 >= t.losses.max(1) {
                let bytes = std::fs::read(&candidate)
                    .map_err(|e| format!("{}: {e}", candidate.display()))?;
                tengen_train::util::write_atomic(&models.join("best.safetensors"), &bytes)
                    .map_err(|e| e.to_string())?;
                println!(
                    "promoted {} to {}",
                    candidate.display(),
                    models.join("best.safetensors").display()
                );
            } else {
                println!("kept the best net");
            }
        }
        Cmd::Plot { metrics, out } => {
            tengen_train::metrics::plot_training(&metrics, &out)?;
            println!("plotted {} to {}", metrics.display(), out.display());
        }
        Cmd::Export { checkpoint, out } => {
            let file = if checkpoint.is_dir() {
                checkpoint.join("net.safetensors")
            } else {
                checkpoint
            };
            let net =
                TrainNet::read(&file, &device).map_err(|e| format!("{}: {e}", file.display()))?;
            net.export(&out)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            println!("exported {} to {}", file.display(), out.display());
        }
        Cmd::Match {
            model,
            opponent,
            opponent_search_param,
            timeout,
            m,
        } => {
            m.check()?;
            let mut opponent_search = m.search();
            tengen::search::params::apply(&mut opponent_search, &opponent_search_param)?;
            let mut pairs = Vec::new();
            for _ in 0..m.parallel {
                let a = Tengen::new(
                    "tengen",
                    looping::evaluator(&model, &backend, m.max_batch())?,
                    m.search(),
                    m.limits(),
                );
                let o: Box<dyn Player + Send> = match opponent.strip_prefix("net:") {
                    Some(path) => Box::new(Tengen::new(
                        "opponent",
                        looping::evaluator(Path::new(path), &backend, m.max_batch())?,
                        opponent_search.clone(),
                        m.limits(),
                    )),
                    None => Box::new(GtpPlayer::start(
                        &opponent,
                        Duration::from_secs(timeout.max(1)),
                    )?),
                };
                pairs.push((a, o));
            }
            let cfg = m.series();
            let pb = bar(cfg.games as u64, "match");
            let mut disputed = 0;
            let (t, players) = series_parallel(&cfg, pairs, |i, r, _| {
                pb.inc(1);
                if let Some(n) = &r.note {
                    pb.println(format!("game {i}: {n}"));
                }
                disputed += usize::from(r.disputed);
            })?;
            pb.finish();
            print_elo(&t);
            if disputed > 0 {
                println!(
                    "{disputed} games were disputed: the opponent's own count names another winner \
                     than the referee's, which counts stones left on the board as alive unless \
                     they stand in pass-alive area (give GNU Go --capture-all-dead)"
                );
            }
            let mut think = ThinkStats::default();
            for (a, _) in &players {
                think.merge(&a.stats);
            }
            println!(
                "tengen thought {:.3} s per move on average, {:.3} s at most ({} moves)",
                think.mean_secs(),
                think.longest.as_secs_f64(),
                think.moves
            );
        }
        Cmd::KomiCurve {
            model,
            size,
            from,
            to,
            step,
            rules,
            record,
            generation,
            check,
        } => {
            let rules = tengen::rules::Ruleset::from_name(&rules)
                .ok_or_else(|| format!("unknown ruleset {rules:?}"))?;
            if !(step > 0.0 && from <= to && (to - from) / step <= 10_000.0) {
                return Err("need --step > 0 and --from <= --to (at most 10,000 points)".into());
            }
            if !(2..=19).contains(&size) {
                return Err("--size must be 2..=19".into());
            }
            let n = ((to - from) / step).round() as usize;
            let komis: Vec<f32> = (0..=n).map(|i| from + i as f32 * step).collect();
            let eval = looping::evaluator(&model, &backend, 64)?;
            if check {
                use tengen::eval::komi_curve::{check_all, standard_cases, table};
                let results = check_all(&*eval, &standard_cases())?;
                print!("{}", table(&results));
                return Ok(());
            }
            let pts = tengen_train::komi_curve::curve(&eval, size, rules, &komis)?;
            if let Some(csv) = &record {
                tengen_train::komi_curve::record(&eval, size, generation, csv)?;
            }
            println!("komi,white_lead,white_winrate");
            for p in &pts {
                println!("{},{:.3},{:.4}", p.komi, p.white_lead, p.white_win);
            }
            println!(
                "# lead falls at {} of {} steps (by > 0.1 point); slope {:.3} points of lead per point of komi",
                tengen_train::komi_curve::falls(&pts, 0.1),
                pts.len().saturating_sub(1),
                tengen_train::komi_curve::slope(&pts)
            );
        }
        Cmd::Anchor {
            root,
            model,
            generation,
            selfplay_hours,
            selfplay_games,
            size,
            an,
        } => {
            let cfg = an
                .config(size)?
                .ok_or("give at least one --anchor NAME=net:PATH or NAME=gtp:COMMAND")?;
            let have = tengen_train::anchors::read(&root.join("anchors.csv"));
            let same = have.iter().find(|r| r.generation == generation);
            let at = tengen_train::anchors::Progress {
                generation,
                selfplay_hours: selfplay_hours
                    .or(same.map(|r| r.selfplay_hours))
                    .unwrap_or(0.0),
                games: selfplay_games.or(same.map(|r| r.games)).unwrap_or(0),
            };
            let pb = bar(cfg.games as u64 * cfg.anchors.len() as u64, "anchors");
            let rows =
                tengen_train::anchors::measure(&cfg, &model, &backend, at, &root, |_, _| {
                    pb.inc(1)
                })?;
            pb.finish();
            for r in rows {
                println!("{}", r.describe());
            }
        }
        Cmd::Loop {
            root,
            arch,
            games_per_gen,
            steps_per_gen,
            gate_games,
            gate_visits,
            generations,
            until_generation,
            init,
            gate_komi,
            an,
            sp,
            tr,
        } => {
            let sp = sp.config();
            let anchors = an.config(sp.max_size)?;
            let cfg = LoopConfig {
                max_batch: sp.parallel * sp.batch_size,
                selfplay: sp,
                train: tr.config(),
                steps_per_gen,
                games_per_gen,
                gate_games,
                gate_visits,
                gate_komi,
                generations,
                until: until_generation,
                arch: parse_arch(&arch)?,
                init,
                backend: backend.clone(),
                anchors,
            };
            cfg.selfplay.check()?;
            let s = looping::run(&cfg, &root)?;
            print_json(&s);
        }
    }
    Ok(())
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("tengen-train: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn match_args(extra: &[&str]) -> MatchArgs {
        let mut argv = vec!["tengen-train", "match", "--model", "m", "--opponent", "o"];
        argv.extend_from_slice(extra);
        match Cli::try_parse_from(argv).expect("arguments parse").cmd {
            Cmd::Match { m, .. } => m,
            _ => unreachable!("parsed as match"),
        }
    }

    #[test]
    fn match_batch_reaches_the_search_and_the_evaluator() {
        let m = match_args(&[]);
        assert_eq!(m.search().batch_size, 8);
        let m = match_args(&["--batch", "2", "--threads", "4"]);
        assert!(m.check().is_ok());
        assert_eq!(m.search().batch_size, 2);
        assert_eq!(m.max_batch(), 16);
        let m = match_args(&["--batch", "64", "--threads", "2"]);
        assert_eq!(m.max_batch(), 128);
    }

    #[test]
    fn match_rejects_a_batch_of_zero() {
        let err = match_args(&["--batch", "0"]).check().unwrap_err();
        assert!(err.contains("--batch"), "{err}");
    }
}
