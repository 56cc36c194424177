//! Typed per-session and per-turn values, and what a layer may see of them.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;

use crate::spec::{AssemblyPath, LayerSpec, PromptMode, Stability};

/// The lifetime of the session context: values fixed for a whole session.
///
/// A marker type: [`SessionContext`] is `Context<Session>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {}

/// The lifetime of the turn context: values of one call.
///
/// A marker type: [`TurnContext`] is `Context<Turn>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {}

/// A value that belongs to the session: fixed for every call of a session
/// (config, memory files, project docs, skills, tools). Only session values go
/// into the session context, and a Stable layer reads only session values.
///
/// Declared once per type, with a one-line impl:
///
/// ```
/// use prompt_core::{Context, SessionValue};
///
/// struct HouseRules(String);
/// impl SessionValue for HouseRules {}
///
/// let session = prompt_core::context::SessionContext::new().with(HouseRules("Be brief.".into()));
/// assert_eq!(session.get::<HouseRules>().map(|r| r.0.as_str()), Some("Be brief."));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a session value, so it cannot go into the session context",
    label = "`{Self}` is not declared a session value",
    note = "if `{Self}` is fixed for a whole session, declare it: `impl prompt_core::SessionValue for {Self} {{}}`; if it changes per call, put it into the turn context (`impl prompt_core::TurnValue for {Self} {{}}`) and read it from a Dynamic layer"
)]
pub trait SessionValue: Any + Send + Sync {}

/// A value that belongs to one turn: it may change per call (time, cwd,
/// model, budgets). Only turn values go into the turn context, and no Stable
/// layer can read one: a per-call fact cannot reach the cached prefix.
///
/// Declared once per type, with a one-line impl:
///
/// ```
/// use prompt_core::{TurnContext, TurnValue};
///
/// struct Clock(&'static str);
/// impl TurnValue for Clock {}
///
/// let turn = TurnContext::new().with(Clock("12:00"));
/// assert_eq!(turn.get::<Clock>().map(|c| c.0), Some("12:00"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a turn value, so it cannot go into the turn context",
    label = "`{Self}` is not declared a turn value",
    note = "if `{Self}` changes per call, declare it: `impl prompt_core::TurnValue for {Self} {{}}`; if it is fixed for a whole session, put it into the session context (`impl prompt_core::SessionValue for {Self} {{}}`)"
)]
pub trait TurnValue: Any + Send + Sync {}

/// The explicit escape for a value that is genuinely both: it may be put into
/// the session context *or* the turn context. A Stable layer still reads only
/// the session's copy; when only the turn holds one, the layer gets `None`
/// and the trace notes why (the run-time net for values read this way).
///
/// ```
/// use prompt_core::TurnContext;
/// use prompt_core::context::SessionContext;
/// use prompt_core::context::SessionOrTurnValue;
///
/// /// Fixed for some hosts, chosen per call by others.
/// struct Model(&'static str);
/// impl SessionOrTurnValue for Model {}
///
/// let session = SessionContext::new().with(Model("opus"));
/// let turn = TurnContext::new().with(Model("haiku"));
/// assert_eq!(session.get::<Model>().map(|m| m.0), Some("opus"));
/// assert_eq!(turn.get::<Model>().map(|m| m.0), Some("haiku"));
/// ```
pub trait SessionOrTurnValue: Any + Send + Sync {}

// Not offered as the fix when a value is neither: the messages of
// `SessionValue` and `TurnValue` are.
#[diagnostic::do_not_recommend]
impl<T: SessionOrTurnValue> SessionValue for T {}
#[diagnostic::do_not_recommend]
impl<T: SessionOrTurnValue> TurnValue for T {}

/// Which values a context of lifetime `Self` admits: [`SessionValue`]s for
/// [`Session`], [`TurnValue`]s for [`Turn`]. Sealed.
pub trait Admits<T>: sealed::Lifetime {}

impl<T: SessionValue> Admits<T> for Session {}
impl<T: TurnValue> Admits<T> for Turn {}

/// What a Stable layer may read: a [`SessionValue`].
#[diagnostic::on_unimplemented(
    message = "a Stable layer cannot read `{Self}`: it is not a session value, and a Stable layer's text is cached for the whole session",
    label = "`{Self}` is not a session value",
    note = "make the layer Dynamic (`stability = Dynamic`, a priority in 10_000..20_000, `impl Render for ..` with `&LayerInput<'_>`), or move `{Self}` into the session (`impl prompt_core::SessionValue for {Self} {{}}` and put it into the session context)"
)]
pub trait StableReadable: Any {}

#[diagnostic::do_not_recommend]
impl<T: SessionValue> StableReadable for T {}

mod sealed {
    pub trait Lifetime {}
    impl Lifetime for super::Session {}
    impl Lifetime for super::Turn {}

    pub trait Band {}
    impl Band for super::Stable {}
    impl Band for super::Dynamic {}
}

/// A bag of typed values, one per type, of one lifetime: the *session* context
/// ([`SessionContext`], stable for a session: config, memory files, project
/// docs, skills, tools) or the *turn* context ([`TurnContext`], per call:
/// time, cwd, model, budgets). Assembly takes one of each.
///
/// Each value type declares its lifetime once ([`SessionValue`],
/// [`TurnValue`]); a value put into the wrong context is a compile error.
/// `Context::new()` takes its lifetime from where the context goes
/// (`PromptBuilder::session`, `build_cached(&session, &turn)`); name it
/// ([`SessionContext::new`], [`TurnContext::new`]) where nothing else does.
///
/// A handful of values are kept inline, so building a turn context per call
/// costs one allocation per value.
///
/// ```
/// use prompt_core::SessionValue;
/// use prompt_core::context::SessionContext;
///
/// #[derive(Debug, PartialEq)]
/// struct Rules(&'static str);
/// impl SessionValue for Rules {}
///
/// let ctx = SessionContext::new().with(Rules("be brief"));
/// assert_eq!(ctx.get::<Rules>(), Some(&Rules("be brief")));
/// assert_eq!(ctx.get::<String>(), None);
/// ```
pub struct Context<S = Session> {
    values: Values,
    lifetime: PhantomData<fn() -> S>,
}

/// The session context: `Context<Session>`.
pub type SessionContext = Context<Session>;

/// The turn context: `Context<Turn>`.
pub type TurnContext = Context<Turn>;

/// How many values a context keeps without a heap `Vec`: a turn has a few.
const INLINE: usize = 4;

/// Entries keyed by `TypeId`, the first [`INLINE`] in place: a linear scan
/// over a handful of keys beats a tree, and building one allocates nothing.
///
/// The inline entries are kept packed (no `None` before a `Some`), and the
/// spill holds entries only when every inline slot is full: a lookup stops at
/// the first empty slot, so a turn context of one value answers in one
/// comparison.
#[derive(Default)]
struct Values {
    inline: [Option<Entry>; INLINE],
    spill: Vec<Entry>,
}

/// A stored value, its type's name kept by its vtable (for `Debug`), not in
/// every entry.
trait Value: Any + Send + Sync {
    fn type_name(&self) -> &'static str;
}

impl<T: Any + Send + Sync> Value for T {
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

struct Entry {
    id: TypeId,
    value: Box<dyn Value>,
}

impl Entry {
    fn downcast_ref<T: Any>(&self) -> Option<&T> {
        let value: &dyn Any = &*self.value;
        value.downcast_ref::<T>()
    }

    fn downcast<T: Any>(self) -> Option<T> {
        let value: Box<dyn Any> = self.value;
        value.downcast::<T>().ok().map(|boxed| *boxed)
    }
}

impl Values {
    fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.inline
            .iter()
            .map_while(Option::as_ref)
            .chain(&self.spill)
    }

    #[inline]
    fn find(&self, id: TypeId) -> Option<&Entry> {
        for slot in &self.inline {
            match slot {
                Some(entry) if entry.id == id => return Some(entry),
                Some(_) => {}
                // Packed: nothing after the first empty slot, nor in the spill.
                None => return None,
            }
        }
        self.spill.iter().find(|e| e.id == id)
    }

    #[inline]
    fn insert(&mut self, entry: Entry) -> Option<Entry> {
        for slot in &mut self.inline {
            match slot {
                Some(old) if old.id == entry.id => return Some(std::mem::replace(old, entry)),
                Some(_) => {}
                None => {
                    *slot = Some(entry);
                    return None;
                }
            }
        }
        match self.spill.iter_mut().find(|e| e.id == entry.id) {
            Some(old) => Some(std::mem::replace(old, entry)),
            None => {
                self.spill.push(entry);
                None
            }
        }
    }

    fn remove(&mut self, id: TypeId) -> Option<Entry> {
        let found = self
            .inline
            .iter()
            .map_while(Option::as_ref)
            .position(|e| e.id == id);
        if let Some(i) = found {
            let removed = self.inline[i].take();
            // Keep the inline entries packed, refilled from the spill.
            self.inline[i..].rotate_left(1);
            if !self.spill.is_empty() {
                self.inline[INLINE - 1] = Some(self.spill.remove(0));
            }
            return removed;
        }
        let i = self.spill.iter().position(|e| e.id == id)?;
        Some(self.spill.remove(i))
    }

    fn len(&self) -> usize {
        self.iter().count()
    }
}

impl<S> Default for Context<S> {
    fn default() -> Self {
        Self {
            values: Values::default(),
            lifetime: PhantomData,
        }
    }
}

impl<S: sealed::Lifetime> Context<S> {
    /// An empty context.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the context with `value` stored, replacing any value of the same type.
    #[must_use]
    #[inline]
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self
    where
        S: Admits<T>,
    {
        self.insert(value);
        self
    }

    /// Stores `value`, returning the value of the same type it replaces.
    #[inline]
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Option<T>
    where
        S: Admits<T>,
    {
        let entry = Entry {
            id: TypeId::of::<T>(),
            value: Box::new(value),
        };
        self.values.insert(entry).and_then(Entry::downcast::<T>)
    }
}

impl<S> Context<S> {
    /// The stored value of type `T`, if any.
    #[inline]
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.values
            .find(TypeId::of::<T>())
            .and_then(Entry::downcast_ref::<T>)
    }

    /// Removes and returns the stored value of type `T`.
    pub fn remove<T: Any>(&mut self) -> Option<T> {
        self.values
            .remove(TypeId::of::<T>())
            .and_then(Entry::downcast::<T>)
    }

    /// Whether a value of type `T` is stored.
    pub fn contains<T: Any>(&self) -> bool {
        self.values.find(TypeId::of::<T>()).is_some()
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `T`'s short name (`ProjectInfo`, not its whole path), for notes.
fn type_name_of<T: Any>() -> &'static str {
    short_type_name(std::any::type_name::<T>())
}

impl<S> fmt::Debug for Context<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.values.iter().map(|e| (*e.value).type_name()).collect();
        names.sort_unstable();
        f.debug_struct("Context").field("types", &names).finish()
    }
}

/// `a::b::ProjectInfo` as `ProjectInfo`, `a::Wrap<b::C>` as `Wrap<b::C>`.
fn short_type_name(full: &'static str) -> &'static str {
    let head = full.find('<').map_or(full, |i| &full[..i]);
    match head.rfind("::") {
        Some(i) => &full[i + 2..],
        None => full,
    }
}

/// Where a layer's notes go during one assembly: the layer's entry in the
/// [`AssemblyTrace`](crate::AssemblyTrace).
///
/// ```
/// use prompt_core::context::Notes;
/// use prompt_core::{AssemblyPath, LayerInput, LayerSpec, PromptMode, Stability, Stable, TurnContext};
/// use prompt_core::context::SessionContext;
///
/// let spec = LayerSpec::new("memory", 10, Stability::Stable);
/// let (session, turn) = (SessionContext::new(), TurnContext::new());
/// let notes = Notes::new();
/// let input = LayerInput::<Stable>::new(&spec, &session, &turn, AssemblyPath::Cached, PromptMode::Full)
///     .notes(&notes);
/// input.note("memory.md: absent");
/// assert_eq!(notes.into_vec(), ["memory.md: absent"]);
/// ```
#[derive(Debug, Default)]
pub struct Notes {
    /// Each note, with the index (in its run) of the layer that wrote it.
    notes: RefCell<Vec<(u32, String)>>,
    /// The index of the layer whose notes come next.
    layer: Cell<u32>,
}

impl Notes {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `note`.
    pub fn push(&self, note: impl Into<String>) {
        self.notes
            .borrow_mut()
            .push((self.layer.get(), note.into()));
    }

    /// How many notes were recorded.
    pub fn len(&self) -> usize {
        self.notes.borrow().len()
    }

    /// Whether no note was recorded.
    pub fn is_empty(&self) -> bool {
        self.notes.borrow().is_empty()
    }

    /// The notes, in the order they were recorded.
    pub fn into_vec(self) -> Vec<String> {
        self.notes
            .into_inner()
            .into_iter()
            .map(|(_, note)| note)
            .collect()
    }

    /// The notes recorded so far, leaving the sink empty.
    pub(crate) fn take(&self) -> Vec<String> {
        let notes = std::mem::take(&mut *self.notes.borrow_mut());
        notes.into_iter().map(|(_, note)| note).collect()
    }

    /// Attributes the notes that come next to the layer of index `layer`
    /// (of a run whose notes are read with [`into_indexed`](Self::into_indexed)):
    /// one store per layer, nothing to count or copy after it.
    #[inline]
    pub(crate) fn set_layer(&self, layer: u32) {
        self.layer.set(layer);
    }

    /// The notes, each with the index of the layer that wrote it, in order.
    pub(crate) fn into_indexed(self) -> Vec<(u32, String)> {
        self.notes.into_inner()
    }
}

/// The band of a [`Stable`](Stability::Stable) layer: its
/// [`LayerInput`] reads session values only. Written in its render impl:
/// `impl Render<Stable> for MyLayer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stable {}

/// The band of a [`Dynamic`](Stability::Dynamic) layer: its [`LayerInput`]
/// reads the turn context, then the session context. The default:
/// `impl Render for MyLayer` is `impl Render<Dynamic> for MyLayer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {}

/// A layer's band, [`Stable`] or [`Dynamic`]: what its [`LayerInput`] may
/// read. Sealed.
pub trait Band: sealed::Band + Copy + fmt::Debug + Send + Sync + 'static {
    /// The stability of the layers of this band.
    const STABILITY: Stability;
}

impl Band for Stable {
    const STABILITY: Stability = Stability::Stable;
}

impl Band for Dynamic {
    const STABILITY: Stability = Stability::Dynamic;
}

/// What one layer sees during one assembly.
///
/// Its band `B` is the layer's stability, as a type. A [`Stable`] layer's
/// [`get`](LayerInput::get) reads [`SessionValue`]s from the session context
/// only: asking for a turn value is a compile error at the read, so a per-call
/// fact cannot reach the cached prefix. A [`Dynamic`] layer reads the turn
/// context first, then the session context.
#[derive(Debug, Clone, Copy)]
pub struct LayerInput<'a, B: Band = Dynamic> {
    spec: &'a LayerSpec,
    session: &'a SessionContext,
    turn: &'a TurnContext,
    path: AssemblyPath,
    mode: PromptMode,
    notes: Option<&'a Notes>,
    band: PhantomData<B>,
}

impl<'a, B: Band> LayerInput<'a, B> {
    /// The input `spec`'s layer sees for one assembly.
    pub fn new(
        spec: &'a LayerSpec,
        session: &'a SessionContext,
        turn: &'a TurnContext,
        path: AssemblyPath,
        mode: PromptMode,
    ) -> Self {
        Self {
            spec,
            session,
            turn,
            path,
            mode,
            notes: None,
            band: PhantomData,
        }
    }

    /// The same input, with [`note`](Self::note)s collected into `notes`.
    #[must_use]
    pub fn notes(mut self, notes: &'a Notes) -> Self {
        self.notes = Some(notes);
        self
    }

    /// Records a note in this layer's trace: why it is silent, what was cut.
    ///
    /// Notes never reach the prompt; they are for the developer reading the
    /// [`AssemblyTrace`](crate::AssemblyTrace).
    pub fn note(&self, note: impl Into<String>) {
        if let Some(notes) = self.notes {
            notes.push(note);
        }
    }

    /// The spec of the layer being rendered.
    pub fn spec(&self) -> &'a LayerSpec {
        self.spec
    }

    /// The assembly path being built.
    pub fn path(&self) -> AssemblyPath {
        self.path
    }

    /// The mode being built.
    pub fn mode(&self) -> PromptMode {
        self.mode
    }

    /// The input of the next layer of a run: the same contexts, path, mode
    /// and notes, another spec.
    #[inline]
    pub(crate) fn set_spec(&mut self, spec: &'a LayerSpec) {
        self.spec = spec;
    }

    /// The same input, seen through band `C`.
    pub(crate) fn with_band<C: Band>(self) -> LayerInput<'a, C> {
        LayerInput {
            spec: self.spec,
            session: self.session,
            turn: self.turn,
            path: self.path,
            mode: self.mode,
            notes: self.notes,
            band: PhantomData,
        }
    }

    /// `T` from the session context only; when only the turn holds one, the
    /// trace notes why the layer got `None`.
    fn session_only<T: Any>(&self) -> Option<&'a T> {
        let value = self.session.get::<T>();
        if value.is_none() && self.turn.contains::<T>() {
            self.note_turn_only(type_name_of::<T>());
        }
        value
    }

    /// Notes that a Stable layer asked for `name`, which only the turn holds.
    #[cold]
    #[inline(never)]
    fn note_turn_only(&self, name: &str) {
        self.note(format!(
            "{name} is in the turn context; Stable layers read the session context only"
        ));
    }
}

impl<'a> LayerInput<'a, Stable> {
    /// The session value of type `T`, if the session context holds one.
    ///
    /// A turn value is a compile error here: make the layer Dynamic, or move
    /// the value into the session. A [`SessionOrTurnValue`] that only the
    /// turn context holds gives `None`, and the trace notes why (``Model is
    /// in the turn context; Stable layers read the session context only``).
    ///
    /// ```
    /// use prompt_core::context::Notes;
    /// use prompt_core::{AssemblyPath, LayerInput, LayerSpec, PromptMode, Stability, Stable, TurnContext};
    /// use prompt_core::context::SessionContext;
    /// use prompt_core::context::SessionOrTurnValue;
    ///
    /// struct Model(&'static str);
    /// impl SessionOrTurnValue for Model {}
    ///
    /// let session = SessionContext::new();
    /// let turn = TurnContext::new().with(Model("opus"));
    /// let spec = LayerSpec::new("x", 1, Stability::Stable);
    /// let notes = Notes::new();
    /// let input = LayerInput::<Stable>::new(&spec, &session, &turn, AssemblyPath::Cached, PromptMode::Full)
    ///     .notes(&notes);
    /// assert!(input.get::<Model>().is_none());
    /// assert_eq!(notes.into_vec(), ["Model is in the turn context; Stable layers read the session context only"]);
    /// ```
    ///
    /// ```compile_fail,E0277
    /// use prompt_core::{AssemblyPath, LayerInput, LayerSpec, PromptMode, Stability, Stable, TurnContext, TurnValue};
    /// use prompt_core::context::SessionContext;
    ///
    /// struct Clock(&'static str);
    /// impl TurnValue for Clock {}
    ///
    /// let (session, turn) = (SessionContext::new(), TurnContext::new());
    /// let spec = LayerSpec::new("x", 1, Stability::Stable);
    /// let input = LayerInput::<Stable>::new(&spec, &session, &turn, AssemblyPath::Cached, PromptMode::Full);
    /// let _ = input.get::<Clock>(); // a Stable layer cannot read `Clock`
    /// ```
    pub fn get<T: StableReadable>(&self) -> Option<&'a T> {
        self.session_only::<T>()
    }
}

impl<'a> LayerInput<'a, Dynamic> {
    /// The value of type `T` visible to this layer: the turn context's, else
    /// the session context's.
    ///
    /// A Dynamic renderer given to a Stable layer (a [`LayerEntry`](crate::pipeline::LayerEntry)
    /// built at run time from a Stable spec) reads the session context only,
    /// and the trace notes a value it asked for that only the turn holds.
    ///
    /// ```
    /// use prompt_core::{AssemblyPath, Dynamic, LayerInput, LayerSpec, PromptMode, Stability, TurnContext, TurnValue};
    /// use prompt_core::context::SessionContext;
    ///
    /// struct Clock(&'static str);
    /// impl TurnValue for Clock {}
    ///
    /// let session = SessionContext::new();
    /// let turn = TurnContext::new().with(Clock("12:00"));
    /// let dynamic = LayerSpec::new("y", 10_001, Stability::Dynamic);
    /// let input = LayerInput::<'_, Dynamic>::new(&dynamic, &session, &turn, AssemblyPath::Cached, PromptMode::Full);
    /// assert_eq!(input.get::<Clock>().map(|c| c.0), Some("12:00"));
    /// ```
    #[inline]
    pub fn get<T: Any>(&self) -> Option<&'a T> {
        match self.spec.stability {
            Stability::Stable => self.session_only::<T>(),
            Stability::Dynamic => self.turn.get::<T>().or_else(|| self.session.get::<T>()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A(u8);
    struct B(u8);
    struct C(u8);
    struct D(u8);
    struct E(u8);
    struct F(u8);
    impl TurnValue for A {}
    impl TurnValue for B {}
    impl TurnValue for C {}
    impl TurnValue for D {}
    impl TurnValue for E {}
    impl TurnValue for F {}

    fn all(turn: &TurnContext) -> [Option<u8>; 6] {
        [
            turn.get::<A>().map(|v| v.0),
            turn.get::<B>().map(|v| v.0),
            turn.get::<C>().map(|v| v.0),
            turn.get::<D>().map(|v| v.0),
            turn.get::<E>().map(|v| v.0),
            turn.get::<F>().map(|v| v.0),
        ]
    }

    /// A lookup stops at the first empty inline slot, so removing a value
    /// must keep the others findable: inline ones packed, the spill pulled in.
    #[test]
    fn values_stay_findable_through_spill_and_removal() {
        let mut turn = TurnContext::new()
            .with(A(1))
            .with(B(2))
            .with(C(3))
            .with(D(4))
            .with(E(5))
            .with(F(6));
        assert_eq!(turn.len(), 6);
        assert_eq!(all(&turn), [1, 2, 3, 4, 5, 6].map(Some));

        assert_eq!(turn.remove::<B>().map(|v| v.0), Some(2));
        assert_eq!(
            all(&turn),
            [Some(1), None, Some(3), Some(4), Some(5), Some(6)]
        );
        assert_eq!(turn.remove::<A>().map(|v| v.0), Some(1));
        assert_eq!(turn.remove::<F>().map(|v| v.0), Some(6));
        assert_eq!(all(&turn), [None, None, Some(3), Some(4), Some(5), None]);
        assert_eq!(turn.len(), 3);

        // Replacing keeps one entry per type and hands back the old value.
        assert_eq!(turn.insert(D(40)).map(|v| v.0), Some(4));
        assert_eq!(turn.insert(A(10)).map(|v| v.0), None);
        assert_eq!(
            all(&turn),
            [Some(10), None, Some(3), Some(40), Some(5), None]
        );
        assert_eq!(turn.len(), 4);
        assert_eq!(
            format!("{turn:?}"),
            "Context { types: [\"prompt_core::context::tests::A\", \
             \"prompt_core::context::tests::C\", \"prompt_core::context::tests::D\", \
             \"prompt_core::context::tests::E\"] }"
        );
    }
}
