use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_pipeline(paths = [Cached])]
pub struct Main;

#[prompt_layer(priority = 100, stability = Stable, scope = Session, paths = [Cached], text = "Task: fix the login.", pipeline = Main, before = [Persona])]
pub struct Task;

#[prompt_layer(priority = 200, stability = Stable, scope = Global, paths = [Cached], text = "You are terse.", pipeline = Main)]
pub struct Persona;

fn main() {}
