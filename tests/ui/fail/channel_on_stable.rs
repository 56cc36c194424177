use prompt_core::prompt_layer;

// A Stable layer is part of the cached system prompt and never moves to a reminder.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.", channel = Reminder)]
pub struct Persona;

fn main() {}
