use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Cached, paths = [Basic], text = "Hi.")]
pub struct Persona;

fn main() {}
