use prompt_core::prompt_layer;

pub struct Persona;

#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], text = "Rules.", after = [Persona])]
pub struct Rules;

fn main() {}
