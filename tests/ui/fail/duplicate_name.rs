use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.")]
pub struct PersonaLayer;

// Same name as `PersonaLayer` above, same (default) pipeline, same module:
// the check is per module, as nothing it places is exported (across modules,
// collecting the pipeline names both).
#[prompt_layer(priority = 101, stability = Stable, paths = [Cached], text = "Reviewer.", name = "persona")]
pub struct ReviewerPersonaLayer;

fn main() {}
