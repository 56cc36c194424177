use prompt_core::{prompt_layer, prompt_pipeline};

// Same priority as the standard `project_context` (4000), in the default pipeline.
#[prompt_layer(priority = 4_000, stability = Stable, paths = [Basic], text = "Docs.", name = "house_docs")]
pub struct HouseDocs;

// Both included: the pipeline would have two layers at 4000.
#[prompt_pipeline(paths = [Basic], include = [prompt_layers::ProjectLayers, HouseDocs])]
pub struct SubAgent;

fn main() {}
