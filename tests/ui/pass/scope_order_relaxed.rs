//! A pipeline whose order is fixed from outside keeps it with
//! `scope_order = Relaxed`: a relation against the scopes then compiles, and
//! the pipeline builds with the user's notes ahead of the project's docs.
use prompt_core::spec::Scope;
use prompt_core::spec::ScopeOrder;
use prompt_core::{Context, Pipeline, PromptBuilder, PromptLayer, prompt_layer, prompt_pipeline};

/// A pipeline whose order is fixed from outside.
#[prompt_pipeline(paths = [Cached], scope_order = Relaxed)]
pub struct Seeded;

/// The persona.
#[prompt_layer(priority = 100, stability = Stable, scope = Global, paths = [Cached], text = "Persona.", pipeline = Seeded)]
pub struct Persona;

/// The user's notes.
#[prompt_layer(priority = 200, stability = Stable, scope = User, paths = [Cached], text = "User notes.", pipeline = Seeded)]
pub struct UserNotes;

/// The project's docs, after the user's notes.
#[prompt_layer(priority = 300, stability = Stable, scope = Project, paths = [Cached], text = "Project docs.", pipeline = Seeded, after = [UserNotes])]
pub struct ProjectDocs;

fn main() {
    assert_eq!(
        <Seeded as prompt_core::spec::PromptPipeline>::SPEC.scope_order,
        ScopeOrder::Relaxed
    );
    assert_eq!(ProjectDocs::SPEC.scope, Scope::Project);
    let pipeline = Pipeline::of::<Seeded>().expect("a relaxed pipeline keeps its order");
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.stable(), "Persona.\n\nUser notes.\n\nProject docs.");
    assert_eq!(
        prompt.trace().shared_prefix(Scope::Project),
        "Persona.".len()
    );
}
