use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_layer(priority = 100, stability = Stable, paths = [Basic], text = "Hi.")]
pub struct Persona;

// Written twice: the second is rejected at the attribute.
#[prompt_pipeline(paths = [Basic], include = [Persona, Persona(paths = [Basic])])]
pub struct SubAgent;

// Once directly and once through a set: rejected at the set.
pub struct Everything;
impl prompt_core::pipeline::LayerSet for Everything {
    const LAYERS: &'static [prompt_core::pipeline::IncludedLayer] = &[prompt_core::pipeline::IncludedLayer::of::<Persona>()];
}

#[prompt_pipeline(paths = [Basic], include = [Persona, Everything])]
pub struct Reviewer;

fn main() {}
