use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [], text = "Hi.")]
pub struct Persona;

fn main() {}
