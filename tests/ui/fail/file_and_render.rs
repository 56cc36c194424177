use prompt_core::{prompt_layer, LayerInput, Render};

// `file` is relative to the manifest directory: trybuild's, here, which has a Cargo.toml.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], file = "Cargo.toml")]
pub struct Persona;

impl Render for Persona {
    fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
        out.push_str("Hello.");
    }
}

fn main() {}
