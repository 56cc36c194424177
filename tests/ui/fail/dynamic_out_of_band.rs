use prompt_core::prompt_layer;

const BASE: u32 = 50;

// A Dynamic layer among the Stable ones would bust the cache on every call.
#[prompt_layer(priority = BASE + 10, stability = Dynamic, paths = [Cached], text = "Now.")]
pub struct Clock;

fn main() {}
