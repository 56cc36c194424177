use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.")]
pub struct PersonaLayer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Rules.")]
pub struct RulesLayer;

fn main() {}
