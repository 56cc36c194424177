use prompt_core::{prompt_layer, LayerInput, LayerWriter, Render};

// `impl Render` is `Render<Dynamic>`: its input reads the turn context, so a
// Stable layer cannot render through it.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached])]
pub struct Persona;

impl Render for Persona {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        out.push_str("Hello.");
    }
}

fn main() {}
