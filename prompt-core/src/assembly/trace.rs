//! What an assembly did, layer by layer.

use serde::Serialize;

use crate::budget::BudgetTrace;
use crate::fingerprint::Fingerprint;
use crate::layer::{AssemblyPath, Channel, PromptMode, Stability};

/// One layer's part in one assembly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LayerTrace {
    /// The layer's name.
    pub name: &'static str,
    /// Its priority.
    pub priority: u32,
    /// Its stability.
    pub stability: Stability,
    /// Bytes it wrote (0 when silent).
    pub bytes: usize,
    /// Whether it wrote nothing this time.
    pub silent: bool,
    /// What the layer noted: why it is silent, what its sources cut.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Fingerprint of the layer's output, for Stable layers (`None` for
    /// Dynamic ones): when the prefix fingerprint changes, the first Stable
    /// layer whose fingerprint changed is the one that busted the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// Where its text went: the system prompt, or the reminder
    /// ([`AssembledPrompt::reminder`](crate::AssembledPrompt::reminder)).
    pub channel: Channel,
    /// Tokens it wrote, when the build had a token counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
}

/// The record of one assembly: which layers spoke, how much, and the stable
/// prefix's fingerprint. Also emitted as a `tracing` event (target
/// `prompt_core::assembly`), so `RUST_LOG=prompt_core=debug` shows it once
/// the application installs a `tracing` subscriber (e.g. `tracing_subscriber::fmt()
/// .with_env_filter(..).init()`); without one, nothing is printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AssemblyTrace {
    /// The pipeline assembled.
    pub pipeline: String,
    /// The path assembled.
    pub path: AssemblyPath,
    /// The mode assembled.
    pub mode: PromptMode,
    /// Every layer that was on the path and in the mode, in render order.
    pub layers: Vec<LayerTrace>,
    /// Bytes of the stable prefix (the Stable layers' joined output).
    pub stable_bytes: usize,
    /// Bytes of the dynamic suffix (the Dynamic layers' joined output).
    pub dynamic_bytes: usize,
    /// Bytes of the reminder: the `channel = Reminder` layers' joined output,
    /// sent in the last user message rather than the system prompt.
    pub reminder_bytes: usize,
    /// The token counter's name (`approx`, `o200k_base`, ...), when the build had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<&'static str>,
    /// Tokens of the stable prefix, when the build had a token counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stable_tokens: Option<usize>,
    /// Tokens of the dynamic suffix (the budget's notice included), when the build had a token counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_tokens: Option<usize>,
    /// Fingerprint of the stable prefix.
    pub stable_fingerprint: Fingerprint,
    /// What the token budget did, when the build had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetTrace>,
}

impl AssemblyTrace {
    /// Names of the layers that wrote nothing, in render order.
    pub fn silent(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.layers.iter().filter(|l| l.silent).map(|l| l.name)
    }

    /// The trace of the layer called `name`, if it took part.
    pub fn layer(&self, name: &str) -> Option<&LayerTrace> {
        self.layers.iter().find(|l| l.name == name)
    }

    pub(crate) fn emit(&self) {
        tracing::debug!(
            target: "prompt_core::assembly",
            pipeline = %self.pipeline,
            path = %self.path,
            mode = %self.mode,
            layers = self.layers.len(),
            silent = ?self.silent().collect::<Vec<_>>(),
            stable_bytes = self.stable_bytes,
            dynamic_bytes = self.dynamic_bytes,
            stable_fingerprint = %self.stable_fingerprint.short(),
            budget_shed = ?self.budget.as_ref().map(|b| &b.shed),
            budget_notice = ?self.budget.as_ref().and_then(|b| b.notice.as_deref()),
            "assembled system prompt",
        );
        for layer in &self.layers {
            tracing::trace!(
                target: "prompt_core::assembly",
                layer = layer.name,
                priority = layer.priority,
                stability = %layer.stability,
                bytes = layer.bytes,
                silent = layer.silent,
                notes = ?layer.notes,
                "layer rendered",
            );
        }
    }
}
