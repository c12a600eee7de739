//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/testdata/<rel>` relative to the crate root, or `None` (with a
/// clear message on stderr) when the shared test data is not there.
pub fn testdata(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipping: {} not found (the shared test data lives beside the repository)",
            p.display()
        );
        None
    }
}
