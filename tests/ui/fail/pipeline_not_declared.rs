use prompt_core::prompt_layer;

/// A type, but not a pipeline: no `#[prompt_pipeline]`.
pub struct Reviewer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", pipeline = Reviewer)]
pub struct Persona;

fn main() {}
