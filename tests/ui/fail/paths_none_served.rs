use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Basic])]
pub struct SubAgent;

// `Cached` only, in a Basic-only pipeline: one mistake, one error, and it
// never suggests leaving `paths` empty.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", pipeline = SubAgent)]
pub struct Persona;

fn main() {}
