//! `tengen-train`'s command line: the subcommands and their settings,
//! and how each set of settings becomes the library's config structs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tengen::search::Limits;
use tengen_train::arena::SeriesConfig;
use tengen_train::selfplay::SelfplayConfig;
use tengen_train::train::data::{KomiShift, RulesMix};
use tengen_train::train::TrainConfig;

#[derive(Parser)]
#[command(
    name = "tengen-train",
    version,
    about = "Train tengen's nets: self-play, training, gating, matches"
)]
pub(crate) struct Cli {
    /// cpu (play on the fast CPU path, train on burn flex), cpu-burn
    /// (both on burn flex) or wgpu (GPU builds).
    #[arg(long, global = true, default_value = "cpu")]
    pub(crate) device: String,
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
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
    /// Move prediction and value accuracy of any net (tengen's or a
    /// KataGo model) on a fixed subset of gzip SGF collections: the
    /// numbers `sl-stream` reports at its checkpoints, for any model and
    /// any split (the same settings pick the same positions).
    SlEval {
        /// The net: tengen's .safetensors or a KataGo .bin.gz.
        #[arg(long)]
        model: PathBuf,
        /// Folder of the *.sgfs.gz collections, read in place.
        #[arg(long, default_value = "../shared/datasets/human-19x19/")]
        data: PathBuf,
        /// Read the collections whose file name contains this (`-val`,
        /// `-test`, `tom-9d-val`, ...).
        #[arg(long, default_value = "-val")]
        split: String,
        /// Games, spread over the files...
        #[arg(long, default_value_t = 150)]
        games: usize,
        /// ...and one in this many of their positions.
        #[arg(long, default_value_t = 10)]
        every: usize,
        /// Move-prediction targets only from players of this rank or
        /// stronger (`none`: every player), as `sl-stream --min-rank`.
        #[arg(long, default_value = "6d")]
        min_rank: String,
        #[arg(long, default_value_t = 19)]
        size: usize,
        /// Positions per net call.
        #[arg(long, default_value_t = 64)]
        batch: usize,
        /// Ownership labels (`ownership-labels`), to measure the ownership
        /// loss on the labelled games too.
        #[arg(long)]
        ownership_labels: Option<PathBuf>,
    },
    /// Ownership targets for counted human games: the final position's
    /// dead stones by a net's ownership, kept only where the area count
    /// then gives the margin the record names (gzip text, one game a
    /// line; see `training/src/human/labels.rs`).
    OwnershipLabels {
        /// The judging net (tengen's .safetensors or a KataGo .bin.gz;
        /// never use KataGo's for training data).
        #[arg(long)]
        model: PathBuf,
        /// Folder of the *.sgfs.gz collections, read in place.
        #[arg(long, default_value = "../shared/datasets/human-19x19/")]
        data: PathBuf,
        /// Label the collections whose file name contains this (all by
        /// default).
        #[arg(long, default_value = ".sgfs.gz")]
        split: String,
        /// The labels file to write.
        #[arg(long)]
        out: PathBuf,
        /// The largest difference, in points, between the count and the
        /// recorded margin.
        #[arg(long, default_value_t = 1.0)]
        tolerance: f32,
        #[arg(long, default_value_t = 19)]
        size: usize,
        /// Games per net call.
        #[arg(long, default_value_t = 32)]
        batch: usize,
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
    /// Training speed: optimizer steps of a random net on synthetic
    /// batches, the 3x3 convolutions on the fast path's kernels and on
    /// burn's, side by side (nothing is saved).
    BenchTrain {
        #[arg(long, default_value = "b6c64")]
        arch: String,
        /// Board sizes, comma-separated.
        #[arg(long, default_value = "9,19", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Convolution routes to time, comma-separated: fast (the fast
        /// path's kernels) and burn (burn's own).
        #[arg(long, default_value = "fast,burn", value_delimiter = ',')]
        convs: Vec<String>,
        #[arg(long, default_value_t = 128)]
        batch: usize,
        /// Timed steps per configuration (after two untimed ones).
        #[arg(long, default_value_t = 8)]
        steps: usize,
    },
    /// Blend two nets of one architecture, (1 − t)·A + t·B tensor by
    /// tensor (a model soup), e.g. a fine-tune with the net it started
    /// from.
    Blend {
        #[arg(long)]
        a: PathBuf,
        #[arg(long)]
        b: PathBuf,
        /// The weight of B: 0 gives A, 1 gives B.
        #[arg(long)]
        t: f32,
        #[arg(long)]
        out: PathBuf,
    },
    /// Make a net read situational superko (AGA, New Zealand) exactly as
    /// positional superko: no training target tells the two apart, so
    /// what a net learned from the difference is noise (see
    /// `tengen_train::edit::fold_situational_ko`).
    FoldKoRule {
        #[arg(long)]
        model: PathBuf,
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
        /// Instead of the curve, the mean slope of the lead against komi
        /// (over --from..--to by --step, under --rules) at move numbers
        /// --at of the even games of this gzip SGF collection.
        #[arg(long)]
        games_from: Option<PathBuf>,
        /// How many games of --games-from.
        #[arg(long, default_value_t = 40)]
        games: usize,
        /// Move numbers (positions before that many moves), comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "0,1,10,30,60,100,150")]
        at: Vec<usize>,
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
pub(crate) struct AnchorArgs {
    /// A fixed opponent for every promoted net: NAME=net:PATH or
    /// NAME=gtp:COMMAND (repeatable), e.g.
    /// "gnugo10=gtp:/usr/games/gnugo --mode gtp --level 10 --capture-all-dead".
    #[arg(long = "anchor", value_name = "NAME=KIND:WHAT")]
    pub(crate) anchors: Vec<String>,
    /// Games against each anchor (komi alternating by pairs).
    #[arg(long, default_value_t = 20)]
    pub(crate) anchor_games: u32,
    #[arg(long, default_value_t = 100)]
    pub(crate) anchor_visits: u64,
    #[arg(
        long,
        default_value = "5.5,7",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub(crate) anchor_komi: Vec<f32>,
    /// Anchor games played at once.
    #[arg(long, default_value_t = 2)]
    pub(crate) anchor_parallel: usize,
}

impl AnchorArgs {
    /// The anchors' settings on `size` boards; None without anchors.
    pub(crate) fn config(
        &self,
        size: usize,
    ) -> Result<Option<tengen_train::anchors::AnchorConfig>, String> {
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
pub(crate) enum RootSearch {
    Gumbel,
    Puct,
}

#[derive(Args, Clone)]
pub(crate) struct SpArgs {
    #[arg(long, default_value_t = 16)]
    pub(crate) games: usize,
    #[arg(long, default_value_t = 16)]
    pub(crate) parallel: usize,
    /// Root search of the full searches: gumbel (Gumbel AlphaZero's
    /// sequential halving, the default: more Elo per self-play hour in
    /// training/runs/9x9-rl-*) or puct (KataGo's playout cap).
    #[arg(long, value_enum, default_value_t = RootSearch::Gumbel)]
    pub(crate) root_search: RootSearch,
    /// Visits of a full search [default: 32 gumbel, 200 puct].
    #[arg(long)]
    pub(crate) visits_full: Option<u64>,
    /// Visits of a fast search (no policy target).
    #[arg(long, default_value_t = 40)]
    pub(crate) visits_fast: u64,
    /// Share of moves searched in full [default: 1 gumbel, 0.25 puct].
    #[arg(long)]
    pub(crate) full_prob: Option<f32>,
    #[arg(long, default_value_t = 9)]
    pub(crate) min_size: usize,
    #[arg(long, default_value_t = 9)]
    pub(crate) max_size: usize,
    /// Komi range (every drawn komi is clamped to it).
    #[arg(long, default_value_t = -10.0, allow_negative_numbers = true)]
    pub(crate) min_komi: f32,
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pub(crate) max_komi: f32,
    /// Normal spread of komi around the fair komi (7 area, 6 territory).
    #[arg(long, default_value_t = 3.0)]
    pub(crate) komi_stdev: f32,
    /// Share of games with komi uniform over the range.
    #[arg(long, default_value_t = 0.25)]
    pub(crate) komi_wide: f32,
    /// Share of games with a whole-point komi (the rest: x.5).
    #[arg(long, default_value_t = 0.5)]
    pub(crate) komi_integer: f32,
    /// Share of games under Japanese rules (territory scoring).
    #[arg(long, default_value_t = 0.25)]
    pub(crate) territory_prob: f32,
    /// Share of the area-scored games under Tromp-Taylor, New Zealand or
    /// AGA rules (a third each) instead of Chinese.
    #[arg(long, default_value_t = 0.25)]
    pub(crate) area_variants: f32,
    /// Share of games opening with 1-4 moves from the raw policy.
    #[arg(long, default_value_t = 0.3)]
    pub(crate) opening_prob: f32,
    /// Winrate below which a player resigns (negative: never).
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true)]
    pub(crate) resign: f32,
    #[arg(long, default_value_t = 0.1)]
    pub(crate) resign_check: f32,
    /// Play a decided game out with plain searches of this many visits
    /// (no policy targets) instead of resigning; 0: resign.
    #[arg(long, default_value_t = 8)]
    pub(crate) decided_visits: u32,
    #[arg(long, default_value_t = 16)]
    pub(crate) games_per_shard: usize,
    #[arg(long, default_value_t = 1)]
    pub(crate) sp_seed: u64,
    /// Evaluator queues at once (the games split among them): one per
    /// core to use all cores.
    #[arg(long, default_value_t = 1)]
    pub(crate) eval_lanes: usize,
    /// Moves a Gumbel root search samples (with --root-search gumbel).
    #[arg(long, default_value_t = 16)]
    pub(crate) gumbel_m: usize,
    /// The Gumbel search's c_scale (mctx's 0.1; the paper's 1.0 gives
    /// nearly one-hot targets).
    #[arg(long, default_value_t = 0.1)]
    pub(crate) gumbel_c_scale: f32,
    /// Dynamic score utility of the self-play search (KataGo's
    /// dynamicScoreUtilityFactor; 0: off).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) dynamic_score_utility: f32,
    /// Least share of decided positions (root winrate beyond 5-95%) that
    /// keep their policy target, reached at winrate 0 or 1 (KataGo's
    /// reducedVisitsWeight, 0.1; 1: all keep it).
    #[arg(long, default_value_t = 1.0, value_parser = share)]
    pub(crate) decided_policy_weight: f32,
}

impl SpArgs {
    pub(crate) fn config(&self) -> SelfplayConfig {
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
            area_variants: self.area_variants,
            opening_prob: self.opening_prob,
            resign_threshold: (self.resign >= 0.0).then_some(self.resign),
            resign_check_fraction: self.resign_check,
            decided_visits: self.decided_visits,
            games_per_shard: self.games_per_shard,
            seed: self.sp_seed,
            eval_lanes: self.eval_lanes.clamp(1, 64),
            gumbel_m: (self.root_search == RootSearch::Gumbel).then_some(self.gumbel_m),
            gumbel_c_scale: self.gumbel_c_scale,
            dynamic_score_utility: self.dynamic_score_utility,
            decided_policy_weight: self.decided_policy_weight,
            ..SelfplayConfig::default()
        }
    }
}

#[derive(Args, Clone)]
pub(crate) struct TrArgs {
    /// Train until this many steps in total.
    #[arg(long, default_value_t = 100)]
    pub(crate) steps: u64,
    #[arg(long, default_value_t = 64)]
    pub(crate) batch: usize,
    #[arg(long, default_value_t = 1e-3)]
    pub(crate) lr: f32,
    #[arg(long, default_value_t = 50)]
    pub(crate) window: usize,
    #[arg(long, default_value_t = 50)]
    pub(crate) checkpoint_every: u64,
    #[arg(long)]
    pub(crate) no_augment: bool,
    #[arg(long, default_value_t = 20)]
    pub(crate) val_batches: usize,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Fall linearly from --lr to this by the last step.
    #[arg(long)]
    pub(crate) lr_end: Option<f32>,
    /// Multiplier of the score loss (1: its weight in the loss docs).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) score_weight: f32,
    /// Multiplier of the ownership loss.
    #[arg(long, default_value_t = 1.0)]
    pub(crate) ownership_weight: f32,
    /// Komi augmentation: this share of the counted samples drawn is seen
    /// at another komi, with the score and outcome that komi gives the
    /// same final board (0: off).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) komi_shift: f32,
    /// The shifted samples' komi, from the player to move's view, is
    /// drawn from the whole and half points in -MAX..=MAX, the same way
    /// for both colours (so the komi input does not tell whose turn it
    /// is). Loops and runs saved before this shifted by up to MAX from
    /// each game's own komi, and resume that way.
    #[arg(long, default_value_t = 12.0, value_parser = komi_points)]
    pub(crate) komi_shift_max: f32,
    /// Rules augmentation: this share of the samples drawn is shown under
    /// a ko rule and a suicide rule at least as permissive as its game's
    /// (drawn uniformly; targets unchanged), so the net sees Tromp-Taylor
    /// and AGA inputs too (0: off).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) rules_mix: f32,
    /// This share of the area-scored samples before the endgame (stones
    /// on fewer than half the points) is shown under Japanese rules for
    /// its move targets only (value, score and ownership dropped), so the
    /// policy sees territory-scoring inputs beyond the territory games
    /// (0: off).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) territory_mix: f32,
    /// This share of each batch is drawn from opening positions (at most
    /// 3 stones on the board), the rest from all positions: more draws of
    /// the empty board under each komi and rules of the two mixes (0: the
    /// positions' own frequency).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) opening_share: f32,
    /// Every counted game's first position (the empty board) learns the
    /// mean board margin of all of them, at its own komi, as its score
    /// target instead of its own game's margin (its value target stays).
    #[arg(long)]
    pub(crate) pool_first_margins: bool,
    /// Train only the value head (value, score, ownership): the trunk and
    /// the policy head keep --init's weights, so the policy is unchanged
    /// (a new run only; a resumed run keeps its checkpoint's).
    #[arg(long)]
    pub(crate) value_head_only: bool,
    /// Train only the heads (policy, value and auxiliary): the stem and
    /// trunk keep --init's weights (a new run only; a resumed run keeps
    /// its checkpoint's).
    #[arg(long, conflicts_with = "value_head_only")]
    pub(crate) heads_only: bool,
    /// Positions with fewer stones than this on the board lose the pass's
    /// share of their policy target (renormalised; dropped where it was
    /// all pass): passes of games that komi had decided (0: off; a
    /// resumed run keeps its checkpoint's).
    #[arg(long, default_value_t = 0)]
    pub(crate) opening_pass_stones: u32,
}

/// A number within `lo..=hi`, or an error that names the range.
fn number_in(s: &str, lo: f32, hi: f32) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|e| format!("{e}"))?;
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside {lo}..={hi}"))
    }
}

fn share(s: &str) -> Result<f32, String> {
    number_in(s, 0.0, 1.0)
}

fn komi_points(s: &str) -> Result<f32, String> {
    number_in(s, 0.5, 40.0)
}

impl TrArgs {
    pub(crate) fn config(&self) -> TrainConfig {
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
            komi_shift: KomiShift::from_flags(self.komi_shift, self.komi_shift_max),
            rules_mix: RulesMix::from_flags(self.rules_mix, self.territory_mix),
            opening_share: self.opening_share,
            pool_first_margins: self.pool_first_margins,
            value_head_only: self.value_head_only,
            heads_only: self.heads_only,
            opening_pass_stones: self.opening_pass_stones,
        }
    }
}

#[derive(Args, Clone)]
pub(crate) struct StreamArgs {
    #[arg(long, default_value_t = 19)]
    pub(crate) size: usize,
    /// Policy targets only from moves of players ranked at least this
    /// (BR/WR, e.g. 6d; an unknown rank does not qualify).
    #[arg(long)]
    pub(crate) min_rank: Option<String>,
    /// Moves by this player (PB/PW) are no policy target; repeatable.
    #[arg(long, value_name = "NAME")]
    pub(crate) no_policy_for: Vec<String>,
    /// Count +Time results as value targets (default: no value target).
    #[arg(long)]
    pub(crate) time_value: bool,
    /// Probability of keeping each position of a game [default: 0.5]. On
    /// resume, given: from the start of the next window on; not given: the
    /// checkpoint's.
    #[arg(long)]
    pub(crate) keep: Option<f64>,
    /// Games per shuffle window.
    #[arg(long, default_value_t = 2000)]
    pub(crate) window_games: usize,
    #[arg(long, default_value_t = 128)]
    pub(crate) batch: usize,
    #[arg(long, default_value_t = 1e-3)]
    pub(crate) lr: f32,
    /// Fall linearly from --lr to this by the last step.
    #[arg(long)]
    pub(crate) lr_end: Option<f32>,
    /// Train until this many steps in total.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) steps: u64,
    /// Checkpoint and validate after this many minutes of training.
    #[arg(long, default_value_t = 10.0)]
    pub(crate) checkpoint_minutes: f64,
    /// Also every this many steps (0: by time only).
    #[arg(long, default_value_t = 0)]
    pub(crate) checkpoint_every: u64,
    /// Val subset: games, spread over the val files...
    #[arg(long, default_value_t = 200)]
    pub(crate) val_games: usize,
    /// ...and one in this many of their positions.
    #[arg(long, default_value_t = 10)]
    pub(crate) val_every: usize,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    #[arg(long)]
    pub(crate) no_augment: bool,
    /// Komi augmentation, as for `train`: this share of the positions of
    /// counted games (a numeric result) is seen at another komi (0: off)
    /// [default: 0]. On resume, given: takes effect; not given: the
    /// checkpoint's.
    #[arg(long, value_parser = share)]
    pub(crate) komi_shift: Option<f32>,
    /// The shifted positions' komi is drawn from -MAX..=MAX points (as
    /// for `train`); on resume, given with --komi-shift: takes effect.
    #[arg(long, default_value_t = 12.0, value_parser = komi_points)]
    pub(crate) komi_shift_max: f32,
    /// Share of the drawn positions of uncounted games (resignations, time
    /// losses) shown at the drawn komi for their move targets only, value
    /// dropped, so that their komi does not hint whose turn it is (with
    /// --komi-shift; default 0).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) komi_shift_uncounted: f32,
    /// Share of the positions of uncounted games left at their game's komi
    /// moved by −1, −½, 0 or +½ points instead, value target kept, so that
    /// area scoring's parity wave (period two points) does not hint whose
    /// turn it is (with --komi-shift; default 0).
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    pub(crate) komi_shift_jitter: f32,
    /// Rules augmentation, as for `train` (0: off) [default: 0]. On
    /// resume, given: takes effect; not given: the checkpoint's.
    #[arg(long, value_parser = share)]
    pub(crate) rules_mix: Option<f32>,
    /// Multiplies the score loss's weight (the command line's on every
    /// start, like the learning rates).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) score_weight: f32,
    /// Batches prepared ahead of the trainer.
    #[arg(long, default_value_t = 16)]
    pub(crate) queue: usize,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 60.0)]
    pub(crate) progress_secs: f64,
    /// Ownership targets for the games this file labels (made by
    /// `tengen-train ownership-labels`); a new run only, a resumed run
    /// keeps its checkpoint's.
    #[arg(long)]
    pub(crate) ownership_labels: Option<PathBuf>,
    /// Stop with a checkpoint after this many steps in this process
    /// (measurements; the run resumes with the same command).
    #[arg(long)]
    pub(crate) stop_after: Option<u64>,
    /// Train only the value head (value, score, ownership): the trunk and
    /// the policy head keep --init's weights, so the policy is unchanged
    /// (a new run only; a resumed run keeps its checkpoint's).
    #[arg(long)]
    pub(crate) value_head_only: bool,
}

/// A `--min-rank` value (`6d`, `1p`, ...) on `parse_rank`'s scale.
pub(crate) fn min_rank_flag(r: &str) -> Result<i32, String> {
    tengen_train::human::record::parse_rank(r).ok_or_else(|| format!("bad --min-rank {r:?}"))
}

impl StreamArgs {
    pub(crate) fn config(
        &self,
        data: &Path,
    ) -> Result<tengen_train::human::run::HumanConfig, String> {
        use tengen_train::human::record::Options;
        let min_rank = self.min_rank.as_deref().map(min_rank_flag).transpose()?;
        Ok(tengen_train::human::run::HumanConfig {
            data: data.to_path_buf(),
            size: self.size,
            options: Options {
                min_rank,
                no_policy_for: self.no_policy_for.clone(),
                time_value: self.time_value,
                keep: self.keep.unwrap_or(0.5),
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
            komi_shift: KomiShift::from_flags(self.komi_shift.unwrap_or(0.0), self.komi_shift_max)
                .map(|k| {
                    k.with_uncounted(self.komi_shift_uncounted)
                        .with_jitter(self.komi_shift_jitter)
                }),
            rules_mix: RulesMix::from_flag(self.rules_mix.unwrap_or(0.0)),
            score_weight: self.score_weight,
            resume: tengen_train::human::run::ResumeOverrides {
                keep: self.keep.is_some(),
                komi_shift: self.komi_shift.is_some(),
                rules_mix: self.rules_mix.is_some(),
            },
            queue: self.queue,
            progress_secs: self.progress_secs,
            ownership_labels: self.ownership_labels.clone(),
            stop_after: self.stop_after,
            value_head_only: self.value_head_only,
        })
    }
}

#[derive(Args, Clone)]
pub(crate) struct MatchArgs {
    #[arg(long, default_value_t = 20)]
    pub(crate) games: u32,
    #[arg(long, default_value_t = 9)]
    pub(crate) size: usize,
    /// Komi; several (`5.5,7`) alternate by pairs of games, each pair
    /// one game with each colour.
    #[arg(
        long,
        default_value = "7",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub(crate) komi: Vec<f32>,
    /// Visits per tengen move [default: 100, or no cap with --move-time].
    #[arg(long)]
    pub(crate) visits: Option<u64>,
    /// Seconds per tengen move (a cap; with --visits, the first bound
    /// reached ends the search). The search uses all of it, as the engine
    /// does in GTP play and as KataGo does with `maxTime`, unless
    /// --early-stop.
    #[arg(long)]
    pub(crate) move_time: Option<f64>,
    /// With --move-time, stop a move's search once more time could not
    /// change its choice (time that is saved is not carried to later
    /// moves, so this only shortens games).
    #[arg(long)]
    pub(crate) early_stop: bool,
    /// Move-choice temperature for tengen's first --temp-moves moves.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) temperature: f32,
    #[arg(long, default_value_t = 0)]
    pub(crate) temp_moves: u32,
    /// Stop early by SPRT (H0: 0 Elo, H1: this many Elo).
    #[arg(long)]
    pub(crate) sprt_elo: Option<f64>,
    /// Folder for the games' SGF.
    #[arg(long)]
    pub(crate) sgf: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Search threads of each tengen player.
    #[arg(long, default_value_t = 1)]
    pub(crate) threads: usize,
    /// Leaves each tengen search sends to the net at once (more suit a GPU;
    /// on a CPU a small batch loses less to virtual loss).
    #[arg(long, default_value_t = 8)]
    pub(crate) batch: usize,
    /// Games played at once (each with its own tengen and opponent).
    #[arg(long, default_value_t = 1)]
    pub(crate) parallel: usize,
    /// tengen resigns when its winrate falls below this (default: never).
    #[arg(long)]
    pub(crate) resign: Option<f32>,
    /// Games end after this many moves and are counted as they stand
    /// (default: 3 × size²).
    #[arg(long)]
    pub(crate) max_moves: Option<usize>,
    /// A search parameter of the tengen player as KEY=VALUE, repeatable
    /// (the keys of `tengen gtp --search-param help`), e.g. to match two
    /// settings: this side against `tengen gtp` with the defaults.
    #[arg(long = "search-param", value_name = "KEY=VALUE")]
    pub(crate) search_param: Vec<String>,
}

impl MatchArgs {
    pub(crate) fn series(&self) -> SeriesConfig {
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
    pub(crate) fn search(&self) -> tengen::search::SearchConfig {
        let mut cfg = tengen::search::SearchConfig {
            temperature: self.temperature,
            temperature_moves: self.temp_moves,
            seed: self.seed,
            threads: self.threads.max(1),
            batch_size: self.batch,
            resign_threshold: self.resign,
            // Off unless asked: in an equal-time match the time a move
            // saves is lost (2026-12-03: with it on, tengen used 0.70 s of
            // its 1 s a move against KataGo's full second).
            early_stop: self.early_stop && self.move_time.is_some(),
            ..Default::default()
        };
        // Checked by `check` before any game starts.
        let _ = tengen::search::params::apply(&mut cfg, &self.search_param);
        cfg
    }
    /// The evaluator's largest batch: room for every thread's leaves.
    pub(crate) fn max_batch(&self) -> usize {
        (self.batch * self.threads).max(16)
    }
    /// Each tengen move's bounds: --visits and/or --move-time, 100 visits
    /// when neither is given.
    pub(crate) fn limits(&self) -> Limits {
        let time = self.move_time.map(Duration::from_secs_f64);
        Limits {
            visits: self
                .visits
                .or(if time.is_none() { Some(100) } else { None }),
            time,
            ..Limits::default()
        }
    }
    pub(crate) fn check(&self) -> Result<(), String> {
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
