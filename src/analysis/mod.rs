//! `tengen analysis`: a JSON analysis engine speaking KataGo's analysis
//! protocol (`docs/Analysis_Engine.md` in KataGo), so tools written for
//! KataGo (KaTrain, review scripts, web boards) can use tengen.
//!
//! # Protocol
//! One JSON query per input line; one JSON object per output line. A query
//! names a game (`moves`, `initialStones`, `rules`, `komi`, board size)
//! and the turns to analyse (`analyzeTurns`, default: the last); each turn
//! gets exactly one final response (`isDuringSearch: false`), preceded by
//! progress responses when `reportDuringSearchEvery` is given. Responses
//! may come out of order; each carries its query `id` and `turnNumber`.
//! Actions: `query_version`, `query_models`, `clear_cache`, `terminate`,
//! `terminate_all` (echoed back). A bad query gets KataGo's error line
//! (`{"id","field","error"}`, or `{"error"}` when no id can be read) and
//! the engine goes on; warnings (`{"id","field","warning"}`) do not stop
//! the query. Values are from `reportAnalysisWinratesAs`'s view (config
//! default Black, per query through `overrideSettings`).
//!
//! # Concurrency
//! [`run`] reads input on the caller's thread and analyses on
//! `config.workers` worker threads, highest `priority` first (ties: the
//! earlier query), each running its own [`Search`](crate::search::Search).
//! All searches share one [`BatchingEvaluator`], so the evaluator sees
//! batches gathered across queries. At end of input the queued work is
//! finished before `run` returns. Nothing here panics on input; a panic
//! inside one turn's search is reported as that turn's error.
//!
//! # Differences from KataGo
//! Square boards from 2 to 19 only; area scoring only (territory rules
//! are mapped with a warning, see [`rules`]); `scoreStdev` and
//! `ownershipStdev` are the spread over the search's visits (no net here
//! has a score-uncertainty head), no per-move ownership stdev or
//! no-result fields; `wideRootNoise` flattens the root priors (see
//! `SearchConfig::wide_root_noise`); `playoutDoublingAdvantage`,
//! `antiMirror` and other settings tengen cannot honour draw a warning
//! that says so; `avoidMoves`/`allowMoves` zero the barred moves' priors
//! ([`filter`]); `includeMovesOwnership` reports the evaluator's ownership
//! after each move rather than a subtree average.

pub mod batching;
pub mod filter;
pub mod query;
pub mod response;
pub mod rules;
mod server;

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

pub use batching::BatchingEvaluator;

use crate::eval::Evaluator;
use crate::search::SearchConfig;

/// Whose view reported values take (`reportAnalysisWinratesAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    Black,
    White,
    SideToMove,
}

impl Perspective {
    /// `BLACK`, `WHITE` or `SIDETOMOVE` (any case; `B`/`W` too).
    pub fn parse(s: &str) -> Option<Perspective> {
        match s.trim().to_ascii_uppercase().as_str() {
            "BLACK" | "B" => Some(Perspective::Black),
            "WHITE" | "W" => Some(Perspective::White),
            "SIDETOMOVE" => Some(Perspective::SideToMove),
            _ => None,
        }
    }
}

/// Engine-wide settings (the analysis config file's role in KataGo);
/// queries override some of them.
#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// Positions analysed at once (KataGo's `numAnalysisThreads`).
    pub workers: usize,
    /// Visits per turn unless the query says otherwise.
    pub max_visits: u64,
    /// Time per turn unless the query says otherwise (`None`: no limit).
    pub max_time: Option<Duration>,
    pub perspective: Perspective,
    /// Moves after the first in each reported PV (`analysisPVLen`).
    pub pv_len: usize,
    /// The search settings of each worker (`threads` is per worker).
    pub search: SearchConfig,
    /// Longest a leaf waits for other queries' leaves to share a batch.
    pub batch_timeout: Duration,
    /// What `query_version` reports.
    pub version: String,
}

impl Default for AnalysisConfig {
    /// KataGo's analysis example config where it matters: 500 visits,
    /// Black's perspective, PVs of 15 moves; one search thread per worker.
    fn default() -> AnalysisConfig {
        AnalysisConfig {
            workers: 4,
            max_visits: 500,
            max_time: None,
            perspective: Perspective::Black,
            pv_len: 15,
            search: SearchConfig {
                threads: 1,
                ..SearchConfig::default()
            },
            batch_timeout: Duration::from_millis(2),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// Runs the analysis engine: reads queries from `input` until it ends,
/// writes responses to `output`, and returns once every accepted turn has
/// been answered. Errors: reading `input` or writing `output` failed (the
/// engine stops reading then; queued turns are still finished).
pub fn run(
    config: AnalysisConfig,
    evaluator: Arc<dyn Evaluator>,
    input: impl BufRead,
    output: impl Write + Send,
) -> io::Result<()> {
    server::serve(config, evaluator, input, output)
}
