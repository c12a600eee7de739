//! Streaming gzip SGF collections (one game tree per line) into batches,
//! off the training thread.
//!
//! # Order
//! An epoch reads every game of every file once. Its order interleaves
//! the files at random (each next game comes from a file drawn in
//! proportion to the games it has left; the generator is seeded by
//! (seed, epoch)), so a stretch of games mixes sources and years. The
//! epoch is cut into *windows* of `window_games` consecutive games; a
//! window's games are replayed, each position kept with probability
//! `keep`, and the kept positions shuffled (bounded memory: one window
//! being built, one queued, one being served). Batch `k` of a window is
//! its `k`-th slice of `batch` positions (a last partial slice is
//! dropped) under random symmetries.
//!
//! # Position and exact resume
//! Everything is a function of (seed, epoch, window, batch): a
//! [`StreamPos`] names a batch, and [`Stream::start`] from a position
//! yields exactly the batches a run that never stopped would have seen
//! next (it re-reads the epoch's lines up to the window, parsing only
//! that window's games).
//!
//! # Threads
//! A builder thread parses and replays games into windows; a batcher
//! thread expands packed positions into batches; both hand over through
//! bounded channels, so the training thread only receives ready batches.
//! Malformed records are skipped and counted by reason ([`Skip`]); a file
//! that cannot be read to its end (a damaged gzip stream) counts as one
//! `ReadError` and is used up to the damage, the other files going on.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use flate2::read::MultiGzDecoder;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use tengen::features::v7;
use tengen::rules::Symmetry;
use tengen::sgf::GameRecord;

use super::labels::Labels;
use super::packed::Packed;
use super::record::{game_samples, Options, Skip};
use crate::train::data::{
    jitter_komi_uncounted, shift_komi_in_place, shift_komi_policy_only, vary_rules_in_place, Batch,
    KomiShift, RulesMix,
};
use crate::util::derive_seed;

/// `.sgfs.gz` files in `dir` whose name contains `part` (`-train-`,
/// `-val`), sorted.
pub fn collection_files(dir: &Path, part: &str) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.ends_with(".sgfs.gz") && n.contains(part)
            })
        })
        .collect();
    out.sort();
    if out.is_empty() {
        return Err(format!(
            "no *{part}*.sgfs.gz files in {} (see the dataset's README)",
            dir.display()
        ));
    }
    Ok(out)
}

/// A gzip collection read line by line (empty lines skipped).
struct Lines {
    reader: BufReader<MultiGzDecoder<File>>,
    path: PathBuf,
    line: u64,
}

impl Lines {
    fn open(path: &Path) -> Result<Lines, String> {
        let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Lines {
            reader: BufReader::with_capacity(1 << 16, MultiGzDecoder::new(f)),
            path: path.to_path_buf(),
            line: 0,
        })
    }

    /// The next non-empty line, `None` at the end. A broken gzip stream
    /// is an error (naming the file and line).
    fn next(&mut self) -> Result<Option<Vec<u8>>, String> {
        loop {
            let mut buf = Vec::new();
            let n = self
                .reader
                .read_until(b'\n', &mut buf)
                .map_err(|e| format!("{} after line {}: {e}", self.path.display(), self.line))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            if buf.iter().any(|b| !b.is_ascii_whitespace()) {
                return Ok(Some(buf));
            }
        }
    }
}

/// Games (non-empty lines) in a collection; a read error (damaged gzip)
/// ends the count there, with a message. A file that cannot be opened is
/// an error.
pub fn count_games(path: &Path) -> Result<u64, String> {
    count_readable(path).map(|(n, _)| n)
}

/// The readable games of a file and whether a read error cut it short.
fn count_readable(path: &Path) -> Result<(u64, bool), String> {
    let mut l = Lines::open(path)?;
    let mut n = 0;
    loop {
        match l.next() {
            Ok(Some(_)) => n += 1,
            Ok(None) => return Ok((n, false)),
            Err(e) => {
                eprintln!("{e}: using the {n} games before it");
                return Ok((n, true));
            }
        }
    }
}

/// Names a batch of the stream (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StreamPos {
    pub epoch: u64,
    pub window: u64,
    pub batch: u64,
}

/// What the builder has read so far (in this process).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct StreamStats {
    pub games: u64,
    pub samples: u64,
    /// Skipped records by reason.
    pub skipped: BTreeMap<String, u64>,
}

impl StreamStats {
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Stream settings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StreamConfig {
    pub files: Vec<PathBuf>,
    pub size: usize,
    pub options: Options,
    pub window_games: usize,
    pub batch: usize,
    pub augment: bool,
    /// Komi augmentation of the counted games' positions (`None`: off).
    #[serde(default)]
    pub komi_shift: Option<KomiShift>,
    /// Rules augmentation (`None`: off). Its draws come from a generator
    /// of their own, so turning it on leaves every symmetry and komi draw
    /// as it was.
    #[serde(default)]
    pub rules_mix: Option<RulesMix>,
    pub seed: u64,
    /// Batches queued ahead of the trainer.
    pub queue: usize,
    /// Ownership targets for labelled games ([`super::labels`]; `None`:
    /// none, as before labels existed).
    #[serde(default)]
    pub ownership_labels: Option<PathBuf>,
}

/// A batch and where it is in the stream.
pub struct StreamBatch {
    pub pos: StreamPos,
    pub batch: Batch,
    pub stats: StreamStats,
}

/// One epoch's reading state: the files and the interleaving generator.
struct EpochReader {
    files: Vec<Lines>,
    remaining: Vec<u64>,
    rng: StdRng,
    /// Games handed out this epoch.
    index: u64,
    /// Files cut short by a read error this epoch.
    read_errors: u64,
}

impl EpochReader {
    fn open(cfg: &StreamConfig, counts: &[u64], epoch: u64) -> Result<EpochReader, String> {
        Ok(EpochReader {
            files: cfg
                .files
                .iter()
                .map(|p| Lines::open(p))
                .collect::<Result<_, _>>()?,
            remaining: counts.to_vec(),
            rng: StdRng::seed_from_u64(derive_seed(cfg.seed, 21, epoch)),
            index: 0,
            read_errors: 0,
        })
    }

    /// The next game's line and where it is (file index, line number),
    /// `None` at the end of the epoch.
    fn next(&mut self) -> Result<Option<(Vec<u8>, usize, u64)>, String> {
        loop {
            let total: u64 = self.remaining.iter().sum();
            if total == 0 {
                return Ok(None);
            }
            let mut r = self.rng.random_range(0..total);
            let f = self
                .remaining
                .iter()
                .position(|&c| {
                    if r < c {
                        true
                    } else {
                        r -= c;
                        false
                    }
                })
                .unwrap_or(0);
            self.remaining[f] -= 1;
            match self.files[f].next() {
                Ok(Some(line)) => {
                    self.index += 1;
                    return Ok(Some((line, f, self.files[f].line)));
                }
                // The file is shorter than counted: it is done.
                Ok(None) => self.remaining[f] = 0,
                // A damaged file (e.g. truncated gzip): the rest of it is
                // lost, the other files go on.
                Err(e) => {
                    eprintln!("{e}: skipping the rest of this file");
                    self.read_errors += 1;
                    self.remaining[f] = 0;
                }
            }
        }
    }
}

/// A shuffled window of positions.
struct Window {
    epoch: u64,
    window: u64,
    samples: Vec<Packed>,
    stats: StreamStats,
}

fn window_seed(seed: u64, epoch: u64, window: u64) -> u64 {
    derive_seed(derive_seed(seed, 22, epoch), 23, window)
}

/// Builds windows from `start` on, forever (epochs repeat), until the
/// receiver hangs up.
fn build_windows(
    cfg: StreamConfig,
    start: StreamPos,
    tx: SyncSender<Result<Window, String>>,
) -> Result<(), String> {
    let counted: Vec<(u64, bool)> = cfg
        .files
        .iter()
        .map(|p| count_readable(p))
        .collect::<Result<_, _>>()?;
    let counts: Vec<u64> = counted.iter().map(|c| c.0).collect();
    let mut stats = StreamStats::default();
    let damaged = counted.iter().filter(|c| c.1).count() as u64;
    if damaged > 0 {
        stats.skipped.insert("ReadError".into(), damaged);
    }
    if counts.iter().sum::<u64>() == 0 {
        return Err("the training collections hold no games".into());
    }
    let labels = match &cfg.ownership_labels {
        Some(p) => Some(Labels::load(p)?),
        None => None,
    };
    let w = cfg.window_games.max(1) as u64;
    let (mut epoch, mut window) = (start.epoch, start.window);
    let mut reader = EpochReader::open(&cfg, &counts, epoch)?;
    let mut logged = 0;
    loop {
        // Skip to the window's first game (only after a resume).
        while reader.index < window * w {
            if reader.next()?.is_none() {
                break;
            }
        }
        let mut rng = StdRng::seed_from_u64(window_seed(cfg.seed, epoch, window));
        let mut samples = Vec::new();
        let mut games = 0;
        while games < w {
            let Some((line, f, line_no)) = reader.next()? else {
                break;
            };
            games += 1;
            stats.games += 1;
            let file = cfg.files[f].to_string_lossy();
            let own = labels.as_ref().and_then(|l| l.get(&file, line_no));
            let got = match GameRecord::from_bytes(&line) {
                Ok(rec) => game_samples(&rec, cfg.size, &cfg.options, own, &mut rng),
                Err(_) => Err(Skip::Parse),
            };
            match got {
                Ok(s) => {
                    stats.samples += s.len() as u64;
                    samples.extend(s);
                }
                Err(why) => {
                    *stats.skipped.entry(format!("{why:?}")).or_default() += 1;
                    if logged < 10 {
                        logged += 1;
                        eprintln!("skipping the game at {file}:{line_no}: {why:?}");
                    }
                }
            }
        }
        if reader.read_errors > 0 {
            *stats.skipped.entry("ReadError".into()).or_default() += reader.read_errors;
            reader.read_errors = 0;
        }
        if games == 0 {
            // The epoch is over.
            if window == 0 {
                return Err("an epoch without games".into());
            }
            epoch += 1;
            window = 0;
            reader = EpochReader::open(&cfg, &counts, epoch)?;
            continue;
        }
        samples.shuffle(&mut rng);
        let win = Window {
            epoch,
            window,
            samples,
            stats: stats.clone(),
        };
        if tx.send(Ok(win)).is_err() {
            return Ok(());
        }
        window += 1;
    }
}

/// Expands windows into batches, skipping those before `start`.
fn batch_windows(
    cfg: StreamConfig,
    start: StreamPos,
    rx: Receiver<Result<Window, String>>,
    tx: SyncSender<Result<StreamBatch, String>>,
) {
    let b = cfg.batch.max(1);
    for win in rx {
        let win = match win {
            Ok(w) => w,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let first = if (win.epoch, win.window) == (start.epoch, start.window) {
            start.batch as usize
        } else {
            0
        };
        let ws = window_seed(cfg.seed, win.epoch, win.window);
        for (k, chunk) in win.samples.chunks_exact(b).enumerate().skip(first) {
            let mut rng = StdRng::seed_from_u64(derive_seed(ws, 24, k as u64));
            let mut rules_rng = StdRng::seed_from_u64(derive_seed(ws, 25, k as u64));
            let mut uncounted_rng = StdRng::seed_from_u64(derive_seed(ws, 26, k as u64));
            let mut jitter_rng = StdRng::seed_from_u64(derive_seed(ws, 27, k as u64));
            let mut full: Vec<_> = chunk.iter().map(Packed::unpack).collect();
            let syms: Vec<Symmetry> = full
                .iter_mut()
                .map(|s| {
                    let sym = if cfg.augment {
                        Symmetry::ALL[rng.random_range(0..8)]
                    } else {
                        Symmetry::IDENTITY
                    };
                    let now = v7::self_komi(&s.global);
                    // Drawn for every sample from a generator of its own,
                    // so the other draws stay as they were.
                    let policy_only = uncounted_rng.random::<f32>();
                    let jitter = cfg.komi_shift.and_then(|k| k.jitter(&mut jitter_rng));
                    let moved = match cfg
                        .komi_shift
                        .and_then(|k| k.draw(now, &mut rng).map(|d| (k, d)))
                    {
                        Some((k, d)) => {
                            shift_komi_in_place(s, d)
                                || (policy_only < k.uncounted && {
                                    shift_komi_policy_only(s, d);
                                    true
                                })
                        }
                        None => false,
                    };
                    if let (false, Some(d)) = (moved, jitter) {
                        jitter_komi_uncounted(s, d);
                    }
                    if let Some((ko, suicide)) = cfg.rules_mix.and_then(|r| r.draw(&mut rules_rng))
                    {
                        vary_rules_in_place(s, ko, suicide);
                    }
                    sym
                })
                .collect();
            let rows: Vec<_> = full.iter().zip(syms).collect();
            let sb = StreamBatch {
                pos: StreamPos {
                    epoch: win.epoch,
                    window: win.window,
                    batch: k as u64,
                },
                batch: Batch::new(cfg.size, &rows),
                stats: win.stats.clone(),
            };
            if tx.send(Ok(sb)).is_err() {
                return;
            }
        }
    }
}

/// The running stream (see the module docs). Dropping it stops the
/// threads.
pub struct Stream {
    rx: Option<Receiver<Result<StreamBatch, String>>>,
    threads: Vec<JoinHandle<()>>,
}

impl Stream {
    /// Starts the stream at batch `start` (inclusive).
    pub fn start(cfg: &StreamConfig, start: StreamPos) -> Stream {
        let (wtx, wrx) = sync_channel(1);
        let (btx, brx) = sync_channel(cfg.queue.max(1));
        let c1 = cfg.clone();
        let builder = std::thread::Builder::new()
            .name("sl-windows".into())
            .spawn(move || {
                if let Err(e) = build_windows(c1, start, wtx.clone()) {
                    let _ = wtx.send(Err(e));
                }
            })
            .expect("spawning the window builder");
        let c2 = cfg.clone();
        let batcher = std::thread::Builder::new()
            .name("sl-batches".into())
            .spawn(move || batch_windows(c2, start, wrx, btx))
            .expect("spawning the batcher");
        Stream {
            rx: Some(brx),
            threads: vec![builder, batcher],
        }
    }

    /// The next batch (waits for it).
    pub fn next_batch(&mut self) -> Result<StreamBatch, String> {
        match self.rx.as_ref().map(|r| r.recv()) {
            Some(Ok(r)) => r,
            _ => Err("the data threads stopped".into()),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // Hanging up makes both threads return at their next send (not
        // waited for: the builder may be mid-window).
        self.rx = None;
        self.threads.clear();
    }
}

/// The position after batch `p`: the next batch of its window (a
/// stream started there moves on to the next window by itself when the
/// window has no more).
pub fn after(p: StreamPos) -> StreamPos {
    StreamPos {
        batch: p.batch + 1,
        ..p
    }
}
