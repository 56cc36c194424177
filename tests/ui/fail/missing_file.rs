use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], file = "prompts/no-such-persona.md")]
pub struct Persona;

fn main() {}
