use prompt_core::{prompt_layer, prompt_pipeline};

// Same priority as the standard `project_context` (3000), in the default pipeline.
#[prompt_layer(priority = 3_000, stability = Stable, scope = Project, paths = [Basic], text = "Docs.", name = "house_docs")]
pub struct HouseDocs;

// Both included: the pipeline would have two layers at 3000.
#[prompt_pipeline(paths = [Basic], include = [prompt_layers::ProjectLayers, HouseDocs])]
pub struct SubAgent;

fn main() {}
