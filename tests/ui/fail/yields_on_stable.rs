use prompt_core::prompt_layer;

// A budget never cuts the cached prefix, so a Stable layer has nothing to yield.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.", yields = Truncate)]
pub struct Persona;

fn main() {}
