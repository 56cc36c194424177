use prompt_core::prompt_pipeline;

// A key under its name before 0.1.0: the error names the key it became,
// and nothing else is reported about it.
#[prompt_pipeline(paths = [Basic], crates = [my_layers])]
pub struct Reviewer;

fn main() {}
