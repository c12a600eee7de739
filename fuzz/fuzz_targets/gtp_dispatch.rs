//! Arbitrary input lines through the GTP dispatcher: it must answer every
//! line with a well-formed reply and never panic (B1). File commands are
//! skipped so the fuzzer cannot write files.
#![no_main]

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use tengen::gtp::protocol::{self, Parsed};
use tengen::gtp::{Autosave, SessionConfig};

fuzz_target!(|data: &[u8]| {
    let mut session = SessionConfig {
        size: 9,
        rollouts: 1,
        visits: Some(8),
        max_time: Some(Duration::from_millis(5)),
        autosave: Autosave::Off,
        ..SessionConfig::default()
    }
    .build()
    .expect("session");
    // Analysis streams until stopped: keep the flag raised so it emits once.
    let stop = AtomicBool::new(true);
    for line in data.split(|&b| b == b'\n').take(64) {
        if let Parsed::Command(c) = protocol::parse(line) {
            if c.name == "loadsgf" || (c.name == "printsgf" && !c.args.is_empty()) {
                continue;
            }
        }
        let mut out = Vec::new();
        session
            .execute(line, false, Instant::now(), &mut out, &stop)
            .expect("writing to a Vec");
        if !out.is_empty() {
            assert!(out.ends_with(b"\n\n"), "unterminated reply");
            assert!(out[0] == b'=' || out[0] == b'?', "bad reply start");
        }
        if session.quit_requested() {
            break;
        }
    }
});
