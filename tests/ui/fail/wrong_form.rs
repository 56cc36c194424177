// Every ill-formed value is reported at once, each at its own span.
use prompt_core::prompt_layer;

#[prompt_layer(
    priority = 100,
    stability = "Stable",
    paths = Basic,
    modes = [Full, Verbose],
    name = persona,
    text,
)]
pub struct Persona;

fn main() {}
