use prompt_core::prompt_pipeline;

/// Not a layer, and not a set.
pub struct Notes;

#[prompt_pipeline(paths = [Basic], include = [Notes])]
pub struct SubAgent;

fn main() {}
