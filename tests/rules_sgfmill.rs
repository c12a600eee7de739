//! Every case of sgfmill's board tests (`../shared/testdata/rules/
//! sgfmill-board-tests.json`): play sequences with the expected board,
//! simple-ko point and area score; scoring diagrams; setup legality.
//!
//! sgfmill's board allows suicide and enforces no ko, and plays the moves in
//! the order given whatever their colour, so these tests drive the raw
//! [`Board`] rather than a [`Position`](tengen::rules::Position).

mod common;

use serde_json::Value;
use tengen::rules::{Board, Color, Point, Score};

fn load() -> Option<Value> {
    let path = common::testdata("rules/sgfmill-board-tests.json")?;
    let text = std::fs::read_to_string(path).expect("read sgfmill tests");
    Some(serde_json::from_str(&text).expect("parse sgfmill tests"))
}

/// Parses sgfmill's diagram ('#' black, 'o' white, '.' empty) into a board.
fn board_from_diagram(diagram: &str) -> Board {
    let rows: Vec<Vec<&str>> = diagram
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| t.first().is_some_and(|s| s.parse::<usize>().is_ok()))
        .collect();
    let size = rows.len();
    let mut b = Board::new(size);
    for (y, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), size + 1, "bad diagram row {row:?}");
        for (x, cell) in row[1..].iter().enumerate() {
            let c = match *cell {
                "#" => Some(Color::Black),
                "o" => Some(Color::White),
                "." => None,
                other => panic!("bad diagram cell {other:?}"),
            };
            if c.is_some() {
                b.set(Point::new(x, y), c);
            }
        }
    }
    b
}

fn same_stones(a: &Board, b: &Board) -> bool {
    a.size() == b.size() && a.points().all(|p| a.get(p) == b.get(p))
}

fn area_difference(b: &Board) -> f32 {
    let s = Score::new(b, &[], 0.0, 0.0);
    s.count.black() - s.count.white()
}

#[test]
fn play_tests() {
    let Some(data) = load() else { return };
    let cases = data["play_tests"].as_array().unwrap();
    assert_eq!(cases.len(), 16);
    for case in cases {
        let name = case[0].as_str().unwrap();
        let mut board = Board::new(9);
        for m in case[1].as_array().unwrap() {
            let m = m.as_str().unwrap();
            let (c, v) = m.split_once(' ').unwrap();
            let color = Color::parse(c).unwrap();
            let p = Point::parse_gtp(v, 9).unwrap();
            assert!(board.is_empty(p), "{name}: {m} on an occupied point");
            board.place(color, p);
            tengen::rules::check_invariants(&board).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let expected = board_from_diagram(case[2].as_str().unwrap());
        assert!(
            same_stones(&board, &expected),
            "{name}: got\n{}expected\n{}",
            board.diagram(),
            expected.diagram()
        );
        let ko = case[3].as_str().map(|v| Point::parse_gtp(v, 9).unwrap());
        assert_eq!(board.ko_point(), ko, "{name}: simple-ko point");
        let score = case[4].as_f64().unwrap() as f32;
        assert_eq!(area_difference(&board), score, "{name}: area score");
    }
}

#[test]
fn score_tests() {
    let Some(data) = load() else { return };
    let cases = data["score_tests"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for case in cases {
        let name = case[0].as_str().unwrap();
        let board = board_from_diagram(case[1].as_str().unwrap());
        let score = case[2].as_f64().unwrap() as f32;
        assert_eq!(area_difference(&board), score, "{name}");
    }
}

#[test]
fn setup_tests() {
    let Some(data) = load() else { return };
    let cases = data["setup_tests"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let name = case[0].as_str().unwrap();
        let mut board = Board::new(9);
        for (k, color) in [(1, Some(Color::Black)), (2, Some(Color::White)), (3, None)] {
            for v in case[k].as_array().unwrap() {
                let p = Point::parse_gtp(v.as_str().unwrap(), 9).unwrap();
                board.set(p, color);
            }
        }
        let legal = case[5].as_bool().unwrap();
        assert_eq!(!board.has_dead_strings(), legal, "{name}: legality");
        // sgfmill removes strings left without liberties by the setup.
        board.remove_dead_strings();
        let expected = board_from_diagram(case[4].as_str().unwrap());
        assert!(
            same_stones(&board, &expected),
            "{name}: got\n{}expected\n{}",
            board.diagram(),
            expected.diagram()
        );
        tengen::rules::check_invariants(&board).unwrap();
    }
}
