//! `PromptBuilder`: the options of an assembly.

use std::borrow::Cow;

use super::error::AssemblyError;
use super::intern::PrefixCache;
use super::prompt::AssembledPrompt;
use super::render::{Call, Plan, dynamic_entries};
use super::session::PromptSession;
use std::fmt;
use std::sync::Arc;

use crate::budget::TokenBudget;
use crate::context::{Context, TurnContext};
use crate::pipeline::Pipeline;
use crate::spec::{AssemblyPath, PromptMode};
use crate::tokens::TokenCounter;

/// Assembles prompts from a pipeline.
///
/// ```standalone_crate
/// use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, TurnValue};
/// use prompt_core::spec::DefaultPipeline;
/// use prompt_core::pipeline::LayerEntry;
/// use prompt_core::spec::PromptPipeline;
///
/// #[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached], text = "You are terse.")]
/// struct Persona;
///
/// /// The working directory, a per-call fact.
/// struct Cwd(&'static str);
/// impl TurnValue for Cwd {}
///
/// #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Basic, Cached])]
/// struct Where;
///
/// impl Render for Where {
///     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
///         if let Some(Cwd(dir)) = input.get::<Cwd>() {
///             out.push_str("cwd: ");
///             out.push_str(dir);
///         }
///     }
/// }
///
/// let pipeline = Pipeline::from_layers(DefaultPipeline::SPEC, [LayerEntry::of::<Persona>(), LayerEntry::of::<Where>()]).unwrap();
/// let prompt = PromptBuilder::new(&pipeline)
///     .build_cached(&Context::new(), &Context::new().with(Cwd("/repo")))?;
/// assert_eq!(prompt.stable(), "You are terse.");
/// assert_eq!(prompt.dynamic(), "cwd: /repo");
/// assert_eq!(prompt.text(), "You are terse.\n\ncwd: /repo");
/// # Ok::<(), prompt_core::AssemblyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PromptBuilder<'p> {
    pipeline: &'p Pipeline,
    mode: PromptMode,
    separator: Cow<'static, str>,
    budget: Option<TokenBudget>,
    counter: Option<Counter>,
    prefix_cache: Option<PrefixCache>,
}

/// A shared token counter, shown by name in `Debug`.
#[derive(Clone)]
pub(crate) struct Counter(pub(crate) Arc<dyn TokenCounter>);

impl fmt::Debug for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl<'p> PromptBuilder<'p> {
    /// A builder for `pipeline` in [`PromptMode::Full`] with the pipeline's
    /// separator (`"\n\n"` unless its `#[prompt_pipeline]` says otherwise).
    pub fn new(pipeline: &'p Pipeline) -> Self {
        Self {
            pipeline,
            mode: PromptMode::Full,
            separator: Cow::Borrowed(pipeline.spec().separator),
            budget: None,
            counter: None,
            prefix_cache: None,
        }
    }

    /// Assemble in `mode`: only layers that list it speak.
    #[must_use]
    pub fn mode(mut self, mode: PromptMode) -> Self {
        self.mode = mode;
        self
    }

    /// Join non-empty layer outputs with `separator`.
    #[must_use]
    pub fn separator(mut self, separator: impl Into<Cow<'static, str>>) -> Self {
        self.separator = separator.into();
        self
    }

    /// Fit every prompt into `budget`, trimming only the dynamic suffix.
    ///
    /// See [`budget`](crate::budget) for the order in which Dynamic layers
    /// yield. Without a budget nothing is measured or trimmed.
    #[must_use]
    pub fn budget(mut self, budget: TokenBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Count tokens with `counter`: the trace then reports tokens per layer
    /// and per part, and a token budget measures with it.
    ///
    /// Without one, a token budget measures with the approximate
    /// [`ApproxCounter`](crate::tokens::ApproxCounter) and the trace reports bytes only.
    #[must_use]
    pub fn counter(mut self, counter: impl TokenCounter + 'static) -> Self {
        self.counter = Some(Counter(Arc::new(counter)));
        self
    }

    /// Share the stable prefixes of this builder's sessions through `cache`:
    /// sessions whose Stable layers render the same bytes hold one copy. See
    /// [`PrefixCache`]; one-off builds ([`build_cached`](Self::build_cached),
    /// [`build_basic`](Self::build_basic)) do not use it.
    #[must_use]
    pub fn prefix_cache(mut self, cache: &PrefixCache) -> Self {
        self.prefix_cache = Some(cache.clone());
        self
    }

    /// A cached prompt: `[stable {cache: true}, dynamic {cache: false}]`.
    ///
    /// # Errors
    /// [`AssemblyError`] when the stable prefix (or it plus the `Keep` layers)
    /// is over the budget, a layer panicked while rendering, or the pipeline
    /// does not serve the Cached path or the builder's mode
    /// ([`AssemblyError::PathNotServed`], [`AssemblyError::ModeNotServed`]).
    pub fn build_cached(
        &self,
        session: &Context,
        turn: &TurnContext,
    ) -> Result<AssembledPrompt, AssemblyError> {
        self.build(AssemblyPath::Cached, session, turn)
    }

    /// A basic prompt: one part with every layer on the Basic path.
    ///
    /// # Errors
    /// As [`build_cached`](Self::build_cached).
    pub fn build_basic(
        &self,
        session: &Context,
        turn: &TurnContext,
    ) -> Result<AssembledPrompt, AssemblyError> {
        self.build(AssemblyPath::Basic, session, turn)
    }

    /// A session that renders its Stable layers once and reuses them for every turn.
    pub fn session(self, session: Context) -> PromptSession<'p> {
        PromptSession::new(self, session)
    }

    /// The pipeline being assembled.
    pub fn pipeline(&self) -> &'p Pipeline {
        self.pipeline
    }

    pub(crate) fn prefix_cache_ref(&self) -> Option<&PrefixCache> {
        self.prefix_cache.as_ref()
    }

    /// `Ok` when the pipeline serves `path` and the builder's mode.
    pub(crate) fn served(&self, path: AssemblyPath) -> Result<(), AssemblyError> {
        let spec = self.pipeline.spec();
        if !spec.serves_path(path) {
            return Err(AssemblyError::PathNotServed {
                pipeline: spec.name.to_owned(),
                asked: path,
                serves: spec.paths,
            });
        }
        if !spec.serves_mode(self.mode) {
            return Err(AssemblyError::ModeNotServed {
                pipeline: spec.name.to_owned(),
                asked: self.mode,
                serves: spec.modes,
            });
        }
        Ok(())
    }

    pub(crate) fn plan(&self) -> Plan<'_> {
        Plan {
            pipeline: self.pipeline,
            mode: self.mode,
            separator: &self.separator,
            budget: self.budget,
            counter: self.counter.as_ref().map(|c| &*c.0),
        }
    }

    fn build(
        &self,
        path: AssemblyPath,
        session: &Context,
        turn: &TurnContext,
    ) -> Result<AssembledPrompt, AssemblyError> {
        self.served(path)?;
        let plan = self.plan();
        let call = Call {
            path,
            session,
            turn,
        };
        let dynamic = dynamic_entries(self.pipeline, path, self.mode);
        let stable = plan.stable_prefix(call, &dynamic)?;
        plan.assemble(call, &stable, &dynamic, None)
    }
}
