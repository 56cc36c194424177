use prompt_core::{prompt_layer, LayerInput, LayerWriter, Render, Stable};

pub struct Style(&'static str);

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached])]
pub struct Persona {
    style: Style,
}

impl Render<Stable> for Persona {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str(self.style.0);
    }
}

fn main() {}
