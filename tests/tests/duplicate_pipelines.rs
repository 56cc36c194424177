//! Two pipeline types with one name, as the run-time check sees them.
//!
//! Two `#[prompt_pipeline]`s with one name in one module fail the build
//! (`tests/ui`). Across modules and crates, or with registrations made by
//! hand as here, [`Pipeline::named`] is the
//! check: it must refuse the name and say where both types are declared.

use prompt_core::__private_v1::{PipelineRegistration, PipelineSpec, inventory};
use prompt_core::Pipeline;
use prompt_core::pipeline::Problem;

static FIRST: PipelineSpec = PipelineSpec::new("twice")
    .type_name("AgentA")
    .defined_at("agent-a", "src/a.rs", 3);
static SECOND: PipelineSpec = PipelineSpec::new("twice")
    .type_name("AgentB")
    .defined_at("agent-b", "src/b.rs", 7);

inventory::submit! { PipelineRegistration::new(&FIRST) }
inventory::submit! { PipelineRegistration::new(&SECOND) }

#[test]
fn a_name_two_pipelines_share_is_refused_naming_both_declarations() {
    let error = Pipeline::named("twice").unwrap_err();
    let [Problem::DuplicatePipeline { first, second }] = error.problems.as_slice() else {
        panic!("expected one DuplicatePipeline problem, got {error:?}");
    };
    let mut both = [first.as_str(), second.as_str()];
    both.sort_unstable();
    assert_eq!(
        both,
        [
            "`twice` (AgentA at agent-a: src/a.rs:3)",
            "`twice` (AgentB at agent-b: src/b.rs:7)",
        ]
    );
    assert!(
        error.to_string().contains("rename one of the types"),
        "{error}"
    );
}
