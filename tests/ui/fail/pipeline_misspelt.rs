use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached])]
pub struct Reviewer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", pipeline = Reveiwer)]
pub struct Persona;

fn main() {}
