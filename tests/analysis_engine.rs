//! The analysis engine's scheduling: whole games, priorities and
//! out-of-order answers, progress reports, cancellation, end of input.

#[path = "analysis_support.rs"]
mod support;

use std::collections::BTreeSet;

use serde_json::Value;
use support::{config, material, Engine};

const SHORT_GAME: &str = r#"[["B","E5"],["W","C3"],["B","G7"],["W","C7"],["B","G3"],["W","pass"],["B","D5"],["W","pass"]]"#;

/// A query that runs until terminated, reporting every 20 ms.
fn endless(id: &str, priority: i64) -> String {
    format!(
        r#"{{"id":"{id}","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":100000000,"reportDuringSearchEvery":0.02,"priority":{priority}}}"#
    )
}

fn quick(id: &str, priority: i64) -> String {
    format!(
        r#"{{"id":"{id}","moves":[["B","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":10,"priority":{priority}}}"#
    )
}

#[test]
fn a_whole_game_gets_one_response_per_turn() {
    let e = Engine::start(config(3), material());
    e.send(&format!(
        r#"{{"id":"game","moves":{SHORT_GAME},"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":20,"analyzeTurns":[0,1,2,3,4,5,6,7,8]}}"#
    ));
    let out = e.close();
    assert_eq!(out.len(), 9, "{out:?}");
    let turns: BTreeSet<u64> = out
        .iter()
        .map(|r| r["turnNumber"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, (0..=8).collect());
    for r in &out {
        assert_eq!(r["id"], "game");
        assert_eq!(r["isDuringSearch"], false);
        let t = r["turnNumber"].as_u64().unwrap();
        let to_move = if t % 2 == 0 { "B" } else { "W" };
        assert_eq!(r["rootInfo"]["currentPlayer"], to_move, "turn {t}");
    }
}

#[test]
fn end_of_input_finishes_queued_work_and_default_turn_is_the_last() {
    let e = Engine::start(config(2), material());
    for i in 0..5 {
        e.send(&quick(&format!("q{i}"), 0));
    }
    let out = e.close();
    let ids: BTreeSet<&str> = out.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 5);
    assert!(out.iter().all(|r| r["turnNumber"] == 1));
}

#[test]
fn progress_reports_then_one_final_answer() {
    let e = Engine::deterministic();
    e.send(
        r#"{"id":"p","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":100000000,"overrideSettings":{"maxTime":0.3},"reportDuringSearchEvery":0.05}"#,
    );
    let out = e.until_final("p", 0);
    let during: Vec<&Value> = out.iter().filter(|r| r["isDuringSearch"] == true).collect();
    assert!(!during.is_empty(), "no progress reports: {out:?}");
    for r in &during {
        assert!(r["moveInfos"].is_array() && r["rootInfo"]["visits"].is_u64());
    }
    let last = out.last().unwrap();
    assert_eq!(last["isDuringSearch"], false);
    assert!(
        last["rootInfo"]["visits"].as_u64()
            >= during.last().unwrap()["rootInfo"]["visits"].as_u64()
    );
    assert!(e.close().is_empty(), "nothing after the final answer");
}

#[test]
fn terminate_stops_a_running_query_and_answers_queued_ones() {
    let e = Engine::deterministic();
    e.send(&endless("long", 0));
    // Queued behind it (one worker): two turns of another query.
    e.send(&format!(
        r#"{{"id":"queued","moves":{SHORT_GAME},"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":10,"analyzeTurns":[1,2]}}"#
    ));
    let first = e.recv();
    assert_eq!(
        (first["id"].as_str(), &first["isDuringSearch"]),
        (Some("long"), &Value::Bool(true))
    );

    e.send(r#"{"id":"k1","action":"terminate","terminateId":"queued","turnNumbers":[2]}"#);
    let mut seen = Vec::new();
    loop {
        let r = e.recv();
        if r["id"] == "queued" {
            assert_eq!(r["turnNumber"], 2);
            assert_eq!(r["noResults"], true);
            assert_eq!(r["isDuringSearch"], false);
            break;
        }
        seen.push(r);
    }
    e.send(r#"{"id":"k2","action":"terminate","terminateId":"long"}"#);
    let (mut echoed, mut finished) = (false, false);
    while !(echoed && finished) {
        let r = e.recv();
        if r["id"] == "k2" {
            assert_eq!(r["action"], "terminate");
            echoed = true;
        } else if r["id"] == "long" && r["isDuringSearch"] == false {
            assert!(
                r["rootInfo"]["visits"].as_u64().unwrap() >= 1,
                "partial results"
            );
            finished = true;
        }
    }
    // The untouched turn 1 of "queued" still runs.
    let rest = e.until_final("queued", 1);
    assert!(rest.last().unwrap()["moveInfos"].is_array());
    e.close();
}

#[test]
fn terminate_all_and_priorities_order_the_queue() {
    let e = Engine::deterministic();
    e.send(&endless("block", 0));
    let first = e.recv();
    assert_eq!(first["id"], "block");
    // Queued while the only worker is busy; "high" must run before "low".
    e.send(&quick("low", 0));
    e.send(&quick("high", 10));
    e.send(r#"{"id":"stop","action":"terminate_all","turnNumbers":[0]}"#);
    let mut order = Vec::new();
    let mut echoed = false;
    // The echo may come before or after the answers.
    while order.len() < 3 || !echoed {
        let r = e.recv();
        if r["action"] == "terminate_all" {
            echoed = true;
        } else if r["isDuringSearch"] == false {
            order.push(r["id"].as_str().unwrap().to_string());
        }
    }
    assert!(echoed);
    assert_eq!(order, ["block", "high", "low"]);
    e.close();
}

#[test]
fn many_workers_answer_out_of_order_with_the_right_ids() {
    let e = Engine::start(config(4), material());
    // A slow query first, quick ones after: the quick ones overtake it.
    e.send(
        r#"{"id":"slow","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":100000000,"overrideSettings":{"maxTime":1.5}}"#,
    );
    for i in 0..6 {
        e.send(&quick(&format!("fast{i}"), 0));
    }
    let out = e.close();
    let ids: Vec<&str> = out.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 7, "{ids:?}");
    assert_eq!(*ids.last().unwrap(), "slow", "{ids:?}");
    for r in &out {
        let size = if r["id"] == "slow" { 19 * 19 } else { 9 * 9 };
        assert!(r["moveInfos"].as_array().unwrap().len() <= size + 1);
    }
}
