//! Compile-time behaviour of `#[prompt_layer]` and `#[prompt_pipeline]`:
//! every rejection (`ui/fail`, each with the `.stderr` the compiler must
//! print) and the forms that must be accepted (`ui/pass`).
//!
//! The two kinds are two trybuild runs: the `pass` cases are built and run;
//! the `fail` cases only type-check (`cargo check`, all of them in one
//! invocation), which is where every rejection is made (the duplicate
//! check's item is a type, and the const asserts are evaluated by `check`).
//!
//! The `.stderr` files are the compiler's exact words, so they hold for the
//! toolchain they were recorded with only (`RECORDED_WITH` in `build.rs`).
//! On another one the test is ignored, and says why in the test run's
//! output; it never passes without running. `.ci/run` fails when it is
//! ignored on the recorded toolchain. Re-record with
//! `TRYBUILD=overwrite cargo test -p prompt-tests --test ui -- --include-ignored`
//! and read every changed `.stderr` before committing it.

#[test]
#[cfg_attr(
    not(ui_toolchain),
    ignore = "the .stderr files were recorded with another rustc (RECORDED_WITH in \
              tests/build.rs): run on that one, or re-record with TRYBUILD=overwrite and \
              --include-ignored, reading every changed .stderr"
)]
fn ui() {
    eprintln!(
        "UI tests: .stderr files recorded with {}, this is {}",
        env!("UI_RECORDED_WITH"),
        env!("UI_BUILT_WITH")
    );
    // A set with a pass case builds every case of it, one at a time; a set
    // of fail cases alone is checked in one `cargo check --keep-going`.
    trybuild::TestCases::new().pass("ui/pass/*.rs");
    trybuild::TestCases::new().compile_fail("ui/fail/*.rs");
}
