use prompt_core::{prompt_layer, LayerInput, LayerWriter, Render, Stable};

// `file` is relative to the manifest directory: trybuild's, here, which has a Cargo.toml.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], file = "Cargo.toml")]
pub struct Persona;

impl Render<Stable> for Persona {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str("Hello.");
    }
}

fn main() {}
