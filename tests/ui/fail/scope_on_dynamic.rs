use prompt_core::prompt_layer;

// A Dynamic layer is never cached, so it is shared with no one: no scope.
#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: today.", scope = User)]
pub struct Clock;

fn main() {}
