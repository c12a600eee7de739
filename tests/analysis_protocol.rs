//! KataGo analysis protocol: every response field's presence and meaning,
//! perspectives, actions, errors and warnings (one worker, fixed seed,
//! deterministic evaluator).

#[path = "analysis_support.rs"]
mod support;

use serde_json::{json, Value};
use support::Engine;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

const GAME: &str = r#"[["B","E5"],["W","C3"],["B","G7"],["W","C7"]]"#;

#[test]
fn a_final_response_has_every_field_with_its_meaning() {
    let e = Engine::deterministic();
    e.send(&format!(
        r#"{{"id":"q1","moves":{GAME},"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":60,"includeOwnership":true,"includePolicy":true,"includeMovesOwnership":true}}"#
    ));
    let r = e.recv();
    assert_eq!(r["id"], "q1");
    assert_eq!(r["turnNumber"], 4);
    assert_eq!(r["isDuringSearch"], false);

    let root = &r["rootInfo"];
    assert_eq!(root["currentPlayer"], "B");
    let visits = root["visits"].as_u64().unwrap();
    assert!((2..=60).contains(&visits), "root visits {visits}");
    for k in [
        "winrate",
        "scoreLead",
        "scoreMean",
        "utility",
        "rawWinrate",
        "rawLead",
    ] {
        assert!(root[k].is_number(), "rootInfo.{k} missing: {root}");
    }
    assert!((0.0..=1.0).contains(&f(&root["winrate"])));
    assert_eq!(root["thisHash"].as_str().unwrap().len(), 32);
    assert_eq!(root["symHash"].as_str().unwrap().len(), 32);

    let infos = r["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    let mut sum = 0;
    for (i, m) in infos.iter().enumerate() {
        assert_eq!(m["order"], i as u64, "orders run 0, 1, 2, ...");
        let mv = m["move"].as_str().unwrap();
        assert!(mv == "pass" || tengen::rules::Point::parse_gtp(mv, 9).is_some());
        let v = m["visits"].as_u64().unwrap();
        assert!(v >= 1);
        assert_eq!(m["edgeVisits"], m["visits"]);
        sum += v;
        assert!((0.0..=1.0).contains(&f(&m["winrate"])));
        assert!((0.0..=1.0).contains(&f(&m["prior"])));
        assert_eq!(f(&m["scoreMean"]), f(&m["scoreLead"]));
        assert!(
            f(&m["lcb"]) <= f(&m["winrate"]) + 1e-6,
            "lcb below the winrate (Black)"
        );
        assert!(m["utility"].is_number() && m["utilityLcb"].is_number());
        let pv = m["pv"].as_array().unwrap();
        assert_eq!(pv[0], m["move"], "the pv starts with the move");
        assert_eq!(m["ownership"].as_array().unwrap().len(), 81);
    }
    assert!(sum < visits, "children's visits {sum} < root's {visits}");

    let own = r["ownership"].as_array().unwrap();
    assert_eq!(own.len(), 81);
    assert!(own.iter().all(|x| (-1.0..=1.0).contains(&f(x))));
    // Row-major from the top-left (A9): E5 is row 4, column 4; C7 is row 2, column 2.
    assert!(
        f(&own[4 * 9 + 4]) > 0.5,
        "Black's E5 is Black's (BLACK view)"
    );
    assert!(f(&own[2 * 9 + 2]) < -0.5, "White's C7 is White's");

    let policy = r["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 82);
    assert_eq!(f(&policy[4 * 9 + 4]), -1.0, "occupied point is illegal");
    let legal: f64 = policy.iter().map(f).filter(|&p| p >= 0.0).sum();
    assert!(
        (legal - 1.0).abs() < 1e-3,
        "legal policy sums to 1: {legal}"
    );
    assert!(f(&policy[81]) >= 0.0, "pass is legal, last");
    e.close();
}

/// Black 12 stones up, komi 0, White to move: clearly Black's game.
fn black_winning_query(id: &str, persp: &str) -> String {
    let stones: Vec<String> = (1..=6)
        .flat_map(|r| [format!(r#"["B","A{r}"]"#), format!(r#"["B","B{r}"]"#)])
        .collect();
    format!(
        r#"{{"id":"{id}","initialStones":[{}],"moves":[],"initialPlayer":"W","rules":"tromp-taylor","komi":0,"boardXSize":9,"boardYSize":9,"maxVisits":30,"includeOwnership":true,"overrideSettings":{{"reportAnalysisWinratesAs":"{persp}"}}}}"#,
        stones.join(",")
    )
}

#[test]
fn winrates_follow_report_analysis_winrates_as() {
    let e = Engine::deterministic();
    let mut got = Vec::new();
    for p in ["BLACK", "WHITE", "SIDETOMOVE"] {
        e.send(&black_winning_query(p, p));
        let r = e.recv();
        assert_eq!(r["id"], p);
        assert_eq!(r["rootInfo"]["currentPlayer"], "W");
        got.push(r);
    }
    let wr = |r: &Value| f(&r["rootInfo"]["winrate"]);
    let lead = |r: &Value| f(&r["rootInfo"]["scoreLead"]);
    let own_a1 = |r: &Value| f(&r["ownership"][8 * 9]);
    assert!(
        wr(&got[0]) > 0.5 && lead(&got[0]) > 0.0,
        "BLACK: {}",
        got[0]
    );
    assert!(
        wr(&got[1]) < 0.5 && lead(&got[1]) < 0.0,
        "WHITE: {}",
        got[1]
    );
    assert!(
        wr(&got[2]) < 0.5 && lead(&got[2]) < 0.0,
        "SIDETOMOVE (White)"
    );
    assert!((wr(&got[0]) + wr(&got[1]) - 1.0).abs() < 1e-6);
    assert!(own_a1(&got[0]) > 0.5 && own_a1(&got[1]) < -0.5);
    for m in got[0]["moveInfos"].as_array().unwrap() {
        assert!(
            f(&m["winrate"]) > 0.5,
            "every White move still loses (BLACK view)"
        );
    }
    e.close();
}

#[test]
fn actions_are_echoed() {
    let e = Engine::deterministic();
    e.send(r#"{"id":"v","action":"query_version"}"#);
    let r = e.recv();
    assert_eq!(r["id"], "v");
    assert_eq!(r["action"], "query_version");
    assert!(r["version"].is_string() && r["git_hash"].is_string());
    e.send(r#"{"id":"c","action":"clear_cache"}"#);
    assert_eq!(e.recv(), json!({"id":"c","action":"clear_cache"}));
    e.send(r#"{"id":"m","action":"query_models"}"#);
    assert!(e.recv()["models"].is_array());
    e.send(r#"{"id":"t","action":"terminate","terminateId":"nothing"}"#);
    assert_eq!(
        e.recv(),
        json!({"id":"t","action":"terminate","terminateId":"nothing"})
    );
    e.send(r#"{"id":"t2","action":"terminate"}"#);
    let r = e.recv();
    assert_eq!(
        (&r["id"], &r["field"]),
        (&json!("t2"), &json!("terminateId"))
    );
    e.close();
}

#[test]
fn bad_queries_get_errors_and_the_engine_goes_on() {
    let e = Engine::deterministic();
    let base = r#""rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":5"#;
    let cases: Vec<(String, Option<&str>, Option<&str>)> = vec![
        ("{not json".into(), None, None),
        ("[1,2]".into(), None, None),
        (format!(r#"{{"moves":[],{base}}}"#), None, None),
        (
            format!(r#"{{"id":"a","moves":[["B","E5"],["W","E5"]],{base}}}"#),
            Some("a"),
            Some("moves"),
        ),
        (
            r#"{"id":"b","moves":[],"rules":"no-such-rules","boardXSize":9,"boardYSize":9}"#.into(),
            Some("b"),
            Some("rules"),
        ),
        (
            r#"{"id":"c","moves":[],"rules":"chinese","boardXSize":25,"boardYSize":25}"#.into(),
            Some("c"),
            Some("boardXSize"),
        ),
        (
            r#"{"id":"d","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":13}"#.into(),
            Some("d"),
            Some("boardYSize"),
        ),
        (format!(r#"{{"id":"e",{base}}}"#), Some("e"), Some("moves")),
        (
            format!(r#"{{"id":"f","moves":[["X","E5"]],{base}}}"#),
            Some("f"),
            Some("moves"),
        ),
        (
            format!(r#"{{"id":"g","moves":[["B","Z99"]],{base}}}"#),
            Some("g"),
            Some("moves"),
        ),
        (
            format!(r#"{{"id":"h","moves":[],"analyzeTurns":[3],{base}}}"#),
            Some("h"),
            Some("analyzeTurns"),
        ),
        (
            format!(r#"{{"id":"i","moves":[],"komi":7.3,{base}}}"#),
            Some("i"),
            Some("komi"),
        ),
        (
            r#"{"id":"j","moves":[],"maxVisits":0,"rules":"chinese","boardXSize":9,"boardYSize":9}"#.into(),
            Some("j"),
            Some("maxVisits"),
        ),
        (
            format!(
                r#"{{"id":"k","moves":[],"overrideSettings":{{"reportAnalysisWinratesAs":"PURPLE"}},{base}}}"#
            ),
            Some("k"),
            Some("overrideSettings"),
        ),
        (
            format!(r#"{{"id":"l","moves":[],"includePolicy":"yes",{base}}}"#),
            Some("l"),
            Some("includePolicy"),
        ),
        (r#"{"id":"m","action":"fly"}"#.into(), Some("m"), None),
    ];
    for (line, id, field) in &cases {
        e.send(line);
        let r = e.recv();
        assert!(r["error"].is_string(), "{line} → {r}");
        assert_eq!(r.get("id").and_then(Value::as_str), *id, "{line} → {r}");
        assert_eq!(
            r.get("field").and_then(Value::as_str),
            *field,
            "{line} → {r}"
        );
    }
    e.send(
        r#"{"id":"c","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":5}"#,
    );
    let r = e.recv();
    assert!(r["moveInfos"].is_array(), "still answering: {r}");
    e.close();
}

#[test]
fn warnings_do_not_stop_the_query() {
    let e = Engine::deterministic();
    e.send(r#"{"id":"w","moves":[],"rules":"stone-scoring","komi":6.5,"boardXSize":9,"boardYSize":9,"maxVisits":5,"colour":"blue","overrideSettings":{"wideRootNoise":0.04,"playoutDoublingAdvantage":1.0}}"#);
    let mut warned = Vec::new();
    loop {
        let r = e.recv();
        if let Some(w) = r.get("warning") {
            assert!(w.is_string());
            assert_eq!(r["id"], "w");
            warned.push(r["field"].as_str().unwrap().to_string());
        } else {
            assert_eq!(r["id"], "w");
            assert!(r["moveInfos"].is_array());
            break;
        }
    }
    warned.sort();
    assert_eq!(warned, ["colour", "overrideSettings", "rules"]);
    e.close();
}

#[test]
fn the_same_query_gives_the_same_answer() {
    let e = Engine::deterministic();
    let q = format!(
        r#"{{"id":"d","moves":{GAME},"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":40}}"#
    );
    e.send(&q);
    let a = e.recv();
    e.send(&q);
    let b = e.recv();
    assert_eq!(a["moveInfos"], b["moveInfos"]);
    assert_eq!(a["rootInfo"], b["rootInfo"]);
    e.close();
}

#[test]
fn avoid_and_allow_moves_restrict_the_root() {
    let e = Engine::deterministic();
    e.send(r#"{"id":"av","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":40,"avoidMoves":[{"player":"B","moves":["E5","D5","F5","E4","E6"],"untilDepth":1}]}"#);
    let r = e.recv();
    for m in r["moveInfos"].as_array().unwrap() {
        assert!(
            !["E5", "D5", "F5", "E4", "E6"].contains(&m["move"].as_str().unwrap()),
            "{m}"
        );
    }
    e.send(r#"{"id":"al","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":40,"allowMoves":[{"player":"B","moves":["A1","J9"],"untilDepth":1}]}"#);
    let r = e.recv();
    let moves: Vec<&str> = r["moveInfos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| ["A1", "J9"].contains(m)), "{moves:?}");
    e.close();
}

#[test]
fn katrain_settings_are_honoured_or_refused_out_loud() {
    let e = Engine::deterministic();
    // KaTrain's own: wideRootNoise on every query, PV visits and stdevs.
    let query = |id: &str, wide: f64| {
        format!(
            r#"{{"id":"{id}","moves":{GAME},"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":120,"includePVVisits":true,"includeOwnership":true,"includeOwnershipStdev":true,"overrideSettings":{{"wideRootNoise":{wide}}}}}"#
        )
    };
    e.send(&query("narrow", 0.0));
    let narrow = e.recv();
    assert!(narrow.get("warning").is_none(), "{narrow}");
    e.send(&query("wide", 1.0));
    let wide = e.recv();
    assert!(wide.get("warning").is_none(), "{wide}");
    let moves = |r: &Value| r["moveInfos"].as_array().unwrap().len();
    assert!(
        moves(&wide) > moves(&narrow),
        "wideRootNoise 1 looks at more moves: {} vs {}",
        moves(&wide),
        moves(&narrow)
    );
    for r in [&narrow, &wide] {
        assert!(f(&r["rootInfo"]["scoreStdev"]) >= 0.0);
        let sd = r["ownershipStdev"].as_array().unwrap();
        assert_eq!(sd.len(), 81);
        assert!(sd.iter().all(|x| (0.0..=1.0).contains(&f(x))));
        for m in r["moveInfos"].as_array().unwrap() {
            assert!(f(&m["scoreStdev"]) >= 0.0);
            let pv = m["pv"].as_array().unwrap();
            let pvv: Vec<u64> = m["pvVisits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(pvv.len(), pv.len(), "{m}");
            assert_eq!(pvv[0], m["visits"].as_u64().unwrap());
            assert!(pvv.windows(2).all(|w| w[1] <= w[0]), "{pvv:?}");
        }
    }
    // The root's score stdev is real: some spread after 120 visits.
    assert!(
        f(&narrow["rootInfo"]["scoreStdev"]) > 0.0,
        "{}",
        narrow["rootInfo"]
    );
    // Settings tengen cannot honour are named in a warning.
    e.send(&format!(
        r#"{{"id":"pda","moves":{GAME},"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"maxVisits":5,"overrideSettings":{{"playoutDoublingAdvantage":1.5,"antiMirror":true}}}}"#
    ));
    let w = e.recv();
    let text = w["warning"].as_str().unwrap_or_default();
    assert!(
        text.contains("Not supported")
            && text.contains("playoutDoublingAdvantage")
            && text.contains("antiMirror"),
        "{w}"
    );
    let r = e.recv();
    assert!(r["moveInfos"].is_array());
    e.close();
}
