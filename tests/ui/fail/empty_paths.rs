use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [], text = "Hi.")]
pub struct Persona;

fn main() {}
