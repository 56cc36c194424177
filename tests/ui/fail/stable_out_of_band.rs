use prompt_core::prompt_layer;

// A Stable layer placed among the Dynamic ones would split the cached prefix.
#[prompt_layer(priority = 10_000, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct Persona;

fn main() {}
