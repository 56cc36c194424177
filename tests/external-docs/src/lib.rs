//! A user's layer library: layers with literal priorities in the default
//! pipeline and in a pipeline of its own, in the crate root and in a module.

use prompt_core::{prompt_layer, prompt_pipeline};

/// Who the agent is.
#[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached], text = "You review pull requests.")]
pub struct PersonaLayer;

/// How it writes.
#[prompt_layer(priority = 200, stability = Stable, paths = [Basic, Cached], text = "Be brief.")]
pub struct StyleLayer;

/// A reviewer sub-agent.
#[prompt_pipeline(paths = [Basic])]
pub struct Reviewer;

/// The reviewer's own layers.
pub mod review {
    /// What the reviewer looks at.
    #[prompt_core::prompt_layer(priority = 100, stability = Stable, paths = [Basic], text = "Read the diff.", pipeline = super::Reviewer)]
    pub struct FocusLayer;
}
