//! The stable prefix a request carried, held by reference, and what
//! changed between two of them.

use std::ops::Range;
use std::sync::Arc;

use crate::assembly::StableTrace;
use crate::diff::{ChangeKind, StablePrefix, explain};
use crate::fingerprint::Fingerprint;
use crate::observe::MissCause;
use crate::spec::{AssemblyPath, PromptMode, Scope};

/// A request's stable prefix: the session's shared record of it (no byte
/// copied), or one given as text (a transcript's, another process's).
#[derive(Debug, Clone)]
pub(crate) enum Prefix {
    /// Nothing cached: a Basic prompt.
    Empty,
    /// An assembly's: the session's record, shared.
    Assembled(Arc<StableTrace>),
    /// A prefix given as layers of text.
    Given(Arc<Given>),
}

/// A prefix given as text: its layers' names, scopes and ranges.
#[derive(Debug)]
pub(crate) struct Given {
    text: String,
    layers: Vec<(String, Option<Scope>, Range<usize>)>,
    separator: String,
    fingerprint: Fingerprint,
}

/// One Stable layer of a prefix: name, scope, range in the prefix, notes.
pub(crate) struct Slot<'a> {
    pub(crate) name: &'a str,
    pub(crate) scope: Option<Scope>,
    pub(crate) range: Range<usize>,
    pub(crate) notes: &'a [String],
}

impl Prefix {
    /// The prefix of a diff's [`StablePrefix`], copied once.
    pub(crate) fn given(prefix: &StablePrefix) -> Self {
        let text = prefix.text();
        let mut layers = Vec::with_capacity(prefix.layers.len());
        let mut at = 0;
        for (i, (name, layer)) in prefix.layers.iter().enumerate() {
            if i > 0 {
                at += prefix.separator.len();
            }
            let scope = prefix.scopes.get(i).copied().flatten();
            layers.push((name.clone(), scope, at..at + layer.len()));
            at += layer.len();
        }
        let fingerprint = Fingerprint::of(&text);
        Self::Given(Arc::new(Given {
            text,
            layers,
            separator: prefix.separator.clone(),
            fingerprint,
        }))
    }

    pub(crate) fn text(&self) -> &str {
        match self {
            Self::Empty => "",
            Self::Assembled(stable) => stable.text(),
            Self::Given(given) => &given.text,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.text().len()
    }

    /// The prefix's fingerprint (the session's, computed once per session).
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        match self {
            Self::Empty => Fingerprint::of(""),
            Self::Assembled(stable) => stable.fingerprint(),
            Self::Given(given) => given.fingerprint,
        }
    }

    /// Whether `self` and `other` are the same bytes: the same shared record
    /// (no byte looked at), or equal fingerprints.
    pub(crate) fn same(&self, other: &Prefix) -> bool {
        match (self, other) {
            (Self::Empty, Self::Empty) => true,
            (Self::Assembled(a), Self::Assembled(b)) if Arc::ptr_eq(a, b) => true,
            (Self::Given(a), Self::Given(b)) if Arc::ptr_eq(a, b) => true,
            _ => self.fingerprint() == other.fingerprint(),
        }
    }

    /// Tokens of `bytes` bytes of the prefix: the build's count scaled when
    /// it had a counter, else 4 bytes a token.
    pub(crate) fn tokens_of(&self, bytes: usize) -> u64 {
        let counted = match self {
            Self::Assembled(stable) => stable.tokens(),
            _ => None,
        };
        let len = self.len();
        match counted {
            Some(tokens) if len > 0 => {
                (tokens as u128 * bytes.min(len) as u128).div_ceil(len as u128) as u64
            }
            _ => bytes.div_ceil(4) as u64,
        }
    }

    /// The Stable layers that wrote text, in order.
    pub(crate) fn slots(&self) -> Vec<Slot<'_>> {
        match self {
            Self::Empty => Vec::new(),
            Self::Assembled(stable) => stable
                .layers()
                .iter()
                .filter_map(|l| {
                    let range = l.stable_range()?;
                    (!range.is_empty()).then(|| Slot {
                        name: l.name,
                        scope: l.scope,
                        range,
                        notes: &l.notes,
                    })
                })
                .collect(),
            Self::Given(given) => given
                .layers
                .iter()
                .map(|(name, scope, range)| Slot {
                    name,
                    scope: *scope,
                    range: range.clone(),
                    notes: &[],
                })
                .collect(),
        }
    }

    /// What joins two layers' texts: the bytes between the first two that
    /// wrote any (none with fewer than two).
    fn separator(&self) -> &str {
        match self {
            Self::Given(given) => &given.separator,
            _ => {
                let slots = self.slots();
                match slots.get(..2) {
                    Some([a, b]) => self.text().get(a.range.end..b.range.start).unwrap_or(""),
                    _ => "",
                }
            }
        }
    }

    /// The prefix as the diff compares it.
    fn as_diff(&self) -> StablePrefix {
        let slots = self.slots();
        StablePrefix {
            pipeline: String::new(),
            path: AssemblyPath::Cached,
            mode: PromptMode::Full,
            layers: slots
                .iter()
                .map(|s| (s.name.to_owned(), self.text()[s.range.clone()].to_owned()))
                .collect(),
            scopes: slots.iter().map(|s| s.scope).collect(),
            separator: self.separator().to_owned(),
        }
    }
}

/// What changed from `before` to `after` (prefixes that differ), as a
/// [`MissCause::LayerChanged`]: the first changed layer by the diff's
/// comparison ([`crate::diff::explain`]), the first differing byte,
/// the tokens after it, the bytes a breakpoint of `breakpoints` (offsets in
/// `before`) still closes before it.
pub(crate) fn layer_change(before: &Prefix, after: &Prefix, breakpoints: &[usize]) -> MissCause {
    let (a, b) = (before.text().as_bytes(), after.text().as_bytes());
    let mut offset = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !after.text().is_char_boundary(offset.min(b.len())) {
        offset -= 1;
    }
    let diff = explain(&before.as_diff(), &after.as_diff());
    let (layer, kind, line) = match diff.first_change {
        Some(change) => (change.layer, change.kind, change.line),
        None => ("(separator)".to_owned(), ChangeKind::Changed, None),
    };
    // The layer's scope and notes: from the prompt it speaks in.
    let (after_slots, before_slots) = (after.slots(), before.slots());
    let found = after_slots
        .iter()
        .chain(&before_slots)
        .find(|s| s.name == layer);
    let scope = found.and_then(|s| s.scope);
    let reads = found.map(|s| s.notes.to_vec()).unwrap_or_default();
    let kept_bytes = breakpoints
        .iter()
        .copied()
        .filter(|&bp| bp <= offset)
        .max()
        .unwrap_or(0);
    MissCause::LayerChanged {
        layer,
        scope,
        offset,
        kind,
        tokens_after: after.tokens_of(after.len().saturating_sub(offset)),
        kept_bytes,
        line: line.map(Box::new),
        reads,
    }
}
