use prompt_core::prompt_layer;

#[prompt_layer(stability = Stable, paths = [Basic], text = "Hi.")]
pub struct Persona;

fn main() {}
