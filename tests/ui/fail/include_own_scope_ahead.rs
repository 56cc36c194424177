use prompt_core::{prompt_layer, prompt_pipeline};

// The pipeline takes the standard project layers (Project scope, 3000 and 4000).
#[prompt_pipeline(paths = [Cached], include = [prompt_layers::ProjectLayers])]
pub struct Main;

// A User-scope layer ahead of them: one error, at its own priority, whose fix
// moves this layer (the standard ones are not the user's to move).
#[prompt_layer(priority = 2_500, stability = Stable, scope = User, paths = [Cached], text = "Alice likes tabs.", pipeline = Main)]
pub struct UserNotes;

fn main() {}
