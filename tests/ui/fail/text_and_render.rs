use prompt_core::{prompt_layer, LayerInput, Render};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct Persona;

impl Render for Persona {
    fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
        out.push_str("Hello.");
    }
}

fn main() {}
