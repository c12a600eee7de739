//! The `tengen` command line: `tengen gtp` (for GUIs, servers and match
//! runners), `tengen play` (a game in the terminal) and `tengen judge`
//! (the estimated result of an interrupted game). Parsing only; the work
//! is in the library.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use tengen::engine::Engine;
use tengen::game::{save, Clock, TimeControl};
use tengen::gtp::{self, build_evaluator, Autosave, SessionConfig};
use tengen::rules::Color;

const AUTOSAVE_HELP: &str = "\
Autosave: after every move and edit the game is written atomically as SGF \
(rules, komi, full history, both clocks) to the autosave file: by default \
$XDG_DATA_HOME/tengen/autosave.sgf (else ~/.local/share/tengen/autosave.sgf). \
A fresh session first keeps an existing autosave as autosave.prev.sgf. No \
other file is ever overwritten. Resume a crashed game with --resume FILE.";

#[derive(Parser)]
#[command(name = "tengen", version, about = "A computer-Go engine (Chinese rules)", after_help = AUTOSAVE_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak GTP on stdin/stdout (for GUIs, servers, match runners).
    #[command(after_help = AUTOSAVE_HELP)]
    Gtp(Common),
    /// Play a game in the terminal.
    #[command(after_help = AUTOSAVE_HELP)]
    Play(PlayArgs),
    /// Judge an interrupted game: estimated winner, margin in points and
    /// stones, win probability and confidence.
    Judge(JudgeArgs),
    /// JSON analysis engine (KataGo's analysis protocol): one query per
    /// line on stdin, JSON results on stdout.
    Analysis(AnalysisArgs),
    /// Convert a KataGo model (.bin.gz) to tengen's safetensors format.
    Convert(ConvertArgs),
    /// Measure net throughput and search speed on this machine and
    /// device, to choose --device, --threads and --batch.
    Benchmark(BenchArgs),
}

#[derive(Args)]
struct BenchArgs {
    /// Board size (the shipped net for that size, unless --model).
    #[arg(long, default_value_t = 19)]
    size: usize,
    /// Neural net file: tengen's .safetensors or a KataGo .bin.gz.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Where the net runs: auto, cpu (the fast path), cpu-burn or wgpu.
    /// Off the CPU, the same net on the CPU checks the device's numbers.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Batch sizes for net throughput.
    #[arg(long, value_delimiter = ',', default_value = "1,8,32")]
    batches: Vec<usize>,
    /// Search thread counts.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Search batch sizes, each tried with every thread count.
    #[arg(long, value_delimiter = ',', default_value = "8")]
    search_batches: Vec<usize>,
    /// Seconds per measurement.
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    seconds: f64,
    /// Seed of the random games the positions come from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also measure this machine's fp32 peak and, on the fast CPU path,
    /// burn's CPU backend side by side (evals/s, speed-up, % of peak,
    /// agreement).
    #[arg(long)]
    compare: bool,
}

#[derive(Args)]
struct AnalysisArgs {
    #[command(flatten)]
    search: SearchArgs,
    /// Positions analysed at once (KataGo's numAnalysisThreads).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Visits per turn unless a query sets maxVisits.
    #[arg(long, default_value_t = 500)]
    max_visits: u64,
    /// Seconds per turn unless a query sets maxTime.
    #[arg(long, value_name = "SECS")]
    max_time: Option<f64>,
    /// Whose view winrates and scores take: BLACK, WHITE or SIDETOMOVE.
    #[arg(long, default_value = "BLACK")]
    report_as: String,
}

#[derive(Args)]
struct ConvertArgs {
    /// The KataGo model file (.bin.gz).
    input: PathBuf,
    /// Where to write the safetensors file.
    output: PathBuf,
}

/// Search and evaluator options shared by every subcommand.
#[derive(Args)]
struct SearchArgs {
    /// Seed: same seed, same moves (with `--threads 1` and visit limits).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Search threads [default: one per core on the fast CPU path, where
    /// each thread runs its own net calls on its own core; else 1].
    #[arg(long)]
    threads: Option<usize>,
    /// Leaves in flight per round, all threads together: one net call of
    /// this many (burn, a GPU), or one call per thread of an equal share
    /// (the fast CPU path). 8 suits the CPU; a GPU wants more (`tengen
    /// benchmark` measures it).
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Root visits per move (visits kept from the previous move count).
    #[arg(long)]
    visits: Option<u64>,
    /// New visits (playouts) per move.
    #[arg(long)]
    playouts: Option<u64>,
    /// Evaluator when no --model is given: net (the shipped nets, built
    /// in), heuristic or uniform.
    #[arg(long, default_value = gtp::DEFAULT_EVALUATOR)]
    evaluator: String,
    /// Neural net file: tengen's .safetensors or a KataGo .bin.gz.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Where the net runs: auto (a GPU through wgpu when this build and
    /// machine have one, else the CPU), cpu (the fast CPU path), cpu-burn
    /// (burn's CPU backend) or wgpu.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Random rollouts per evaluation (heuristic evaluator).
    #[arg(long, default_value_t = 16)]
    rollouts: u32,
    /// A search parameter as KEY=VALUE, repeatable (later ones win), e.g.
    /// cpuct-init=1.1; `--search-param help` lists the keys.
    #[arg(long = "search-param", value_name = "KEY=VALUE")]
    search_param: Vec<String>,
}

impl SearchArgs {
    /// The `--search-param` list; `--search-param help` prints the keys
    /// and exits.
    fn search_params(&self) -> Result<Vec<String>, String> {
        if self.search_param.iter().any(|a| a.trim() == "help") {
            for (name, what) in tengen::search::params::NAMES {
                println!("{name:20} {what}");
            }
            std::process::exit(0);
        }
        Ok(self.search_param.clone())
    }
}

#[derive(Args)]
struct Common {
    /// Board size (2 to 19).
    #[arg(long, default_value_t = 19)]
    size: usize,
    /// Komi in points (default: the rules' komi, 5.5 for Chinese rules).
    #[arg(long, allow_negative_numbers = true)]
    komi: Option<f32>,
    /// Rules: chinese, japanese, korean (territory scoring), tromp-taylor, nz, aga.
    #[arg(long, default_value = "chinese")]
    rules: String,
    #[command(flatten)]
    search: SearchArgs,
    /// Lag buffer in milliseconds kept back from every time budget.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    lag: u64,
    /// Most seconds to think per move, whatever the clock allows (without a
    /// clock and without --visits/--playouts: 1 second).
    #[arg(long, value_name = "SECS")]
    max_time: Option<f64>,
    /// Search on the opponent's time, between our move and the next
    /// command.
    #[arg(long)]
    ponder: bool,
    /// Resign when the winrate of the best move falls below X (0 to 1).
    /// Off by default; tournaments should leave it off.
    #[arg(long, value_name = "X")]
    resign_threshold: Option<f32>,
    /// After the opponent's pass, pass as soon as passing wins, even with
    /// the board still open (for servers that want it). Off by default:
    /// a tournament game plays on while points are unsettled.
    #[arg(long)]
    friendly_pass: bool,
    /// Resume the game saved in FILE (an autosave or any SGF).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Autosave to FILE instead of the default location.
    #[arg(long, value_name = "FILE", conflicts_with = "no_autosave")]
    autosave: Option<PathBuf>,
    /// Do not autosave.
    #[arg(long)]
    no_autosave: bool,
}

#[derive(Args)]
struct PlayArgs {
    #[command(flatten)]
    common: Common,
    /// Your colour: b or w.
    #[arg(long, default_value = "b")]
    color: String,
    /// Main time per player in seconds (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    time: f64,
    /// Byo-yomi period in seconds (with --periods).
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    byoyomi: f64,
    /// Number of byo-yomi periods.
    #[arg(long, default_value_t = 0)]
    periods: u32,
    /// Fischer increment in seconds added after each move (with --time).
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    increment: f64,
}

#[derive(Args)]
struct JudgeArgs {
    /// The game record (SGF).
    file: PathBuf,
    /// Judge the position before this move number (default: the end).
    #[arg(long = "move", value_name = "N")]
    move_number: Option<usize>,
    #[command(flatten)]
    search: SearchArgs,
}

fn config(c: &Common, time: TimeControl) -> Result<SessionConfig, String> {
    let secs = |x: f64| {
        (x.is_finite() && (0.0..=3.2e8).contains(&x))
            .then(|| Duration::from_secs_f64(x))
            .ok_or_else(|| format!("bad number of seconds: {x}"))
    };
    Ok(SessionConfig {
        size: c.size,
        komi: c.komi,
        rules: c.rules.clone(),
        seed: c.search.seed,
        lag: Duration::from_millis(c.lag),
        max_time: c.max_time.map(secs).transpose()?,
        evaluator: c.search.evaluator.clone(),
        model: c.search.model.clone(),
        device: c.search.device.clone(),
        rollouts: c.search.rollouts,
        threads: c.search.threads.unwrap_or(0),
        batch: c.search.batch,
        visits: c.search.visits,
        playouts: c.search.playouts,
        ponder: c.ponder,
        resign_threshold: c.resign_threshold,
        friendly_pass: c.friendly_pass,
        search_params: c.search.search_params()?,
        time,
        resume: c.resume.clone(),
        autosave: match (&c.autosave, c.no_autosave) {
            (_, true) => Autosave::Off,
            (Some(p), false) => Autosave::File(p.clone()),
            (None, false) => Autosave::Default,
        },
    })
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Gtp(c) => {
            let session = config(&c, TimeControl::None)?.build()?;
            gtp::serve(session, io::stdin(), io::stdout().lock()).map_err(|e| e.to_string())
        }
        Command::Play(p) => {
            let human = Color::parse(&p.color).ok_or("--color must be b or w")?;
            let main = Duration::from_secs_f64(p.time.clamp(0.0, 3.2e8));
            let period = Duration::from_secs_f64(p.byoyomi.clamp(0.0, 3.2e8));
            let increment = Duration::from_secs_f64(p.increment.clamp(0.0, 3.2e8));
            let time = if !increment.is_zero() {
                TimeControl::Fischer { main, increment }
            } else if p.periods > 0 && !period.is_zero() {
                TimeControl::ByoYomi {
                    main,
                    period,
                    periods: p.periods,
                }
            } else if main.is_zero() {
                TimeControl::None
            } else {
                TimeControl::Absolute { main }
            };
            let mut session = config(&p.common, time)?.build()?;
            let ansi = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            tengen::play::run(
                &mut session,
                human,
                &mut io::stdin().lock(),
                &mut io::stdout().lock(),
                ansi,
            )
            .map_err(|e| e.to_string())
        }
        Command::Judge(j) => judge(&j),
        Command::Analysis(a) => analysis(&a),
        Command::Convert(c) => convert(&c),
        Command::Benchmark(b) => benchmark(&b),
    }
}

/// `tengen analysis`: the JSON analysis engine on stdin/stdout.
fn analysis(a: &AnalysisArgs) -> Result<(), String> {
    use tengen::analysis::{AnalysisConfig, Perspective};
    let perspective =
        Perspective::parse(&a.report_as).ok_or("--report-as must be BLACK, WHITE or SIDETOMOVE")?;
    if !(1..=256).contains(&a.workers) {
        return Err("--workers must be between 1 and 256".into());
    }
    let max_time = match a.max_time {
        None => None,
        Some(x) if x.is_finite() && (0.0..=3.2e8).contains(&x) => Some(Duration::from_secs_f64(x)),
        Some(x) => return Err(format!("bad number of seconds: {x}")),
    };
    let cfg = SessionConfig {
        seed: a.search.seed,
        evaluator: a.search.evaluator.clone(),
        model: a.search.model.clone(),
        device: a.search.device.clone(),
        rollouts: a.search.rollouts,
        threads: a.search.threads.unwrap_or(0),
        batch: a.search.batch,
        autosave: Autosave::Off,
        ..SessionConfig::default()
    };
    let evaluator = build_evaluator(&cfg)?;
    let mut config = AnalysisConfig {
        workers: a.workers,
        max_visits: a.search.visits.unwrap_or(a.max_visits).max(1),
        max_time,
        perspective,
        ..AnalysisConfig::default()
    };
    // Workers search side by side: by default they share the cores.
    config.search.threads = match a.search.threads {
        Some(t) => t.clamp(1, 64),
        None => (tengen::gtp::auto_threads(0, &*evaluator) / a.workers).max(1),
    };
    config.search.batch_size = a.search.batch;
    config.search.seed = a.search.seed;
    tengen::search::params::apply(&mut config.search, &a.search.search_params()?)?;
    eprintln!("Started, ready to begin handling requests");
    tengen::analysis::run(config, evaluator, io::stdin().lock(), io::stdout())
        .map_err(|e| e.to_string())
}

/// `tengen convert`: KataGo .bin.gz to our safetensors format.
#[cfg(feature = "net")]
fn convert(c: &ConvertArgs) -> Result<(), String> {
    let config = tengen::net::convert_katago(&c.input, &c.output)
        .map_err(|e| format!("cannot convert {}: {e}", c.input.display()))?;
    eprintln!(
        "tengen: wrote {} ({}: {} blocks, {} channels)",
        c.output.display(),
        config.name,
        config.blocks.len(),
        config.trunk
    );
    Ok(())
}

#[cfg(not(feature = "net"))]
fn convert(_: &ConvertArgs) -> Result<(), String> {
    Err("this build has no neural net support (build with the `net` feature)".into())
}

/// `tengen benchmark`: net and search speed (see `tengen::benchmark`).
#[cfg(feature = "net")]
fn benchmark(b: &BenchArgs) -> Result<(), String> {
    use tengen::benchmark::{self, BenchConfig};
    use tengen::net::shipped::ShippedNet;
    use tengen::net::NetEvaluator;
    if !(b.seconds.is_finite() && b.seconds > 0.0 && b.seconds <= 3600.0) {
        return Err("--seconds must be between 0 and 3600".into());
    }
    let cfg = BenchConfig {
        size: b.size,
        batches: b.batches.clone(),
        threads: b.threads.clone(),
        search_batches: b.search_batches.clone(),
        time: Duration::from_secs_f64(b.seconds),
        seed: b.seed,
    };
    cfg.validate()?;
    let backend = tengen::net::device::backend_named(&b.device).map_err(|e| e.to_string())?;
    let flex = burn::tensor::Device::flex();
    let on_cpu = backend.device == flex;
    let load = |d: &burn::tensor::Device| match &b.model {
        Some(path) => {
            tengen::net::load_any(path, d).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let shipped = ShippedNet::for_board(b.size);
            shipped
                .load(d)
                .map_err(|e| format!("shipped net {}: {e}", shipped.name))
        }
    };
    let batch = cfg.max_batch();
    let net =
        NetEvaluator::on(load(&backend.device)?, batch, &backend).map_err(|e| e.to_string())?;
    // Off the CPU, the fast CPU path checks the device's numbers; on the
    // fast path, --compare sets burn's CPU backend beside it.
    let reference = if !on_cpu {
        let cpu = NetEvaluator::fast(load(&flex)?, batch).map_err(|e| e.to_string())?;
        Some((cpu, "the CPU (fast path)"))
    } else if backend.fast && b.compare {
        Some((
            NetEvaluator::new(load(&flex)?, batch),
            "the CPU (burn flex)",
        ))
    } else {
        None
    };
    let name = backend.describe();
    let agreement = benchmark::run(
        &cfg,
        net,
        &name,
        reference,
        b.compare,
        &mut io::stdout().lock(),
    )
    .map_err(|e| e.to_string())?;
    match agreement {
        Some(a) if !a.ok() => Err(format!(
            "the device's results differ from the CPU's by more than the tolerance ({a:?})"
        )),
        _ => Ok(()),
    }
}

#[cfg(not(feature = "net"))]
fn benchmark(_: &BenchArgs) -> Result<(), String> {
    Err("this build has no neural net support (build with the `net` feature)".into())
}

/// `tengen judge`: loads the record and prints the judgement.
fn judge(j: &JudgeArgs) -> Result<(), String> {
    if j.move_number == Some(0) {
        return Err("move numbers start at 1".into());
    }
    let game = save::load_file(&j.file, j.move_number, &Clock::default())
        .map_err(|e| format!("cannot load {}: {e}", j.file.display()))?;
    let cfg = SessionConfig {
        seed: j.search.seed,
        evaluator: j.search.evaluator.clone(),
        model: j.search.model.clone(),
        device: j.search.device.clone(),
        rollouts: j.search.rollouts,
        threads: j.search.threads.unwrap_or(0),
        batch: j.search.batch,
        search_params: j.search.search_params()?,
        autosave: Autosave::Off,
        ..SessionConfig::default()
    };
    let evaluator = build_evaluator(&cfg)?;
    let settings = cfg.engine_settings(&*evaluator)?;
    let mut engine = Engine::new(evaluator, settings);
    let visits = j
        .search
        .visits
        .or(j.search.playouts)
        .unwrap_or(gtp::endgame::JUDGE_VISITS);
    println!("{}", engine.judge(&game, visits.max(1)));
    Ok(())
}

fn main() -> ExitCode {
    // Denormals flushed to zero in every thread started from here on (the
    // burn backends' pools too): see `tengen::net::fast::ftz`.
    #[cfg(feature = "net")]
    let _ftz = tengen::net::fast::ftz::FlushDenormals::new();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen: {e}");
            ExitCode::FAILURE
        }
    }
}
