use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub enum Persona {
    Careful,
}

#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], text = "Hi.")]
pub union Rules {
    a: u32,
}

fn main() {}
