//! Typed per-session and per-turn values, and what a layer may see of them.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use crate::spec::{AssemblyPath, LayerSpec, PromptMode, Stability};

/// A bag of typed values, one per type.
///
/// Assembly takes two: the *session* context (stable for a session: config,
/// memory files, project docs, skills, tools) and the *turn* context (per
/// call: time, cwd, model, budgets).
///
/// ```
/// use prompt_core::Context;
///
/// #[derive(Debug, PartialEq)]
/// struct Model(&'static str);
///
/// let ctx = Context::new().with(Model("opus"));
/// assert_eq!(ctx.get::<Model>(), Some(&Model("opus")));
/// assert_eq!(ctx.get::<String>(), None);
/// ```
#[derive(Default)]
pub struct Context {
    values: BTreeMap<TypeId, Entry>,
}

struct Entry {
    type_name: &'static str,
    value: Box<dyn Any + Send + Sync>,
}

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the context with `value` stored, replacing any value of the same type.
    #[must_use]
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Stores `value`, returning the value of the same type it replaces.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Option<T> {
        let entry = Entry {
            type_name: std::any::type_name::<T>(),
            value: Box::new(value),
        };
        self.values
            .insert(TypeId::of::<T>(), entry)
            .and_then(|old| old.value.downcast::<T>().ok())
            .map(|boxed| *boxed)
    }

    /// The stored value of type `T`, if any.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|entry| entry.value.downcast_ref::<T>())
    }

    /// Removes and returns the stored value of type `T`.
    pub fn remove<T: Any>(&mut self) -> Option<T> {
        self.values
            .remove(&TypeId::of::<T>())
            .and_then(|entry| entry.value.downcast::<T>().ok())
            .map(|boxed| *boxed)
    }

    /// Whether a value of type `T` is stored.
    pub fn contains<T: Any>(&self) -> bool {
        self.values.contains_key(&TypeId::of::<T>())
    }

    /// `T`'s short name (`ProjectInfo`, not its whole path), for notes.
    fn type_name_of<T: Any>() -> &'static str {
        short_type_name(std::any::type_name::<T>())
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.values.values().map(|e| e.type_name).collect();
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
/// use prompt_core::{AssemblyPath, Context, LayerInput, LayerSpec, PromptMode, Stability};
///
/// let spec = LayerSpec::new("memory", 10, Stability::Stable);
/// let (session, turn) = (Context::new(), Context::new());
/// let notes = Notes::new();
/// let input = LayerInput::new(&spec, &session, &turn, AssemblyPath::Cached, PromptMode::Full)
///     .with_notes(&notes);
/// input.note("memory.md: absent");
/// assert_eq!(notes.into_vec(), ["memory.md: absent"]);
/// ```
#[derive(Debug, Default)]
pub struct Notes(RefCell<Vec<String>>);

impl Notes {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `note`.
    pub fn push(&self, note: impl Into<String>) {
        self.0.borrow_mut().push(note.into());
    }

    /// How many notes were recorded.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    /// Whether no note was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }

    /// The notes, in the order they were recorded.
    pub fn into_vec(self) -> Vec<String> {
        self.0.into_inner()
    }
}

/// What one layer sees during one assembly.
///
/// A [`Stable`](Stability::Stable) layer's [`get`](LayerInput::get) reads the
/// session context only, so it cannot put a per-call fact into the cached
/// prefix. A [`Dynamic`](Stability::Dynamic) layer reads the turn context
/// first, then the session context.
#[derive(Debug, Clone, Copy)]
pub struct LayerInput<'a> {
    spec: &'a LayerSpec,
    session: &'a Context,
    turn: &'a Context,
    path: AssemblyPath,
    mode: PromptMode,
    notes: Option<&'a Notes>,
}

impl<'a> LayerInput<'a> {
    /// The input `spec`'s layer sees for one assembly.
    pub fn new(
        spec: &'a LayerSpec,
        session: &'a Context,
        turn: &'a Context,
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
        }
    }

    /// The same input, with [`note`](Self::note)s collected into `notes`.
    #[must_use]
    pub fn with_notes(mut self, notes: &'a Notes) -> Self {
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

    /// The value of type `T` visible to this layer.
    ///
    /// A Stable layer asking for a type that only the turn context holds gets
    /// `None`, and the trace notes why (``Clock is in the turn context; Stable
    /// layers read the session context only``), so the silence is explained.
    ///
    /// ```
    /// use prompt_core::context::Notes;
    /// use prompt_core::{AssemblyPath, Context, LayerInput, LayerSpec, PromptMode, Stability};
    ///
    /// struct Clock(&'static str);
    ///
    /// let session = Context::new();
    /// let turn = Context::new().with(Clock("12:00"));
    /// let stable = LayerSpec::new("x", 1, Stability::Stable);
    /// let dynamic = LayerSpec::new("y", 10_001, Stability::Dynamic);
    ///
    /// let notes = Notes::new();
    /// let seen_by_stable = LayerInput::new(&stable, &session, &turn, AssemblyPath::Cached, PromptMode::Full)
    ///     .with_notes(&notes);
    /// assert!(seen_by_stable.get::<Clock>().is_none());
    /// assert_eq!(notes.into_vec(), ["Clock is in the turn context; Stable layers read the session context only"]);
    ///
    /// let seen_by_dynamic = LayerInput::new(&dynamic, &session, &turn, AssemblyPath::Cached, PromptMode::Full);
    /// assert_eq!(seen_by_dynamic.get::<Clock>().map(|c| c.0), Some("12:00"));
    /// ```
    pub fn get<T: Any>(&self) -> Option<&'a T> {
        match self.spec.stability {
            Stability::Stable => {
                let value = self.session.get::<T>();
                if value.is_none() && self.turn.contains::<T>() {
                    self.note(format!(
                        "{} is in the turn context; Stable layers read the session context only",
                        Context::type_name_of::<T>()
                    ));
                }
                value
            }
            Stability::Dynamic => self.turn.get::<T>().or_else(|| self.session.get::<T>()),
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
}
