use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached], modes = [Full, Compact])]
pub struct Main;

#[prompt_pipeline(paths = [Cached])]
pub struct Reviewer;

// Rejected for `Main` only, which never assembles `Minimal`.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [Minimal], text = "Hi.", pipeline = [Reviewer, Main])]
pub struct Persona;

fn main() {}
