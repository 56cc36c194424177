use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_layer(priority = 100, stability = Stable, paths = [Basic], text = "Hi.")]
pub struct Persona;

// Narrowed to nothing, to a path the pipeline does not serve, and with keys
// that stay the layer's own.
#[prompt_pipeline(paths = [Basic], modes = [Full],
    include = [Persona(paths = [], modes = [Minimal], priority = 5, stability = Dynamic)])]
pub struct SubAgent;

fn main() {}
