//! Run-time validation of a pipeline's layers: names in snake_case, `after`
//! and `before` strict against priorities, and entries that print as their
//! names.
//!
//! `Anchor` is an attribute layer, so it joins the default pipeline, which no
//! test of this binary collects.

use prompt_core::pipeline::LayerEntry;
use prompt_core::pipeline::{LayerRef, Problem, Relation};
use prompt_core::spec::DefaultPipeline;
use prompt_core::spec::LayerLink;
use prompt_core::spec::PromptPipeline;
use prompt_core::{LayerSpec, Pipeline, Stability, prompt_layer};
use prompt_tests::{Fixed, TEST, spec};

/// A name is snake_case only when its first character is a lowercase letter
/// *and* the rest are lowercase letters, digits or underscores.
#[test]
fn runtime_validation_checks_both_halves_of_snake_case() {
    let bad = |name: &'static str| {
        let error = Pipeline::from_layers(
            TEST,
            [LayerEntry::new(
                spec(name, 1, Stability::Stable),
                Fixed(String::new()),
            )],
        )
        .unwrap_err();
        assert_eq!(
            error.problems,
            [Problem::BadName {
                layer: LayerRef::new(name, "TestLayer", "prompt-tests: src/lib.rs:1".to_owned()),
            }],
            "{name}"
        );
    };
    bad("Persona"); // first character wrong, the rest fine
    bad("9lives");
    bad("_private");
    bad("persona-rules"); // first character fine, the rest wrong
    bad("personaRules");
    bad("");
    for good in ["p", "persona", "rules_2", "a_b_c9"] {
        assert!(
            Pipeline::from_layers(
                TEST,
                [LayerEntry::new(
                    spec(good, 1, Stability::Stable),
                    Fixed(String::new())
                )]
            )
            .is_ok(),
            "{good}"
        );
    }
}

#[prompt_layer(priority = 500, stability = Stable, paths = [Basic, Cached], text = "anchor")]
struct Anchor;

const AFTER_ANCHOR: &[LayerLink] = &[LayerLink::of::<Anchor>()];

const BEFORE_ANCHOR: &[LayerLink] = &[LayerLink::of::<Anchor>()];

/// The `Order` problems for `spec` placed beside [`Anchor`] (priority 500).
fn order_problems(spec: LayerSpec) -> Vec<(&'static str, Relation, &'static str)> {
    let result = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            LayerEntry::of::<Anchor>(),
            LayerEntry::new(spec.pipelines(&["default"]), Fixed(String::new())),
        ],
    );
    match result {
        Ok(_) => Vec::new(),
        Err(error) => error
            .problems
            .iter()
            .filter_map(|p| match p {
                Problem::Order {
                    layer,
                    relation,
                    other,
                    ..
                } => Some((layer.name, *relation, other.name)),
                _ => None,
            })
            .collect(),
    }
}

/// `after` needs a strictly higher priority and `before` a strictly lower one:
/// a tie contradicts both, and the right side of the anchor satisfies them.
#[test]
fn after_and_before_are_strict_at_runtime() {
    let tied = spec("tied", 500, Stability::Stable);
    assert_eq!(
        order_problems(tied.after(AFTER_ANCHOR)),
        [("tied", Relation::After, "anchor")]
    );
    assert_eq!(
        order_problems(tied.before(BEFORE_ANCHOR)),
        [("tied", Relation::Before, "anchor")]
    );
    let later = spec("later", 501, Stability::Stable).after(AFTER_ANCHOR);
    assert_eq!(order_problems(later), []);
    let earlier = spec("earlier", 499, Stability::Stable).before(BEFORE_ANCHOR);
    assert_eq!(order_problems(earlier), []);
    let wrong_side = spec("wrong_side", 499, Stability::Stable).after(AFTER_ANCHOR);
    assert_eq!(
        order_problems(wrong_side),
        [("wrong_side", Relation::After, "anchor")]
    );
    let wrong_side = spec("wrong_side", 501, Stability::Stable).before(BEFORE_ANCHOR);
    assert_eq!(
        order_problems(wrong_side),
        [("wrong_side", Relation::Before, "anchor")]
    );
}

/// `LayerEntry`'s `Debug` names the layer, so a pipeline printed in a test
/// failure or a log says which layers it holds.
#[test]
fn a_layer_entry_debugs_as_its_name() {
    let entry = LayerEntry::new(
        spec("persona", 100, Stability::Stable),
        Fixed(String::new()),
    );
    assert_eq!(format!("{entry:?}"), r#"LayerEntry("persona")"#);
}

/// `PipelineError`'s `Debug` is the struct, then the readable message (as
/// minijinja's `Error`): `.expect(..)` shows both; `{:#?}` the struct alone.
#[test]
fn a_pipeline_error_debugs_as_its_struct_then_its_message() {
    let error = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("Bad", 1, Stability::Stable),
            Fixed(String::new()),
        )],
    )
    .unwrap_err();
    let debug = format!("{error:?}");
    let (head, message) = debug
        .split_once("\n\n")
        .expect("struct, blank line, message");
    assert!(
        head.starts_with(
            "PipelineError { pipeline: \"test\", problems: [BadName { layer: LayerRef {"
        ),
        "{head}"
    );
    assert_eq!(message, error.to_string());
    let alternate = format!("{error:#?}");
    assert!(alternate.starts_with("PipelineError {\n"), "{alternate}");
    assert!(!alternate.contains("is invalid"), "{alternate}");
}
