use prompt_core::prompt_pipeline;

// Every mistake in a pipeline's attribute, each at its own key.
#[prompt_pipeline(modes = [], separator = 2, prority = 1)]
pub struct Reviewer;

#[prompt_pipeline(paths = [Basic])]
pub enum Main {}

fn main() {}
