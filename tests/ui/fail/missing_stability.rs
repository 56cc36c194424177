use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, paths = [Basic], text = "Hi.")]
pub struct Persona;

fn main() {}
