use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", file = "ui/persona.md")]
pub struct Persona;

fn main() {}
