use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached])]
pub struct Reviewer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "A.", pipeline = Reviewer)]
pub struct PersonaLayer;

// Same name in the same pipeline: checked per pipeline, at the key.
#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], text = "B.", pipeline = Reviewer, name = "persona")]
pub struct OtherPersonaLayer;

fn main() {}
