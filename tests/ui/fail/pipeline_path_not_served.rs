use prompt_core::{prompt_layer, prompt_pipeline};

/// A sub-agent: callers only ever build one flat prompt.
#[prompt_pipeline(paths = [Basic])]
pub struct SubAgent;

// `Cached` is a phantom path here: nothing in `SubAgent` ever assembles it.
#[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached], text = "Hi.", pipeline = SubAgent)]
pub struct Persona;

fn main() {}
