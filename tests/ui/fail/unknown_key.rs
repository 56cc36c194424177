use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Basic], text = "Hi.", sielnt = "when memory exists")]
pub struct Persona;

fn main() {}
