use prompt_core::{prompt_layer, prompt_pipeline};

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], text = "Hi.")]
pub struct CacheNote;

// Named on its own, a layer must render in the pipeline that includes it.
#[prompt_pipeline(paths = [Basic], include = [CacheNote])]
pub struct SubAgent;

// A set none of whose layers can render there is a mistake too.
pub struct CachedOnly;
impl prompt_core::pipeline::LayerSet for CachedOnly {
    const LAYERS: &'static [prompt_core::pipeline::IncludedLayer] = &[prompt_core::pipeline::IncludedLayer::of::<CacheNote>()];
}

#[prompt_pipeline(paths = [Basic], include = [CachedOnly])]
pub struct Reviewer;

fn main() {}
