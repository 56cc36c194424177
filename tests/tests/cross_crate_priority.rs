//! Same priority, two crates, both in the default pipeline: what only the
//! linked binary knows. It builds and links (no linker dump), and the free
//! test and collecting the pipeline name both layers with their `file:line`.

use prompt_core::pipeline::Problem;
use prompt_core::{Pipeline, prompt_layer, testing};

use prompt_layers as _;

/// This crate's layer at the standard `base_prompt`'s priority (1000).
#[prompt_layer(priority = 1_000, stability = Stable, scope = Global, paths = [Basic, Cached], text = "House persona.")]
pub struct HousePersona;

#[test]
fn the_free_test_names_both_layers_with_their_file_and_line() {
    let error = testing::check_pipelines(&["prompt_layers"]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("pipeline `default` is invalid (1 problem)"),
        "{text}"
    );
    assert!(text.contains("both have priority 1000"), "{text}");
    assert!(
        text.contains("`base_prompt` (BasePromptLayer at prompt-layers: src/standard/base.rs:"),
        "{text}"
    );
    assert!(
        text.contains(
            "`house_persona` (HousePersona at prompt-tests: tests/cross_crate_priority.rs:"
        ),
        "{text}"
    );
    let collected = Pipeline::collect().unwrap_err();
    assert!(
        matches!(
            &collected.problems[..],
            [Problem::DuplicatePriority { priority: 1000, .. }]
        ),
        "{collected}"
    );
}
