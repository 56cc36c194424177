use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached], scope_order = Loose)]
pub struct Main;

#[prompt_layer(priority = 100, stability = Stable, scope = Team, paths = [Cached], text = "Run make check.")]
pub struct ProjectDocs;

fn main() {}
