//! Crates outside this workspace, built the way a user builds them: one that
//! depends only on prompt-core (`standalone`), the README's own `prompt`
//! binary (`cli`), and a workspace whose sub-agent includes the standard set
//! and a crate that never heard of it (`compose`), and a crate that uses
//! minijinja 2 with its default features and minijinja 3 (`minijinja`), and
//! a layer library whose docs hold nothing the attributes added (`docs`).
//! Mutation runs leave this binary out: it builds a crate per run.

mod cli;
mod compose;
mod docs;
mod minijinja;
mod standalone;

use std::path::Path;
use std::process::Command;

/// The standard output of `cargo run --quiet --locked` on the external
/// crate or workspace whose manifest is `manifest` (below this crate's
/// folder), with `args` after it, in the target folder the external crates
/// share (so their dependencies are built once); panics with cargo's
/// stderr when the run fails.
fn cargo_run(manifest: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--locked", "--manifest-path"])
        .arg(root.join(manifest))
        .arg("--target-dir")
        .arg(root.join("../target/external"))
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
