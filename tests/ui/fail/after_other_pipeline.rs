use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached])]
pub struct Reviewer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.", pipeline = Reviewer)]
pub struct Persona;

#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], text = "Rules.", after = [Persona])]
pub struct Rules;

fn main() {}
