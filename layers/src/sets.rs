//! The standard layers as named sets, for a pipeline of your own:
//! `#[prompt_pipeline(paths = [Basic], include = [prompt_layers::Standard])]`.
//!
//! A set's layers keep their priorities and stabilities; a pipeline that
//! does not serve a layer's paths or modes leaves that layer out (a
//! Basic-only sub-agent takes [`Standard`] without `episodic_recall`,
//! `coordinator` or `scratchpad`, which render on Cached only). Naming a set
//! in `include` links this crate.

use prompt_core::pipeline::LayerSet;
use prompt_core::{LayerSpec, PromptLayer};

use crate::standard::{
    BasePromptLayer, CoordinatorLayer, EpisodicRecallLayer, FactsLayer, ProjectContextLayer,
    ProjectMemoryLayer, QuotedFilesLayer, RuntimeContextLayer, ScratchpadLayer, SkillsIndexLayer,
    UserPreferencesLayer,
};

/// Every standard layer: the default pipeline's, for another pipeline.
///
/// ```
/// use prompt_core::{prompt_pipeline, Pipeline};
///
/// #[prompt_pipeline(paths = [Basic], include = [prompt_layers::Standard])]
/// pub struct SubAgent;
///
/// let pipeline = Pipeline::of::<SubAgent>()?;
/// assert!(pipeline.layer("project_context").is_some());
/// assert!(pipeline.layer("scratchpad").is_none(), "Cached only: left out of a Basic-only pipeline");
/// # Ok::<(), prompt_core::PipelineError>(())
/// ```
pub struct Standard;

impl LayerSet for Standard {
    const LAYERS: &'static [LayerSpec] = &[
        BasePromptLayer::SPEC,
        QuotedFilesLayer::SPEC,
        UserPreferencesLayer::SPEC,
        ProjectMemoryLayer::SPEC,
        ProjectContextLayer::SPEC,
        SkillsIndexLayer::SPEC,
        FactsLayer::SPEC,
        EpisodicRecallLayer::SPEC,
        CoordinatorLayer::SPEC,
        RuntimeContextLayer::SPEC,
        ScratchpadLayer::SPEC,
    ];
}

/// What the agent remembers: user preferences, project memory, facts,
/// episodic recall and the scratchpad.
///
/// Its files are quoted (`<file path="…">`): a pipeline that takes this set
/// without [`Standard`] takes [`QuotedFilesLayer`] too, the rule on how the
/// model weighs a quote (it is in no theme set, so two of them can be
/// included together).
pub struct MemoryLayers;

impl LayerSet for MemoryLayers {
    const LAYERS: &'static [LayerSpec] = &[
        UserPreferencesLayer::SPEC,
        ProjectMemoryLayer::SPEC,
        FactsLayer::SPEC,
        EpisodicRecallLayer::SPEC,
        ScratchpadLayer::SPEC,
    ];
}

/// What the repository says: its AGENTS.md / CLAUDE.md and its skills.
///
/// Its files are quoted: take [`QuotedFilesLayer`] with it, as with
/// [`MemoryLayers`].
pub struct ProjectLayers;

impl LayerSet for ProjectLayers {
    const LAYERS: &'static [LayerSpec] = &[ProjectContextLayer::SPEC, SkillsIndexLayer::SPEC];
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use prompt_core::Pipeline;
    use prompt_core::pipeline::LayerSet;

    use super::{MemoryLayers, ProjectLayers, Standard};

    fn names(layers: &[prompt_core::LayerSpec]) -> BTreeSet<&'static str> {
        layers.iter().map(|s| s.name).collect()
    }

    /// The standard layers are listed three times over (the registrations,
    /// `Standard`, the crate's table of layers): a layer missing from
    /// `Standard` would never reach a sub-agent that includes it, and one
    /// missing from the table would be undocumented.
    #[test]
    fn standard_holds_every_layer_of_this_crate_and_the_themes_are_within_it() {
        // Only this crate's layers are linked into its unit tests.
        let pipeline = Pipeline::collect().unwrap();
        let registered: BTreeSet<&str> = pipeline.specs().map(|s| s.name).collect();
        assert_eq!(names(Standard::LAYERS), registered);
        assert_eq!(Standard::LAYERS.len(), registered.len(), "listed twice");
        for theme in [MemoryLayers::LAYERS, ProjectLayers::LAYERS] {
            assert!(names(theme).is_subset(&registered));
        }
        let table: BTreeSet<&str> = include_str!("lib.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter_map(|l| l.split_once('`').map(|(name, _)| name))
            .collect();
        assert_eq!(table, registered, "lib.rs's table of layers");
    }
}
