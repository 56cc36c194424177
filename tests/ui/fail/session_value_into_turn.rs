use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder, SessionValue};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Be brief.")]
pub struct Persona;

/// The repository's house rules: a session value.
pub struct HouseRules(pub &'static str);
impl SessionValue for HouseRules {}

fn main() {
    let pipeline = Pipeline::collect().unwrap();
    let mut turn = prompt_core::TurnContext::new();
    turn.insert(HouseRules("Run the tests."));
    let _ = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &turn);
}
