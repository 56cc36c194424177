use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct Persona<T> {
    inner: T,
}

fn main() {}
