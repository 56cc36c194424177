use prompt_core::{prompt_layer, prompt_pipeline};

// In the default pipeline; `Clash` takes it with `include`.
#[prompt_layer(priority = 10_100, stability = Dynamic, paths = [Basic], text = "Notes.")]
pub struct TurnNotes;

#[prompt_pipeline(paths = [Basic], include = [TurnNotes])]
pub struct Clash;

// A relation to a layer its pipeline includes is checked like any other.
#[prompt_layer(priority = 10_200, stability = Dynamic, paths = [Basic], text = "Mine.", pipeline = Clash, before = [TurnNotes])]
pub struct Mine;

fn main() {}
