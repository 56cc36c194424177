use prompt_core::prompt_layer;

// The old string form: a pipeline is a declared type now.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", pipeline = "reviewer")]
pub struct Persona;

fn main() {}
