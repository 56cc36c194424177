use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [Full], text = "Hi.")]
pub struct Persona;

// A narrowing can only leave paths out: `Persona` never renders on Basic.
#[prompt_pipeline(paths = [Basic, Cached], include = [Persona(paths = [Basic, Cached])])]
pub struct Main;

// Nor can it add a mode.
#[prompt_pipeline(paths = [Cached], include = [Persona(modes = [Compact])])]
pub struct Reviewer;

fn main() {}
