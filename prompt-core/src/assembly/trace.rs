//! What an assembly did, layer by layer.

use std::fmt;
use std::iter::Chain;
use std::ops::Index;
use std::ops::Range;
use std::slice;
use std::sync::{Arc, OnceLock};

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use smallvec::SmallVec;

use crate::budget::BudgetTrace;
use crate::fingerprint::Fingerprint;
use crate::spec::{AssemblyPath, Channel, LayerSpec, PromptMode, Scope, Stability};

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
    /// How widely its text is shared: its spec's [`Scope`] for a Stable
    /// layer, `None` for a Dynamic one (never cached, shared by no one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Bytes it wrote (0 when silent).
    pub bytes: usize,
    /// Whether it wrote nothing this time.
    pub silent: bool,
    /// What the layer noted: why it is silent, what its sources cut.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// See [`fingerprint`](Self::fingerprint).
    #[serde(skip_serializing_if = "LazyFingerprint::is_none")]
    pub(crate) fingerprint: LazyFingerprint,
    /// Where its text went: the system prompt, or the reminder
    /// ([`AssembledPrompt::reminder`](crate::AssembledPrompt::reminder)).
    pub channel: Channel,
    /// Tokens it wrote, when the build had a token counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
}

impl LayerTrace {
    /// Fingerprint of the layer's output, for Stable layers (`None` for
    /// Dynamic ones): when the prefix fingerprint changes, the first Stable
    /// layer whose fingerprint changed is the one that busted the cache.
    ///
    /// Computed when first asked for, then remembered.
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        self.fingerprint.get()
    }

    /// A Stable layer's output text (empty for Dynamic layers).
    pub(crate) fn stable_text(&self) -> &str {
        self.fingerprint.text()
    }

    /// A Stable layer's byte range in the stable prefix (`None` for Dynamic
    /// layers; an empty range for a silent one).
    pub fn stable_range(&self) -> Option<std::ops::Range<usize>> {
        match &self.fingerprint {
            LazyFingerprint::None => None,
            LazyFingerprint::Of { start, end, .. } => Some(*start..*end),
        }
    }
}

/// A run of consecutive Stable layers of one [`Scope`] that wrote text: where
/// it lies in the stable prefix. See [`AssemblyTrace::scope_groups`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ScopeGroup {
    /// The layers' scope.
    pub scope: Scope,
    /// Byte offset of its first layer's text in the stable prefix.
    pub start: usize,
    /// Byte offset just past its last layer's text (the separator after it
    /// is not part of the group).
    pub end: usize,
}

/// A Stable layer's fingerprint, hashed from its text (a range of the shared
/// prefix) only when read: a cold build that nobody asks for fingerprints
/// spends nothing on them.
#[derive(Clone)]
pub(crate) enum LazyFingerprint {
    None,
    Of {
        prefix: Arc<String>,
        start: usize,
        end: usize,
        digest: OnceLock<Fingerprint>,
    },
}

impl LazyFingerprint {
    /// The fingerprint of `prefix[start..end]`.
    pub(crate) fn of(prefix: Arc<String>, start: usize, end: usize) -> Self {
        Self::Of {
            prefix,
            start,
            end,
            digest: OnceLock::new(),
        }
    }

    fn text(&self) -> &str {
        match self {
            Self::None => "",
            Self::Of {
                prefix, start, end, ..
            } => &prefix[*start..*end],
        }
    }

    fn get(&self) -> Option<Fingerprint> {
        match self {
            Self::None => None,
            Self::Of { digest, .. } => Some(*digest.get_or_init(|| Fingerprint::of(self.text()))),
        }
    }

    fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }
}

// Equal texts have equal fingerprints, and different ones (practically) not.
impl PartialEq for LazyFingerprint {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::None, Self::None) => true,
            (Self::Of { .. }, Self::Of { .. }) => self.text() == other.text(),
            _ => false,
        }
    }
}

impl Eq for LazyFingerprint {}

impl fmt::Debug for LazyFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl Serialize for LazyFingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

/// What a session renders once and every one of its prompts shares: the
/// stable prefix, its layers' traces, (lazily) its fingerprint, and the
/// shape of the calls' dynamic part: which Dynamic layers run on the path,
/// and the separator that joins them. A warm call records only where each
/// Dynamic layer's text ends; its traces are built from these when read.
///
/// Read through [`AssemblyTrace::shared_stable`]: a cache ledger
/// (`prompt_providers::observe`) keeps it to compare the prompts of a
/// session without copying their prefix.
#[derive(Debug)]
pub struct StableTrace {
    pub(crate) text: Arc<String>,
    pub(crate) layers: Vec<LayerTrace>,
    pub(crate) tokens: Option<usize>,
    pub(crate) fingerprint: OnceLock<Fingerprint>,
    /// The Dynamic layers on the path and in the mode, in render order.
    pub(crate) dynamic: Box<[DynamicSpec]>,
    /// Bytes of the separator that joins two layers' texts.
    pub(crate) separator_len: usize,
}

impl StableTrace {
    /// The stable prefix's fingerprint, computed once per session.
    pub fn fingerprint(&self) -> Fingerprint {
        *self.fingerprint.get_or_init(|| Fingerprint::of(&self.text))
    }

    /// The stable prefix.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The stable prefix's tokens, when the build had a counter.
    pub fn tokens(&self) -> Option<usize> {
        self.tokens
    }

    /// The Stable layers' traces, in render order.
    pub fn layers(&self) -> &[LayerTrace] {
        &self.layers
    }
}

/// What a Dynamic layer's trace takes from its spec (the rest is per call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DynamicSpec {
    name: &'static str,
    priority: u32,
    pub(crate) channel: Channel,
}

impl DynamicSpec {
    pub(crate) fn of(spec: &LayerSpec) -> Self {
        Self {
            name: spec.name,
            priority: spec.priority,
            channel: spec.channel,
        }
    }

    /// The trace (no token count) of this layer, of index `index` in its
    /// run, whose text is `range` of its channel's joined text; its notes are
    /// taken from `notes`, the run's (each with its layer's index, in order).
    pub(crate) fn trace(
        &self,
        index: u32,
        range: Range<usize>,
        notes: &[(u32, String)],
    ) -> LayerTrace {
        let start = notes.partition_point(|(layer, _)| *layer < index);
        let end = notes.partition_point(|(layer, _)| *layer <= index);
        LayerTrace {
            name: self.name,
            priority: self.priority,
            stability: Stability::Dynamic,
            scope: None,
            bytes: range.len(),
            silent: range.is_empty(),
            notes: notes[start..end]
                .iter()
                .map(|(_, note)| note.clone())
                .collect(),
            channel: self.channel,
            fingerprint: LazyFingerprint::None,
            tokens: None,
        }
    }
}

/// Where each Dynamic layer's text ends in its channel's joined text, in
/// render order. The first 16 are held in place: a warm call of up to 16
/// Dynamic layers allocates nothing for its traces. A `u32` each: texts past
/// 4 GiB are traced from each layer's own text instead (`render.rs`).
pub(crate) type Ends = SmallVec<[u32; 16]>;

/// Each Dynamic layer of `stable` with the range of its text in its
/// channel's joined text, from where each one's text ends: a layer whose
/// end is its channel's previous end wrote nothing; any other begins after
/// the previous end and, when text came before it, the separator (what
/// [`LayerWriter`](crate::LayerWriter) writes).
pub(crate) fn dynamic_ranges<'s>(
    stable: &'s StableTrace,
    ends: &'s Ends,
) -> impl Iterator<Item = (&'s DynamicSpec, Range<usize>)> + 's {
    debug_assert_eq!(stable.dynamic.len(), ends.len());
    // Per channel, where its joined text ends so far.
    let mut system = 0;
    let mut reminder = 0;
    stable
        .dynamic
        .iter()
        .zip(ends.iter().map(|&end| end as usize))
        .map(move |(spec, end)| {
            let joined = match spec.channel {
                Channel::System => &mut system,
                Channel::Reminder => &mut reminder,
            };
            let start = match *joined {
                previous if previous == end => end,
                0 => 0,
                previous => previous + stable.separator_len,
            };
            *joined = end;
            (spec, start..end)
        })
}

/// The traces of every layer of one assembly, in render order: the Stable
/// layers' (shared by every prompt of a session), then the Dynamic layers'
/// (recorded as ranges during the call, built when first read).
///
/// Reads like a slice of [`LayerTrace`]: `iter()`, `len()`, `get(i)`,
/// `layers[i]`, `for layer in &layers`, and `==` with an array or a `Vec`.
#[derive(Clone)]
pub struct LayerTraces {
    stable: Arc<StableTrace>,
    /// Where each Dynamic layer's text ends (empty when built already).
    ends: Ends,
    /// The recorded layers' notes, each with its layer's index, in render
    /// order (no allocation when none of them noted anything).
    notes: Vec<(u32, String)>,
    dynamic: OnceLock<Vec<LayerTrace>>,
}

/// The iterator of [`LayerTraces::iter`].
pub type LayerTracesIter<'a> = Chain<slice::Iter<'a, LayerTrace>, slice::Iter<'a, LayerTrace>>;

impl LayerTraces {
    /// The Stable layers' traces and the Dynamic layers' already built.
    pub(crate) fn new(stable: Arc<StableTrace>, dynamic: Vec<LayerTrace>) -> Self {
        Self {
            stable,
            ends: Ends::new(),
            notes: Vec::new(),
            dynamic: OnceLock::from(dynamic),
        }
    }

    /// The Stable layers' traces and where each Dynamic layer's text ends
    /// (with the notes they index), built into traces when first read.
    pub(crate) fn recorded(
        stable: Arc<StableTrace>,
        ends: Ends,
        notes: Vec<(u32, String)>,
    ) -> Self {
        Self {
            stable,
            ends,
            notes,
            dynamic: OnceLock::new(),
        }
    }

    /// Every layer's trace, in render order.
    pub fn iter(&self) -> LayerTracesIter<'_> {
        self.stable.layers.iter().chain(self.dynamic())
    }

    /// How many layers took part.
    pub fn len(&self) -> usize {
        let dynamic = self.dynamic.get().map_or(self.ends.len(), Vec::len);
        self.stable.layers.len() + dynamic
    }

    /// Whether no layer took part.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `index`th layer's trace, in render order.
    pub fn get(&self, index: usize) -> Option<&LayerTrace> {
        let stable = &self.stable.layers;
        match index.checked_sub(stable.len()) {
            None => stable.get(index),
            Some(index) => self.dynamic().get(index),
        }
    }

    /// The Stable layers' traces, in render order.
    pub fn stable(&self) -> &[LayerTrace] {
        &self.stable.layers
    }

    /// The Dynamic layers' traces, in render order.
    pub fn dynamic(&self) -> &[LayerTrace] {
        self.dynamic.get_or_init(|| {
            dynamic_ranges(&self.stable, &self.ends)
                .zip(0..)
                .map(|((spec, range), index)| spec.trace(index, range, &self.notes))
                .collect()
        })
    }

    /// Every layer's trace, copied into a `Vec`.
    pub fn to_vec(&self) -> Vec<LayerTrace> {
        self.iter().cloned().collect()
    }
}

impl Index<usize> for LayerTraces {
    type Output = LayerTrace;

    fn index(&self, index: usize) -> &LayerTrace {
        let len = self.len();
        self.get(index)
            .unwrap_or_else(|| panic!("layer index {index} out of range for {len} layers"))
    }
}

impl<'a> IntoIterator for &'a LayerTraces {
    type Item = &'a LayerTrace;
    type IntoIter = LayerTracesIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for LayerTraces {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for LayerTraces {}

impl PartialEq<[LayerTrace]> for LayerTraces {
    fn eq(&self, other: &[LayerTrace]) -> bool {
        self.iter().eq(other)
    }
}

impl<const N: usize> PartialEq<[LayerTrace; N]> for LayerTraces {
    fn eq(&self, other: &[LayerTrace; N]) -> bool {
        self.iter().eq(other)
    }
}

impl PartialEq<Vec<LayerTrace>> for LayerTraces {
    fn eq(&self, other: &Vec<LayerTrace>) -> bool {
        self.iter().eq(other)
    }
}

impl fmt::Debug for LayerTraces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for LayerTraces {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// The record of one assembly: which layers spoke, how much, and the stable
/// prefix's fingerprint. Also emitted as a `tracing` event (target
/// `prompt_core::assembly`), so `RUST_LOG=prompt_core=debug` shows it once
/// the application installs a `tracing` subscriber (e.g. `tracing_subscriber::fmt()
/// .with_env_filter(..).init()`); without one, nothing is printed.
///
/// Serializes with a `stable_fingerprint` field after `dynamic_tokens`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssemblyTrace {
    /// The pipeline assembled.
    pub pipeline: &'static str,
    /// The path assembled.
    pub path: AssemblyPath,
    /// The mode assembled.
    pub mode: PromptMode,
    /// Every layer that was on the path and in the mode, in render order.
    pub layers: LayerTraces,
    /// Bytes of the stable prefix (the Stable layers' joined output).
    pub stable_bytes: usize,
    /// Bytes of the dynamic suffix (the Dynamic layers' joined output).
    pub dynamic_bytes: usize,
    /// Bytes of the reminder: the `channel = Reminder` layers' joined output,
    /// sent in the last user message rather than the system prompt.
    pub reminder_bytes: usize,
    /// The token counter's name (`approx`, `o200k_base`, ...), when the build had one.
    pub tokenizer: Option<&'static str>,
    /// Tokens of the stable prefix, when the build had a token counter.
    pub stable_tokens: Option<usize>,
    /// Tokens of the dynamic suffix (the budget's notice included), when the build had a token counter.
    pub dynamic_tokens: Option<usize>,
    /// What the token budget did, when the build had one.
    pub budget: Option<BudgetTrace>,
}

impl Serialize for AssemblyTrace {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("AssemblyTrace", 12)?;
        s.serialize_field("pipeline", self.pipeline)?;
        s.serialize_field("path", &self.path)?;
        s.serialize_field("mode", &self.mode)?;
        s.serialize_field("layers", &self.layers)?;
        s.serialize_field("stable_bytes", &self.stable_bytes)?;
        s.serialize_field("dynamic_bytes", &self.dynamic_bytes)?;
        s.serialize_field("reminder_bytes", &self.reminder_bytes)?;
        optional(&mut s, "tokenizer", &self.tokenizer)?;
        optional(&mut s, "stable_tokens", &self.stable_tokens)?;
        optional(&mut s, "dynamic_tokens", &self.dynamic_tokens)?;
        s.serialize_field("stable_fingerprint", &self.stable_fingerprint())?;
        optional(&mut s, "budget", &self.budget)?;
        s.end()
    }
}

/// A field that is left out when `None`.
fn optional<S: SerializeStruct, T: Serialize>(
    s: &mut S,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), S::Error> {
    match value {
        Some(value) => s.serialize_field(key, value),
        None => s.skip_field(key),
    }
}

impl AssemblyTrace {
    /// The record every prompt of the session shares: its stable prefix and
    /// Stable layers' traces, held by reference (the cache ledger keeps it
    /// to compare prompts without copying a byte).
    pub fn shared_stable(&self) -> &Arc<StableTrace> {
        &self.layers.stable
    }

    /// Fingerprint of the stable prefix: computed when first asked for, then
    /// shared by every prompt of the session.
    pub fn stable_fingerprint(&self) -> Fingerprint {
        self.layers.stable.fingerprint()
    }

    /// Names of the layers that wrote nothing, in render order.
    pub fn silent(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.layers.iter().filter(|l| l.silent).map(|l| l.name)
    }

    /// The stable prefix cut where the scope changes: each run of Stable
    /// layers of one scope that wrote text, in render order. In a pipeline in
    /// scope order there is at most one group per scope, widest first; the
    /// provider requests place cache breakpoints at their ends. Offsets are
    /// in [`AssembledPrompt::stable`](crate::AssembledPrompt::stable); a
    /// Basic prompt, which has no stable part (nothing of it is cached), has
    /// no groups.
    pub fn scope_groups(&self) -> Vec<ScopeGroup> {
        let mut groups: Vec<ScopeGroup> = Vec::new();
        if self.path == AssemblyPath::Basic {
            return groups;
        }
        for layer in self.layers.stable() {
            let (Some(scope), Some(range)) = (layer.scope, layer.stable_range()) else {
                continue;
            };
            if range.is_empty() {
                continue;
            }
            match groups.last_mut() {
                Some(last) if last.scope == scope => last.end = range.end,
                _ => groups.push(ScopeGroup {
                    scope,
                    start: range.start,
                    end: range.end,
                }),
            }
        }
        groups
    }

    /// Bytes of the stable prefix that every caller sharing `scope` shares:
    /// up to the end of the leading groups of `scope` or wider (0 when the
    /// prefix opens with a narrower one). `shared_prefix(Scope::Project)` is
    /// what a whole team on one repository can read from one cache entry.
    pub fn shared_prefix(&self, scope: Scope) -> usize {
        self.scope_groups()
            .iter()
            .take_while(|g| !scope.is_wider_than(g.scope))
            .last()
            .map_or(0, |g| g.end)
    }

    /// The trace of the layer called `name`, if it took part.
    pub fn layer(&self, name: &str) -> Option<&LayerTrace> {
        self.layers.iter().find(|l| l.name == name)
    }

    /// One DEBUG event per assembly (target `prompt_core::assembly`), each
    /// layer's bytes and notes inside it: no event per layer, which an
    /// OpenTelemetry layer would attach to the request's span, a dozen at a
    /// time.
    pub(crate) fn emit(&self) {
        const TARGET: &str = "prompt_core::assembly";
        tracing::debug!(
            target: TARGET,
            pipeline = %self.pipeline,
            path = %self.path,
            mode = %self.mode,
            layers = self.layers.len(),
            layer_bytes = %LayerBytes(&self.layers),
            layer_notes = self.layers.iter().any(|l| !l.notes.is_empty())
                .then(|| tracing::field::display(LayerNotes(&self.layers))),
            silent = ?self.silent().collect::<Vec<_>>(),
            stable_bytes = self.stable_bytes,
            dynamic_bytes = self.dynamic_bytes,
            stable_fingerprint = %self.stable_fingerprint().short(),
            budget_shed = ?self.budget.as_ref().map(|b| &b.shed),
            budget_notice = ?self.budget.as_ref().and_then(|b| b.notice.as_deref()),
            "assembled system prompt",
        );
    }
}

/// Each layer's name and bytes in render order: `persona=31 rules=0`.
struct LayerBytes<'a>(&'a LayerTraces);

impl fmt::Display for LayerBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, layer) in self.0.iter().enumerate() {
            let space = if n == 0 { "" } else { " " };
            write!(f, "{space}{}={}", layer.name, layer.bytes)?;
        }
        Ok(())
    }
}

/// The notes of the layers that noted something: `rules: cut at 4096 bytes; ...`.
struct LayerNotes<'a>(&'a LayerTraces);

impl fmt::Display for LayerNotes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for layer in self.0.iter() {
            for note in &layer.notes {
                let sep = if first { "" } else { "; " };
                first = false;
                write!(f, "{sep}{}: {note}", layer.name)?;
            }
        }
        Ok(())
    }
}
