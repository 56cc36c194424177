//! The last silent mistake (`tests/external-forgotten`): a user's workspace
//! whose own `prompt` depends on a layer crate whose layer joins the default
//! pipeline and never names it. Under `cargo run` the binary asks Cargo and
//! names the crate with the `use` line to add (render warns, lint fails,
//! and so does the free test `check_pipelines` in the binary's own crate);
//! the crate that uses prompt-core for the runtime only is never named; run
//! as an installed binary it says nothing. The same binary declares
//! `quill`, whose mood layer reads a turn value only the binary builds: its
//! registered scenarios make `lint --pipeline quill` pass, and a render
//! without `--pipeline` says which pipeline it rendered. Its allowance
//! (`Main::allow`) is the one `lint`'s failure for a dated rule names.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace's folder, below this crate's.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("external-forgotten")
}

/// Its own target folder under [`crate::artifacts`] (its binary is a
/// `prompt` too, like the README's crate's), its dependencies built in the
/// shared build folder.
fn target_dir() -> PathBuf {
    crate::artifacts().join("forgotten")
}

fn cargo(subcommand: &str) -> Command {
    let mut command = crate::cargo_into(subcommand, &target_dir());
    command
        .args(["--locked", "--offline", "--manifest-path"])
        .arg(root().join("Cargo.toml"));
    command
}

struct House {
    binary: PathBuf,
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl House {
    /// The binary run directly, as an installed one is: no Cargo
    /// variables (this test's own are removed).
    fn installed(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.home.path())
            .env("TZ", "UTC")
            .env_remove("RUST_LOG")
            .env_remove("CARGO")
            .env_remove("CARGO_MANIFEST_DIR")
            .env_remove("CARGO_PKG_NAME");
        command
    }

    /// The binary with the variables `cargo run -p house-prompt` sets.
    fn under_cargo(&self, args: &[&str]) -> Command {
        let mut command = self.installed(args);
        command
            .env("CARGO", env!("CARGO"))
            .env("CARGO_MANIFEST_DIR", root().join("house-prompt"))
            .env("CARGO_PKG_NAME", "house-prompt");
        command
    }
}

fn run(mut command: Command) -> (Output, String, String) {
    let output = command.output().expect("the house's prompt runs");
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    (output, stdout, stderr)
}

const USE_LINE: &str = "add `use house_layers as _;`";

#[test]
fn a_forgotten_default_pipeline_crate_is_named_and_a_runtime_only_one_is_not() {
    let built = cargo("build").output().expect("cargo runs");
    assert!(
        built.status.success(),
        "the house's workspace does not build:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let house = House {
        binary: target_dir().join("debug/prompt"),
        dir: tempfile::tempdir().unwrap(),
        home: tempfile::tempdir().unwrap(),
    };

    // `cargo run -- render`, for real: Cargo sets the variables, the binary
    // asks it, and names the crate; the prompt is printed, without the
    // house rules, and which pipeline it is said too.
    let mut cargo_run = cargo("run");
    cargo_run
        .args([
            "-p",
            "house-prompt",
            "--",
            "render",
            "--date",
            "2026-11-29",
            "--home",
        ])
        .arg(house.home.path())
        .current_dir(house.dir.path())
        .env("TZ", "UTC")
        .env_remove("RUST_LOG");
    let (output, stdout, stderr) = run(cargo_run);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("You are a careful coding agent"),
        "{stdout}"
    );
    assert!(!stdout.contains("House rules"), "{stdout}");
    assert!(
        stderr.contains(
            "prompt: warning: package `house-layers` declares layers and `house-prompt` depends on it, \
             but none of its layers is linked into this binary"
        ),
        "{stderr}"
    );
    assert!(stderr.contains(USE_LINE), "{stderr}");
    assert!(
        !stderr.contains("house_runtime") && !stderr.contains("house-runtime"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "prompt: rendered the built-in pipeline `standard` (no --pipeline given); this binary also has: quill."
        ),
        "{stderr}"
    );

    // The free test in the binary's crate (`cargo test`) fails on it too.
    let tested = cargo("test")
        .args(["-p", "house-prompt"])
        .output()
        .expect("cargo runs");
    assert!(
        tested.status.success(),
        "the house's free test:\n{}{}",
        String::from_utf8_lossy(&tested.stdout),
        String::from_utf8_lossy(&tested.stderr)
    );

    // lint fails on it, naming the line; the runtime-only crate is not
    // named; its first line counts the crate as a failure, never `ok`.
    let (output, stdout, stderr) = run(house.under_cargo(&["lint"]));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("contract of pipeline `standard`: 1 failure ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL forgotten layer crate: package `house-layers`")
            && stdout.contains(USE_LINE),
        "{stdout}"
    );
    // Among the failures, before the contract's notes.
    let failed = stdout.find("FAIL forgotten layer crate").unwrap();
    assert!(
        stdout.find("\nnote ").is_none_or(|note| failed < note),
        "{stdout}"
    );
    assert!(
        !stdout.contains("house_runtime") && !stdout.contains("house-runtime"),
        "{stdout}"
    );

    // `--pipeline` given: no word about which pipeline rendered.
    let (output, _, stderr) = run(house.under_cargo(&["render", "--pipeline", "standard"]));
    assert!(output.status.success(), "{stderr}");
    assert!(
        !stderr.contains("rendered the built-in pipeline"),
        "{stderr}"
    );
    assert!(stderr.contains(USE_LINE), "{stderr}");

    // Variables inherited from another package's `cargo test` (this
    // executable is none of its targets): nothing is said.
    let mut inherited = house.installed(&["lint", "--pipeline", "quill"]);
    inherited
        .env("CARGO", env!("CARGO"))
        .env("CARGO_MANIFEST_DIR", root().join("house-layers"))
        .env("CARGO_PKG_NAME", "house-layers");
    let (output, stdout, stderr) = run(inherited);
    assert!(output.status.success(), "{stdout}{stderr}");

    // Installed: the check says nothing, and `lint --pipeline quill` passes
    // over the scenarios the binary registers (its mood layer speaks there).
    let (output, stdout, stderr) = run(house.installed(&["lint", "--pipeline", "quill"]));
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("contract of pipeline `quill`: ok (2 assemblies over scenario `calm`)"),
        "{stdout}"
    );
    assert_eq!(stderr, "");
    let (output, stdout, stderr) = run(house.installed(&["render"]));
    assert!(output.status.success(), "{stderr}");
    assert!(!stdout.contains("House rules"), "{stdout}");
    assert!(!stderr.contains("house_layers"), "{stderr}");

    // A binary that names its default: render and lint pick it, and say nothing of it.
    let mut named = house.installed(&["render", "--date", "2026-11-29"]);
    named.env("HOUSE_DEFAULT", "quill");
    let (output, stdout, stderr) = run(named);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stdout, "You are Quill, the house writer.\n");
    assert_eq!(stderr, "");
    let mut named = house.installed(&["lint"]);
    named.env("HOUSE_DEFAULT", "quill");
    let (output, stdout, _) = run(named);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("contract of pipeline `quill`: ok"),
        "{stdout}"
    );

    // A Stable layer stating a date: lint's fix names the `Main` call a CLI
    // user makes, and the binary that makes it passes.
    std::fs::write(
        house.dir.path().join("AGENTS.md"),
        "# Rules\n\nLast reviewed 2026-01-15.\n",
    )
    .unwrap();
    let (output, stdout, _) = run(house.installed(&["lint"]));
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with("contract of pipeline `standard`: 1 failure ("),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "allow it in the binary's `main`: `prompt_cli::Main::new().allow(\"standard\", \"project_context\", Volatile::Date, \"why it is stable\")`"
        ),
        "{stdout}"
    );
    let mut allowed = house.installed(&["lint"]);
    allowed.env("HOUSE_ALLOW", "1");
    let (output, stdout, _) = run(allowed);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("contract of pipeline `standard`: ok"),
        "{stdout}"
    );
}
