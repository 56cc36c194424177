//! Same priority, two modules, both in the default pipeline: what only the
//! linked binary knows (two crates are the same case: the standard layers
//! used to be the other crate, but they are include-only now and join no
//! pipeline at link time, so linking `prompt_layers` below adds nothing).
//! It builds and links (no linker dump), and the free test and collecting
//! the pipeline name both layers with their `file:line`. Likewise one name
//! in two modules of one crate: the compile-time check sees one module (it
//! exports nothing), collecting sees them all.

use prompt_checks::testing;
use prompt_core::pipeline::Problem;
use prompt_core::{Pipeline, prompt_pipeline};

use prompt_layers as _;

mod house {
    /// This module's layer at the priority of `rules::RulesLayer`.
    #[prompt_core::prompt_layer(priority = 1_000, stability = Stable, scope = Global, paths = [Basic, Cached], text = "House persona.")]
    pub struct HousePersona;
}

mod rules {
    /// Another module's layer at the same priority.
    #[prompt_core::prompt_layer(priority = 1_000, stability = Stable, scope = Global, paths = [Basic, Cached], text = "House rules.")]
    pub struct HouseRules;
}

#[test]
fn the_free_test_names_both_layers_with_their_file_and_line() {
    let error = testing::check_pipelines(&[]).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("pipeline `default` is invalid (1 problem)"),
        "{text}"
    );
    assert!(text.contains("both have priority 1000"), "{text}");
    for layer in [
        "`house_persona` (HousePersona at prompt-tests: tests/cross_crate_priority.rs:",
        "`house_rules` (HouseRules at prompt-tests: tests/cross_crate_priority.rs:",
    ] {
        assert!(text.contains(layer), "{text}");
    }
    let collected = Pipeline::collect().unwrap_err();
    assert!(
        matches!(
            &collected.problems[..],
            [Problem::DuplicatePriority { priority: 1000, .. }]
        ),
        "{collected}"
    );
}

/// A pipeline whose two layers, in two modules, share a name.
#[prompt_pipeline(paths = [Basic])]
pub struct Split;

mod first {
    #[prompt_core::prompt_layer(priority = 10, stability = Stable, paths = [Basic], text = "A.", pipeline = super::Split, name = "rules")]
    pub struct RulesLayer;
}

mod second {
    #[prompt_core::prompt_layer(priority = 20, stability = Stable, paths = [Basic], text = "B.", pipeline = super::Split, name = "rules")]
    pub struct RulesLayer;
}

#[test]
fn one_name_in_two_modules_builds_and_collecting_names_both() {
    let error = Pipeline::of::<Split>().unwrap_err();
    assert!(
        matches!(
            &error.problems[..],
            [Problem::DuplicateName { name: "rules", .. }]
        ),
        "{error}"
    );
    let text = error.to_string();
    assert!(text.contains("tests/cross_crate_priority.rs:"), "{text}");
    assert!(text.contains("rename one with `name = \"...\"`"), "{text}");
}
