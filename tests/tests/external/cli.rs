//! The README's "Your own `prompt` binary", verbatim: its `Cargo.toml` and
//! `src/main.rs` become a crate in a scratch folder outside the workspace
//! (only its versions become paths to this checkout), cargo builds it, and each
//! subcommand runs on its pipeline `ferris`.
//!
//! It builds offline, from this workspace's `Cargo.lock`, as the other
//! external crates do (`crate::cargo`), so a second run only relinks.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fenced blocks of `lang` in the README's section `heading`, in order.
fn blocks(readme: &str, heading: &str, lang: &str) -> Vec<String> {
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README has no section {heading}"));
    let rest = &readme[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let fence = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = section[at..].find(&fence) {
        let body = at + found + fence.len();
        let end = body + section[body..].find("\n```").unwrap();
        out.push(section[body..=end].to_owned());
        at = end + 4;
    }
    out
}

/// Builds the README's crate once; the path of its `prompt` binary.
fn build(workspace: &Path, scratch: &Path) -> PathBuf {
    let readme = std::fs::read_to_string(workspace.join("README.md")).unwrap();
    let heading = "## Your own `prompt` binary";
    let manifest = blocks(&readme, heading, "toml");
    let main = blocks(&readme, heading, "rs");
    assert_eq!(
        (manifest.len(), main.len()),
        (1, 1),
        "one Cargo.toml, one main.rs"
    );
    // The README's versions become this checkout's paths.
    let root = workspace.display();
    let manifest = manifest[0]
        .replace(
            "prompt-core = \"0.1\"",
            &format!("prompt-core = {{ path = \"{root}/prompt-core\" }}"),
        )
        .replace(
            "prompt-layers = \"0.1\"",
            &format!("prompt-layers = {{ path = \"{root}/layers\" }}"),
        )
        .replace(
            "prompt-cli = \"0.1\"",
            &format!("prompt-cli = {{ path = \"{root}/layers/cli\" }}"),
        );
    assert!(manifest.contains("/layers\" }"), "{manifest}");
    assert!(manifest.contains("/layers/cli\" }"), "{manifest}");
    std::fs::write(scratch.join("Cargo.toml"), manifest + "\n[workspace]\n").unwrap();
    std::fs::create_dir_all(scratch.join("src")).unwrap();
    // A pipeline with no layer, beside the README's: its error is several lines.
    let main = main[0].clone()
        + "\n/// Declared, with no layer yet.\n\
           #[prompt_pipeline(paths = [Cached])]\npub struct Unfinished;\n";
    std::fs::write(scratch.join("src/main.rs"), main).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), scratch.join("Cargo.lock")).unwrap();
    let output = crate::cargo("build")
        .args(["--offline", "--manifest-path"])
        .arg(scratch.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the README's crate does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    crate::artifacts().join("debug/prompt")
}

struct Run {
    binary: PathBuf,
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Run {
    fn prompt(&self, args: &[&str]) -> Output {
        Command::new(&self.binary)
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.home.path())
            .env("TZ", "UTC")
            .env_remove("RUST_LOG")
            .output()
            .expect("the built prompt runs")
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.prompt(args);
        assert!(
            output.status.success(),
            "prompt {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

#[test]
fn the_readme_s_own_prompt_binary_runs_every_subcommand_on_its_pipeline() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let run = Run {
        binary: build(workspace, scratch.path()),
        dir: tempfile::tempdir().unwrap(),
        home: tempfile::tempdir().unwrap(),
    };
    let on = |command: &str, extra: &[&str]| {
        let mut args = vec![command, "--pipeline", "ferris", "--date", "2026-11-29"];
        args.extend(extra);
        run.ok(&args)
    };

    // manifest: the two layers of `ferris`, and nothing of the standard pipeline.
    let manifest = run.ok(&["manifest", "--pipeline", "ferris"]);
    assert!(
        manifest.starts_with("# Pipeline `ferris`: 2 layers"),
        "{manifest}"
    );
    assert!(
        manifest.contains("| persona | 100 | stable |"),
        "{manifest}"
    );
    assert!(
        manifest.contains("| today | 10000 | dynamic |"),
        "{manifest}"
    );

    // render: the persona, then the date the CLI gathered.
    assert_eq!(
        on("render", &[]),
        "You are Ferris, a careful reviewer of Rust pull requests.\n\nToday is 2026-11-29.\n"
    );

    // lint: the contract checks pass on the pipeline.
    let lint = on("lint", &[]);
    assert!(
        lint.starts_with("contract of pipeline `ferris`: ok"),
        "{lint}"
    );

    // size: each layer's bytes, per path and mode.
    let size = on("size", &[]);
    assert!(
        size.starts_with("pipeline `ferris`, worst case over scenario `workspace`"),
        "{size}"
    );
    assert!(
        size.contains("\ncached/full: stable 57 B + dynamic 20 B = 77 B\n"),
        "{size}"
    );
    assert!(
        size.contains("  persona  stable   session      57 B"),
        "{size}"
    );

    // diff: two days share the stable prefix.
    let day = |date: &str, file: &str| {
        let json = run.ok(&[
            "render",
            "--pipeline",
            "ferris",
            "--date",
            date,
            "--format",
            "json",
        ]);
        std::fs::write(run.dir.path().join(file), json).unwrap();
    };
    day("2026-11-29", "a.json");
    day("2026-11-30", "b.json");
    let diff = run.ok(&["diff", "a.json", "b.json"]);
    assert!(diff.contains("identical"), "{diff}");

    // cache: a session of three turns on the pipeline.
    let cache = on("cache", &["--turns", "3"]);
    assert!(cache.starts_with("pipeline `ferris`, 3 turns"), "{cache}");
    assert!(cache.contains("cost (tok-eq)"), "{cache}");

    // An unknown pipeline lists the pipelines this binary has: its own, and
    // the standard one the CLI links (no layer of it joins `default`).
    let unknown = run.prompt(&["render", "--pipeline", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(unknown.stderr).unwrap(),
        "prompt: unknown pipeline `nope`; this binary has: default, ferris, standard, unfinished\na pipeline declared in another crate (your package's own library included) is linked only when main.rs names that crate: `use my_layers as _;`\n"
    );
    // The README's binary turns on `cli` alone: no exact tokenizer, and
    // asking for one names the feature that brings it.
    let exact = run.prompt(&["render", "--pipeline", "ferris", "--tokenizer", "o200k"]);
    assert_eq!(exact.status.code(), Some(2));
    let stderr = String::from_utf8(exact.stderr).unwrap();
    assert!(
        stderr.contains(
            "invalid value 'o200k' for '--tokenizer <TOKENIZER>': this `prompt` counts exact \
             OpenAI tokens only when built with prompt-cli's `tiktoken` feature"
        ),
        "{stderr}"
    );
    let approx = on(
        "render",
        &["--tokenizer", "approx", "--budget-tokens", "100"],
    );
    assert!(approx.starts_with("You are Ferris"), "{approx}");
    // A multi-line error prints as lines, never a literal `\n`.
    let unfinished = run.prompt(&["render", "--pipeline", "unfinished"]);
    assert_eq!(unfinished.status.code(), Some(1));
    let stderr = String::from_utf8(unfinished.stderr).unwrap();
    assert!(
        stderr.starts_with("prompt: pipeline `unfinished` is invalid (1 problem):\n  - "),
        "{stderr}"
    );
    assert!(!stderr.contains("\\n"), "{stderr}");
}
