//! `prompt-layers` is a dependency of this package, but this binary never
//! names it, so the linker drops it and its layers with it. This is the
//! failure the manifest snapshot and `Pipeline::require_crates` exist to catch.

use prompt_checks::testing;
use prompt_core::pipeline::Problem;
use prompt_core::{Pipeline, prompt_pipeline};

/// A sub-agent that states its layer crate: the crate is a dependency but
/// nothing here names it, as when a user forgets `use agent_layers as _;`.
#[prompt_pipeline(paths = [Basic], require_crates = [prompt_layers])]
pub struct SubAgent;

#[test]
fn layers_of_a_crate_the_binary_does_not_name_are_not_collected() {
    assert_eq!(
        prompt_core::pipeline::pipeline_names(),
        ["default", "sub_agent"]
    );
    let error = Pipeline::collect().unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::Empty {
            known: vec!["default".into(), "sub_agent".into()]
        }]
    );
    assert!(
        error.to_string().contains("`use my_layers as _;`"),
        "the error says how to fix it: {error}"
    );
}

/// The forgotten crate is caught without `require_crates`: the pipeline
/// that lists it in `require_crates = [..]` fails to collect, naming the `use` line.
#[test]
fn a_pipeline_whose_listed_crate_is_not_linked_names_the_use_line() {
    let error = Pipeline::of::<SubAgent>().unwrap_err();
    assert!(
        matches!(&error.problems[..], [Problem::MissingCrate { name, .. }] if name == "prompt_layers"),
        "{error}"
    );
    assert!(
        error.to_string().contains("add `use prompt_layers as _;`"),
        "{error}"
    );
}

/// The free test reports it too, and for an agent whose layers join the
/// default pipeline, the crates it names.
#[test]
fn the_free_test_catches_the_forgotten_crate() {
    let error = testing::check_pipelines(&["agent-layers"]).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("pipeline `sub_agent` is invalid"), "{text}");
    assert!(text.contains("add `use prompt_layers as _;`"), "{text}");
    assert!(text.contains("add `use agent_layers as _;`"), "{text}");
}
