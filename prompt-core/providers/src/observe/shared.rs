//! One ledger for many replicas: each conversation's previous request kept
//! in a store they share (Redis), so whichever replica sends a turn judges
//! it against the turn before, whichever replica sent that. Feature `redis`.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use jiff::Timestamp;

use super::ledger::remote::{self, MAX_RECORD_BYTES};
use super::ledger::{DEFAULT_TTL, FromStore, GivenPrefix, KeepRaw, Prefix, StorePrevious};
use super::{CacheLedger, CacheUsage, CacheVerdict, LedgerError, Sent, SentId};
use crate::AssembledPrompt;

/// How long a [`SharedLedger`] waits for its store on each call unless told:
/// past it the call gives up and the verdict says the previous request is
/// unknown. A loopback Redis answers in well under a millisecond.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_millis(100);

/// How long a conversation's record outlives its request's cache TTL in the
/// store unless told: a turn within the TTL plus this margin is compared
/// with the previous one (a gap past the TTL reads as a TTL lapse); past
/// both, the record is gone and the turn reads as a new conversation.
pub const DEFAULT_EXPIRY_MARGIN: Duration = Duration::from_secs(600);

/// The most bytes of one conversation's record a store hands back: a
/// larger one is not read (the previous request is then unknown).
pub const MAX_STORED_RECORD: usize = MAX_RECORD_BYTES;

/// What a [`LedgerStore`] call returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store call gave no answer: the verdict then says the previous
/// request is unknown ([`MissCause::PreviousUnknown`](super::MissCause)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No answer within the ledger's timeout ([`SharedLedger::timeout`]).
    #[error(
        "the ledger's store did not answer within {0:?}: check that it is up and near, or \
         raise SharedLedger::timeout"
    )]
    Timeout(Duration),
    /// The store's address could not be read.
    #[error("the ledger's store address `{url}` is not one: {reason}")]
    Address {
        /// The address given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The store answered with an error, or the connection failed.
    #[error("the ledger's store failed: {0}")]
    Failed(String),
    /// The conversation's entry is larger than [`MAX_STORED_RECORD`], or not
    /// an entry this ledger writes: it was not read.
    #[error(
        "the ledger's store holds an entry for conversation `{conversation}` it cannot read: {why}"
    )]
    Unreadable {
        /// The conversation.
        conversation: String,
        /// Why.
        why: String,
    },
}

/// One conversation's entry as a [`LedgerStore`] hands it back.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredEntry {
    /// How many requests of the conversation were saved, the last included.
    pub seq: u64,
    /// The last request's record (at most [`MAX_STORED_RECORD`] bytes).
    pub record: Vec<u8>,
    /// Its response's usage, once received.
    pub usage: Option<Vec<u8>>,
    /// The keep-alive pings sent since it, once one was
    /// ([`LedgerStore::save_ping`]).
    pub ping: Option<Vec<u8>>,
}

impl StoredEntry {
    /// An entry of `seq` requests whose last is `record`, with `usage`.
    pub fn new(seq: u64, record: Vec<u8>, usage: Option<Vec<u8>>) -> Self {
        Self {
            seq,
            record,
            usage,
            ping: None,
        }
    }

    /// The pings' entry kept with it.
    pub fn ping(mut self, ping: Option<Vec<u8>>) -> Self {
        self.ping = ping;
        self
    }
}

/// Where a [`SharedLedger`] keeps each conversation's previous request.
///
/// The entries are opaque bytes (fingerprints, offsets and counts, never
/// prompt text). An implementation:
/// - `load`: the conversation's entry, refusing one whose record is larger
///   than [`MAX_STORED_RECORD`] without reading it ([`StoreError::Unreadable`]);
/// - `save`: counts the request (the `seq` it returns), and replaces the
///   record only when `order` is greater (bytewise) than the stored one's,
///   dropping the stored usage then, atomically; the entry then expires
///   after `expire` (never sooner than an expiry it already had);
/// - `save_usage`: attaches `usage` to the record only while the stored
///   record's order is `order`; `save_ping` likewise the keep-alive pings'
///   entry (both are dropped when a newer record replaces it);
/// - `lease`: takes a lease named `key` for `owner` for `lifetime` unless
///   someone holds it (Redis: `SET key owner NX PX lifetime`); `renew` and
///   `release` extend or drop it only while `owner` holds it. The keep-alive
///   [`Scheduler`](crate::keepalive::Scheduler) sends a conversation's ping
///   only under its lease, so N replicas send one. The defaults grant every
///   lease and keep no pings: right for a store one process uses alone, and
///   wrong for one that replicas share (implement all four there).
///
/// [`RedisStore`] is the one this crate ships. The ledger bounds every call
/// with its timeout, so an implementation needs none of its own.
pub trait LedgerStore: Send + Sync {
    /// The entry of `conversation`, if any.
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Option<StoredEntry>>;
    /// Saves `record` as the conversation's last request if `order` is newer.
    fn save<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        record: &'a [u8],
        expire: Duration,
    ) -> StoreFuture<'a, u64>;
    /// Attaches `usage` to the record saved with `order`, if still the last.
    fn save_usage<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        usage: &'a [u8],
    ) -> StoreFuture<'a, ()>;
    /// Attaches the keep-alive pings' entry to the record saved with
    /// `order`, if still the last.
    fn save_ping<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        ping: &'a [u8],
    ) -> StoreFuture<'a, ()> {
        let _ = (conversation, order, ping);
        Box::pin(async { Ok(()) })
    }
    /// Takes the lease `key` for `owner` for `lifetime` unless another
    /// holds it: whether `owner` holds it now.
    fn lease<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
        lifetime: Duration,
    ) -> StoreFuture<'a, bool> {
        let _ = (key, owner, lifetime);
        Box::pin(async { Ok(true) })
    }
    /// Extends `owner`'s lease `key` to `lifetime` from now: whether it
    /// still held it.
    fn renew<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
        lifetime: Duration,
    ) -> StoreFuture<'a, bool> {
        let _ = (key, owner, lifetime);
        Box::pin(async { Ok(true) })
    }
    /// Drops `owner`'s lease `key`: whether it still held it.
    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
        let _ = (key, owner);
        Box::pin(async { Ok(true) })
    }
}

impl<T: LedgerStore + ?Sized> LedgerStore for Arc<T> {
    fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Option<StoredEntry>> {
        (**self).load(conversation)
    }

    fn save<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        record: &'a [u8],
        expire: Duration,
    ) -> StoreFuture<'a, u64> {
        (**self).save(conversation, order, record, expire)
    }

    fn save_usage<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        usage: &'a [u8],
    ) -> StoreFuture<'a, ()> {
        (**self).save_usage(conversation, order, usage)
    }

    fn save_ping<'a>(
        &'a self,
        conversation: &'a str,
        order: &'a str,
        ping: &'a [u8],
    ) -> StoreFuture<'a, ()> {
        (**self).save_ping(conversation, order, ping)
    }

    fn lease<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
        lifetime: Duration,
    ) -> StoreFuture<'a, bool> {
        (**self).lease(key, owner, lifetime)
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
        lifetime: Duration,
    ) -> StoreFuture<'a, bool> {
        (**self).renew(key, owner, lifetime)
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
        (**self).release(key, owner)
    }
}

/// A [`CacheLedger`] whose conversations' previous requests live in a store
/// that replicas share: any replica judges a response against the
/// conversation's previous request, whichever replica sent it.
///
/// Each replica keeps its own `CacheLedger` (its log, prices, minimums, and
/// the text of the requests it sent) and one `SharedLedger` around it; all
/// replicas point at one store. Per request it makes two store calls on
/// [`sent`](Self::sent) (read the previous record, write this one) and one
/// on [`received`](Self::received) (attach the usage), each bounded by
/// [`timeout`](Self::timeout). Its methods take `&self`: share it in an
/// `Arc` across tasks. It needs a tokio runtime with its time driver
/// (`#[tokio::main]`, or a runtime built with `enable_time`).
///
/// Where the previous request was this replica's, the verdict is the one a
/// lone `CacheLedger` gives, text and all. Where another replica sent it,
/// the store holds its fingerprints and ranges, not its text: a changed
/// layer is named with its scope, and its
/// [`offset`](super::MissCause::LayerChanged) is the layer's start, with no
/// differing line. When the store does not answer (down, slow, restarted)
/// the request is still recorded and its verdict logged: it says the
/// previous request is unknown ([`CacheVerdict::previous_unknown`],
/// [`MissCause::PreviousUnknown`](super::MissCause::PreviousUnknown)),
/// never a cold start or a TTL lapse.
///
/// Two replicas that send the same conversation's requests at once: the
/// store keeps the one sent later (by [`Sent`]'s time), whichever saves
/// last, and a usage attaches only to its own request. A request older
/// than the stored one is judged against the record it read; the next
/// request is judged against the newer one.
///
/// ```no_run
/// use std::sync::Arc;
/// use prompt_providers::observe::{CacheLedger, CacheUsage, Provider, RedisStore, Sent, SharedLedger};
/// # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocShared;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocShared)]
/// # struct SharedPersona;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let pipeline = Pipeline::of::<DocShared>()?;
/// # let session = PromptBuilder::new(&pipeline).session(Context::new());
/// let store = RedisStore::open("redis://127.0.0.1:6379/")?;
/// let ledger = Arc::new(SharedLedger::new(CacheLedger::new(), store));
///
/// let prompt = session.build_cached(&Context::new())?;
/// let sent = Sent::new(Provider::Anthropic, "claude-sonnet-4-5", jiff::Timestamp::now())
///     .conversation("conv-42");
/// let id = ledger.sent(&prompt, sent).await;
/// let verdict = ledger.received(&id, &CacheUsage::new(40, 2048, 0)).await?;
/// println!("{verdict}");
/// # Ok(())
/// # }
/// ```
pub struct SharedLedger {
    local: Mutex<CacheLedger>,
    store: Arc<dyn LedgerStore>,
    replica: u64,
    timeout: Duration,
    margin: Duration,
}

impl std::fmt::Debug for SharedLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLedger")
            .field("replica", &format_args!("{:016x}", self.replica))
            .field("timeout", &self.timeout)
            .field("expiry_margin", &self.margin)
            .finish_non_exhaustive()
    }
}

/// Where a request was recorded in a [`SharedLedger`]: pass it back with
/// the response's usage to [`received`](SharedLedger::received).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedSentId {
    id: SentId,
    conversation: Arc<str>,
    order: String,
    seq: u64,
}

impl SharedSentId {
    /// The request's number in its conversation as the store counts them,
    /// from 1 (0 when the store did not answer).
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

/// A replica's id: different in each ledger of each process (the standard
/// library's random hasher keys, the process id and a counter).
fn replica_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u64(MADE.fetch_add(1, Ordering::Relaxed));
    hasher.write_i128(Timestamp::now().as_nanosecond());
    hasher.finish()
}

/// The order of a request among its conversation's: its time, then who
/// sent it; fixed width, so bytewise order is numeric order.
fn order(at: Timestamp, replica: u64, seq: u64) -> String {
    // Microseconds since the epoch, shifted to be non-negative: jiff's
    // whole range fits (about 2.5e17 of the 1.8e19 a u64 holds).
    let micros = at.as_microsecond().unsigned_abs();
    let shifted = if at.as_microsecond() < 0 {
        (1u64 << 63) - micros
    } else {
        (1u64 << 63) + micros
    };
    format!("{shifted:020}{replica:016x}{seq:020}")
}

impl SharedLedger {
    /// `ledger` (this replica's: its log, prices and minimums are used as
    /// they are) sharing its conversations through `store`.
    pub fn new(ledger: CacheLedger, store: impl LedgerStore + 'static) -> Self {
        Self {
            local: Mutex::new(ledger),
            store: Arc::new(store),
            replica: replica_id(),
            timeout: DEFAULT_STORE_TIMEOUT,
            margin: DEFAULT_EXPIRY_MARGIN,
        }
    }

    /// How long each store call may take (default
    /// [`DEFAULT_STORE_TIMEOUT`]): past it the verdict says the previous
    /// request is unknown, and the request goes on.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long a record outlives its request's cache TTL in the store
    /// (default [`DEFAULT_EXPIRY_MARGIN`]).
    pub fn expiry_margin(mut self, margin: Duration) -> Self {
        self.margin = margin;
        self
    }

    /// This replica's own ledger (its conversations, its log).
    pub fn local(&self) -> MutexGuard<'_, CacheLedger> {
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `prompt` as sent, comparing it with the conversation's
    /// previous request as the store holds it ([`CacheLedger::sent`]).
    pub async fn sent(&self, prompt: &AssembledPrompt, sent: Sent<'_>) -> SharedSentId {
        self.record(Prefix::of(prompt), sent).await
    }

    /// Records `prefix` as sent ([`CacheLedger::sent_given`]).
    pub async fn sent_given(&self, prefix: &GivenPrefix, sent: Sent<'_>) -> SharedSentId {
        self.record(Prefix::given(prefix), sent).await
    }

    /// The verdict on the response to request `id` ([`CacheLedger::received`]),
    /// logged by this replica's ledger; its usage is then kept in the store
    /// for the conversation's next request (a store that does not answer
    /// loses it: the next verdict estimates what a hit reads).
    ///
    /// # Errors
    /// As [`CacheLedger::received`].
    pub async fn received(
        &self,
        id: &SharedSentId,
        usage: &CacheUsage,
    ) -> Result<CacheVerdict, LedgerError> {
        let mut stored = None;
        let verdict = self.local().received_stored(id.id, usage, &mut stored);
        if let Some(stored) = stored {
            let bytes = remote::encode_usage(&stored);
            if let Err(error) = self
                .bounded(self.store.save_usage(&id.conversation, &id.order, &bytes))
                .await
            {
                tracing::warn!(conversation = &*id.conversation, %error, "the ledger's store kept no usage");
            }
        }
        verdict
    }

    /// A conversation's keep-alive state as the store holds it: the last
    /// turn's time, TTL, prices, prefix (its usage, or the estimate), gaps,
    /// and the pings since it. `None` when the store holds no record of it,
    /// or one written without that state (an older build's), or no price.
    pub(crate) async fn keep_window(
        &self,
        conversation: &Arc<str>,
    ) -> Result<Option<KeepWindow>, StoreError> {
        let Some(entry) = self.bounded(self.store.load(conversation)).await? else {
            return Ok(None);
        };
        let unreadable = |why: remote::Unreadable| StoreError::Unreadable {
            conversation: conversation.to_string(),
            why: why.0,
        };
        let decoded = remote::decode(&entry.record).map_err(unreadable)?;
        let Some(keep) = decoded.keep else {
            return Ok(None);
        };
        let usage = entry
            .usage
            .as_deref()
            .map(remote::decode_usage)
            .transpose()
            .map_err(unreadable)?;
        let ping = entry
            .ping
            .as_deref()
            .map(remote::decode_ping)
            .transpose()
            .map_err(unreadable)?
            .filter(|p| p.at > decoded.record.at);
        let Some(pricing) = keep.pricing.or_else(|| self.local().default_pricing()) else {
            return Ok(None);
        };
        let last_turn = decoded.record.at;
        let prefix_tokens = usage.map_or(decoded.record.held_estimate, |u| {
            u.received.read().saturating_add(u.received.written())
        });
        let pings = ping.map_or(0, |p| p.pings);
        let raw = KeepRaw {
            last_turn,
            refreshed: ping.map_or(last_turn, |p| p.at),
            ttl: keep.ttl,
            prefix_tokens,
            minimum: decoded.record.table_minimum,
            gaps: keep.gaps,
            pings_since_turn: pings,
            pricing: Some(pricing),
        };
        let order = order(last_turn, decoded.writer, decoded.writer_seq);
        let own = decoded.writer == self.replica
            && self
                .local()
                .last_sent(conversation)
                .is_some_and(|(seq, _)| seq == decoded.writer_seq);
        let never_cached = usage.map_or(decoded.never_cached, |u| u.never_cached);
        Ok(Some(KeepWindow {
            lease: format!("{order}:{pings}:{conversation}"),
            order,
            raw,
            from: FromStore {
                previous: if own {
                    StorePrevious::Local
                } else {
                    StorePrevious::Remote(Box::new(decoded.record))
                },
                usage: usage.map(|u| u.received),
                never_cached: Some(never_cached),
                keep: Some(keep),
            },
        }))
    }

    /// Takes `window`'s lease for this replica for `lifetime`: whether it
    /// holds it.
    pub(crate) async fn take_lease(
        &self,
        window: &KeepWindow,
        lifetime: Duration,
    ) -> Result<bool, StoreError> {
        let owner = self.owner();
        self.bounded(self.store.lease(&window.lease, &owner, lifetime))
            .await
    }

    /// Drops the lease `lease` if this replica holds it.
    pub(crate) async fn release_lease_named(&self, lease: &str) -> Result<bool, StoreError> {
        let owner = self.owner();
        self.bounded(self.store.release(lease, &owner)).await
    }

    /// Records a keep-alive ping of `window`'s conversation sent `at`, in
    /// this replica's ledger, against the last turn as the store holds it.
    pub(crate) fn sent_keep_alive(
        &self,
        conversation: &Arc<str>,
        window: KeepWindow,
        at: Timestamp,
    ) -> Option<SharedSentId> {
        let ttl = window.raw.ttl;
        let pricing = window.raw.pricing;
        let id = self.local().sent_keep_alive_from(
            conversation,
            at,
            ttl,
            pricing,
            window.from,
            self.replica,
        )?;
        Some(SharedSentId {
            id,
            conversation: Arc::clone(conversation),
            order: order(at, self.replica, id.seq()),
            seq: 0,
        })
    }

    /// Keeps in the store that `pings` pings went since the turn of
    /// `order`, the last `at`.
    pub(crate) async fn save_ping(
        &self,
        conversation: &str,
        order: &str,
        pings: u32,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let bytes = remote::encode_ping(&remote::StoredPing { pings, at });
        self.bounded(self.store.save_ping(conversation, order, &bytes))
            .await
    }

    /// This replica's name as a lease's owner.
    fn owner(&self) -> String {
        format!("{:016x}", self.replica)
    }

    async fn bounded<T>(&self, call: StoreFuture<'_, T>) -> Result<T, StoreError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(answer) => answer,
            Err(_) => Err(StoreError::Timeout(self.timeout)),
        }
    }

    async fn record(&self, prefix: Prefix, mut sent: Sent<'_>) -> SharedSentId {
        let conversation: Arc<str> = Arc::from(sent.conversation);
        let ttl = sent.ttl.unwrap_or(DEFAULT_TTL);
        let lifetime = ttl.saturating_add(self.margin);
        let loaded = self.bounded(self.store.load(&conversation)).await;
        let local = self.local().last_sent(&conversation);
        let from = self.previous(&conversation, loaded, local, sent.at, lifetime);
        let (id, bytes) = self
            .local()
            .record_with(prefix, &mut sent, from, self.replica);
        let order = order(sent.at, self.replica, id.seq());
        // A keep-alive ping is not a turn: the store keeps the last turn's
        // record, and the ping leaves it as it is.
        let saved = match bytes {
            Some(bytes) => {
                self.bounded(self.store.save(&conversation, &order, &bytes, lifetime))
                    .await
            }
            None => Ok(0),
        };
        let seq = match saved {
            Ok(seq) => seq,
            Err(error) => {
                tracing::warn!(conversation = &*conversation, %error, "the ledger's store kept no record");
                0
            }
        };
        self.local().set_shared_seq(id, seq);
        SharedSentId {
            id,
            conversation,
            order,
            seq,
        }
    }

    /// What the store's answer says of the previous request.
    fn previous(
        &self,
        conversation: &str,
        loaded: Result<Option<StoredEntry>, StoreError>,
        local: Option<(u64, Timestamp)>,
        at: Timestamp,
        lifetime: Duration,
    ) -> FromStore {
        let unknown = FromStore {
            previous: StorePrevious::Unknown,
            usage: None,
            never_cached: None,
            keep: None,
        };
        match loaded {
            Err(error) => {
                tracing::warn!(conversation, %error, "the ledger's store did not say the previous request");
                unknown
            }
            // Nothing stored: the conversation's first request, or its
            // record expired, or the store lost it. This replica knows
            // which when it sent one of the conversation's requests.
            Ok(None) => match local {
                Some((_, last)) => {
                    let gap = at.duration_since(last);
                    let expired = !gap.is_negative() && gap.unsigned_abs() > lifetime;
                    if expired {
                        // Past the record's lifetime: a TTL lapse, told
                        // by this replica's own record.
                        FromStore {
                            previous: StorePrevious::Local,
                            usage: None,
                            never_cached: None,
                            keep: None,
                        }
                    } else {
                        tracing::warn!(
                            conversation,
                            "the ledger's store lost the conversation's record (restarted?)"
                        );
                        unknown
                    }
                }
                None => FromStore {
                    previous: StorePrevious::None,
                    usage: None,
                    never_cached: Some(0),
                    keep: None,
                },
            },
            Ok(Some(entry)) => {
                let usage = entry.usage.as_deref().map(remote::decode_usage).transpose();
                match (remote::decode(&entry.record), usage) {
                    (Ok(decoded), Ok(usage)) => {
                        let own = decoded.writer == self.replica
                            && local.is_some_and(|(seq, _)| seq == decoded.writer_seq);
                        FromStore {
                            previous: if own {
                                StorePrevious::Local
                            } else {
                                StorePrevious::Remote(Box::new(decoded.record))
                            },
                            usage: usage.map(|u| u.received),
                            never_cached: Some(
                                usage.map_or(decoded.never_cached, |u| u.never_cached),
                            ),
                            keep: decoded.keep,
                        }
                    }
                    (Err(why), _) | (_, Err(why)) => {
                        tracing::warn!(
                            conversation,
                            why = why.0,
                            "the ledger's store holds a record it cannot read"
                        );
                        unknown
                    }
                }
            }
        }
    }
}

/// A conversation's keep-alive state as a shared store holds it, and what
/// its ping needs: the lease that names this refresh window (the last
/// turn's order and the pings since it) and the last turn to re-send.
pub(crate) struct KeepWindow {
    /// What keep-alive reads of it ([`crate::keepalive`] turns it into a
    /// `ConversationState`).
    pub(crate) raw: KeepRaw,
    pub(crate) order: String,
    pub(crate) lease: String,
    from: FromStore,
}

// Shared across tasks.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<SharedLedger>();
};

pub use redis_store::RedisStore;

mod redis_store {
    use std::sync::OnceLock;

    use redis::aio::{ConnectionManager, ConnectionManagerConfig};
    use redis::{Script, Value};

    use super::*;

    /// Counts the request; replaces the record when the order is newer
    /// (dropping the old usage); sets the expiry. An entry of another type
    /// (not one this ledger wrote) is replaced.
    const SAVE: &str = r"
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then redis.call('DEL', KEYS[1]) end
local seq = math.floor(tonumber(redis.call('HGET', KEYS[1], 's')) or 0) + 1
if seq < 1 or seq > 9007199254740991 then seq = 1 end
redis.call('HSET', KEYS[1], 's', seq)
local o = redis.call('HGET', KEYS[1], 'o')
if (not o) or o < ARGV[1] then
  redis.call('HSET', KEYS[1], 'o', ARGV[1], 'r', ARGV[2])
  redis.call('HDEL', KEYS[1], 'u', 'k')
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return seq
";

    /// The entry, unless it is not a hash (`{-1}`) or its record and usage
    /// are longer than ARGV[1] bytes (`{-2, bytes}`): never sent then.
    const LOAD: &str = r"
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return {} end
if t ~= 'hash' then return {-1} end
local n = redis.call('HSTRLEN', KEYS[1], 'r') + redis.call('HSTRLEN', KEYS[1], 'u')
  + redis.call('HSTRLEN', KEYS[1], 'k')
if n > tonumber(ARGV[1]) then return {-2, n} end
return redis.call('HMGET', KEYS[1], 's', 'r', 'u', 'k')
";

    /// Attaches field ARGV[3] (the usage `u`, the pings `k`) while the
    /// record is still the one of ARGV[1].
    const ATTACH: &str = r"
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end
if redis.call('HGET', KEYS[1], 'o') == ARGV[1] then
  redis.call('HSET', KEYS[1], ARGV[3], ARGV[2])
  return 1
end
return 0
";

    /// Extends the lease KEYS[1] to ARGV[2] ms while ARGV[1] holds it.
    const RENEW: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
";

    /// Drops the lease KEYS[1] while ARGV[1] holds it.
    const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

    /// A [`LedgerStore`] on Redis (or a server that speaks its protocol:
    /// Valkey, KeyDB): one hash per conversation under a key prefix, its
    /// fields written by Lua scripts, so each save is atomic and ordered;
    /// a keep-alive lease is a string key beside them (`<prefix>lease\0…`),
    /// taken with `SET NX PX` and renewed or dropped by a script that checks
    /// its owner first.
    ///
    /// It connects on first use and reconnects after the server goes away
    /// (redis-rs's `ConnectionManager`); a call made while it cannot reach
    /// the server fails, and the ledger's verdict says so.
    pub struct RedisStore {
        client: redis::Client,
        manager: OnceLock<ConnectionManager>,
        prefix: String,
        save: Script,
        load: Script,
        usage: Script,
        renew: Script,
        release: Script,
    }

    impl std::fmt::Debug for RedisStore {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("RedisStore")
                .field("prefix", &self.prefix)
                .field("connected", &self.manager.get().is_some())
                .finish_non_exhaustive()
        }
    }

    fn failed(error: redis::RedisError) -> StoreError {
        StoreError::Failed(error.to_string())
    }

    impl RedisStore {
        /// A store at `url` (`redis://host:port/db`, `rediss://` with TLS
        /// where redis-rs was built with it), keys under `prompt:ledger:`.
        /// Nothing is sent until the ledger's first call.
        ///
        /// # Errors
        /// [`StoreError::Address`] when `url` is not a Redis address.
        pub fn open(url: &str) -> Result<Self, StoreError> {
            let client = redis::Client::open(url).map_err(|e| StoreError::Address {
                url: url.to_owned(),
                reason: e.to_string(),
            })?;
            Ok(Self {
                client,
                manager: OnceLock::new(),
                prefix: "prompt:ledger:".to_owned(),
                save: Script::new(SAVE),
                load: Script::new(LOAD),
                usage: Script::new(ATTACH),
                renew: Script::new(RENEW),
                release: Script::new(RELEASE),
            })
        }

        /// The prefix of its keys (default `prompt:ledger:`): each
        /// conversation is one hash at the prefix and its id.
        pub fn prefix(mut self, prefix: &str) -> Self {
            self.prefix = prefix.to_owned();
            self
        }

        /// Whether the server answers a `PING` (unbounded: wrap it in a
        /// timeout of your own).
        ///
        /// # Errors
        /// [`StoreError::Failed`] when it does not.
        pub async fn ping(&self) -> Result<(), StoreError> {
            let mut connection = self.connection()?;
            redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
                .map(drop)
                .map_err(failed)
        }

        fn connection(&self) -> Result<ConnectionManager, StoreError> {
            if let Some(manager) = self.manager.get() {
                return Ok(manager.clone());
            }
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(Duration::from_secs(1)))
                .set_max_delay(Duration::from_secs(1));
            let manager = ConnectionManager::new_lazy_with_config(self.client.clone(), config)
                .map_err(failed)?;
            Ok(self.manager.get_or_init(|| manager).clone())
        }

        /// Attaches `bytes` to the record `order` of `conversation` under
        /// `field` (`u` its usage, `k` its keep-alive pings), through the
        /// script that leaves a newer record alone.
        fn attach<'a>(
            &'a self,
            conversation: &'a str,
            order: &'a str,
            bytes: &'a [u8],
            field: &'static str,
        ) -> StoreFuture<'a, ()> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                self.usage
                    .key(self.key(conversation))
                    .arg(order)
                    .arg(bytes)
                    .arg(field)
                    .invoke_async::<i64>(&mut connection)
                    .await
                    .map(drop)
                    .map_err(failed)
            })
        }

        fn key(&self, conversation: &str) -> String {
            format!("{}{conversation}", self.prefix)
        }

        fn lease_key(&self, lease: &str) -> String {
            format!("{}lease\0{lease}", self.prefix)
        }
    }

    /// Bytes of a reply, or none for nil.
    fn bytes(value: Value) -> Result<Option<Vec<u8>>, String> {
        match value {
            Value::Nil => Ok(None),
            Value::BulkString(bytes) => Ok(Some(bytes)),
            Value::SimpleString(text) => Ok(Some(text.into_bytes())),
            other => Err(format!("a reply of another kind: {other:?}")),
        }
    }

    impl LedgerStore for RedisStore {
        fn load<'a>(&'a self, conversation: &'a str) -> StoreFuture<'a, Option<StoredEntry>> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                let reply: Vec<Value> = self
                    .load
                    .key(self.key(conversation))
                    .arg(MAX_STORED_RECORD)
                    .invoke_async(&mut connection)
                    .await
                    .map_err(failed)?;
                let unreadable = |why: String| StoreError::Unreadable {
                    conversation: conversation.to_owned(),
                    why,
                };
                let mut reply = reply.into_iter();
                match (reply.next(), reply.next(), reply.next(), reply.next()) {
                    (None, ..) => Ok(None),
                    (Some(Value::Int(-1)), None, None, None) => {
                        Err(unreadable("a key of another type".into()))
                    }
                    (Some(Value::Int(-2)), Some(Value::Int(n)), None, None) => Err(unreadable(
                        format!("{n} bytes, more than the {MAX_STORED_RECORD} a record may hold"),
                    )),
                    (Some(seq), Some(record), Some(usage), Some(ping)) => {
                        let seq = bytes(seq)
                            .map_err(&unreadable)?
                            .and_then(|s| String::from_utf8(s).ok())
                            .and_then(|s| s.parse::<u64>().ok())
                            .unwrap_or(0);
                        match bytes(record).map_err(&unreadable)? {
                            // Counted, never saved: as good as none.
                            None => Ok(None),
                            Some(record) => Ok(Some(
                                StoredEntry::new(seq, record, bytes(usage).map_err(&unreadable)?)
                                    .ping(bytes(ping).map_err(&unreadable)?),
                            )),
                        }
                    }
                    _ => Err(unreadable("a reply this store does not make".into())),
                }
            })
        }

        fn save<'a>(
            &'a self,
            conversation: &'a str,
            order: &'a str,
            record: &'a [u8],
            expire: Duration,
        ) -> StoreFuture<'a, u64> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                let millis = u64::try_from(expire.as_millis()).unwrap_or(u64::MAX).max(1);
                self.save
                    .key(self.key(conversation))
                    .arg(order)
                    .arg(record)
                    .arg(millis)
                    .invoke_async::<u64>(&mut connection)
                    .await
                    .map_err(failed)
            })
        }

        fn save_usage<'a>(
            &'a self,
            conversation: &'a str,
            order: &'a str,
            usage: &'a [u8],
        ) -> StoreFuture<'a, ()> {
            self.attach(conversation, order, usage, "u")
        }

        fn save_ping<'a>(
            &'a self,
            conversation: &'a str,
            order: &'a str,
            ping: &'a [u8],
        ) -> StoreFuture<'a, ()> {
            self.attach(conversation, order, ping, "k")
        }

        fn lease<'a>(
            &'a self,
            key: &'a str,
            owner: &'a str,
            lifetime: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                let reply: Value = redis::cmd("SET")
                    .arg(self.lease_key(key))
                    .arg(owner)
                    .arg("NX")
                    .arg("PX")
                    .arg(millis(lifetime))
                    .query_async(&mut connection)
                    .await
                    .map_err(failed)?;
                Ok(!matches!(reply, Value::Nil))
            })
        }

        fn renew<'a>(
            &'a self,
            key: &'a str,
            owner: &'a str,
            lifetime: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                self.renew
                    .key(self.lease_key(key))
                    .arg(owner)
                    .arg(millis(lifetime))
                    .invoke_async::<i64>(&mut connection)
                    .await
                    .map(|n| n == 1)
                    .map_err(failed)
            })
        }

        fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut connection = self.connection()?;
                self.release
                    .key(self.lease_key(key))
                    .arg(owner)
                    .invoke_async::<i64>(&mut connection)
                    .await
                    .map(|n| n == 1)
                    .map_err(failed)
            })
        }
    }

    /// Whole milliseconds, at least one (Redis refuses a zero expiry).
    fn millis(lifetime: Duration) -> u64 {
        u64::try_from(lifetime.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_sort_as_their_times_bytewise() {
        let t = |s: i64| Timestamp::from_second(s).unwrap();
        let times = [t(-100_000), t(-1), t(0), t(1), t(1_800_000_000)];
        for pair in times.windows(2) {
            assert!(order(pair[0], 9, 1) < order(pair[1], 1, 1), "{pair:?}");
        }
        assert_eq!(
            order(t(5), 1, 2).len(),
            order(t(-5), u64::MAX, u64::MAX).len()
        );
        assert!(order(Timestamp::MIN, 0, 0) < order(Timestamp::MAX, 0, 0));
    }
}
