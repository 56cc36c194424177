//! The `prompt` CLI, run as a user runs it.

use std::path::Path;
use std::process::{Command, Output};

fn prompt(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt"))
        .args(args)
        .env("HOME", home)
        .env_remove("RUST_LOG")
        .output()
        .expect("the prompt binary runs")
}

fn real_agents_md() -> std::path::PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/agents/vercel__next.js__AGENTS.md");
    assert!(
        path.is_file(),
        "{} is missing: it is vendored under tests/fixtures/real (see SOURCES.md there)",
        path.display()
    );
    path
}

#[test]
fn render_shows_a_real_agents_md_under_project_context_capped_and_marked() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::copy(real_agents_md(), workspace.path().join("AGENTS.md")).unwrap();
    let ws = workspace.path().to_str().unwrap();
    let output = prompt(
        &[
            "render",
            "--workspace",
            ws,
            "--date",
            "2026-11-29",
            "--trace",
        ],
        home.path(),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("# Project context\n\n## AGENTS.md\n\n# Next.js Development Guide\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n\n[…truncated: AGENTS.md is 20.8 KiB, cap 16 KiB]\n\n# Runtime context"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("- Working directory: {ws}\n")));
    assert!(stdout.contains("- Date: 2026-11-29\n"));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("AGENTS.md: cut to 16 KiB of 20.8 KiB (cap 16 KiB)"),
        "{stderr}"
    );
}

#[test]
fn render_defaults_to_the_current_directory() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("CLAUDE.md"), "Use pnpm.").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_prompt"))
        .arg("render")
        .current_dir(workspace.path())
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .contains("## CLAUDE.md\n\nUse pnpm.")
    );
}

#[test]
fn json_output_has_the_cached_parts_and_the_trace() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = prompt(
        &[
            "render",
            "--workspace",
            workspace.path().to_str().unwrap(),
            "--format",
            "json",
            "--model",
            "opus",
        ],
        home.path(),
    );
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["parts"][0]["cache"], true);
    assert_eq!(json["parts"][1]["cache"], false);
    assert!(
        json["parts"][1]["content"]
            .as_str()
            .unwrap()
            .contains("- Model: opus")
    );
    assert_eq!(json["trace"]["path"], "cached");
    assert_eq!(json["trace"]["layers"][0]["name"], "base_prompt");
}

#[test]
fn sub_agents_enable_the_coordinator() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = workspace.path().to_str().unwrap();
    let with = prompt(
        &[
            "render",
            "--workspace",
            ws,
            "--sub-agent",
            "tester=Runs the tests.",
        ],
        home.path(),
    );
    assert!(
        String::from_utf8(with.stdout)
            .unwrap()
            .contains("# Sub-agents")
    );
    let without = prompt(&["render", "--workspace", ws], home.path());
    assert!(
        !String::from_utf8(without.stdout)
            .unwrap()
            .contains("# Sub-agents")
    );
    let bad = prompt(
        &["render", "--workspace", ws, "--sub-agent", "no-equals-sign"],
        home.path(),
    );
    assert!(!bad.status.success());
    assert!(
        String::from_utf8(bad.stderr)
            .unwrap()
            .contains("expected NAME=DESCRIPTION")
    );
}

#[test]
fn errors_name_what_is_wrong_and_exit_non_zero() {
    let home = tempfile::tempdir().unwrap();
    let missing = prompt(&["render", "--workspace", "/no/such/dir"], home.path());
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(missing.stderr).unwrap(),
        "prompt: workspace `/no/such/dir` is not a directory\n"
    );
    let pipeline = prompt(&["manifest", "--pipeline", "nope"], home.path());
    assert_eq!(pipeline.status.code(), Some(1));
    assert!(
        String::from_utf8(pipeline.stderr)
            .unwrap()
            .contains("pipeline `nope` is invalid")
    );
}

#[test]
fn a_malformed_scratchpad_is_reported_and_the_prompt_still_renders() {
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".agent")).unwrap();
    let pad = workspace.path().join(".agent/scratchpad.json");
    std::fs::write(&pad, "not json").unwrap();
    let output = prompt(
        &["render", "--workspace", workspace.path().to_str().unwrap()],
        home.path(),
    );
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("prompt: warning: .agent/scratchpad.json: malformed: line 1"),
        "{stderr}"
    );
}

#[test]
fn manifest_lists_the_standard_layers() {
    let home = tempfile::tempdir().unwrap();
    let output = prompt(&["manifest"], home.path());
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("# Pipeline `default`: 10 layers\n"));
    assert!(stdout.contains("| 4 | project_context | 4000 | stable |"));
}
