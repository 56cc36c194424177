use prompt_core::{prompt_layer, LayerInput, LayerWriter, Render, Stable};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct Persona;

impl Render<Stable> for Persona {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str("Hello.");
    }
}

fn main() {}
