//! Sharding a key past the provider's per-key rate: a count of each key's
//! requests per minute, the shards that count needs, and each
//! conversation's shard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use jiff::Timestamp;
use prompt_core::fingerprint::Fingerprint;

use super::rates::{KeyRate, KeyedProvider};
use super::{AffinityKey, MAX_SHARDS};

/// How many one-minute windows a [`RecentRate`] holds: the minute in
/// progress and the 9 before it. The shard count is what the busiest of them
/// needed, so it grows within the minute the rate passes a step and shrinks
/// only after 10 quieter minutes (OpenAI keeps an in-memory prefix 5 to 10
/// minutes after its last use: a conversation moved off its shard sooner
/// would lose a cache that was still warm).
pub const RATE_WINDOWS: usize = 10;

/// A key's requests in the last [`RATE_WINDOWS`] fixed one-minute windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecentRate {
    /// The newest minute counted, in minutes since the Unix epoch.
    pub minute: i64,
    /// Requests per window: `counts[0]` the newest minute so far,
    /// `counts[i]` the minute `i` minutes before it.
    pub counts: [u32; RATE_WINDOWS],
}

impl RecentRate {
    /// The counts of the windows ending with `minute` (minutes since the
    /// Unix epoch), newest first: what a shared store read back.
    pub fn new(minute: i64, counts: [u32; RATE_WINDOWS]) -> Self {
        Self { minute, counts }
    }

    /// No request counted.
    pub fn none(minute: i64) -> Self {
        Self::new(minute, [0; RATE_WINDOWS])
    }

    /// The busiest window's count.
    pub fn peak(&self) -> u32 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

/// The minute `now` falls in, in minutes since the Unix epoch: the window a
/// request is counted in.
pub(crate) fn minute_of(now: Timestamp) -> i64 {
    now.as_second().div_euclid(60)
}

/// A rate store that did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RateError {
    /// The store could not count `key` (down, slow past its timeout,
    /// refused).
    #[error(
        "the rate store did not count key `{key}`: {reason}; this replica shards by its own \
         count until the store answers again (check the store's address and that it is up)"
    )]
    Unavailable {
        /// The key it was asked to count.
        key: String,
        /// What went wrong, in the store's words.
        reason: String,
    },
    /// A store address that is not one.
    #[error("`{url}` is not a rate store address: {reason}; give one as `redis://host:port/db`")]
    Address {
        /// The address given.
        url: String,
        /// Why it is not one.
        reason: String,
    },
}

impl RateError {
    /// The store could not count `key`, for `reason`.
    pub fn unavailable(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Unavailable {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Counts each key's requests in fixed one-minute windows.
///
/// The contract, for an implementation over a store the replicas share:
///
/// - [`record`](Self::record) counts one request of `key` in the window of
///   `now` (minutes since the Unix epoch, `now.as_second() / 60`, rounded
///   down) and returns the key's counts in that window and the
///   [`RATE_WINDOWS`]` - 1` before it, newest first, this request included.
///   A store keeps a counter per key and minute (`INCR` on
///   `<key>:<minute>` with an expiry of [`RATE_WINDOWS`] minutes, then
///   reading the last windows back, is one way), so every replica reads the
///   same counts and shards the same way.
/// - It is called once per request on the sending path, so it must be bounded
///   in time: a store that does not answer within its timeout returns
///   [`RateError`] and the [`Sharder`] shards by the replica's own count.
///   Never block indefinitely, never panic.
/// - It holds bounded memory: a key not seen for [`RATE_WINDOWS`] minutes
///   can be forgotten (its counts are all zero).
///
/// The trait is synchronous. An async server whose store is async can count
/// in its own task and give the counts to [`ShardPolicy::shards`] and
/// [`AffinityKey::shard`] itself: that arithmetic is pure.
pub trait RateTracker: Send + Sync {
    /// Counts one request of `key` at `now`; the key's recent counts.
    ///
    /// # Errors
    /// [`RateError`] when the store could not count it.
    fn record(&self, key: &str, now: Timestamp) -> Result<RecentRate, RateError>;
}

impl<T: RateTracker + ?Sized> RateTracker for &T {
    fn record(&self, key: &str, now: Timestamp) -> Result<RecentRate, RateError> {
        (**self).record(key, now)
    }
}

impl<T: RateTracker + ?Sized> RateTracker for Arc<T> {
    fn record(&self, key: &str, now: Timestamp) -> Result<RecentRate, RateError> {
        (**self).record(key, now)
    }
}

/// One key's windows in a [`LocalRateTracker`].
#[derive(Debug, Clone, Copy)]
struct Windows {
    minute: i64,
    counts: [u32; RATE_WINDOWS],
}

impl Windows {
    /// Moves the newest window forward to `minute` (never back).
    fn advance(&mut self, minute: i64) {
        let Some(step) = minute.checked_sub(self.minute).filter(|&s| s > 0) else {
            return;
        };
        match usize::try_from(step) {
            Ok(step) if step < RATE_WINDOWS => {
                self.counts.rotate_right(step);
                self.counts[..step].fill(0);
            }
            _ => self.counts = [0; RATE_WINDOWS],
        }
        self.minute = minute;
    }

    /// Counts one request in `minute`'s window: the newest, or an older one
    /// for a clock a little behind another replica's; none older than the
    /// windows kept.
    fn count(&mut self, minute: i64) -> RecentRate {
        self.advance(minute);
        let back = self.minute.checked_sub(minute).unwrap_or(i64::MAX);
        if let Some(window) = usize::try_from(back)
            .ok()
            .and_then(|back| self.counts.get_mut(back))
        {
            *window = window.saturating_add(1);
        }
        RecentRate::new(self.minute, self.counts)
    }
}

/// The in-process [`RateTracker`]: one [`RATE_WINDOWS`]-minute window per
/// key, at most [`capacity`](Self::capacity) keys (10,000 by default; a key
/// holds its text and ten counters, some 150 bytes). When a new key finds it
/// full, keys idle for [`RATE_WINDOWS`] minutes are dropped first, then the
/// one seen least recently. Right for one replica; N replicas behind a load
/// balancer each see about 1/N of a key's rate, so they shard late unless
/// they share a store.
///
/// ```
/// use jiff::Timestamp;
/// use prompt_providers::affinity::{LocalRateTracker, RateTracker};
///
/// let tracker = LocalRateTracker::new();
/// let t0 = Timestamp::from_second(1_800_000_000)?;
/// for _ in 0..3 {
///     tracker.record("agent-0123456789abcdef", t0)?;
/// }
/// let later = tracker.record("agent-0123456789abcdef", t0 + jiff::SignedDuration::from_secs(60))?;
/// assert_eq!(later.counts[..2], [1, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct LocalRateTracker {
    keys: Mutex<HashMap<String, Windows>>,
    capacity: usize,
}

impl Default for LocalRateTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalRateTracker {
    /// A tracker of at most 10,000 keys.
    pub fn new() -> Self {
        Self {
            keys: Mutex::new(HashMap::new()),
            capacity: 10_000,
        }
    }

    /// At most `keys` keys (at least 1).
    pub fn capacity(mut self, keys: usize) -> Self {
        self.capacity = keys.max(1);
        self
    }

    /// How many keys it holds now.
    pub fn len(&self) -> usize {
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RateTracker for LocalRateTracker {
    fn record(&self, key: &str, now: Timestamp) -> Result<RecentRate, RateError> {
        let minute = minute_of(now);
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(windows) = keys.get_mut(key) {
            return Ok(windows.count(minute));
        }
        if keys.len() >= self.capacity {
            let idle_before = minute.saturating_sub(RATE_WINDOWS as i64);
            keys.retain(|_, windows| windows.minute > idle_before);
        }
        if keys.len() >= self.capacity {
            // The least recently seen, the key breaking ties: the same
            // choice whatever the map's order.
            let oldest = keys
                .iter()
                .min_by(|a, b| (a.1.minute, a.0).cmp(&(b.1.minute, b.0)))
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                keys.remove(&oldest);
            }
        }
        let mut windows = Windows {
            minute,
            counts: [0; RATE_WINDOWS],
        };
        let rate = windows.count(minute);
        keys.insert(key.to_owned(), windows);
        Ok(rate)
    }
}

/// How many shards a key needs for its recent rate.
///
/// `ceil(peak / per_minute)`, at least 1 and at most
/// [`max_shards`](Self::max_shards), where the peak is the busiest of the
/// last [`RATE_WINDOWS`] minutes: 15 a minute is one shard at OpenAI, 16 is
/// two, 46 is four. A provider with no published rate
/// ([`KeyRate::per_minute`] `None`) is never sharded.
///
/// ```
/// use prompt_providers::affinity::{KeyedProvider, RecentRate, ShardPolicy, RATE_WINDOWS};
///
/// let openai = ShardPolicy::for_provider(KeyedProvider::OpenAi);
/// let mut counts = [0; RATE_WINDOWS];
/// counts[3] = 46; // three minutes ago
/// assert_eq!(openai.shards(&RecentRate::new(29_000_000, counts)), 4);
/// assert_eq!(ShardPolicy::for_provider(KeyedProvider::Xai).shards(&RecentRate::new(0, counts)), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShardPolicy {
    /// Requests a minute one shard carries; `None`: never shard.
    pub per_minute: Option<u32>,
    /// The most shards (1 to [`MAX_SHARDS`]).
    pub max_shards: u32,
}

impl ShardPolicy {
    /// `provider`'s per-key rate from [`KeyRate`], up to [`MAX_SHARDS`].
    pub fn for_provider(provider: KeyedProvider) -> Self {
        Self::new(KeyRate::of(provider).per_minute)
    }

    /// Shards of `per_minute` requests a minute each (`None` or 0: never
    /// shard), up to [`MAX_SHARDS`].
    pub fn new(per_minute: Option<u32>) -> Self {
        Self {
            per_minute: per_minute.filter(|&rate| rate > 0),
            max_shards: MAX_SHARDS,
        }
    }

    /// At most `shards` shards (clamped to `1..=`[`MAX_SHARDS`]).
    pub fn max_shards(mut self, shards: u32) -> Self {
        self.max_shards = shards.clamp(1, MAX_SHARDS);
        self
    }

    /// The shards `rate` needs.
    pub fn shards(&self, rate: &RecentRate) -> u32 {
        match self.per_minute {
            Some(per_minute) if per_minute > 0 => rate
                .peak()
                .div_ceil(per_minute)
                .clamp(1, self.max_shards.clamp(1, MAX_SHARDS)),
            _ => 1,
        }
    }
}

/// The shard of `conversation` among `shards` (at least 1): a jump
/// consistent hash (Lamping and Veach, 2014) of the first 8 bytes of the
/// id's SHA-256, the same in every process. While the count holds, a
/// conversation keeps its shard; when it grows from `n` to `n + 1`, a
/// conversation either keeps its shard or moves to the new one, `n` (about
/// one in `n + 1` move, where a plain modulo would move most).
///
/// ```
/// use prompt_providers::affinity::shard_of;
///
/// assert_eq!(shard_of("c-42", 1), 0);
/// let s = shard_of("c-42", 4);
/// assert!(s < 4);
/// assert_eq!(shard_of("c-42", 4), s);
/// assert!([s, 4].contains(&shard_of("c-42", 5)));
/// ```
pub fn shard_of(conversation: &str, shards: u32) -> u32 {
    let digest = Fingerprint::of(conversation);
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest.as_bytes()[..8]);
    jump(u64::from_be_bytes(head), shards.max(1))
}

/// Jump consistent hash: a bucket in `0..buckets` for `key`.
fn jump(mut key: u64, buckets: u32) -> u32 {
    let buckets = i64::from(buckets);
    let (mut bucket, mut next) = (-1i64, 0i64);
    while next < buckets {
        bucket = next;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        let scale = (1u64 << 31) as f64 / ((key >> 33) + 1) as f64;
        next = ((bucket + 1) as f64 * scale) as i64;
    }
    u32::try_from(bucket).unwrap_or(0)
}

/// Counts each key's requests and shards the key a conversation sends.
///
/// [`key`](Self::key) counts the request under the key's base in its
/// [`RateTracker`], asks the [`ShardPolicy`] how many shards the key needs
/// now, and returns the key as the conversation's shard. A shared tracker
/// that does not answer ([`RateError`]) is logged as a `tracing` warning and
/// the replica's own count decides (a [`LocalRateTracker`] kept beside it);
/// the request is never held up.
///
/// ```
/// use jiff::Timestamp;
/// use prompt_providers::affinity::{AffinityKey, KeyedProvider, ShardPolicy, Sharder};
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocSharder;
/// # #[prompt_layer(priority = 1, stability = Stable, scope = Project, paths = [Cached], text = "Run make check.", pipeline = DocSharder)]
/// # struct Agents;
/// # let pipeline = Pipeline::of::<DocSharder>()?;
/// # let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
/// let sharder = Sharder::new(ShardPolicy::for_provider(KeyedProvider::OpenAi));
/// let key = AffinityKey::of(&prompt);
/// let now = Timestamp::from_second(1_800_000_000)?;
///
/// // 15 requests in a minute: one key, as it was.
/// for n in 0..15 {
///     assert_eq!(sharder.key(&key, &format!("c-{n}"), now), key);
/// }
/// // The 16th needs a second shard: about half the conversations move to `-s1`.
/// let sharded = sharder.key(&key, "c-15", now);
/// assert_eq!(sharded.shard_count(), 2);
/// assert_eq!(sharded.base(), key.as_str());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Sharder<T = LocalRateTracker> {
    policy: ShardPolicy,
    tracker: T,
    /// The replica's own count, for when a shared tracker does not answer.
    fallback: Option<LocalRateTracker>,
}

impl Sharder<LocalRateTracker> {
    /// Shards by `policy`, counting in this process.
    pub fn new(policy: ShardPolicy) -> Self {
        Self {
            policy,
            tracker: LocalRateTracker::new(),
            fallback: None,
        }
    }
}

impl<T: RateTracker> Sharder<T> {
    /// Shards by `policy`, counting in `tracker` (a store every replica
    /// shares), with this replica's own count when it does not answer.
    pub fn shared(policy: ShardPolicy, tracker: T) -> Self {
        Self {
            policy,
            tracker,
            fallback: Some(LocalRateTracker::new()),
        }
    }

    /// The policy.
    pub fn policy(&self) -> ShardPolicy {
        self.policy
    }

    /// The tracker.
    pub fn tracker(&self) -> &T {
        &self.tracker
    }

    /// Counts one request of `conversation` under `key` at `now` and
    /// returns the key it sends: `key`'s base as the conversation's shard of
    /// as many as the key's recent rate needs. With no per-key rate the
    /// base is returned and nothing is counted.
    pub fn key(&self, key: &AffinityKey, conversation: &str, now: Timestamp) -> AffinityKey {
        if self.policy.per_minute.is_none() {
            return key.shard(conversation, 1);
        }
        let base = key.base();
        let own = self.fallback.as_ref().map(|local| local.record(base, now));
        let rate = match self.tracker.record(base, now) {
            Ok(rate) => rate,
            Err(error) => {
                tracing::warn!(target: "prompt_providers::affinity", %error, "rate store unavailable");
                match own {
                    Some(Ok(rate)) => rate,
                    _ => RecentRate::none(minute_of(now)),
                }
            }
        };
        key.shard(conversation, self.policy.shards(&rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + second).unwrap()
    }

    #[test]
    fn windows_slide_by_minute_and_forget_after_the_last() {
        let tracker = LocalRateTracker::new();
        for _ in 0..4 {
            tracker.record("k", at(0)).unwrap();
        }
        let rate = tracker.record("k", at(125)).unwrap();
        assert_eq!(rate.counts[..3], [1, 0, 4]);
        assert_eq!(rate.peak(), 4);
        let rate = tracker
            .record("k", at(60 * RATE_WINDOWS as i64 + 120))
            .unwrap();
        assert_eq!(rate.peak(), 1, "{rate:?}");
    }

    #[test]
    fn a_clock_behind_counts_in_its_own_window_and_never_moves_back() {
        let tracker = LocalRateTracker::new();
        tracker.record("k", at(120)).unwrap();
        let rate = tracker.record("k", at(0)).unwrap();
        assert_eq!(rate.minute, minute_of(at(120)));
        assert_eq!(rate.counts[..3], [1, 0, 1]);
        let far = tracker.record("k", at(-3_600)).unwrap();
        assert_eq!(far.counts[..3], [1, 0, 1], "too old to count");
    }

    #[test]
    fn memory_is_bounded_and_the_least_recent_key_goes_first() {
        let tracker = LocalRateTracker::new().capacity(3);
        tracker.record("a", at(0)).unwrap();
        tracker.record("b", at(60)).unwrap();
        tracker.record("c", at(120)).unwrap();
        tracker.record("d", at(180)).unwrap();
        assert_eq!(tracker.len(), 3);
        // `a` went: counting it again starts from one.
        assert_eq!(tracker.record("a", at(180)).unwrap().peak(), 1);
        // Idle keys all go before a recent one.
        tracker
            .record("e", at(60 * (RATE_WINDOWS as i64 + 10)))
            .unwrap();
        assert_eq!(tracker.len(), 1);
    }

    #[test]
    fn the_policy_rounds_up_and_stays_within_its_bounds() {
        let policy = ShardPolicy::new(Some(15));
        let rate = |peak| RecentRate::new(0, [peak, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(policy.shards(&rate(0)), 1);
        assert_eq!(policy.shards(&rate(15)), 1);
        assert_eq!(policy.shards(&rate(16)), 2);
        assert_eq!(policy.shards(&rate(u32::MAX)), MAX_SHARDS);
        assert_eq!(policy.max_shards(3).shards(&rate(1_000)), 3);
        assert_eq!(ShardPolicy::new(Some(0)).shards(&rate(1_000)), 1);
        assert_eq!(ShardPolicy::new(None).shards(&rate(1_000)), 1);
    }

    #[test]
    fn conversations_spread_evenly_and_growth_moves_few() {
        let ids: Vec<String> = (0..10_000).map(|n| format!("conversation-{n}")).collect();
        let mut per_shard = [0u32; 4];
        for id in &ids {
            per_shard[shard_of(id, 4) as usize] += 1;
        }
        assert!(
            per_shard.iter().all(|&n| (2_250..=2_750).contains(&n)),
            "{per_shard:?}"
        );
        let moved = ids
            .iter()
            .filter(|id| shard_of(id, 4) != shard_of(id, 5))
            .count();
        // About one in five moves (to the new shard), where a modulo moves most.
        assert!((1_800..=2_200).contains(&moved), "{moved}");
    }
}
