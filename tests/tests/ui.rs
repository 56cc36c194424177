//! Compile-time behaviour of `#[prompt_layer]` and `#[prompt_pipeline]`:
//! every rejection (`ui/fail`, each with the `.stderr` the compiler must
//! print) and the forms that must be accepted (`ui/pass`).
//!
//! The `fail` cases only type-check: trybuild runs `cargo check`, all of
//! them in one invocation, which is where every rejection is made (the
//! duplicate check's item is a type, and the const asserts are evaluated by
//! `check`). The `pass` cases are this package's own test binaries
//! (`ui_pass_*` in its `Cargo.toml`): the workspace's build compiles and runs
//! them, so they need no crate of their own.
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
    // trybuild builds its dependencies with one set of flags, then the cases
    // with `--diagnostic-width=140` added: every dependency was checked
    // twice. Its child runs with that whole set in `CARGO_ENCODED_RUSTFLAGS`,
    // which takes precedence over the flags trybuild passes to cargo, so both
    // runs agree and the dependencies are checked once. The set is
    // trybuild's own (its `rustflags.rs`), the `.stderr` files' conditions.
    if std::env::var_os(CHILD).is_some() {
        trybuild::TestCases::new().compile_fail("ui/fail/*.rs");
        return;
    }
    let flags = [
        "--cfg",
        "trybuild",
        "--verbose",
        "-A",
        "dead_code",
        "--diagnostic-width=140",
    ];
    let child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args(["ui", "--exact", "--nocapture", "--include-ignored"])
        .env(CHILD, "1")
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
        .output()
        .expect("the UI test runs itself again");
    // Through this test's own output, which the harness shows on failure.
    print!("{}", String::from_utf8_lossy(&child.stdout));
    eprint!("{}", String::from_utf8_lossy(&child.stderr));
    assert!(
        child.status.success(),
        "the UI cases failed (trybuild's report is above)"
    );
}

/// Set in the child run that calls trybuild.
const CHILD: &str = "PROMPT_UI_TRYBUILD_CHILD";
