//! The house's layers: one joins the default pipeline, so a binary that
//! depends on this crate and never names it renders without it.

use prompt_core::prompt_layer;

/// The house rules, after every standard Stable layer.
#[prompt_layer(priority = 9_000, stability = Stable, paths = [Basic, Cached], text = "House rules: be kind.")]
pub struct HouseRules;
