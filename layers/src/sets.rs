//! The standard layers as named sets, for a pipeline of your own:
//! `#[prompt_pipeline(paths = [Basic], include = [prompt_layers::Standard])]`,
//! and [`StandardPipeline`], the pipeline of them all.
//!
//! The standard layers are include-only (`pipeline = []`): they join no
//! pipeline until one includes them, so linking this crate changes no
//! existing prompt, and the sets carry what a pipeline needs to build them
//! (none is registered with the link-time registry).
//!
//! A set's layers keep their priorities and stabilities; a pipeline that
//! does not serve a layer's paths or modes leaves that layer out (a
//! Basic-only sub-agent takes [`Standard`] without `episodic_recall`,
//! `coordinator` or `scratchpad`, which render on Cached only). Naming a set
//! in `include` links this crate.

use prompt_core::pipeline::{IncludedLayer, LayerSet};

use crate::standard::{
    BasePromptLayer, CoordinatorLayer, EpisodicRecallLayer, FactsLayer, ProjectContextLayer,
    ProjectMemoryLayer, QuotedFilesLayer, RuntimeContextLayer, ScratchpadLayer, SkillsIndexLayer,
    UserPreferencesLayer,
};

/// Every standard layer, for a pipeline that includes them all (as
/// [`StandardPipeline`] does).
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
    const LAYERS: &'static [IncludedLayer] = &[
        IncludedLayer::of::<BasePromptLayer>(),
        IncludedLayer::of::<QuotedFilesLayer>(),
        IncludedLayer::of::<UserPreferencesLayer>(),
        IncludedLayer::of::<ProjectMemoryLayer>(),
        IncludedLayer::of::<ProjectContextLayer>(),
        IncludedLayer::of::<SkillsIndexLayer>(),
        IncludedLayer::of::<FactsLayer>(),
        IncludedLayer::of::<EpisodicRecallLayer>(),
        IncludedLayer::of::<CoordinatorLayer>(),
        IncludedLayer::of::<RuntimeContextLayer>(),
        IncludedLayer::of::<ScratchpadLayer>(),
    ];
}

/// The standard pipeline: every standard layer ([`Standard`]), on both
/// paths and in every mode. It is called `standard`: the `prompt` binary's
/// default, and `Pipeline::named("standard")` in any binary that links this
/// crate. A pipeline of your own that wants the standard layers and some
/// of its own includes [`Standard`] instead.
///
/// ```
/// use prompt_core::{Context, Pipeline, PromptBuilder};
/// use prompt_layers::{RuntimeFacts, StandardPipeline};
///
/// let pipeline = Pipeline::of::<StandardPipeline>()?;
/// assert_eq!(pipeline.name(), "standard");
/// assert_eq!(pipeline.len(), 11);
/// let turn = Context::new().with(RuntimeFacts::default().model("opus"));
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &turn).unwrap();
/// assert!(prompt.dynamic().contains("- Model: opus"));
/// # Ok::<(), prompt_core::PipelineError>(())
/// ```
pub use pipeline::Standard as StandardPipeline;

mod pipeline {
    use prompt_core::prompt_pipeline;

    /// The standard pipeline (exported as `StandardPipeline`).
    #[prompt_pipeline(paths = [Basic, Cached], include = [crate::Standard])]
    pub struct Standard;
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
    const LAYERS: &'static [IncludedLayer] = &[
        IncludedLayer::of::<UserPreferencesLayer>(),
        IncludedLayer::of::<ProjectMemoryLayer>(),
        IncludedLayer::of::<FactsLayer>(),
        IncludedLayer::of::<EpisodicRecallLayer>(),
        IncludedLayer::of::<ScratchpadLayer>(),
    ];
}

/// What the repository says: its AGENTS.md / CLAUDE.md and its skills.
///
/// Its files are quoted: take [`QuotedFilesLayer`] with it, as with
/// [`MemoryLayers`].
pub struct ProjectLayers;

impl LayerSet for ProjectLayers {
    const LAYERS: &'static [IncludedLayer] = &[
        IncludedLayer::of::<ProjectContextLayer>(),
        IncludedLayer::of::<SkillsIndexLayer>(),
    ];
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use prompt_core::Pipeline;
    use prompt_core::pipeline::{IncludedLayer, LayerSet};

    use super::{MemoryLayers, ProjectLayers, Standard, StandardPipeline};

    fn names(layers: &[IncludedLayer]) -> BTreeSet<&'static str> {
        layers.iter().map(|l| l.spec.name).collect()
    }

    /// The type names of the `#[prompt_layer]` structs in `src/standard`.
    fn declared() -> BTreeSet<String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/standard");
        let mut types = BTreeSet::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let source = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for after in source.split("#[prompt_layer(").skip(1) {
                let after = &after[after.find("pub struct ").unwrap() + "pub struct ".len()..];
                let end = after.find(|c: char| !c.is_alphanumeric()).unwrap();
                types.insert(after[..end].to_owned());
            }
        }
        types
    }

    /// The standard layers are listed three times over (their sources,
    /// `Standard`, the crate's table of layers): a layer missing from
    /// `Standard` would never reach a pipeline that includes it, and one
    /// missing from the table would be undocumented.
    #[test]
    fn standard_holds_every_layer_of_this_crate_and_the_themes_are_within_it() {
        let types: BTreeSet<String> = Standard::LAYERS
            .iter()
            .map(|l| l.spec.type_name.to_owned())
            .collect();
        assert_eq!(types, declared(), "src/standard's layers");
        let standard = names(Standard::LAYERS);
        assert_eq!(Standard::LAYERS.len(), standard.len(), "listed twice");
        for theme in [MemoryLayers::LAYERS, ProjectLayers::LAYERS] {
            assert!(names(theme).is_subset(&standard));
        }
        let table: BTreeSet<&str> = include_str!("lib.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter_map(|l| l.split_once('`').map(|(name, _)| name))
            .collect();
        assert_eq!(table, standard, "lib.rs's table of layers");
    }

    /// Include-only: no standard layer joins a pipeline of its own, so
    /// linking this crate adds nothing to the default pipeline (only this
    /// crate is linked into its unit tests, so it is empty), and
    /// [`StandardPipeline`] builds them all from the set.
    #[test]
    fn every_standard_layer_is_include_only() {
        for layer in Standard::LAYERS {
            assert_eq!(layer.spec.pipelines, [] as [&str; 0], "{}", layer.spec.name);
        }
        assert!(Pipeline::collect().is_err());
        let pipeline = Pipeline::of::<StandardPipeline>().unwrap();
        let built: BTreeSet<&str> = pipeline.specs().map(|s| s.name).collect();
        assert_eq!(built, names(Standard::LAYERS));
    }
}
