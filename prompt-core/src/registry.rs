//! Link-time collection of every layer in the binary, through `inventory`.

use crate::layer::{LayerSpec, Render};

/// One layer as `#[prompt_layer]` registers it. Not for hand use.
#[doc(hidden)]
pub struct Registration {
    /// The layer's spec (the address of its `PromptLayer::SPEC`).
    pub spec: &'static LayerSpec,
    /// Builds the layer value: the unit struct, or `Default::default()`.
    pub build: fn() -> Box<dyn Render + Send + Sync>,
}

inventory::collect!(Registration);

/// Every registration linked into this binary, in no particular order.
pub(crate) fn registrations() -> impl Iterator<Item = &'static Registration> {
    inventory::iter::<Registration>.into_iter()
}

/// The names of every pipeline that has at least one layer in this binary, sorted.
///
/// A test that snapshots each pipeline's manifest can assert this list, so a
/// new pipeline does not go unreviewed.
pub fn pipeline_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = registrations().map(|r| r.spec.pipeline).collect();
    names.sort_unstable();
    names.dedup();
    names
}
