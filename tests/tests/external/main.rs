//! Crates outside this workspace, built the way a user builds them: one that
//! depends only on prompt-core (`standalone`), the README's own `prompt`
//! binary (`cli`), and a workspace whose sub-agent includes the standard set
//! and a crate that never heard of it (`compose`), and a crate that uses
//! minijinja 2 with its default features and minijinja 3 (`minijinja`), and
//! a layer library whose docs hold nothing the attributes added (`docs`),
//! and a workspace whose own `prompt` forgets to name its layer crate
//! (`forgotten`).
//! Mutation runs leave this binary out: it builds a crate per run.

mod cli;
mod compose;
mod docs;
mod forgotten;
mod minijinja;
mod standalone;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the external crates' binaries and docs go: `external/` in the
/// folder `cargo test` builds this workspace in.
fn artifacts() -> PathBuf {
    build_dir().join("external")
}

/// The folder `cargo test` builds this workspace in (the parent of
/// `CARGO_TARGET_TMPDIR`).
fn build_dir() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is a folder of the build folder")
}

/// `cargo SUBCOMMAND --quiet` for a crate outside the workspace. Its
/// dependencies are built in this workspace's own build folder, so one this
/// workspace built with the same features (most of them) is not built
/// again; its binaries and docs go in [`artifacts`], so none replaces one of
/// the workspace's (the README's crate has a `prompt` too). Cargo holds no
/// lock on the build folder while tests run; the external crates take it in
/// turn.
fn cargo(subcommand: &str) -> Command {
    cargo_into(subcommand, &artifacts())
}

/// [`cargo`] with its binaries and docs in `target_dir` (a crate whose
/// binary would replace another's: both are called `prompt`), its
/// dependencies still built in the shared build folder.
fn cargo_into(subcommand: &str, target_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command
        .args([subcommand, "--quiet", "--target-dir"])
        .arg(target_dir)
        .env("CARGO_BUILD_BUILD_DIR", build_dir());
    command
}

/// The standard output of `cargo run --quiet --locked` on the external
/// crate or workspace whose manifest is `manifest` (below this crate's
/// folder), with `args` after it (see [`cargo`]); panics with cargo's
/// stderr when the run fails.
fn cargo_run(manifest: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = cargo("run")
        .args(["--locked", "--manifest-path"])
        .arg(root.join(manifest))
        .args(args)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "external `{manifest}` failed:\n{stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The rest of `output`'s first line that starts with `label`.
fn line<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{output}"))
}
