//! `prompt-layers` is a dependency of this package, but this binary never
//! names it, so the linker drops it and its layers with it. This is the
//! failure the manifest snapshot and `Pipeline::require_crates` exist to catch.

use prompt_core::Pipeline;
use prompt_core::pipeline::Problem;

#[test]
fn layers_of_a_crate_the_binary_does_not_name_are_not_collected() {
    assert_eq!(prompt_core::pipeline::pipeline_names(), ["default"]);
    let error = Pipeline::collect().unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::Empty {
            known: vec!["default".into()]
        }]
    );
    assert!(
        error.to_string().contains("`use my_layers as _;`"),
        "the error says how to fix it: {error}"
    );
}
