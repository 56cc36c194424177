//! The stable prefix a request carried, held by reference, and what
//! changed between two of them.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::{Arc, Weak};

use crate::assembly::StableTrace;
use crate::diff::{ChangeKind, LineChange, StablePrefix, explain};
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
    /// Another replica's request, read back from a shared store: its
    /// fingerprints and byte ranges, no text.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Remote(Arc<Remote>),
}

/// A prefix as a shared store keeps it: no text, per layer its name,
/// scope, range and fingerprint.
#[derive(Debug)]
pub(crate) struct Remote {
    pub(crate) fingerprint: Fingerprint,
    pub(crate) len: usize,
    pub(crate) layers: Vec<RemoteLayer>,
}

/// One Stable layer of a [`Remote`] prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RemoteLayer {
    pub(crate) name: String,
    pub(crate) scope: Option<Scope>,
    pub(crate) range: Range<usize>,
    pub(crate) fingerprint: Fingerprint,
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

/// A stable prefix given as text (a recorded transcript's, another
/// process's `prompt render --format json`), copied and fingerprinted once,
/// to send with [`CacheLedger::sent_given`](super::CacheLedger::sent_given)
/// as often as it recurs.
///
/// Clones share it: a ledger that sees the same `GivenPrefix` twice knows
/// it is the same bytes without looking at them, and works out what changed
/// between two of them once (see [`CacheLedger`](super::CacheLedger)).
/// Its text is held as long as a clone is, or the ledger's last request of
/// a conversation carries it.
#[derive(Debug, Clone)]
pub struct GivenPrefix(Arc<Given>);

impl GivenPrefix {
    /// `prefix`, its text copied and fingerprinted once.
    pub fn new(prefix: &StablePrefix) -> Self {
        #[cfg(test)]
        counts::FINGERPRINTS.with(|n| n.set(n.get() + 1));
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
        Self(Arc::new(Given {
            text,
            layers,
            separator: prefix.separator.clone(),
            fingerprint,
        }))
    }

    /// The fingerprint of its text.
    pub fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint
    }

    /// Its text's length in bytes.
    pub fn len(&self) -> usize {
        self.0.text.len()
    }

    /// Whether its text is empty.
    pub fn is_empty(&self) -> bool {
        self.0.text.is_empty()
    }
}

impl Prefix {
    /// The prefix of an assembled prompt: its session's record, shared.
    pub(crate) fn of(prompt: &crate::AssembledPrompt) -> Self {
        match prompt.path() {
            AssemblyPath::Basic => Self::Empty,
            AssemblyPath::Cached => Self::Assembled(Arc::clone(prompt.trace().shared_stable())),
        }
    }

    /// The prefix of a [`GivenPrefix`], shared.
    pub(crate) fn given(prefix: &GivenPrefix) -> Self {
        Self::Given(Arc::clone(&prefix.0))
    }

    pub(crate) fn text(&self) -> &str {
        match self {
            Self::Empty => "",
            Self::Assembled(stable) => stable.text(),
            Self::Given(given) => &given.text,
            Self::Remote(_) => "",
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Remote(remote) => remote.len,
            _ => self.text().len(),
        }
    }

    /// The prefix's fingerprint (the session's, computed once per session).
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        match self {
            Self::Empty => Fingerprint::of(""),
            Self::Assembled(stable) => stable.fingerprint(),
            Self::Given(given) => given.fingerprint,
            Self::Remote(remote) => remote.fingerprint,
        }
    }

    /// Each Stable layer that wrote text, with its text's fingerprint (the
    /// session's, remembered, for an assembled prefix): what a shared
    /// store keeps of it.
    pub(crate) fn layer_prints(&self) -> Vec<RemoteLayer> {
        match self {
            Self::Empty => Vec::new(),
            Self::Assembled(stable) => stable
                .layers()
                .iter()
                .filter_map(|l| {
                    let range = l.stable_range()?;
                    let fingerprint = l.fingerprint()?;
                    (!range.is_empty()).then(|| RemoteLayer {
                        name: l.name.to_owned(),
                        scope: l.scope,
                        range,
                        fingerprint,
                    })
                })
                .collect(),
            Self::Given(given) => given
                .layers
                .iter()
                .map(|(name, scope, range)| RemoteLayer {
                    name: name.clone(),
                    scope: *scope,
                    range: range.clone(),
                    fingerprint: Fingerprint::of(given.text.get(range.clone()).unwrap_or("")),
                })
                .collect(),
            Self::Remote(remote) => remote.layers.clone(),
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
            Self::Remote(remote) => remote
                .layers
                .iter()
                .map(|l| Slot {
                    name: &l.name,
                    scope: l.scope,
                    range: l.range.clone(),
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
///
/// Its differing line is kept cut ([`cut_line`]): a verdict holds at most
/// [`MAX_LINE`] characters of each side, whatever the prefix's lines.
pub(crate) fn layer_change(before: &Prefix, after: &Prefix, breakpoints: &[usize]) -> MissCause {
    #[cfg(test)]
    counts::LAYER_CHANGES.with(|n| n.set(n.get() + 1));
    let (a, b) = (before.text().as_bytes(), after.text().as_bytes());
    let mut offset = common_prefix(a, b);
    while !after.text().is_char_boundary(offset.min(b.len())) {
        offset -= 1;
    }
    let diff = explain(&before.as_diff(), &after.as_diff());
    let (layer, kind, line) = match diff.first_change {
        Some(change) => (change.layer, change.kind, change.line.map(cut_line)),
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

/// What changed from `before` to `after` when one of them is known by its
/// layers' fingerprints only (another replica's request, read from a shared
/// store): the first layer, in `after`'s order, whose fingerprint differs or
/// that speaks in one prompt only, named with its scope; the offset is that
/// layer's start (its first differing byte is not known without the text),
/// and no differing line is given.
pub(crate) fn remote_layer_change(
    before: &Prefix,
    after: &Prefix,
    breakpoints: &[usize],
) -> MissCause {
    let (was, now) = (before.layer_prints(), after.layer_prints());
    let after_slots = after.slots();
    let mut found: Option<(String, Option<Scope>, usize, ChangeKind)> = None;
    for i in 0..was.len().max(now.len()) {
        match (was.get(i), now.get(i)) {
            (Some(a), Some(b)) if a.name == b.name && a.fingerprint == b.fingerprint => continue,
            (Some(a), Some(b)) if a.name == b.name => {
                found = Some((b.name.clone(), b.scope, b.range.start, ChangeKind::Changed));
            }
            (Some(a), b) if b.is_none() || !now.iter().any(|n| n.name == a.name) => {
                let at = b.map_or(after.len(), |b| b.range.start.min(after.len()));
                found = Some((a.name.clone(), a.scope, at, ChangeKind::Removed));
            }
            (_, Some(b)) => {
                found = Some((b.name.clone(), b.scope, b.range.start, ChangeKind::Added));
            }
            (_, None) => {}
        }
        break;
    }
    let (layer, scope, offset, kind) = found.unwrap_or_else(|| {
        // Every layer the same: what joins them moved.
        ("(separator)".to_owned(), None, 0, ChangeKind::Changed)
    });
    let reads = after_slots
        .iter()
        .find(|s| s.name == layer)
        .map(|s| s.notes.to_vec())
        .unwrap_or_default();
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
        line: None,
        reads,
    }
}

/// The bytes `a` and `b` share from their start: compared a block at a
/// time (a `memcmp`), then byte by byte within the first block that differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let shorter = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= shorter && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..shorter]
        .iter()
        .zip(&b[at..shorter])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The most characters of each side of a differing line a verdict keeps,
/// as many as `prompt diff` shows of one.
pub(crate) const MAX_LINE: usize = 240;

/// `change` with each side cut after [`MAX_LINE`] characters, followed by
/// `... (N more characters)` (the diff report's marker), so a verdict on a
/// one-line prefix of megabytes holds a few hundred bytes of it, not both
/// sides whole.
pub(crate) fn cut_line(change: LineChange) -> LineChange {
    let cut = |line: String| -> String {
        match line.char_indices().nth(MAX_LINE) {
            None => line,
            Some((end, _)) => {
                let more = line[end..].chars().count();
                format!("{}... ({more} more characters)", &line[..end])
            }
        }
    };
    LineChange {
        number: change.number,
        before: change.before.map(cut),
        after: change.after.map(cut),
    }
}

/// What changed between two prefixes, worked out once per pair: the last
/// [`MEMO_PAIRS`] pairs a ledger met, keyed by which prefixes they are
/// (the same shared record, not the same bytes: a record is immutable) and
/// the breakpoints. Each key holds its prefixes weakly, so the memo keeps
/// no prefix's text alive, and an address it holds cannot be reused by
/// another record while the entry lasts.
#[derive(Default)]
pub(crate) struct Changes {
    found: HashMap<Key, (Held, Held, Box<MissCause>)>,
    /// Keys, oldest first: the first forgotten when full.
    order: VecDeque<Key>,
}

/// How many pairs of prefixes [`Changes`] remembers: each entry is a few
/// hundred bytes (its line cut to [`MAX_LINE`] characters a side).
pub(crate) const MEMO_PAIRS: usize = 256;

/// Two prefixes' records, by address, and the breakpoints.
type Key = (usize, usize, Vec<usize>);

/// A prefix's record, held weakly (`Empty` has none).
enum Held {
    Empty,
    Assembled(Weak<StableTrace>),
    Given(Weak<Given>),
}

impl Held {
    fn of(prefix: &Prefix) -> (usize, Self) {
        match prefix {
            // Never memoized (`Changes::layer_change` compares them at once).
            Prefix::Empty | Prefix::Remote(_) => (0, Self::Empty),
            Prefix::Assembled(a) => (Arc::as_ptr(a) as usize, Self::Assembled(Arc::downgrade(a))),
            Prefix::Given(g) => (Arc::as_ptr(g) as usize, Self::Given(Arc::downgrade(g))),
        }
    }

    /// Whether `prefix` is this record (the address alone could be another's
    /// only once this one was freed, which a weak reference prevents).
    fn is(&self, prefix: &Prefix) -> bool {
        match (self, prefix) {
            (Self::Empty, Prefix::Empty) => true,
            (Self::Assembled(w), Prefix::Assembled(a)) => std::ptr::eq(w.as_ptr(), Arc::as_ptr(a)),
            (Self::Given(w), Prefix::Given(g)) => std::ptr::eq(w.as_ptr(), Arc::as_ptr(g)),
            _ => false,
        }
    }
}

impl Changes {
    /// [`layer_change`] of `before` and `after`, from the memo when the pair
    /// was met before.
    pub(crate) fn layer_change(
        &mut self,
        before: &Prefix,
        after: &Prefix,
        breakpoints: &[usize],
    ) -> Box<MissCause> {
        if matches!(before, Prefix::Remote(_)) || matches!(after, Prefix::Remote(_)) {
            return Box::new(remote_layer_change(before, after, breakpoints));
        }
        let (b, held_before) = Held::of(before);
        let (a, held_after) = Held::of(after);
        let key = (b, a, breakpoints.to_vec());
        if let Some((x, y, cause)) = self.found.get(&key)
            && x.is(before)
            && y.is(after)
        {
            return cause.clone();
        }
        let cause = Box::new(layer_change(before, after, breakpoints));
        if self.found.len() >= MEMO_PAIRS
            && let Some(oldest) = self.order.pop_front()
        {
            self.found.remove(&oldest);
        }
        if self
            .found
            .insert(key.clone(), (held_before, held_after, cause.clone()))
            .is_none()
        {
            self.order.push_back(key);
        }
        cause
    }
}

/// Test hooks: how many times the costly work ran on this thread.
#[cfg(test)]
pub(crate) mod counts {
    use std::cell::Cell;

    thread_local! {
        /// [`GivenPrefix::new`](super::GivenPrefix::new): a copy and a fingerprint.
        pub(crate) static FINGERPRINTS: Cell<usize> = const { Cell::new(0) };
        /// [`layer_change`](super::layer_change): a diff of two prefixes.
        pub(crate) static LAYER_CHANGES: Cell<usize> = const { Cell::new(0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{CacheLedger, CacheUsage, CacheVerdict, Provider, Sent};

    fn given(text: &str) -> StablePrefix {
        StablePrefix {
            pipeline: String::new(),
            path: AssemblyPath::Cached,
            mode: PromptMode::Full,
            layers: vec![("notes".to_owned(), text.to_owned())],
            scopes: vec![Some(Scope::Session)],
            separator: String::new(),
        }
    }

    /// `requests` requests alternating between `a` and `b`, each written
    /// whole, with each prefix made once (`shared`) or per request.
    fn alternate(a: &str, b: &str, requests: usize, shared: bool) -> Vec<CacheVerdict> {
        let (a, b) = (given(a), given(b));
        let (ga, gb) = (GivenPrefix::new(&a), GivenPrefix::new(&b));
        let at = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        let mut ledger = CacheLedger::new();
        (0..requests)
            .map(|i| {
                let sent = Sent::new(
                    Provider::Anthropic,
                    "claude-sonnet-4-5",
                    at + jiff::SignedDuration::from_secs(i as i64),
                );
                let id = match (shared, i % 2) {
                    (true, 0) => ledger.sent_given(&ga, sent),
                    (true, _) => ledger.sent_given(&gb, sent),
                    (false, 0) => ledger.sent_prefix(&a, sent),
                    (false, _) => ledger.sent_prefix(&b, sent),
                };
                ledger.received(id, &CacheUsage::new(3, 0, 5000)).unwrap()
            })
            .collect()
    }

    #[test]
    fn a_verdict_keeps_a_long_differing_line_cut_with_the_marker() {
        let body = "é".repeat(9_999);
        let verdicts = alternate(&format!("{body}A"), &format!("{body}B"), 2, true);
        let Some(MissCause::LayerChanged {
            line: Some(line),
            offset,
            ..
        }) = &verdicts[1].cause
        else {
            panic!("{:?}", verdicts[1].cause);
        };
        assert_eq!(*offset, body.len());
        assert_eq!(line.number, 1);
        let cut = format!("{}... (9760 more characters)", "é".repeat(240));
        assert_eq!(line.before.as_deref(), Some(cut.as_str()));
        assert_eq!(line.after.as_deref(), Some(cut.as_str()));
        // A line within the bound is kept whole.
        let change = cut_line(LineChange {
            number: 2,
            before: Some("a".repeat(MAX_LINE)),
            after: None,
        });
        assert_eq!(change.before, Some("a".repeat(MAX_LINE)));
        assert_eq!(change.after, None);
    }

    /// Going back and forth between two prompts: each is copied and
    /// fingerprinted once, each pair diffed once, and the verdicts are the
    /// ones the ledger gives when every request brings its own copy (no
    /// sharing, no memo hit).
    #[test]
    fn repeated_prompts_are_fingerprinted_and_diffed_once_per_pair_with_the_same_verdicts() {
        let a = "Rules.\nRun make check.\nUse tabs.\n".repeat(50);
        let b = a.replace("Use tabs.\n", "Use spaces.\n");
        let count = |counter: &'static std::thread::LocalKey<std::cell::Cell<usize>>| {
            counter.with(std::cell::Cell::get)
        };
        let (fingerprints, changes) = (count(&counts::FINGERPRINTS), count(&counts::LAYER_CHANGES));
        let shared = alternate(&a, &b, 101, true);
        assert_eq!(count(&counts::FINGERPRINTS) - fingerprints, 2);
        assert_eq!(count(&counts::LAYER_CHANGES) - changes, 2);

        let (fingerprints, changes) = (count(&counts::FINGERPRINTS), count(&counts::LAYER_CHANGES));
        let copied = alternate(&a, &b, 101, false);
        assert_eq!(count(&counts::FINGERPRINTS) - fingerprints, 2 + 101);
        assert_eq!(count(&counts::LAYER_CHANGES) - changes, 100);

        let json = |v: &[CacheVerdict]| serde_json::to_string(v).unwrap();
        assert_eq!(json(&shared), json(&copied));
        assert!(
            matches!(&shared[100].cause, Some(MissCause::LayerChanged { layer, line: Some(line), .. })
                if layer == "notes" && line.before.as_deref() == Some("Use spaces.")
                    && line.after.as_deref() == Some("Use tabs.")),
            "{:?}",
            shared[100].cause
        );
    }

    #[test]
    fn the_memo_keeps_at_most_its_bound_and_no_prefix_alive() {
        let mut changes = Changes::default();
        let first = Prefix::given(&GivenPrefix::new(&given("first")));
        let mut last = None;
        for i in 0..MEMO_PAIRS + 10 {
            let next = Prefix::given(&GivenPrefix::new(&given(&format!("prefix {i}"))));
            changes.layer_change(&first, &next, &[5]);
            last = Some(next);
        }
        assert_eq!(changes.found.len(), MEMO_PAIRS);
        assert_eq!(changes.order.len(), MEMO_PAIRS);
        let Some(Prefix::Given(last)) = last else {
            panic!()
        };
        // The memo holds it weakly: this is its only owner.
        assert_eq!(Arc::strong_count(&last), 1);
    }

    #[test]
    fn common_prefix_agrees_with_a_byte_by_byte_count() {
        let base: Vec<u8> = (0..2000u32).map(|i| (i % 251) as u8).collect();
        for len in [0, 1, 255, 256, 257, 511, 512, 1000, 2000] {
            for differ in [0, 1, 255, 256, 257, 700, 1999] {
                let a = &base[..len];
                let mut b = base.clone();
                b[differ] ^= 1;
                let naive = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                assert_eq!(common_prefix(a, &b), naive, "{len} {differ}");
                assert_eq!(common_prefix(&b, a), naive, "{len} {differ}");
            }
        }
    }
}
