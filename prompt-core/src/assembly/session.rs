//! `PromptSession`: one session's context, with its stable prefix rendered once.

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use super::builder::PromptBuilder;
use super::error::AssemblyError;
use super::intern::Entry;
use super::prompt::AssembledPrompt;
use super::render::{Call, StablePrefix, dynamic_entries};
use crate::context::{Context, TurnContext};
use crate::pipeline::LayerEntry;
use crate::spec::AssemblyPath;

/// A [`PromptBuilder`] bound to one session's context.
///
/// Stable layers see only the session context, so their output cannot change
/// within a session: a `PromptSession` renders them once per path and reuses
/// the bytes for every turn. Only Dynamic layers run per call. Nothing
/// watches what the session context was read from: when a file it read
/// changes (AGENTS.md, a memory file), build the context again and a new
/// session from it.
///
/// Sessions made by a builder with a [`PrefixCache`](super::PrefixCache)
/// share their prefix with every other live session whose Stable layers
/// rendered the same bytes.
///
/// ```standalone_crate
/// use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
///
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Rules.")]
/// struct Rules;
///
/// let pipeline = Pipeline::collect().unwrap();
/// let session = PromptBuilder::new(&pipeline).session(Context::new());
/// let first = session.build_cached(&Context::new())?;
/// let second = session.build_cached(&Context::new())?;
/// assert_eq!(first.trace().stable_fingerprint(), second.trace().stable_fingerprint());
/// # Ok::<(), prompt_core::AssemblyError>(())
/// ```
#[derive(Debug)]
pub struct PromptSession<'p> {
    builder: PromptBuilder<'p>,
    session: Context,
    /// What each path's first call finds, for its warm calls: index 0
    /// Basic, 1 Cached.
    served: [OnceLock<Served<'p>>; 2],
    /// The longest dynamic text so far: a call sizes its `String` once.
    dynamic_len: AtomicUsize,
}

/// One path of a session, as its first call left it: the prefix, and the
/// Dynamic layers that run on the path in the builder's mode (found once, so
/// that a warm call runs them without filtering the pipeline).
#[derive(Debug)]
struct Served<'p> {
    held: Held,
    dynamic: Box<[&'p LayerEntry]>,
}

/// A session's prefix: its own, or shared through a prefix cache.
#[derive(Debug)]
enum Held {
    Own(StablePrefix),
    Shared(Arc<Entry<StablePrefix>>),
}

impl Held {
    fn prefix(&self) -> &StablePrefix {
        match self {
            Held::Own(prefix) => prefix,
            Held::Shared(entry) => entry.value(),
        }
    }
}

impl<'p> PromptSession<'p> {
    pub(crate) fn new(builder: PromptBuilder<'p>, session: Context) -> Self {
        Self {
            builder,
            session,
            served: [OnceLock::new(), OnceLock::new()],
            dynamic_len: AtomicUsize::new(0),
        }
    }

    /// A cached prompt for one turn.
    ///
    /// # Errors
    /// As [`PromptBuilder::build_cached`]. A Stable layer that panics is not
    /// remembered: the next call renders the prefix again.
    pub fn build_cached(&self, turn: &TurnContext) -> Result<AssembledPrompt, AssemblyError> {
        self.build(AssemblyPath::Cached, turn)
    }

    /// A basic prompt for one turn.
    ///
    /// # Errors
    /// As [`PromptBuilder::build_basic`].
    pub fn build_basic(&self, turn: &TurnContext) -> Result<AssembledPrompt, AssemblyError> {
        self.build(AssemblyPath::Basic, turn)
    }

    /// The session context.
    pub fn context(&self) -> &Context {
        &self.session
    }

    fn build(
        &self,
        path: AssemblyPath,
        turn: &TurnContext,
    ) -> Result<AssembledPrompt, AssemblyError> {
        let plan = self.builder.plan();
        let call = Call {
            path,
            session: &self.session,
            turn,
        };
        let slot = match path {
            AssemblyPath::Basic => &self.served[0],
            AssemblyPath::Cached => &self.served[1],
        };
        let served = match slot.get() {
            Some(served) => served,
            // Another thread may win the race; both rendered the same bytes.
            // A filled slot means the path and the builder's mode were
            // served when it was filled, and neither changes in a session:
            // the check runs on the first call of each path only.
            None => {
                self.builder.served(path)?;
                let dynamic = dynamic_entries(self.builder.pipeline(), path, plan.mode);
                let prefix = plan.stable_prefix(call, &dynamic)?;
                let held = match self.builder.prefix_cache_ref() {
                    None => Held::Own(prefix),
                    Some(cache) => Held::Shared(cache.intern(prefix)),
                };
                slot.get_or_init(|| Served { held, dynamic })
            }
        };
        plan.assemble(
            call,
            served.held.prefix(),
            &served.dynamic,
            Some(&self.dynamic_len),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::LayerEntry;
    use crate::spec::{Channel, LayerSpec, PipelineSpec, PromptMode, Stability};
    use crate::{AssemblyPath, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render};

    /// Writes `text` (nothing when empty) after noting each of `notes`.
    struct Says(&'static str, &'static [&'static str]);

    impl Render for Says {
        fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
            for note in self.1 {
                input.note(*note);
            }
            out.push_str(self.0);
        }
    }

    fn entry(spec: LayerSpec, says: Says) -> LayerEntry {
        LayerEntry::new(spec, says)
    }

    /// A session runs, per path, the Dynamic layers it found on the first
    /// call of that path: a warm call keeps each layer's notes, channel and
    /// silence, and runs no layer of another path or mode.
    #[test]
    fn warm_calls_run_their_paths_dynamic_layers_with_their_own_notes() {
        const CACHED: &[AssemblyPath] = &[AssemblyPath::Cached];
        const BASIC: &[AssemblyPath] = &[AssemblyPath::Basic];
        const COMPACT: &[PromptMode] = &[PromptMode::Compact];
        let dynamic = |name, priority| LayerSpec::new(name, priority, Stability::Dynamic);
        let pipeline = Pipeline::from_layers(
            PipelineSpec::new("default"),
            [
                entry(LayerSpec::new("s", 100, Stability::Stable), Says("S", &[])),
                entry(dynamic("a", 10_000), Says("A", &["a1", "a2"])),
                entry(dynamic("b", 10_010).paths(CACHED), Says("", &["b"])),
                entry(dynamic("c", 10_020).paths(BASIC), Says("C", &["c"])),
                entry(dynamic("m", 10_030).modes(COMPACT), Says("M", &[])),
                entry(
                    dynamic("r", 10_040).channel(Channel::Reminder),
                    Says("R", &["r"]),
                ),
                entry(dynamic("d", 10_050), Says("D", &[])),
            ],
        )
        .unwrap();
        let session = PromptBuilder::new(&pipeline).session(Context::new());
        let traces = |prompt: &crate::AssembledPrompt| {
            prompt
                .trace()
                .layers
                .dynamic()
                .iter()
                .map(|l| (l.name, l.bytes, l.silent, l.channel, l.notes.clone()))
                .collect::<Vec<_>>()
        };
        let notes = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for _ in 0..2 {
            let cached = session.build_cached(&Context::new()).unwrap();
            assert_eq!(cached.dynamic(), "A\n\nD");
            assert_eq!(cached.reminder(), Some("R"));
            assert_eq!(
                traces(&cached),
                [
                    ("a", 1, false, Channel::System, notes(&["a1", "a2"])),
                    ("b", 0, true, Channel::System, notes(&["b"])),
                    ("r", 1, false, Channel::Reminder, notes(&["r"])),
                    ("d", 1, false, Channel::System, notes(&[])),
                ]
            );
            let basic = session.build_basic(&Context::new()).unwrap();
            assert_eq!(basic.text(), "S\n\nA\n\nC\n\nD");
            assert_eq!(
                traces(&basic),
                [
                    ("a", 1, false, Channel::System, notes(&["a1", "a2"])),
                    ("c", 1, false, Channel::System, notes(&["c"])),
                    ("r", 1, false, Channel::Reminder, notes(&["r"])),
                    ("d", 1, false, Channel::System, notes(&[])),
                ]
            );
        }
    }
}
