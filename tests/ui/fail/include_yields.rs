use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_layer(priority = 100, stability = Stable, paths = [Basic], text = "Hi.")]
pub struct Persona;

// A Stable layer has no `yields`, in any pipeline.
#[prompt_pipeline(paths = [Basic], include = [Persona(yields = Truncate)])]
pub struct SubAgent;

// `yields` narrows one layer, not a set.
#[prompt_pipeline(paths = [Basic], include = [prompt_layers::MemoryLayers(yields = Keep)])]
pub struct Reviewer;

fn main() {}
