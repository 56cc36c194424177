use prompt_core::prompt_layer;

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Persona.")]
pub struct Persona;

mod reviewer {
    // Same name as `Persona` above, same (default) pipeline.
    #[prompt_core::prompt_layer(priority = 101, stability = Stable, paths = [Cached], text = "Reviewer.", name = "persona")]
    pub struct ReviewerPersona;
}

fn main() {}
