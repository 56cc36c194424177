use prompt_core::{prompt_layer, LayerInput, Render};

pub struct Style(&'static str);

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached])]
pub struct Persona {
    style: Style,
}

impl Render for Persona {
    fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
        out.push_str(self.style.0);
    }
}

fn main() {}
