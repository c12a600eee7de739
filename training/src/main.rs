//! `tengen-train`: the command line. Parses settings into the library's
//! config structs and calls it; no logic of its own.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use tengen::net::device::{Backend, DeviceChoice};
use tengen_train::arena::{series, series_parallel, GtpPlayer, Player, Tengen, ThinkStats};
use tengen_train::looping::{self, LoopConfig};
use tengen_train::model::{parse_arch, TrainNet};
use tengen_train::selfplay;
use tengen_train::shard;
use tengen_train::train::{self, Init};

use tengen_train::{elo, sl};

mod cli;

use cli::*;

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
        Cmd::BenchTrain {
            arch,
            sizes,
            convs,
            batch,
            steps,
        } => {
            use tengen::rules::{MAX_SIZE, MIN_SIZE};
            let routes = convs
                .iter()
                .map(|c| {
                    train::bench::ROUTES
                        .into_iter()
                        .find(|(name, _)| name == c)
                        .ok_or_else(|| format!("--convs: {c} is neither fast nor burn"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(s) = sizes.iter().find(|s| !(MIN_SIZE..=MAX_SIZE).contains(*s)) {
                return Err(format!(
                    "--sizes: {s} is not a board size from {MIN_SIZE} to {MAX_SIZE}"
                ));
            }
            if batch == 0 || steps == 0 {
                return Err("--batch and --steps must be at least 1".into());
            }
            let config = parse_arch(&arch)?;
            let threads = tengen::net::conv_ext::threads();
            let peak = tengen::net::fast::peak::threads(threads);
            println!("{arch}, batch {batch}, {threads} thread(s): fp32 FMA peak {peak:.1} GFLOP/s");
            let rows = train::bench::run(&config, &sizes, &routes, batch, steps, peak, &device)?;
            println!("| board | 3x3 convolutions | samples/s | GFLOP/s | % of peak |");
            println!("|---|---|---|---|---|");
            for r in &rows {
                println!(
                    "| {s}x{s} | {} | {:.1} | {:.1} | {:.0}% |",
                    r.conv,
                    r.samples_per_sec,
                    r.gflops,
                    100.0 * r.peak_share,
                    s = r.size
                );
            }
            print_json(&rows);
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
        Cmd::SlEval {
            model,
            data,
            split,
            games,
            every,
            min_rank,
            size,
            batch,
            ownership_labels,
        } => {
            let min_rank = if min_rank.eq_ignore_ascii_case("none") {
                None
            } else {
                Some(cli::min_rank_flag(&min_rank)?)
            };
            let opts = tengen_train::human::record::Options {
                min_rank,
                ..Default::default()
            };
            let spec = tengen_train::human::eval::EvalSpec {
                data: &data,
                split: &split,
                games,
                every,
                size,
                batch,
                labels: ownership_labels.as_deref(),
            };
            let r = tengen_train::human::eval::evaluate_file(&model, &spec, &opts, &backend)?;
            print_json(&r);
        }
        Cmd::OwnershipLabels {
            model,
            data,
            split,
            out,
            tolerance,
            size,
            batch,
        } => {
            let eval = looping::evaluator(&model, &backend, batch.max(1))?;
            let spec = tengen_train::human::labels::LabelSpec {
                data: &data,
                split: &split,
                size,
                tolerance,
                batch,
            };
            let r = tengen_train::human::labels::label_collections(&spec, &*eval, &out)?;
            print_json(&r);
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
        Cmd::Blend { a, b, t, out } => {
            tengen_train::edit::blend_files(&a, &b, t, &out)?;
            println!(
                "wrote {} = {:.3}·{} + {:.3}·{}",
                out.display(),
                1.0 - t,
                a.display(),
                t,
                b.display()
            );
        }
        Cmd::FoldKoRule { model, out } => {
            tengen_train::edit::fold_situational_ko_file(&model, &out)?;
            println!(
                "wrote {}: {} reading situational superko as positional",
                out.display(),
                model.display()
            );
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
                // Behind the engine's evaluation cache, as in GTP play:
                // re-searched positions (tree reuse, transpositions) are
                // not evaluated twice, which counts at equal time.
                let cached = |p: &Path| -> Result<Arc<dyn tengen::eval::Evaluator>, String> {
                    let e = looping::evaluator(p, &backend, m.max_batch())?;
                    Ok(Arc::new(tengen::eval::cache::CachedEvaluator::new(
                        e,
                        tengen::eval::cache::ENGINE_ENTRIES,
                    )))
                };
                let a = Tengen::new("tengen", cached(&model)?, m.search(), m.limits());
                let o: Box<dyn Player + Send> = match opponent.strip_prefix("net:") {
                    Some(path) => Box::new(Tengen::new(
                        "opponent",
                        cached(Path::new(path))?,
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
            games_from,
            games,
            at,
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
            if let Some(collection) = &games_from {
                let rows = tengen_train::komi_curve::slopes_in_games(
                    &eval, collection, games, &at, rules, &komis,
                )?;
                println!("move,mean_slope,games");
                for (m, s, n) in rows {
                    println!("{m},{s:.3},{n}");
                }
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
    tengen_train::alloc::keep_freed_memory();
    // Denormals flushed to zero in every thread started from here on
    // (burn's pools for training too): see `tengen::net::fast::ftz`.
    let _ftz = tengen::net::fast::ftz::FlushDenormals::new();
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
    fn a_timed_match_uses_all_its_time_unless_asked_to_stop_early() {
        assert!(!match_args(&["--move-time", "1"]).search().early_stop);
        assert!(
            match_args(&["--move-time", "1", "--early-stop"])
                .search()
                .early_stop
        );
        // Without a time bound there is nothing to save.
        assert!(!match_args(&["--early-stop"]).search().early_stop);
    }

    #[test]
    fn match_rejects_a_batch_of_zero() {
        let err = match_args(&["--batch", "0"]).check().unwrap_err();
        assert!(err.contains("--batch"), "{err}");
    }
}
