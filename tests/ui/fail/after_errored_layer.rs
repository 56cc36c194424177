use prompt_core::prompt_layer;

// `Persona`'s attribute has an error (a missing `stability`). That is the one
// error: `Rules`, which names it, must not fail a second time.
#[prompt_layer(priority = 100, paths = [Cached], text = "Persona.")]
pub struct Persona;

#[prompt_layer(priority = 50, stability = Stable, paths = [Cached], text = "Rules.", after = [Persona], before = [Persona])]
pub struct Rules;

fn main() {}
