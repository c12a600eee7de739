//! Property tests: the SGF reader never panics, whatever the bytes, and
//! what the writer writes reads back unchanged.

use proptest::prelude::*;

use tengen::rules::{Color, Move, Point};
use tengen::sgf::{parse, parse_bytes, parse_strict, write_collection, write_record, GameRecord};

/// A valid game with setup, passes, comments and a variation.
const VALID: &str = "(;FF[4]CA[UTF-8]GM[1]SZ[9]KM[6.5]RU[Chinese]PB[B]PW[W]\
AB[cc][gg]AW[ee:ff]C[root \\] comment]\
;W[dc]C[first]\n;B[cd];W[];B[tt]\
(;W[ab]LB[ab:x];B[ba])(;W[ii]))";

/// Everything the reader offers, on one input: nothing may panic.
fn exercise(bytes: &[u8]) {
    if let Ok(c) = parse_bytes(bytes) {
        let _ = write_collection(&c.trees);
        if let Ok(rec) = GameRecord::from_collection(c) {
            let _ = rec.replay(None);
            let _ = rec.replay(Some(3));
            let back = GameRecord::from_sgf(&write_record(&rec));
            assert!(back.is_ok(), "written record does not read back");
            if let Ok(back) = back {
                assert_eq!(back.nodes, rec.nodes);
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = parse(text);
        let _ = parse_strict(text);
    }
}

/// A byte-level mutation of `VALID`.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let edits = prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..12);
    edits.prop_map(|edits| {
        let mut b = VALID.as_bytes().to_vec();
        for (at, kind, byte) in edits {
            if b.is_empty() {
                b.push(byte);
                continue;
            }
            let i = at.index(b.len());
            match kind {
                0 => b[i] = byte,
                1 => b.insert(i, byte),
                2 => {
                    b.remove(i);
                }
                _ => {
                    // Insert a syntax character: the interesting ones.
                    let syntax = b"()[];\\:";
                    b.insert(i, syntax[byte as usize % syntax.len()]);
                }
            }
        }
        b
    })
}

/// Random SGF-ish text from syntax pieces.
fn sgf_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("(".to_string()),
        Just(")".to_string()),
        Just(";".to_string()),
        Just("B[aa]".to_string()),
        Just("W[]".to_string()),
        Just("W[tt]".to_string()),
        Just("AB[aa:ss]".to_string()),
        Just("AE[bb]".to_string()),
        Just("SZ[9]".to_string()),
        Just("SZ[19:19]".to_string()),
        Just("PL[W]".to_string()),
        Just("C[x\\]y\\\n]".to_string()),
        Just("CA[Shift_JIS]".to_string()),
        Just("[".to_string()),
        Just("\\".to_string()),
        "[a-z]{1,2}".prop_map(|s| format!("B[{s}]")),
        "[A-Za-z]{1,4}".prop_map(|s| format!("{s}[1]")),
        "\\PC{0,3}".prop_map(|s| s),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        exercise(&bytes);
    }

    #[test]
    fn mutations_of_a_valid_game_never_panic(bytes in mutated()) {
        exercise(&bytes);
    }

    #[test]
    fn sgf_soup_never_panics(text in sgf_soup()) {
        exercise(text.as_bytes());
    }

    /// Records built in code survive write + read exactly.
    #[test]
    fn built_records_round_trip(
        size in 2usize..=19,
        komi in prop::option::of(-50i32..100),
        moves in prop::collection::vec((any::<bool>(), 0usize..400, prop::option::of("\\PC{0,12}")), 0..60),
        extra in prop::collection::vec("\\PC{0,10}", 0..3),
    ) {
        let mut rec = GameRecord::new(size).expect("valid size");
        rec.komi = komi.map(|k| k as f32 / 2.0);
        rec.black = Some("tengen ] \\ test".to_string());
        for (black, i, comment) in &moves {
            let color = if *black { Color::Black } else { Color::White };
            let mv = if i % 7 == 0 {
                Move::Pass
            } else {
                Move::Place(Point::new(i % size, (i / size) % size))
            };
            rec.push_move(color, mv, comment.as_deref());
        }
        rec.set_root_property("TE", &extra);
        let back = GameRecord::from_sgf(&write_record(&rec)).expect("reads back");
        prop_assert_eq!(back.size, rec.size);
        prop_assert_eq!(back.komi, rec.komi);
        prop_assert_eq!(&back.black, &rec.black);
        prop_assert_eq!(&back.nodes, &rec.nodes);
        if !extra.is_empty() {
            prop_assert_eq!(back.root_property_values("TE"), extra);
        }
    }
}
