use prompt_core::{prompt_layer, prompt_pipeline};

// An unscoped Stable layer is `Session`: the usual first mistake.
#[prompt_layer(priority = 150, stability = Stable, paths = [Basic, Cached], text = "You are Ada, a careful reviewer.")]
pub struct Persona;

// Included with the standard layers (Global, Project, User ones after it):
// one error, at the `Persona` entry, offering `scope = ..` first.
#[prompt_pipeline(paths = [Basic], include = [Persona, prompt_layers::Standard])]
pub struct SubAgent;

fn main() {}
