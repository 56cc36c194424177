//! `PrefixCache`: sessions over the same workspace share one stable prefix.
//!
//! An agent host keeps one [`PromptSession`](crate::PromptSession) per
//! conversation; ten thousand conversations over a few workspaces render the
//! same stable prefix ten thousand times. A `PrefixCache` keeps each distinct
//! prefix once: a session renders its prefix as before, then looks it up by
//! content and keeps the shared one.
//!
//! The lookup: a key (a hash of the whole text, keyed per cache with a
//! random key) finds the candidates; while they are few, each is
//! compared byte by byte (a `memcmp`, which stops at the first difference);
//! past [`SCAN`] live candidates, the prefix's SHA-256 [`Fingerprint`] is
//! computed (once per prefix, and kept: the trace reports it) and only the
//! candidates with the same fingerprint are compared byte by byte. Every
//! share is confirmed by comparing every byte and every layer trace, so a
//! collision of either key can never hand a session another session's text,
//! and a flood of colliding prefixes costs a fingerprint comparison each, not
//! a text comparison.
//!
//! The cache holds weak references only: memory grows with the number of
//! distinct prefixes that live sessions hold, and the last session that holds
//! a prefix removes its entry when it is dropped (prompts it built keep their
//! own reference to the text; the cache does not).

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use super::render::StablePrefix;
use super::trace::StableTrace;
use crate::fingerprint::Fingerprint;

/// What a cache of shared values can tell apart: two values with the same
/// key are shared only when [`same`](Content::same) says every byte is equal.
pub(crate) trait Content: Send + Sync + 'static {
    /// Whether `self` and `other` hold the same content.
    fn same(&self, other: &Self) -> bool;

    /// A collision-resistant digest of the content: equal contents have
    /// equal digests. Asked for only when many candidates share a key;
    /// should be remembered once computed.
    fn digest(&self) -> Fingerprint;
}

/// Two prefixes are the same when their texts and everything a trace shows
/// of them are: layer names, priorities, notes, token counts, and the
/// Dynamic layers and separator that the traces of their calls are built
/// from.
impl Content for StablePrefix {
    fn same(&self, other: &Self) -> bool {
        if Arc::ptr_eq(self, other) {
            return true;
        }
        // Exhaustive: a field added to `StableTrace` must be considered here.
        let StableTrace {
            text,
            layers,
            tokens,
            fingerprint: _,
            dynamic,
            separator_len,
        } = &**self;
        (Arc::ptr_eq(text, &other.text) || **text == *other.text)
            && *tokens == other.tokens
            && *layers == other.layers
            && *dynamic == other.dynamic
            && *separator_len == other.separator_len
    }

    fn digest(&self) -> Fingerprint {
        *self.fingerprint.get_or_init(|| Fingerprint::of(&self.text))
    }
}

/// The lookup key: a hash of the content. Equal contents have equal
/// keys; equal keys are only candidates.
pub(crate) type Key = u64;

/// Up to this many live candidates under one key are compared byte by byte;
/// past it, by digest first.
pub(crate) const SCAN: usize = 4;

/// Shards, so that sessions starting on many threads at once rarely wait
/// for one another.
const SHARDS: usize = 16;

type Shard<T> = Mutex<HashMap<Key, Vec<Weak<Entry<T>>>>>;

/// The weak interner behind [`PrefixCache`]: at most one live entry per
/// distinct content.
pub(crate) struct Interner<T: Content> {
    shards: [Shard<T>; SHARDS],
}

/// One shared value; removes itself from its interner when its last holder
/// drops it.
pub(crate) struct Entry<T: Content> {
    value: T,
    key: Key,
    home: Weak<Interner<T>>,
}

impl<T: Content> Entry<T> {
    /// The shared value.
    pub(crate) fn value(&self) -> &T {
        &self.value
    }
}

impl<T: Content + fmt::Debug> fmt::Debug for Entry<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Shared").field(&self.value).finish()
    }
}

impl<T: Content> Drop for Entry<T> {
    fn drop(&mut self) {
        let Some(home) = self.home.upgrade() else {
            return;
        };
        // The allocation of `self` outlives this call (its `Weak`s still
        // point to it), so no new entry can have its address yet.
        let this: *const Entry<T> = self;
        let mut shard = home.shard(self.key);
        if let Some(bucket) = shard.get_mut(&self.key) {
            // Dropping a `Weak` never runs an entry's `drop`: no re-entry.
            bucket.retain(|weak| !ptr::eq(weak.as_ptr(), this) && weak.strong_count() > 0);
            if bucket.is_empty() {
                shard.remove(&self.key);
                if shard.capacity() > 64 && shard.len() < shard.capacity() / 4 {
                    shard.shrink_to_fit();
                }
            }
        }
    }
}

impl<T: Content> Interner<T> {
    fn new() -> Self {
        Self {
            shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
        }
    }

    fn shard(&self, key: Key) -> MutexGuard<'_, HashMap<Key, Vec<Weak<Entry<T>>>>> {
        // Nothing panics while a shard is locked (no caller code runs there);
        // a poisoned lock still holds a consistent map.
        self.shards[(key % SHARDS as u64) as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The live entry whose content is the same as `value`'s, or a new one
    /// holding `value`. `key` must be a function of the content: equal
    /// contents have equal keys; equal keys are only candidates.
    pub(crate) fn intern(self: &Arc<Self>, key: Key, value: T) -> Arc<Entry<T>> {
        // Entries upgraded but not returned are dropped after the lock is
        // released: dropping the last one takes the lock again.
        let mut others = Vec::new();
        let mut shard = self.shard(key);
        let bucket = shard.entry(key).or_default();
        bucket.retain(|weak| weak.strong_count() > 0);
        // Many contents under one key: compare digests before bytes.
        let digest = (bucket.len() > SCAN).then(|| value.digest());
        let mut found = None;
        for weak in bucket.iter() {
            if let Some(entry) = weak.upgrade() {
                let candidate = digest.is_none_or(|d| entry.value.digest() == d);
                if candidate && entry.value.same(&value) {
                    found = Some(entry);
                    break;
                }
                others.push(entry);
            }
        }
        let (entry, duplicate) = match found {
            Some(entry) => (entry, Some(value)),
            None => {
                let entry = Arc::new(Entry {
                    value,
                    key,
                    home: Arc::downgrade(self),
                });
                bucket.push(Arc::downgrade(&entry));
                (entry, None)
            }
        };
        drop(shard);
        // The caller's copy, when it was a duplicate, is freed unlocked too.
        drop((others, duplicate));
        entry
    }

    /// How many distinct values live entries hold.
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                shard
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .values()
                    .flatten()
                    .filter(|weak| weak.strong_count() > 0)
                    .count()
            })
            .sum()
    }
}

/// Shares identical stable prefixes between sessions, so that memory grows
/// with the number of distinct prefixes, not of sessions.
///
/// The host makes one and hands it to every [`PromptBuilder`](crate::PromptBuilder)
/// it makes sessions with ([`PromptBuilder::prefix_cache`](crate::PromptBuilder::prefix_cache));
/// cloning it clones a handle to the same cache. A session renders its
/// Stable layers as before, on its first call of a path, then keeps the
/// cache's copy when one with the same bytes (and the same layer traces) is
/// alive: prompts of the two sessions then share one allocation. Candidates
/// are found by a keyed hash of the whole prefix (its key random per cache,
/// so a repository cannot choose prefixes that collide), and compared byte
/// by byte: a collision never shares different text. When more than a few live prefixes share a key, their SHA-256
/// [`Fingerprint`]s (kept, and reported by the trace) are compared first, so
/// many colliding prefixes cost a digest comparison each.
///
/// The cache holds no prefix alive: when the last session holding one is
/// dropped, its entry goes too. Without a cache (the default) every session
/// keeps its own prefix and nothing is looked up. It is `Send + Sync`:
/// sessions on many threads share one cache.
///
/// The host owns it, rather than the process: a cache is shared only by the
/// builders it is handed to (one per tenant, say, so that no tenant's
/// session can share, or time, another tenant's prefix), it is dropped with
/// them, and tests count its entries without seeing other tests'.
///
/// ```standalone_crate
/// use prompt_core::assembly::PrefixCache;
/// use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render};
/// use prompt_core::{SessionValue, Stable, TurnContext};
///
/// /// The workspace a conversation works in: what the Stable layers read.
/// struct Workspace(&'static str);
/// impl SessionValue for Workspace {}
///
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached])]
/// struct ProjectLayer;
///
/// impl Render<Stable> for ProjectLayer {
///     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
///         if let Some(Workspace(name)) = input.get::<Workspace>() {
///             out.push_str("You work in ");
///             out.push_str(name);
///         }
///     }
/// }
///
/// let pipeline = Pipeline::collect()?;
/// let cache = PrefixCache::new();
/// let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
/// let conversation = |workspace| builder.clone().session(Context::new().with(Workspace(workspace)));
///
/// let (a, b, c) = (conversation("api"), conversation("api"), conversation("web"));
/// let turn = TurnContext::new();
/// let (pa, pb, pc) = (a.build_cached(&turn)?, b.build_cached(&turn)?, c.build_cached(&turn)?);
/// // Two conversations over one workspace hold one copy of its prefix.
/// assert_eq!(pa.stable().as_ptr(), pb.stable().as_ptr());
/// assert_ne!(pa.stable().as_ptr(), pc.stable().as_ptr());
/// assert_eq!(cache.len(), 2);
///
/// // The last session of a prefix takes its entry with it.
/// drop((a, b));
/// assert_eq!(cache.len(), 1);
/// drop(c);
/// assert!(cache.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct PrefixCache {
    interner: Arc<Interner<StablePrefix>>,
    /// Keys the hash, so that nobody outside can aim at one key.
    hasher: RandomState,
}

impl PrefixCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            interner: Arc::new(Interner::new()),
            hasher: RandomState::new(),
        }
    }

    /// How many distinct prefixes live sessions hold through this cache.
    pub fn len(&self) -> usize {
        self.interner.len()
    }

    /// Whether no live session holds a prefix through this cache.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `self` and `other` are handles to the same cache.
    pub fn same_cache(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.interner, &other.interner)
    }

    /// The cache's entry for `prefix`'s content: an existing one, or a new
    /// one holding `prefix`.
    pub(crate) fn intern(&self, prefix: StablePrefix) -> Arc<Entry<StablePrefix>> {
        let key = self.key(prefix.text.as_bytes());
        self.interner.intern(key, prefix)
    }

    /// A keyed hash (SipHash-1-3, keyed per cache from the process's random
    /// state) of all of `text`: prefixes that differ anywhere have
    /// independent keys, and nobody who cannot read the key can make two of
    /// them collide. Hashing the whole prefix costs about as much as the
    /// byte comparison that confirms a share, once per session.
    fn key(&self, text: &[u8]) -> Key {
        let mut hasher = self.hasher.build_hasher();
        hasher.write_usize(text.len());
        hasher.write(text);
        hasher.finish()
    }
}

impl Default for PrefixCache {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for PrefixCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrefixCache")
            .field("prefixes", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use std::sync::atomic::{AtomicUsize, Ordering};

    /// How many digests the test contents computed, per thread (tests run
    /// in parallel).
    fn digests() -> usize {
        DIGESTS.with(|d| d.load(Ordering::Relaxed))
    }

    thread_local! {
        static DIGESTS: AtomicUsize = const { AtomicUsize::new(0) };
    }

    /// Plain text, compared byte by byte.
    impl Content for Arc<str> {
        fn same(&self, other: &Self) -> bool {
            **self == **other
        }

        fn digest(&self) -> Fingerprint {
            DIGESTS.with(|d| d.fetch_add(1, Ordering::Relaxed));
            Fingerprint::of(self)
        }
    }

    fn text(s: &str) -> Arc<str> {
        Arc::from(s)
    }

    fn key(s: &str) -> Key {
        u64::from_le_bytes(Fingerprint::of(s).as_bytes()[..8].try_into().unwrap())
    }

    /// Equal content under one key is one entry; the caller's duplicate is
    /// dropped and the first holder's allocation is what both hold.
    #[test]
    fn equal_content_is_one_entry() {
        let interner = Arc::new(Interner::new());
        let a = interner.intern(key("rules"), text("rules"));
        let b = interner.intern(key("rules"), text("rules"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(a.value(), b.value()));
        assert_eq!(interner.len(), 1);
        let c = interner.intern(key("other"), text("other"));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(interner.len(), 2);
    }

    /// A forced collision: two different texts under one key are two
    /// entries, each handed back to the holder of its own bytes, and both
    /// stay found under the shared key.
    #[test]
    fn a_key_collision_never_shares_different_bytes() {
        let interner = Arc::new(Interner::new());
        let collided: Key = 7;
        let a = interner.intern(collided, text("workspace A"));
        let b = interner.intern(collided, text("workspace B"));
        assert_eq!(&**a.value(), "workspace A");
        assert_eq!(&**b.value(), "workspace B");
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(interner.len(), 2);
        // Later lookups of either content find its own entry.
        let a2 = interner.intern(collided, text("workspace A"));
        let b2 = interner.intern(collided, text("workspace B"));
        assert!(Arc::ptr_eq(&a, &a2));
        assert!(Arc::ptr_eq(&b, &b2));
        // Dropping one side of the collision leaves the other found.
        drop((a, a2));
        assert_eq!(interner.len(), 1);
        let b3 = interner.intern(collided, text("workspace B"));
        assert!(Arc::ptr_eq(&b, &b3));
        drop((b, b2, b3));
        assert_eq!(interner.len(), 0);
        assert!(interner.shards.iter().all(|s| s.lock().unwrap().is_empty()));
        // A handful of candidates is compared byte by byte, no digest.
        assert_eq!(digests(), 0);
    }

    /// Past `SCAN` live contents under one key, digests are compared before
    /// bytes: every content still finds its own entry and only its own, and
    /// each entry's digest is computed once (the test contents do not
    /// remember theirs, so each lookup recomputes the candidates').
    #[test]
    fn many_colliding_contents_are_told_apart_by_digest() {
        let interner = Arc::new(Interner::new());
        let texts: Vec<String> = (0..3 * SCAN).map(|i| format!("workspace {i}")).collect();
        let entries: Vec<_> = texts.iter().map(|t| interner.intern(7, text(t))).collect();
        assert_eq!(interner.len(), texts.len());
        let before = digests();
        for (t, entry) in texts.iter().zip(&entries) {
            let again = interner.intern(7, text(t));
            assert!(Arc::ptr_eq(entry, &again), "{t}");
            assert_eq!(&**again.value(), t);
        }
        assert!(digests() > before, "a crowded key compares digests");
        assert_eq!(interner.len(), texts.len());
        drop(entries);
        assert_eq!(interner.len(), 0);
    }

    /// A digest match alone is not enough: contents whose (forced, test)
    /// digests agree are still compared byte by byte.
    #[test]
    fn a_digest_collision_never_shares_different_bytes() {
        /// Text whose digest is the same whatever the text.
        struct Colliding(String);
        impl Content for Colliding {
            fn same(&self, other: &Self) -> bool {
                self.0 == other.0
            }
            fn digest(&self) -> Fingerprint {
                Fingerprint::of("")
            }
        }
        let interner = Arc::new(Interner::new());
        let entries: Vec<_> = (0..3 * SCAN)
            .map(|i| interner.intern(1, Colliding(format!("t{i}"))))
            .collect();
        assert_eq!(interner.len(), 3 * SCAN);
        for (i, entry) in entries.iter().enumerate() {
            let again = interner.intern(1, Colliding(format!("t{i}")));
            assert!(Arc::ptr_eq(entry, &again));
        }
    }

    /// The cache's key is a function of the content (equal texts, equal
    /// keys, whatever their allocation) and of every byte of it: texts that
    /// differ in length, or in any one byte, get other keys (with keyed
    /// SipHash, a collision here is a 2^-64 event). A key read from samples
    /// would let a repository put many live prefixes under one key by varying
    /// the bytes between them.
    #[test]
    fn the_key_reads_every_byte_of_the_content() {
        let cache = PrefixCache::new();
        let long = "abcdefgh".repeat(512);
        assert_eq!(
            cache.key(long.as_bytes()),
            cache.key(long.clone().as_bytes())
        );
        assert_ne!(cache.key(long.as_bytes()), cache.key(&long.as_bytes()[1..]));
        let mut keys = std::collections::BTreeSet::from([cache.key(long.as_bytes())]);
        for at in 0..long.len() {
            let mut changed = long.clone().into_bytes();
            changed[at] = b'X';
            assert!(
                keys.insert(cache.key(&changed)),
                "byte {at} is not in the key"
            );
        }
        assert_ne!(cache.key(b"short a"), cache.key(b"short b"));
    }

    /// The last holder's drop removes the entry itself, key and all: no dead
    /// entry is left behind for a later sweep.
    #[test]
    fn dropping_the_last_holder_removes_the_entry() {
        let interner = Arc::new(Interner::new());
        let a = interner.intern(key("x"), text("x"));
        let b = Arc::clone(&a);
        drop(a);
        assert_eq!(interner.len(), 1);
        drop(b);
        assert_eq!(interner.len(), 0);
        assert!(interner.shards.iter().all(|s| s.lock().unwrap().is_empty()));
        // The same content again is a fresh entry.
        let c = interner.intern(key("x"), text("x"));
        assert_eq!(interner.len(), 1);
        drop(c);
    }

    /// Entries outliving their interner drop without it.
    #[test]
    fn entries_outlive_the_interner() {
        let interner = Arc::new(Interner::new());
        let a = interner.intern(key("x"), text("x"));
        drop(interner);
        assert_eq!(&**a.value(), "x");
        drop(a);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Threads interning and dropping a handful of texts (some under one
        /// forced key) concurrently: every holder gets its own bytes, holders
        /// of equal bytes alive at once share one entry, and once every
        /// holder is gone the interner is empty.
        #[test]
        fn concurrent_interning_shares_equal_bytes_only(
            plan in proptest::collection::vec(
                proptest::collection::vec((0usize..6, any::<bool>()), 1..40),
                2..5,
            )
        ) {
            const TEXTS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];
            // Texts 4 and 5 collide with 0 and 1.
            let key_of = |i: usize| key(TEXTS[i % 4]);
            let interner = Arc::new(Interner::new());
            let kept: Vec<Vec<Arc<Entry<Arc<str>>>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = plan
                    .iter()
                    .map(|steps| {
                        let interner = &interner;
                        scope.spawn(move || {
                            let mut kept = Vec::new();
                            for &(i, keep) in steps {
                                let entry = interner.intern(key_of(i), text(TEXTS[i]));
                                assert_eq!(&**entry.value(), TEXTS[i]);
                                if keep {
                                    kept.push(entry);
                                }
                            }
                            kept
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let all: Vec<&Arc<Entry<Arc<str>>>> = kept.iter().flatten().collect();
            for a in &all {
                for b in &all {
                    prop_assert_eq!(Arc::ptr_eq(a, b), a.value() == b.value());
                }
            }
            let distinct: std::collections::BTreeSet<&str> =
                all.iter().map(|e| &**e.value()).collect();
            prop_assert_eq!(interner.len(), distinct.len());
            drop(all);
            drop(kept);
            prop_assert_eq!(interner.len(), 0);
        }
    }
}
