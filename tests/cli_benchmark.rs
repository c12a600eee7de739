//! `tengen benchmark` and `--batch` through the real binary: the report's
//! tables, clear errors for bad settings, and a GTP engine searching with
//! a large batch.
#![cfg(feature = "net")]

use std::io::Write;
use std::process::{Command, Stdio};

fn tengen(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("start tengen");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Rows of a table: lines made only of numbers.
fn numeric_rows(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .filter_map(|l| {
            let w: Vec<f64> = l
                .split_whitespace()
                .map(|x| x.parse::<f64>())
                .collect::<Result<_, _>>()
                .ok()?;
            (!w.is_empty()).then_some(w)
        })
        .collect()
}

#[test]
fn benchmark_reports_throughput_and_search_speed() {
    let (ok, out, err) = tengen(&[
        "benchmark",
        "--size",
        "9",
        "--device",
        "cpu",
        "--seconds",
        "0.05",
        "--batches",
        "1,4",
        "--threads",
        "1,2",
        "--search-batches",
        "8",
    ]);
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("tengen-9x9") || out.contains("b6c64"), "{out}");
    let rows = numeric_rows(&out);
    // Two throughput rows (batch, evals/s, ms/batch, GFLOP/s), then two
    // search rows (threads, batch, visits/s, evals/s, avg batch).
    assert_eq!(rows.len(), 4, "{out}");
    assert_eq!((rows[0][0], rows[1][0]), (1.0, 4.0));
    assert!(
        rows[..2].iter().all(|r| r.len() == 4 && r[1] > 0.0),
        "{out}"
    );
    assert_eq!((rows[2][0], rows[3][0]), (1.0, 2.0));
    assert!(
        rows[2..].iter().all(|r| r.len() == 5 && r[2] > 0.0),
        "{out}"
    );
    assert!(!out.contains("agreement"), "no reference on the CPU: {out}");
}

#[test]
fn benchmark_refuses_bad_settings_with_a_message() {
    let cases: [(&[&str], &str); 5] = [
        (&["--size", "1"], "board size"),
        (&["--batches", "0"], "batch sizes"),
        (&["--threads", "2000"], "thread counts"),
        (&["--seconds", "0"], "--seconds"),
        (&["--device", "abacus"], "unknown device"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["benchmark"];
        all.extend_from_slice(args);
        let (ok, _, err) = tengen(&all);
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn gtp_engine_searches_with_a_large_batch() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "gtp",
            "--no-autosave",
            "--size",
            "9",
            "--threads",
            "2",
            "--batch",
            "32",
            "--visits",
            "96",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"play b e5\ngenmove w\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let replies: Vec<&str> = text.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies.len(), 3, "{text}");
    assert!(replies.iter().all(|r| r.starts_with('=')), "{text}");
    let mv = replies[1]
        .trim_start_matches('=')
        .trim()
        .to_ascii_lowercase();
    assert!(mv != "e5" && mv != "resign" && !mv.is_empty(), "{text}");

    let (ok, _, err) = tengen(&["gtp", "--no-autosave", "--batch", "0"]);
    assert!(!ok && err.contains("batch size"), "{err}");
}
