use prompt_core::{prompt_layer, prompt_pipeline};

// The pipeline takes the standard project layers (`project_context` at 3000).
#[prompt_pipeline(paths = [Cached], include = [prompt_layers::ProjectLayers])]
pub struct Main;

// Its own layer at the same priority: known at build time, reported here.
#[prompt_layer(priority = 3_000, stability = Stable, scope = Project, paths = [Cached], text = "House rules.", pipeline = Main)]
pub struct HouseRules;

fn main() {}
