//! `prompt render --agent NAME` and `prompt manifest --agent NAME`, run as a user runs them.

use std::process::{Command, Output};

fn prompt(args: &[&str]) -> Output {
    let elsewhere = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_prompt"))
        .args(args)
        .current_dir(elsewhere.path())
        .env_remove("RUST_LOG")
        .output()
        .expect("the prompt binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn every_agent_renders_its_fixture_from_any_directory_with_no_other_flag() {
    let recursive = stdout(&prompt(&["render", "--agent", "recursive"]));
    assert!(recursive.starts_with(&format!(
        "{}\n\n# Project context\n\n## AGENTS.md\n\n<file path=\"AGENTS.md\">",
        prompt_layers::QUOTED_FILES_RULE
    )));
    // Sub-agents are off unless `--sub-agent` enables them: no coordinator section.
    assert!(
        !recursive.contains("## Coordinator workflow"),
        "{recursive}"
    );
    let aleph = stdout(&prompt(&[
        "render",
        "--agent",
        "aleph",
        "--date",
        "2026-11-29",
    ]));
    assert!(aleph.starts_with("# Soul\n") && aleph.contains("- Date: 2026-11-29"));
    let kitsoki = stdout(&prompt(&["render", "--agent", "kitsoki"]));
    assert_eq!(kitsoki.matches("\n\n---\n\n").count(), 2, "{kitsoki}");
}

#[test]
fn aleph_basic_prints_the_welded_sub_agent_prompt() {
    let text = stdout(&prompt(&[
        "render", "--agent", "aleph", "--path", "basic", "--mode", "minimal",
    ]));
    assert!(
        text.trim_end()
            .ends_with("prove each change with a build or a test."),
        "{text}"
    );
    assert!(text.contains("</strategy>\n\nUsage mode: code."));
}

#[test]
fn workspace_points_an_agent_at_a_real_folder() {
    let story = tempfile::tempdir().unwrap();
    std::fs::write(
        story.path().join("app.yaml"),
        "app:\n  id: real\n  context: Real project.\nagents:\n  guide:\n    system_prompt: Hi.\n",
    )
    .unwrap();
    std::fs::create_dir_all(story.path().join("prompts")).unwrap();
    std::fs::write(story.path().join("prompts/narrate.md"), "Day {{ day }}.").unwrap();
    let ws = story.path().to_str().unwrap();
    let text = stdout(&prompt(&[
        "render",
        "--agent",
        "kitsoki",
        "--workspace",
        ws,
    ]));
    assert!(
        text.contains("\n\n---\n\nReal project.\n\n---\n\n"),
        "{text}"
    );
}

#[test]
fn manifest_describes_an_agent_and_unserved_modes_are_refused() {
    let manifest = stdout(&prompt(&["manifest", "--agent", "aleph"]));
    assert!(manifest.starts_with("# Pipeline `aleph`: 38 layers"));
    let refused = prompt(&["render", "--agent", "recursive", "--mode", "compact"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("recursive has no `compact` mode"));
}
