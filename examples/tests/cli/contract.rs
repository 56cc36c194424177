//! `prompt size`, `lint`, `diff`, `render --format annotated` and
//! `manifest --all`, run as a user runs them, their output snapshotted.

use std::path::Path;
use std::process::Output;

use crate::common;
use common::{Workspace, command};

impl Workspace {
    /// A small workspace: a project memory, an AGENTS.md and one skill.
    fn new() -> Self {
        let ws = Self::empty(&["--model", "claude-opus"]);
        ws.write(
            "AGENTS.md",
            "# Rules\n\nRun `make check` before every commit.\n",
        );
        ws.write(".agent/memory/project.md", "- Errors use thiserror.\n");
        ws.write(
            ".agent/skills/deploy/SKILL.md",
            "---\nname: deploy\ndescription: Deploy the API to staging.\n---\nSteps.\n",
        );
        ws
    }

    fn path(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    /// `text` with the workspace's temporary path shown as `<ws>` and the OS as `<os>`.
    fn redact(&self, text: &[u8]) -> String {
        String::from_utf8(text.to_vec())
            .unwrap()
            .replace(self.path(), "<ws>")
            .replace(&format!("- OS: {}", std::env::consts::OS), "- OS: <os>")
    }
}

fn prompt(args: &[&str], home: &Path) -> Output {
    command(args, home)
        .output()
        .expect("the prompt binary runs")
}

#[test]
fn size_prints_each_layer_with_a_bar_per_path_and_mode() {
    let ws = Workspace::new();
    let output = ws.run(&["size"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        ws.redact(&output.stderr)
    );
    insta::assert_snapshot!(ws.redact(&output.stdout));
}

#[test]
fn size_json_has_every_path_and_mode_and_layer() {
    let ws = Workspace::new();
    let output = ws.run(&["size", "--json"]);
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["pipeline"], "standard");
    assert_eq!(json["scenarios"], serde_json::json!(["workspace"]));
    let assemblies = json["assemblies"].as_array().unwrap();
    assert_eq!(assemblies.len(), 6);
    assert_eq!(assemblies[3]["path"], "cached");
    assert_eq!(assemblies[3]["mode"], "full");
    assert_eq!(assemblies[3]["layers"][0]["name"], "base_prompt");
    let stable: u64 = assemblies[3]["stable_bytes"].as_u64().unwrap();
    assert!(stable > 0);
}

#[test]
fn lint_passes_a_clean_workspace() {
    let ws = Workspace::new();
    let output = ws.run(&["lint"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        ws.redact(&output.stdout)
    );
    insta::assert_snapshot!(ws.redact(&output.stdout));
}

#[test]
fn lint_fails_with_the_report_when_a_stable_layer_states_a_date_and_a_fact_twice() {
    let ws = Workspace::new();
    ws.write(
        "AGENTS.md",
        "# Rules\n\nLast reviewed 2026-11-29.\n\nThe model is claude-opus.\n",
    );
    let output = ws.run(&["lint"]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(ws.redact(&output.stdout));
}

#[test]
fn render_annotated_marks_each_layer_and_the_cache_breakpoint() {
    let ws = Workspace::new();
    let output = ws.run(&["render", "--format", "annotated"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        ws.redact(&output.stderr)
    );
    insta::assert_snapshot!(ws.redact(&output.stdout));
}

#[test]
fn diff_explains_which_layer_busted_the_cache() {
    let ws = Workspace::new();
    let out = tempfile::tempdir().unwrap();
    let render = |name: &str| {
        let output = ws.run(&["render", "--format", "json"]);
        assert!(output.status.success());
        let file = out.path().join(name);
        std::fs::write(&file, output.stdout).unwrap();
        file.to_str().unwrap().to_owned()
    };
    let a = render("a.json");
    let same = render("same.json");
    ws.write(".agent/memory/project.md", "- Errors use anyhow.\n");
    let b = render("b.json");

    let identical = prompt(&["diff", &a, &same], ws.home.path());
    assert_eq!(identical.status.code(), Some(0));
    insta::assert_snapshot!(
        "diff_identical",
        String::from_utf8(identical.stdout).unwrap()
    );

    let busted = prompt(&["diff", &a, &b], ws.home.path());
    assert_eq!(busted.status.code(), Some(1));
    insta::assert_snapshot!("diff_busted", String::from_utf8(busted.stdout).unwrap());
}

#[test]
fn diff_trouble_exits_2_with_one_line() {
    let home = tempfile::tempdir().unwrap();
    let missing = prompt(&["diff", "/no/such/a.json", "/no/such/b.json"], home.path());
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8(missing.stderr).unwrap();
    assert!(
        stderr.starts_with("prompt: cannot read `/no/such/a.json`: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"parts\": []}").unwrap();
    let bad = bad.to_str().unwrap();
    let malformed = prompt(&["diff", bad, bad], home.path());
    assert_eq!(malformed.status.code(), Some(2));
    let stderr = String::from_utf8(malformed.stderr).unwrap();
    assert!(
        stderr.contains(
            "bad.json: not the JSON `prompt render --format json` writes: missing field `trace`"
        ),
        "{stderr}"
    );

    let usage = prompt(&["diff", "only-one.json"], home.path());
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn an_unknown_agent_is_a_usage_error_and_an_unknown_pipeline_one_line() {
    let ws = Workspace::new();
    let output = ws.run(&["size", "--agent", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = ws.redact(&output.stderr);
    assert!(
        stderr.contains("unknown agent `nope`: expected one of recursive, aleph, kitsoki"),
        "{stderr}"
    );
    let output = ws.run(&["size", "--pipeline", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = ws.redact(&output.stderr);
    assert_eq!(
        stderr,
        "prompt: unknown pipeline `nope`; this binary has: aleph, default, kitsoki, recursive, standard\na pipeline declared in another crate (your package's own library included) is linked only when main.rs names that crate: `use my_layers as _;`\n"
    );
    assert!(!stderr.contains("in this binary"), "{stderr}");
}

#[test]
fn size_and_lint_take_an_agent_and_check_its_own_scenarios() {
    // No --workspace: each agent's built-in fixture and its own scenarios.
    let home = tempfile::tempdir().unwrap();
    for agent in ["recursive", "aleph", "kitsoki"] {
        let size = prompt(&["size", "--agent", agent], home.path());
        let stderr = String::from_utf8_lossy(&size.stderr);
        assert!(size.status.success(), "{agent}: {stderr}");
        let stdout = String::from_utf8(size.stdout).unwrap();
        assert!(
            stdout.starts_with(&format!("pipeline `{agent}`")),
            "{stdout}"
        );
        let lint = prompt(&["lint", "--agent", agent], home.path());
        let report = String::from_utf8(lint.stdout).unwrap();
        assert!(
            report.starts_with(&format!("contract of pipeline `{agent}`: ok")),
            "{report}"
        );
        assert_eq!(lint.status.code(), Some(0), "{agent}");
    }
}

#[test]
fn docs_layers_md_is_the_output_of_manifest_all() {
    let home = tempfile::tempdir().unwrap();
    let output = prompt(&["manifest", "--all"], home.path());
    assert!(output.status.success());
    let generated = String::from_utf8(output.stdout).unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/layers.md");
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/layers.md is stale: regenerate it with\n    cargo run -p prompt-examples -- manifest --all > docs/layers.md"
    );
}

#[test]
fn size_counts_tokens_with_a_tokenizer_and_only_then() {
    let home = tempfile::tempdir().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let output = prompt(args, home.path());
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let plain = json(&["size", "--agent", "kitsoki", "--json"]);
    assert!(plain["assemblies"][0].get("tokens").is_none());
    let counted = json(&[
        "size",
        "--agent",
        "kitsoki",
        "--json",
        "--tokenizer",
        "o200k",
    ]);
    let assembly = &counted["assemblies"][0];
    let total = assembly["tokens"].as_u64().unwrap();
    let layers: Vec<u64> = assembly["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["tokens"].as_u64().unwrap())
        .collect();
    // Every layer that spoke has tokens, and the whole prompt is about their sum
    // (BPE merges across the `---` separators change it by a few tokens).
    assert!(layers.iter().all(|&t| t > 0), "{layers:?}");
    let sum: u64 = layers.iter().sum();
    assert!(total.abs_diff(sum) <= 10, "{total} vs {sum}");
    let approx = json(&[
        "size",
        "--agent",
        "kitsoki",
        "--json",
        "--tokenizer",
        "approx",
    ]);
    assert_ne!(approx["assemblies"][0]["tokens"], assembly["tokens"]);
}
