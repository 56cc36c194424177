use prompt_core::prompt_pipeline;

#[prompt_pipeline(paths = [Basic], include = [])]
pub struct SubAgent;

#[prompt_pipeline(paths = [Basic], include = ["prompt_layers::Standard"])]
pub struct Reviewer;

fn main() {}
