//! Issue 15's floor for komi and rules ([`tengen::eval::komi_curve`]): on
//! the empty 9×9, 13×13 and 19×19 boards and one midgame position of each
//! size, under Chinese, Japanese, Tromp-Taylor and AGA rules, the White
//! lead must rise steadily with komi from −10 to +10 (no step down by more
//! than 0.3 points, at least 12 points up) and the best policy move must
//! have at least 5%.
//!
//! - `katago_net_passes_the_komi_and_rules_floor`: the positive control,
//!   KataGo's b10 net (`TENGEN_KATAGO_NET`, else
//!   `../katrain/katrain/models/b10c384h6nbttflrs.bin.gz` next to the
//!   crate, as in `net_katago_parity.rs`; skips without it). All 24 cases
//!   (984 evaluations in batches of 48) took 77–80 s on the fast CPU path
//!   of a busy 2-core machine, so the 19×19 ones stay in.
//! - `shipped_nets_meet_the_komi_and_rules_floor`: the nets the engine
//!   plays with by default (the compiled-in 9×9 net up to 11×11, the
//!   13×13 net up to 16×16, the 19×19 net above), all 24 cases. Until
//!   2026-12-06 the 19×19 net also played 13×13 and failed the empty
//!   13×13 board under the three area rulesets (its lead rose 11.5–11.7
//!   of the 12 points asked), so the test was ignored; with
//!   `tengen-13x13-v1` all 24 pass.
//!
//! Both run on the fast CPU path (`--device cpu`, the default) and print
//! the table of all cases.
#![cfg(feature = "net")]

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tengen::eval::by_size::BySizeEvaluator;
use tengen::eval::komi_curve::{check_all, standard_cases, table, Case};
use tengen::eval::Evaluator;
use tengen::net::device::{backend_named, Backend};
use tengen::net::shipped::{ShippedNet, ROUTES};
use tengen::net::{Net, NetEvaluator};

/// Inputs per evaluator call: one komi curve and a bit (41 komis) fits.
const BATCH: usize = 48;

fn katago_net_path() -> Option<PathBuf> {
    common::katago_net()
}

fn cpu() -> Backend {
    backend_named("cpu").expect("the CPU backend")
}

fn on_cpu(net: Net, backend: &Backend) -> Arc<dyn Evaluator> {
    Arc::new(NetEvaluator::on(net, BATCH, backend).expect("the net packs for the CPU"))
}

/// Runs `cases` on `eval`, prints the table and the time, and returns the
/// table when some case fails.
fn run(eval: &dyn Evaluator, cases: &[Case], what: &str) -> Result<(), String> {
    let t = Instant::now();
    let results = check_all(eval, cases).expect("the cases run");
    let table = table(&results);
    eprintln!(
        "{what}: {} cases in {:.1} s\n{table}",
        cases.len(),
        t.elapsed().as_secs_f64()
    );
    if results.iter().all(|r| r.passes()) {
        Ok(())
    } else {
        Err(table)
    }
}

#[test]
fn katago_net_passes_the_komi_and_rules_floor() {
    let Some(path) = katago_net_path() else {
        eprintln!(
            "skipping: KataGo's net b10c384h6nbttflrs.bin.gz not found (set TENGEN_KATAGO_NET)"
        );
        return;
    };
    let backend = cpu();
    let net = tengen::net::load_any(&path, &backend.device)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let eval = on_cpu(net, &backend);
    if let Err(table) = run(&*eval, &standard_cases(), "KataGo's b10 net") {
        panic!("KataGo's net fails the floor, so the checker is wrong:\n{table}");
    }
}

#[test]
fn shipped_nets_meet_the_komi_and_rules_floor() {
    let backend = cpu();
    let load = |n: &ShippedNet| {
        on_cpu(
            n.load(&backend.device)
                .unwrap_or_else(|e| panic!("shipped net {}: {e}", n.name)),
            &backend,
        )
    };
    // As the engine's default evaluator routes them (gtp::config).
    let eval = BySizeEvaluator::new(ROUTES.iter().map(|(max, n)| (*max, load(n))).collect());
    let names: Vec<&str> = [9, 13, 19]
        .into_iter()
        .map(|size| {
            let net = ShippedNet::for_board(size);
            assert_eq!(net.name, ROUTES[eval.route(size)].1.name);
            net.name
        })
        .collect();
    let what = format!("the shipped nets {}", names.join(", "));
    if let Err(table) = run(&eval, &standard_cases(), &what) {
        panic!("{what} fail issue 15's komi-and-rules floor:\n{table}");
    }
}
