//! Fuzz target: arbitrary bytes through the whole SGF stack (decoding,
//! parsing, game record, replay, writing). Nothing may panic, and a written
//! record must read back with the same main line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tengen::sgf::{parse_bytes, write_collection, write_record, GameRecord};

fuzz_target!(|data: &[u8]| {
    let Ok(collection) = parse_bytes(data) else {
        return;
    };
    // Raw trees, variations included, must read back as the same number
    // of nodes.
    let raw = write_collection(&collection.trees);
    let reread = tengen::sgf::parse(&raw).expect("written trees read back");
    assert_eq!(
        reread.trees.iter().map(|t| t.len()).collect::<Vec<_>>(),
        collection.trees.iter().map(|t| t.len()).collect::<Vec<_>>()
    );
    let Ok(rec) = GameRecord::from_collection(collection) else {
        return;
    };
    let replayed = rec.replay(None);
    let text = write_record(&rec);
    let back = GameRecord::from_sgf(&text).expect("written record reads back");
    assert_eq!(back.size, rec.size);
    assert_eq!(back.komi, rec.komi);
    assert_eq!(back.nodes, rec.nodes);
    assert_eq!(back.replay(None).is_ok(), replayed.is_ok());
});
