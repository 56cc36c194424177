//! The standard pipeline as a binary that names `prompt_layers` sees it.
//! Its snapshot changes when a layer is added, dropped, re-prioritised or moved.

use prompt_core::{Context, Pipeline, PromptBuilder, PromptMode};
use prompt_layers::RuntimeFacts;

fn facts() -> RuntimeFacts {
    RuntimeFacts {
        date: Some("2026-11-29".into()),
        time_zone: Some("Europe/Berlin".into()),
        cwd: Some("/home/dev/acme".into()),
        os: Some("linux".into()),
        shell: Some("zsh".into()),
        model: Some("claude-opus".into()),
        git_branch: Some("main".into()),
    }
}

#[test]
fn default_pipeline_manifest() {
    let pipeline = Pipeline::collect().unwrap();
    insta::assert_snapshot!(pipeline.manifest());
}

#[test]
fn every_pipeline_in_the_standard_library_has_a_manifest_snapshot() {
    // A new pipeline in `prompt_layers` must get its own snapshot test here.
    assert_eq!(prompt_core::pipeline::pipeline_names(), ["default"]);
}

#[test]
fn standard_prompt_cached() {
    let pipeline = Pipeline::collect().unwrap();
    let turn = Context::new().with(facts());
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &turn)
        .unwrap();
    insta::assert_snapshot!(format!(
        "--- stable (cache: true) ---\n{}\n--- dynamic (cache: false) ---\n{}",
        prompt.stable(),
        prompt.dynamic()
    ));
}

#[test]
fn standard_prompt_minimal_drops_runtime_facts() {
    let pipeline = Pipeline::collect().unwrap();
    let turn = Context::new().with(facts());
    let prompt = PromptBuilder::new(&pipeline)
        .mode(PromptMode::Minimal)
        .build_basic(&Context::new(), &turn)
        .unwrap();
    assert!(!prompt.text().contains("# Runtime context"));
    assert_eq!(
        prompt.text(),
        prompt_layers::sources::DEFAULT_BASE_PROMPT.trim_end()
    );
}
