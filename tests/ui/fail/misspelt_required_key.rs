use prompt_core::prompt_layer;

// One typo, one error: `prority` is unknown (did you mean `priority`?), and
// `priority` is not also reported missing.
#[prompt_layer(prority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct Persona;

fn main() {}
