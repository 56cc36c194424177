//! How big a pipeline's prompts are: the worst case over scenarios.

use serde::Serialize;

use super::renders::Renders;
use super::scenario::Scenario;
use crate::pipeline::Pipeline;
use crate::spec::{AssemblyPath, PromptMode, Scope, Stability};
use crate::tokens::TokenCounter;

/// Sizes of a pipeline's prompts, per path and mode, worst case over
/// scenarios and turns. What `prompt size` prints and the ratchet compares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Sizes {
    /// The pipeline measured.
    pub pipeline: String,
    /// The scenarios measured, by name.
    pub scenarios: Vec<String>,
    /// One entry per path and mode the layers declare.
    pub assemblies: Vec<AssemblySize>,
}

/// One path and mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AssemblySize {
    /// The path.
    pub path: AssemblyPath,
    /// The mode.
    pub mode: PromptMode,
    /// The largest stable prefix (scaffold) seen, in bytes.
    pub stable_bytes: usize,
    /// The largest dynamic suffix seen, in bytes.
    pub dynamic_bytes: usize,
    /// Tokens of the largest whole prompt (system text plus reminder), when
    /// measured with a counter ([`measure_tokens`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
    /// Every layer on this path and mode, in render order, at its largest.
    pub layers: Vec<LayerMeasure>,
}

/// One layer at its largest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LayerMeasure {
    /// The layer's name.
    pub name: String,
    /// Its priority.
    pub priority: u32,
    /// Its stability.
    pub stability: Stability,
    /// How widely its text is shared (Stable layers; `None` for Dynamic ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The most bytes it wrote in any scenario and turn (0: silent in all).
    pub bytes: usize,
    /// The most tokens it wrote, when measured with a counter ([`measure_tokens`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
    /// The scenario in which it wrote the most (empty when silent in all).
    pub scenario: String,
}

impl AssemblySize {
    /// The largest layers first (ties in render order), at most `n`.
    pub fn largest(&self, n: usize) -> Vec<&LayerMeasure> {
        let mut layers: Vec<&LayerMeasure> = self.layers.iter().collect();
        layers.sort_by_key(|l| std::cmp::Reverse(l.bytes));
        layers.truncate(n);
        layers
    }
}

/// Measures `pipeline` over `scenarios`: every path and mode the layers
/// declare, worst case per layer and per part.
///
/// ```standalone_crate
/// use prompt_core::{prompt_layer, Context, Pipeline};
/// use prompt_core::pipeline::LayerEntry;
/// use prompt_checks::contract::{measure, Scenario};
///
/// /// The pipeline of this example.
/// #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// struct Doc;
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], modes = [Full], text = "Be brief.", pipeline = Doc)]
/// struct Brief;
///
/// let pipeline = Pipeline::of::<Doc>().unwrap();
/// let sizes = measure(&pipeline, &[Scenario::new("bare", Context::new())]);
/// assert_eq!(sizes.assemblies.len(), 1);
/// assert_eq!(sizes.assemblies[0].stable_bytes, 9);
/// assert_eq!(sizes.assemblies[0].layers[0].bytes, 9);
/// ```
pub fn measure(pipeline: &Pipeline, scenarios: &[Scenario]) -> Sizes {
    sizes(&Renders::new(pipeline, scenarios), scenarios)
}

/// [`measure`], with tokens counted by `counter` as well as bytes: per layer
/// (the most it wrote) and per path and mode (the largest whole prompt).
///
/// ```standalone_crate
/// use prompt_checks::contract::{measure_tokens, Scenario};
/// use prompt_core::tokens::ApproxCounter;
/// use prompt_core::{prompt_layer, Context, Pipeline};
///
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], modes = [Full], text = "Be brief and exact.")]
/// struct Brief;
///
/// let sizes = measure_tokens(&Pipeline::collect().unwrap(), &[Scenario::new("bare", Context::new())], &ApproxCounter);
/// assert_eq!(sizes.assemblies[0].layers[0].tokens, Some(5));
/// assert_eq!(sizes.assemblies[0].tokens, Some(5));
/// ```
pub fn measure_tokens(
    pipeline: &Pipeline,
    scenarios: &[Scenario],
    counter: &dyn TokenCounter,
) -> Sizes {
    let renders = Renders::new(pipeline, scenarios);
    let mut sizes = sizes(&renders, scenarios);
    for item in &renders.items {
        let Some(entry) = sizes
            .assemblies
            .iter_mut()
            .find(|a| a.path == item.path && a.mode == item.mode)
        else {
            continue;
        };
        let whole = counter.count(&item.prompt.text())
            + item.prompt.reminder().map_or(0, |r| counter.count(r));
        entry.tokens = Some(entry.tokens.unwrap_or(0).max(whole));
        for segment in item.segments() {
            if let Some(size) = entry
                .layers
                .iter_mut()
                .find(|s| s.name == segment.layer.name)
            {
                let tokens = counter.count(segment.text);
                size.tokens = Some(size.tokens.unwrap_or(0).max(tokens));
            }
        }
    }
    sizes
}

pub(crate) fn sizes(renders: &Renders<'_>, scenarios: &[Scenario]) -> Sizes {
    let mut assemblies: Vec<AssemblySize> = Vec::new();
    for item in &renders.items {
        let trace = item.prompt.trace();
        let index = match assemblies
            .iter()
            .position(|a| a.path == item.path && a.mode == item.mode)
        {
            Some(index) => index,
            None => {
                assemblies.push(AssemblySize {
                    path: item.path,
                    mode: item.mode,
                    stable_bytes: 0,
                    dynamic_bytes: 0,
                    tokens: None,
                    layers: trace
                        .layers
                        .iter()
                        .map(|l| LayerMeasure {
                            name: l.name.to_owned(),
                            priority: l.priority,
                            stability: l.stability,
                            scope: l.scope,
                            bytes: 0,
                            tokens: None,
                            scenario: String::new(),
                        })
                        .collect(),
                });
                assemblies.len() - 1
            }
        };
        let entry = &mut assemblies[index];
        entry.stable_bytes = entry.stable_bytes.max(trace.stable_bytes);
        entry.dynamic_bytes = entry.dynamic_bytes.max(trace.dynamic_bytes);
        for layer in &trace.layers {
            if let Some(size) = entry.layers.iter_mut().find(|s| s.name == layer.name)
                && layer.bytes > size.bytes
            {
                size.bytes = layer.bytes;
                item.scenario.name().clone_into(&mut size.scenario);
            }
        }
    }
    Sizes {
        pipeline: renders.pipeline.name().to_owned(),
        scenarios: scenarios.iter().map(|p| p.name().to_owned()).collect(),
        assemblies,
    }
}
