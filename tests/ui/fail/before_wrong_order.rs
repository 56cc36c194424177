use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.")]
pub struct Persona;

#[prompt_layer(priority = 100 + 50, stability = Stable, paths = [Cached], text = "Rules.", before = [Persona])]
pub struct Rules;

fn main() {}
