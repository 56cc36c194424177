use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder, TurnValue};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Be brief.")]
pub struct Persona;

/// The time of this call: a turn value.
pub struct Clock(pub &'static str);
impl TurnValue for Clock {}

fn main() {
    let pipeline = Pipeline::collect().unwrap();
    // The session context holds what is fixed for a whole session.
    let _session = PromptBuilder::new(&pipeline).session(Context::new().with(Clock("12:00")));
}
