//! The standard layers as named sets, for a pipeline of your own:
//! `#[prompt_pipeline(paths = [Basic], include = [prompt_layers::Standard])]`.
//!
//! A set's layers keep their priorities and stabilities; a pipeline that
//! does not serve a layer's paths or modes leaves that layer out (a
//! Basic-only sub-agent takes [`Standard`] without `episodic_recall`,
//! `coordinator` or `scratchpad`, which render on Cached only). Naming a set
//! in `include` links this crate.

use prompt_core::{LayerSet, LayerSpec, PromptLayer};

use crate::layers::{
    BasePromptLayer, CoordinatorLayer, EpisodicRecallLayer, FactsLayer, ProjectContextLayer,
    ProjectMemoryLayer, RuntimeContextLayer, ScratchpadLayer, SkillsIndexLayer,
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
pub struct ProjectLayers;

impl LayerSet for ProjectLayers {
    const LAYERS: &'static [LayerSpec] = &[ProjectContextLayer::SPEC, SkillsIndexLayer::SPEC];
}
