use prompt_core::{prompt_layer, LayerInput, LayerWriter, Render, Stable, TurnValue};

/// The time of this call: a turn value.
pub struct Clock(pub String);
impl TurnValue for Clock {}

// A Stable layer's text is cached for the whole session: it cannot read a per-call fact.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached])]
pub struct Header;

impl Render<Stable> for Header {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Clock(now)) = input.get::<Clock>() {
            out.push_str(now);
        }
    }
}

fn main() {}
