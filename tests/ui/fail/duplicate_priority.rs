use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.")]
pub struct Persona;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Rules.")]
pub struct Rules;

fn main() {}
