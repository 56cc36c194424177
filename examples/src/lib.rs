//! Reproductions of three production agents' prompt assembly, written as
//! declarative pipelines over `prompt_core` and the standard `prompt_layers`.
//!
//! | agent | pipeline | what it shows |
//! |---|---|---|
//! | [`agents::recursive`] | `"recursive"` | one frozen, all-Stable prompt shared by four channels |
//! | [`agents::aleph`] | `"aleph"` | a 38-layer pipeline over both bands, three modes, welds and a budget |
//! | [`agents::kitsoki`] | `"kitsoki"` | three `---`-joined layers driving `claude` and Codex per verb |
//!
//! The `prompt` binary renders each with `prompt render --agent NAME`.

pub mod agents;
