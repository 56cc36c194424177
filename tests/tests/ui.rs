//! Compile-time behaviour of `#[prompt_layer]` and `#[prompt_pipeline]`:
//! every rejection (`ui/fail`, each with the `.stderr` the compiler must
//! print) and the forms that must be accepted (`ui/pass`).
//!
//! The `pass` cases make trybuild run `cargo build` rather than `cargo check`
//! for the whole set, so link-time symbol clashes (duplicate names and
//! priorities) are reported too.
//!
//! The `.stderr` files are the compiler's exact words, so they hold for the
//! toolchain they were recorded with only: on another one this test says why
//! it skips. Re-record with `TRYBUILD=overwrite cargo test -p prompt-tests --test ui`
//! and read every changed `.stderr` before committing it.

use std::process::Command;

/// The `rustc` the `.stderr` files were recorded with.
const RECORDED_WITH: &str = "rustc 1.95.0";

#[test]
fn ui() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !version.starts_with(&format!("{RECORDED_WITH} ")) {
        eprintln!(
            "skipping the UI tests: their .stderr files were recorded with {RECORDED_WITH}, this is {}; \
             re-record with TRYBUILD=overwrite if you mean to move to it",
            version.trim()
        );
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
