use prompt_core::prompt_layer;

#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], text = "Project docs.")]
pub struct ProjectDocs;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Memory.", after = [ProjectDocs])]
pub struct Memory;

fn main() {}
