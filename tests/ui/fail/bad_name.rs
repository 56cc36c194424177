use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.", name = "ProjectDocs")]
pub struct Persona;

fn main() {}
