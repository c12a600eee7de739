//! Edge-case tests: the SGF parser test files under
//! `../shared/testdata/sgf-edge/` (illegal games, character encodings,
//! escaping, old property names, deep trees), and hand-made malformed input.
//!
//! Tests that need the external test data print a note on stderr and pass
//! when it is absent.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

mod common;

use common::sgf_files;
use tengen::rules::{Color, IllegalMove, KoRule, Move, Point, Ruleset};
use tengen::sgf::{
    parse, parse_bytes, parse_strict, write_record, GameRecord, ReplayError, SgfErrorKind,
};

fn load(dir: &Path, name: &str) -> GameRecord {
    let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    GameRecord::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn pt(s: &str) -> Point {
    Point::parse_sgf(s, 19).expect("valid point")
}

fn illegal(
    r: Result<tengen::rules::Position, ReplayError>,
) -> (usize, Color, Move, IllegalMove, KoRule) {
    match r {
        Err(ReplayError::IllegalMove {
            number,
            color,
            mv,
            reason,
            ko,
            ..
        }) => (number, color, mv, reason, ko),
        Err(e) => panic!("expected an illegal move, got {e}"),
        Ok(_) => panic!("expected an illegal move, the game replays"),
    }
}

fn situational() -> Ruleset {
    let mut r = Ruleset::chinese();
    r.ko = KoRule::Situational;
    r
}

fn simple_ko() -> Ruleset {
    let mut r = Ruleset::chinese();
    r.ko = KoRule::Simple;
    r
}

/// Every file loads or fails with an error; nothing panics. Files that load
/// are also replayed (any outcome) and written back out.
#[test]
fn every_edge_file_loads_or_fails_cleanly() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    let files = sgf_files(&dir);
    assert!(files.len() >= 100, "found only {} files", files.len());
    let mut panicked = Vec::new();
    let (mut loaded, mut failed) = (0, 0);
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| match GameRecord::from_bytes(&bytes) {
            Ok(rec) => {
                let _ = rec.replay(None);
                let _ = GameRecord::from_sgf(&write_record(&rec)).map(|r| r.replay(None).is_ok());
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }));
        match outcome {
            Ok(Ok(())) => loaded += 1,
            Ok(Err(msg)) => {
                assert!(!msg.is_empty());
                eprintln!("{}: {msg}", path.display());
                failed += 1;
            }
            Err(_) => panicked.push(path.display().to_string()),
        }
    }
    eprintln!("sgf-edge: {loaded} loaded, {failed} failed cleanly");
    assert!(panicked.is_empty(), "panicked on: {panicked:?}");
}

#[test]
fn illegal_games_fail_for_the_right_reason() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    let d = |n: &str| format!("littlego/Illegal games/{n}");

    // W[aa] into the corner surrounded by B[ab], B[ba]: suicide. Where
    // suicide is allowed (Tromp-Taylor) the stone removes itself, which
    // recreates the position after move 3: positional superko. With suicide
    // allowed and only simple ko it is legal.
    let r = load(&dir, &d("suicide.sgf"));
    assert_eq!(
        illegal(r.replay(None)),
        (
            4,
            Color::White,
            Move::Place(pt("aa")),
            IllegalMove::Suicide,
            KoRule::Positional
        )
    );
    assert_eq!(
        illegal(r.replay_with(Ruleset::tromp_taylor(), None)),
        (
            4,
            Color::White,
            Move::Place(pt("aa")),
            IllegalMove::Superko,
            KoRule::Positional
        )
    );
    let mut suicide_simple_ko = Ruleset::tromp_taylor();
    suicide_simple_ko.ko = KoRule::Simple;
    let pos = r
        .replay_with(suicide_simple_ko, None)
        .expect("legal suicide");
    assert_eq!(pos.board().get(pt("aa")), None);

    // B[eg] (move 23) recreates the position after move 21 with White to
    // play instead of Black: a positional, not a situational, repetition.
    let r = load(&dir, &d("positional-superko.sgf"));
    assert_eq!(
        illegal(r.replay(None)),
        (
            23,
            Color::Black,
            Move::Place(pt("eg")),
            IllegalMove::Superko,
            KoRule::Positional
        )
    );
    assert!(r.replay_with(situational(), None).is_ok());
    assert!(r.replay_with(simple_ko(), None).is_ok());
    assert!(r.replay(Some(22)).is_ok());

    // W[ba] (move 24) repeats an earlier position with the same player to
    // move, so both superko flavours forbid it; simple ko does not.
    let r = load(&dir, &d("situational-superko.sgf"));
    assert_eq!(
        illegal(r.replay(None)),
        (
            24,
            Color::White,
            Move::Place(pt("ba")),
            IllegalMove::Superko,
            KoRule::Positional
        )
    );
    assert_eq!(
        illegal(r.replay_with(situational(), None)),
        (
            24,
            Color::White,
            Move::Place(pt("ba")),
            IllegalMove::Superko,
            KoRule::Situational
        )
    );
    assert!(r.replay_with(simple_ko(), None).is_ok());
    let msg = r
        .replay_with(situational(), None)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        msg.as_deref(),
        Some("line 5, column 18: move 24 (white B9 [ba]) is illegal: situational superko: repeats an earlier position")
    );

    // W[hd] on Black's stone from the move before.
    let r = load(&dir, &d("illegal-move.sgf"));
    assert_eq!(
        illegal(r.replay(None)),
        (
            16,
            Color::White,
            Move::Place(Point::parse_sgf("hd", 9).expect("hd")),
            IllegalMove::Occupied,
            KoRule::Positional
        )
    );

    // Black aa+ab surrounded by White ac, ba, bb in the setup.
    let r = load(&dir, &d("illegal-setup.sgf"));
    assert!(
        matches!(
            r.replay(None),
            Err(ReplayError::IllegalSetup {
                color: Color::Black,
                node: 0,
                ..
            })
        ),
        "{:?}",
        r.replay(None).err()
    );

    let bytes = std::fs::read(dir.join(d("not-an-sgf-file.sgf"))).expect("read");
    let e = GameRecord::from_bytes(&bytes).expect_err("not SGF");
    assert_eq!((e.kind, e.line, e.col), (SgfErrorKind::NoGameTree, 1, 1));

    // HA[3] without stones: loads, with a warning.
    let r = load(&dir, &d("not-enough-handicap-stones.sgf"));
    assert!(r.warnings.iter().any(|w| w.message.contains("HA[3]")));
    assert!(r.replay(None).is_ok());

    // Setup after the first move, PL after the first move, setup before
    // HA: all legal FF[4]; we apply them in order.
    let r = load(&dir, &d("setup-after-first-move.sgf"));
    let pos = r.replay(None).expect("replays");
    assert_eq!(pos.board().get(pt("aa")), Some(Color::Black));
    assert_eq!(pos.board().get(pt("bb")), Some(Color::Black));
    let r = load(&dir, &d("setup-player-after-first-move.sgf"));
    assert_eq!(r.replay(None).expect("replays").to_move(), Color::Black);
    let r = load(&dir, &d("setup-before-handicap-setup.sgf"));
    assert_eq!(
        r.replay(None).expect("replays").board().get(pt("aa")),
        Some(Color::Black)
    );

    // 1395 moves: no limit here.
    let r = load(&dir, &d("too-many-moves.sgf"));
    assert_eq!(r.move_count(), 1395);
    assert!(r.replay(None).is_ok());

    // `(CA[UTF-8])` has no node marker: read as a tree with an implied
    // root, with a warning; the second tree is kept.
    let r = load(&dir, &d("encoding-detection-fails.sgf"));
    assert_eq!(r.other_trees.len(), 1);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.message.contains("before any ';'")));
    let r = load(&dir, &d("encoding-multiple.sgf"));
    assert_eq!(r.other_trees.len(), 1);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.message.contains("several charsets")));
    let r = load(&dir, &d("encoding-unsupported.sgf"));
    assert!(r
        .warnings
        .iter()
        .any(|w| w.message.contains("unknown charset CA[foo]")));
    assert!(r.warnings.iter().any(|w| w.message.contains("unclosed")));
}

#[test]
fn size_and_move_errors_in_edge_files() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    let err = |name: &str| {
        let bytes = std::fs::read(dir.join(name)).expect("read");
        GameRecord::from_bytes(&bytes).expect_err(name)
    };
    let e = err("littlego/25x25/25x25_single_black_move.sgf");
    assert_eq!(e.kind, SgfErrorKind::UnsupportedSize(25));
    assert!(e.to_string().contains("board size 25 not supported"));
    assert_eq!((e.line, e.col), (1, 32));
    let e = err("gogui-junit/invalidmove.sgf");
    assert_eq!((e.line, e.col), (2, 14));
    assert!(
        e.to_string().contains("invalid move B[rs] on a 9x9 board"),
        "{e}"
    );
    // SZ after the points still decides: pp is off a 9x9 board.
    let e = err("gogui-junit/size-after-invalid-points.sgf");
    assert!(matches!(e.kind, SgfErrorKind::BadPoint { .. }), "{e}");
    let r = load(&dir, "gogui-junit/size-after-valid-points.sgf");
    assert_eq!(
        r.nodes[0].setup,
        vec![
            (Some(Color::Black), pt("pp")),
            (Some(Color::White), pt("cp"))
        ]
    );
    let e = err("libsgfcplusplus/escaping.sgf");
    assert!(matches!(e.kind, SgfErrorKind::NotGo(_)));
}

#[test]
fn old_and_odd_files() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    // Verbose FF[1]-style identifiers: GaMe, SiZe, PlayerBlack, Black, ...
    let r = load(&dir, "gogui-junit/verbose-property-names.sgf");
    assert_eq!(r.black.as_deref(), Some("Robin Upton"));
    assert_eq!(r.white.as_deref(), Some("J. Chin"));
    assert_eq!(r.komi, Some(6.0));
    assert_eq!(r.nodes[0].to_play, Some(Color::Black));
    assert_eq!(r.nodes[1].mv, Some((Color::Black, Move::Place(pt("qc")))));
    assert!(r.nodes[5]
        .comment
        .as_deref()
        .is_some_and(|c| c.starts_with("donjuan[2d*]: very odd")));
    assert!(r.replay(None).is_ok());

    // GTP-style vertices, accepted with a warning.
    let r = load(&dir, "gogui-junit/human-readable.sgf");
    let moves: Vec<_> = r.moves().collect();
    assert_eq!(
        moves.first(),
        Some(&(
            Color::Black,
            Move::Place(Point::parse_gtp("R16", 19).expect("R16"))
        ))
    );
    assert_eq!(moves.last(), Some(&(Color::White, Move::Pass)));
    assert!(r.warnings.iter().any(|w| w.message.contains("GTP-style")));

    // Compressed point lists: AB[cc:dd] in the second node is 4 stones.
    let r = load(&dir, "libsgfcplusplus/compressed-point-list.sgf");
    let black: Vec<Point> = r.nodes[2].setup.iter().map(|s| s.1).collect();
    assert_eq!(black, vec![pt("cc"), pt("dc"), pt("cd"), pt("dd")]);
    assert_eq!(r.other_trees.len(), 1);

    // ff4_ex: variations kept, main line = first child each time.
    let r = load(&dir, "gogui-junit/ff4_ex.sgf");
    let tree = r.tree.as_ref().expect("tree");
    assert!(tree.has_variations());
    assert_eq!(r.nodes.len(), tree.main_line().len());
    assert_eq!(r.move_count(), 13);
    assert_eq!(
        r.moves().last(),
        Some((Color::Black, Move::Pass)),
        "B[tt] is a pass"
    );

    // Game information below the root (FF[4] merged game trees).
    let r = load(&dir, "littlego/9x9/gameinfo.sgf");
    assert_eq!(r.result.as_deref(), Some("W+17.5"));
    assert_eq!(r.rules.as_deref(), Some("AGA"));
    assert_eq!(r.komi, Some(0.5));

    // Deep game trees: 1000 to 5000 nodes in one line, five trees.
    let r = load(&dir, "libsgfcplusplus/deep-game-tree.sgf");
    assert_eq!(r.size, 7);
    assert_eq!(r.other_trees.len(), 4);
    let sizes: Vec<usize> = r.other_trees.iter().map(|t| t.len()).collect();
    assert_eq!(sizes, vec![1000, 2000, 5000, 1397]);
    for t in &r.other_trees {
        // A pseudo-game of passes and captures in the corner: it soon
        // repeats a position, which positional superko refuses.
        let g = GameRecord::from_tree(t.clone()).expect("tree reads");
        let r = g.replay(None);
        assert!(
            matches!(
                r,
                Err(ReplayError::IllegalMove {
                    reason: IllegalMove::Superko,
                    ..
                })
            ),
            "{:?}",
            r.err()
        );
    }

    // A truncated file (no closing parenthesis): read best-effort.
    let r = load(&dir, "littlego/19x19/Fuego vs. Fuego.sgf");
    assert!(r
        .warnings
        .iter()
        .any(|w| w.message.contains("file ends inside a game tree")));
    assert_eq!(r.move_count(), 352);
    assert!(r.replay(None).is_ok());

    // Fox-style root: repeated AP merged, KM[325] kept as written.
    let r = load(&dir, "katago-tests-data/foxlike.sgf");
    assert_eq!(r.komi, Some(325.0));
    assert_eq!(r.handicap, Some(2));
    assert_eq!(r.nodes[1].setup.len(), 2);

    // Non-alternating play in the main line.
    let r = load(&dir, "littlego/9x9/non-alternating-play.sgf");
    assert!(r.replay(None).is_ok());
}

#[test]
fn encodings_decode_to_the_right_text() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    let comment = |name: &str, node: usize| -> String {
        let r = load(&dir, &format!("libsgfcplusplus/{name}"));
        r.nodes
            .get(node)
            .and_then(|n| n.comment.clone())
            .unwrap_or_default()
    };
    let zh_hans = "围棋是一种古老的游戏，从被遗忘的中国起源先传到东亚其他地区，然后传到整个世界。";
    for f in [
        "encoding-chinese-gb18030.sgf",
        "encoding-chinese-gbk.sgf",
        "encoding-simplifiedchinese-gb2312.sgf",
        "encoding-simplifiedchinese-macos.sgf",
    ] {
        assert_eq!(comment(f, 3), zh_hans, "{f}");
    }
    let zh_hant = "圍棋是一種古老的遊戲，從其被遺忘的中國起源開始，首先傳播到東亞其他地區，然後傳播到整個世界。";
    for f in [
        "encoding-traditionalchinese-big5.sgf",
        "encoding-traditionalchinese-macos.sgf",
    ] {
        assert_eq!(comment(f, 3), zh_hant, "{f}");
    }
    let ja = "Goは古代のゲームであり、中国での起源を忘れてから、最初に東アジアの他の地域に広がり、次に全世界に広がりました。";
    for f in [
        "encoding-japanese-shiftjis.sgf",
        "encoding-japanese-macos.sgf",
        "encoding-japanese-iso2022jp.sgf",
    ] {
        assert_eq!(comment(f, 3), ja, "{f}");
    }
    assert!(comment("encoding-korean-macos.sgf", 3).starts_with("바둑은 중국에서"));
    assert!(comment("encoding-cyrillic-windows.sgf", 3).starts_with("Го - древняя игра"));
    let western = "Ää Àà Ââ Åå Ææ Çç Èè Éé Êê Ëë Îî Ïï Ññ Öö Ôô Øø ß Üü Ùù Ûû ÿ ¿¡ «»";
    for f in [
        "encoding-western-isolatin1.sgf",
        "encoding-western-isolatin9.sgf",
        "encoding-western-macosroman.sgf",
        "encoding-western-windowslatin1.sgf",
    ] {
        assert_eq!(comment(f, 3), western, "{f}");
    }
    assert_eq!(comment("encoding-western-isolatin9.sgf", 5), "Ÿ Œœ €");
    assert_eq!(comment("encoding-western-macosroman.sgf", 7), "ƒ ‰ ™");
    // The four Unicode files say the same thing in many scripts.
    let utf8 = load(&dir, "libsgfcplusplus/encoding-utf8-nobom.sgf");
    assert_eq!(
        utf8.nodes.get(11).and_then(|n| n.comment.as_deref()),
        Some(zh_hans)
    );
    for f in [
        "encoding-utf8-withbom.sgf",
        "encoding-utf16-withbom.sgf",
        "encoding-utf16-nobom.sgf",
    ] {
        let r = load(&dir, &format!("libsgfcplusplus/{f}"));
        assert_eq!(r.nodes.len(), utf8.nodes.len(), "{f}");
        // Node 1 describes the file itself.
        for (a, b) in r.nodes.iter().zip(&utf8.nodes).skip(2) {
            assert_eq!(a.comment, b.comment, "{f}");
        }
    }

    // Sabaki's files: player names and comments.
    let r = load(&dir, "sabaki-sgf/chinese.sgf");
    assert_eq!(
        (r.black.as_deref(), r.white.as_deref()),
        (Some("古力"), Some("柯洁"))
    );
    assert_eq!(r.nodes[2].comment.as_deref(), Some("围棋 is fun"));
    let r = load(&dir, "sabaki-sgf/japanese.sgf");
    assert_eq!(
        (r.black.as_deref(), r.white.as_deref()),
        (Some("井山 裕太"), Some("山下 敬吾"))
    );
    assert_eq!(r.nodes[2].comment.as_deref(), Some("囲碁 is fun"));
    let r = load(&dir, "sabaki-sgf/korean.sgf");
    assert_eq!(
        (r.black.as_deref(), r.white.as_deref()),
        (Some("이세돌"), Some("박정환"))
    );
    assert_eq!(r.nodes[2].comment.as_deref(), Some("바둑 is fun"));
    for f in ["sabaki-sgf/utf16le.sgf", "sabaki-sgf/utf8bom.sgf"] {
        let r = load(&dir, f);
        assert_eq!(r.black.as_deref(), Some("Kitani Minoru"), "{f}");
        assert_eq!(r.white.as_deref(), Some("Go Seigen"), "{f}");
        assert_eq!(r.move_count(), 164, "{f}");
    }
    // CA[MS_KANJI] on bytes that are really UTF-8 (with U+FFFD in them):
    // UTF-8 wins, with a warning.
    let r = load(&dir, "sabaki-sgf/japanese_bad.sgf");
    assert!(r.warnings.iter().any(|w| w.message.contains("valid UTF-8")));
    assert!(r.nodes[2]
        .comment
        .as_deref()
        .is_some_and(|c| c.ends_with(" is fun")));
    // No CA and not UTF-8: read as Latin-1 with a warning (the bytes are
    // really GB2312 and Shift_JIS; we do not guess among CJK charsets).
    for f in ["sabaki-sgf/no-ca.sgf", "sabaki-sgf/encoding/nihon-kiin.sgf"] {
        let r = load(&dir, f);
        assert!(
            r.warnings.iter().any(|w| w.message.contains("Latin-1")),
            "{f}"
        );
    }
}

/// `escaping.sgf` against libsgfcplusplus's expected output: every raw
/// value listed there, in order, equals our unescaped value (composed
/// values split at their unescaped colon).
#[test]
fn escaping_matches_the_expected_output() {
    let Some(dir) = common::testdata("sgf-edge") else {
        return;
    };
    let dir = dir.join("libsgfcplusplus");
    let bytes = std::fs::read(dir.join("escaping.sgf")).expect("read");
    let expected_text = std::fs::read_to_string(dir.join("escaping-output.txt")).expect("read");
    let expected: Vec<String> = expected_text
        .lines()
        .filter(|l| l.trim_start().starts_with("Raw value"))
        .filter_map(|l| {
            let (_, v) = l.split_once("= \"")?;
            Some(v.strip_suffix('"')?.to_string())
        })
        .collect();
    // FF, GM, AP (2 parts), C, C, N, N, B, B, CR, CR, AB, AW, AR (2 parts).
    assert_eq!(expected.len(), 16);
    let c = parse_bytes(&bytes).expect("parses");
    let mut ours = Vec::new();
    for node in &c.trees[0].nodes {
        for p in &node.props {
            for i in 0..p.values.len() {
                if p.id == "AP" || p.id == "AR" {
                    let (a, b) = p.composed(i).expect("value");
                    ours.push(a);
                    ours.extend(b);
                } else {
                    ours.extend(p.text(i));
                }
            }
        }
    }
    assert_eq!(ours, expected);
}

#[test]
fn malformed_input_gives_located_errors() {
    // Unclosed value: lenient reading keeps it with a located warning;
    // strict reading fails at the `[`.
    let text = "(;FF[4]\n;B[aa\n";
    let c = parse(text).expect("lenient");
    assert!(c
        .warnings
        .iter()
        .any(|w| (w.line, w.col) == (2, 3) && w.message.contains("not terminated")));
    let e = parse_strict(text).expect_err("strict");
    assert_eq!((e.line, e.col), (2, 3));
    assert!(e
        .to_string()
        .starts_with("line 2, column 3: malformed SGF: value not terminated"));

    // Missing `(`, only `;`, empty, binary junk.
    for bad in [";FF[4];B[aa]", ";", "", "\u{0}\u{1}\u{ff}]]]", "B[aa]"] {
        let e = parse(bad).expect_err(bad);
        assert_eq!(e.kind, SgfErrorKind::NoGameTree, "{bad:?}");
        assert_eq!((e.line, e.col), (1, 1));
    }
    let e = GameRecord::from_bytes(&[0xff, 0xfe, 0x00, 0xd8, 0x28]).expect_err("junk");
    assert_eq!(e.kind, SgfErrorKind::NoGameTree);

    // Garbage between nodes: skipped with a warning, or an error in strict mode.
    let c = parse("(;B[aa] %% ;W[bb])").expect("lenient");
    assert_eq!(c.trees[0].len(), 2);
    assert_eq!(c.warnings.len(), 1);
    let e = parse_strict("(;B[aa] %% ;W[bb])").expect_err("strict");
    assert_eq!((e.line, e.col), (1, 9));

    // Huge and bad sizes, moves off the board.
    let e = GameRecord::from_sgf("(;SZ[99999999999999999999999])").expect_err("huge");
    assert!(matches!(e.kind, SgfErrorKind::BadSize(_)));
    assert_eq!((e.line, e.col), (1, 3));
    let e = GameRecord::from_sgf("(;SZ[4294967296999])").expect_err("huge");
    assert_eq!(e.kind, SgfErrorKind::UnsupportedSize(4294967296999));
    let e = GameRecord::from_sgf("(;FF[4]\n  SZ[99])").expect_err("99");
    assert_eq!(
        (e.kind.clone(), e.line, e.col),
        (SgfErrorKind::UnsupportedSize(99), 2, 3)
    );
    let e = GameRecord::from_sgf("(;SZ[1])").expect_err("1");
    assert_eq!(e.kind, SgfErrorKind::UnsupportedSize(1));
    let e = GameRecord::from_sgf("(;SZ[9];B[ee]\n;W[zz])").expect_err("zz");
    assert_eq!((e.line, e.col), (2, 2));
    assert_eq!(
        e.to_string(),
        "line 2, column 2: invalid move W[zz] on a 9x9 board"
    );
    let e = GameRecord::from_sgf("(;SZ[9]AB[aa:zz])").expect_err("zz");
    assert!(matches!(e.kind, SgfErrorKind::BadPoint { .. }));
}

#[test]
fn replay_upto_and_player_to_move() {
    let r = GameRecord::from_sgf("(;SZ[9]HA[2]AB[cc][gg];W[ee];B[dd];W[ff])").expect("reads");
    let p = r.replay(Some(0)).expect("replays");
    assert_eq!(p.to_move(), Color::White);
    assert_eq!(p.board().get(Point::new(2, 2)), Some(Color::Black));
    assert_eq!(p.board().get(Point::new(4, 4)), None);
    let p = r.replay(Some(2)).expect("replays");
    assert_eq!(p.to_move(), Color::White);
    assert_eq!(p.board().get(Point::new(3, 3)), Some(Color::Black));
    let p = r.replay(None).expect("replays");
    assert_eq!(p.to_move(), Color::Black);
    assert_eq!(p.rules().komi, Ruleset::chinese().komi);
    // Handicap stones and no moves: White to play.
    let r = GameRecord::from_sgf("(;SZ[9]HA[2]KM[0.5]RU[tromp-taylor]AB[cc][gg])").expect("reads");
    let p = r.replay(None).expect("replays");
    assert_eq!(p.to_move(), Color::White);
    assert_eq!(p.rules().komi, 0.5);
    assert!(p.rules().suicide_allowed);
}
