//! The standard pipeline as a binary that names `prompt_layers` sees it.
//! Its snapshot changes when a layer is added, dropped, re-prioritised or moved.

use prompt_core::{Context, Pipeline, PromptBuilder, PromptMode};
use prompt_layers::RuntimeFacts;

fn facts() -> RuntimeFacts {
    RuntimeFacts::default()
        .date("2026-11-29")
        .time_zone("Europe/Berlin")
        .cwd("/home/dev/acme")
        .os("linux")
        .shell("zsh")
        .model("claude-opus")
        .git_branch("main")
}

#[test]
fn default_pipeline_manifest() {
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    insta::assert_snapshot!(pipeline.manifest());
}

#[test]
fn every_pipeline_in_the_standard_library_has_a_manifest_snapshot() {
    // A new pipeline in `prompt_layers` must get its own snapshot test here:
    // `standard` has `default_pipeline_manifest`, and `default` (no layer:
    // the standard layers are include-only) none.
    assert_eq!(
        prompt_core::pipeline::pipeline_names(),
        ["default", "standard"]
    );
    assert!(Pipeline::collect().is_err());
}

#[test]
fn standard_prompt_cached() {
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
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
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let turn = Context::new().with(facts());
    let prompt = PromptBuilder::new(&pipeline)
        .mode(PromptMode::Minimal)
        .build_basic(&Context::new(), &turn)
        .unwrap();
    assert!(!prompt.text().contains("# Runtime context"));
    assert_eq!(
        prompt.text(),
        format!(
            "{}\n\n{}",
            prompt_layers::sources::DEFAULT_BASE_PROMPT.trim_end(),
            prompt_layers::QUOTED_FILES_RULE
        )
    );
}
