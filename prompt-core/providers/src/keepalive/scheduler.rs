//! A keep-alive scheduler for tokio servers (feature `tokio`).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;

#[cfg(feature = "redis")]
use super::{ConversationState, Decision};
use super::{DuePing, KeepAlive};
use crate::observe::{CacheLedger, CacheUsage, CacheVerdict, LedgerError};

/// Sends each ping the policy decides on, when it is due, and records it
/// in the shared ledger as a keep-alive ([`CacheLedger::sent_keep_alive`],
/// then [`received`](CacheLedger::received) with the usage that came
/// back). A conversation whose decision is a decline gets no ping, so the
/// scheduler stops for it until its next turn.
///
/// `send` builds and sends the refresh of a conversation's last request
/// ([`MessagesRequest::refresh`](crate::anthropic::MessagesRequest::refresh)),
/// returning its usage. The ledger's lock is never held across it.
///
/// Time is tokio's (`tokio::time::Instant`), read as a [`Timestamp`] from
/// the moment the scheduler was made ([`origin`](Self::origin) moves that
/// moment): under `#[tokio::test(start_paused = true)]` the pings go at
/// their times without a real second passing.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use prompt_providers::keepalive::{KeepAlive, Scheduler};
/// use prompt_providers::observe::{CacheLedger, CacheUsage, Timestamp};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let ledger = Arc::new(Mutex::new(CacheLedger::new()));
/// let scheduler = Scheduler::new(Arc::clone(&ledger), KeepAlive::new(), |conversation| async move {
///     // Send the conversation's refresh here and read its usage back.
///     Ok::<_, std::io::Error>(CacheUsage::new(0, 4_000, 0))
/// });
/// // Nothing in the ledger: nothing to ping.
/// assert!(scheduler.next_ping().is_none());
/// assert!(scheduler.step().await.is_empty());
/// # }
/// ```
pub struct Scheduler<F> {
    ledger: Source,
    policy: KeepAlive,
    send: F,
    origin: (tokio::time::Instant, Timestamp),
    /// The longest a lease is held (shared ledgers only).
    lease_cap: Option<Duration>,
    /// Leases another replica held (or the store did not grant): not tried
    /// again before the time given.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    held: Mutex<std::collections::HashMap<String, Timestamp>>,
}

/// Where the scheduler reads its conversations.
enum Source {
    Local(Arc<Mutex<CacheLedger>>),
    #[cfg(feature = "redis")]
    Shared(Arc<crate::observe::SharedLedger>),
}

/// A ping the scheduler sent, and what came of it.
#[derive(Debug)]
#[non_exhaustive]
pub struct PingSent<E> {
    /// The conversation and the decision that sent it.
    pub due: DuePing,
    /// The ping's verdict (a refresh, or a failed keep-alive), or why none.
    pub outcome: Result<CacheVerdict, PingError<E>>,
}

/// Why a ping has no verdict.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PingError<E> {
    /// The sender failed: the ping counts toward the cap all the same.
    #[error("the keep-alive ping could not be sent")]
    Send(#[source] E),
    /// The ledger no longer holds the conversation (evicted).
    #[error("the ledger no longer holds the conversation: its next turn starts it again")]
    Forgotten,
    /// The ledger refused the usage.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// Another replica holds this ping's lease: it sends the ping, this
    /// one does not.
    #[error("another replica holds this keep-alive ping's lease and sends it")]
    Leased,
    /// The shared store did not grant the lease (down, slow): no replica
    /// can be known to own the ping, so this one does not send it.
    #[cfg(feature = "redis")]
    #[error("the ledger's store granted no lease for the ping, so none was sent")]
    Store(#[source] crate::observe::StoreError),
}

impl<F, Fut, E> Scheduler<F>
where
    F: Fn(Arc<str>) -> Fut,
    Fut: Future<Output = Result<CacheUsage, E>>,
{
    /// A scheduler of `policy`'s pings over `ledger`'s conversations, sent
    /// with `send`; its clock reads [`Timestamp::now`] now.
    pub fn new(ledger: Arc<Mutex<CacheLedger>>, policy: KeepAlive, send: F) -> Self {
        Self::of(Source::Local(ledger), policy, send)
    }

    /// A scheduler of `policy`'s pings over a ledger that replicas share
    /// (feature `redis`): it judges each conversation this replica has met
    /// from the store's state (the last turn's time, TTL, prefix, gaps and
    /// the pings since it, whichever replica sent them), and sends a ping
    /// only under the store's lease for that refresh, so N replicas send
    /// one. A store that does not answer means no ping (docs/serving.md,
    /// "One keep-alive owner").
    ///
    /// `send` must build the refresh from the conversation's last request
    /// as the application keeps it: another replica may have sent it.
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn shared(ledger: Arc<crate::observe::SharedLedger>, policy: KeepAlive, send: F) -> Self {
        Self::of(Source::Shared(ledger), policy, send)
    }

    fn of(ledger: Source, policy: KeepAlive, send: F) -> Self {
        Self {
            ledger,
            policy,
            send,
            origin: (tokio::time::Instant::now(), Timestamp::now()),
            lease_cap: None,
            held: Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// The longest a replica holds a ping's lease (shared ledgers only;
    /// default: half the time left before the entry expires, which is
    /// always the bound). A replica that dies holding it hands the ping on
    /// once it lapses.
    pub fn lease_lifetime(mut self, longest: Duration) -> Self {
        self.lease_cap = Some(longest);
        self
    }

    /// Reads tokio's present instant as `now` (a test's simulated clock).
    pub fn origin(mut self, now: Timestamp) -> Self {
        self.origin = (tokio::time::Instant::now(), now);
        self
    }

    /// The time now, on the scheduler's clock.
    pub fn now(&self) -> Timestamp {
        let elapsed = tokio::time::Instant::now().saturating_duration_since(self.origin.0);
        jiff::SignedDuration::try_from(elapsed)
            .ok()
            .and_then(|elapsed| self.origin.1.checked_add(elapsed).ok())
            .unwrap_or(Timestamp::MAX)
    }

    /// The soonest ping the policy decides on, if any.
    pub fn next_ping(&self) -> Option<DuePing> {
        self.lock().pings(&self.policy).into_iter().next()
    }

    /// Sleeps until the soonest ping is due, then sends every ping due
    /// then, one after the other, and records each. Empty, at once, when no
    /// conversation's decision is a ping.
    pub async fn step(&self) -> Vec<PingSent<E>> {
        #[cfg(feature = "redis")]
        if let Source::Shared(shared) = &self.ledger {
            return self.step_shared(shared).await;
        }
        let Some(next) = self.next_ping() else {
            return Vec::new();
        };
        let wait = next
            .ping
            .at
            .duration_since(self.now())
            .try_into()
            .unwrap_or(Duration::ZERO);
        tokio::time::sleep(wait).await;
        let due = self.lock().due(self.now(), &self.policy);
        let mut out = Vec::with_capacity(due.len());
        for due in due {
            let at = self.now();
            let Some(id) = self.lock().sent_keep_alive(&due.conversation, at) else {
                out.push(PingSent {
                    due,
                    outcome: Err(PingError::Forgotten),
                });
                continue;
            };
            let outcome = match (self.send)(Arc::clone(&due.conversation)).await {
                Ok(usage) => self.lock().received(id, &usage).map_err(PingError::from),
                Err(error) => Err(PingError::Send(error)),
            };
            out.push(PingSent { due, outcome });
        }
        out
    }

    /// Runs [`step`](Self::step) until no conversation's decision is a
    /// ping, and returns every ping sent. A server that keeps taking turns
    /// calls `step` in its own loop instead, woken when a turn is recorded.
    pub async fn run_until_idle(&self) -> Vec<PingSent<E>> {
        let mut all = Vec::new();
        loop {
            let sent = self.step().await;
            if sent.is_empty() {
                return all;
            }
            all.extend(sent);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheLedger> {
        match &self.ledger {
            Source::Local(ledger) => ledger.lock().unwrap_or_else(PoisonError::into_inner),
            #[cfg(feature = "redis")]
            Source::Shared(shared) => shared.local(),
        }
    }

    /// When a lease that was not granted may be tried again.
    #[cfg(feature = "redis")]
    fn held_until(&self, lease: &str) -> Option<Timestamp> {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(lease)
            .copied()
    }

    #[cfg(feature = "redis")]
    fn hold(&self, lease: String, until: Timestamp) {
        let now = self.now();
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|_, &mut t| t > now);
        held.insert(lease, until);
    }

    /// [`step`](Self::step) over a shared ledger.
    #[cfg(feature = "redis")]
    async fn step_shared(&self, shared: &crate::observe::SharedLedger) -> Vec<PingSent<E>> {
        let keys: Vec<Arc<str>> = self.lock().conversation_keys().cloned().collect();
        // The soonest ping the store's state decides on; a conversation
        // the store does not answer for gets none.
        let mut soonest: Option<Timestamp> = None;
        for key in &keys {
            if let Ok(Some(window)) = shared.keep_window(key).await
                && let Some(state) = ConversationState::from_raw(window.raw)
                && let Decision::Ping(ping) = self.policy.decide(&state)
            {
                let at = self
                    .held_until(&window.lease)
                    .map_or(ping.at, |t| t.max(ping.at));
                soonest = Some(soonest.map_or(at, |s| s.min(at)));
            }
        }
        let Some(next) = soonest else {
            return Vec::new();
        };
        let wait = next
            .duration_since(self.now())
            .try_into()
            .unwrap_or(Duration::ZERO);
        tokio::time::sleep(wait).await;
        let now = self.now();
        let mut out = Vec::new();
        for key in keys {
            // Read again: another replica may have pinged, or a turn come.
            let Ok(Some(window)) = shared.keep_window(&key).await else {
                continue;
            };
            let Some(state) = ConversationState::from_raw(window.raw) else {
                continue;
            };
            let Decision::Ping(ping) = self.policy.decide(&state) else {
                continue;
            };
            if !(ping.at <= now && now < ping.expires)
                || self.held_until(&window.lease).is_some_and(|t| t > now)
            {
                continue;
            }
            let left: Duration = ping
                .expires
                .duration_since(now)
                .try_into()
                .unwrap_or(Duration::ZERO);
            let mut lifetime = (left / 2).max(Duration::from_millis(1));
            if let Some(cap) = self.lease_cap {
                lifetime = lifetime.min(cap.max(Duration::from_millis(1)));
            }
            let retry = now
                .checked_add(jiff::SignedDuration::try_from(lifetime).unwrap_or_default())
                .unwrap_or(Timestamp::MAX);
            let due = DuePing {
                conversation: Arc::clone(&key),
                ping,
            };
            match shared.take_lease(&window, lifetime).await {
                Ok(true) => {}
                Ok(false) => {
                    self.hold(window.lease.clone(), retry);
                    out.push(PingSent {
                        due,
                        outcome: Err(PingError::Leased),
                    });
                    continue;
                }
                Err(error) => {
                    self.hold(window.lease.clone(), retry);
                    out.push(PingSent {
                        due,
                        outcome: Err(PingError::Store(error)),
                    });
                    continue;
                }
            }
            // This replica owns the window's ping: it does not try it
            // again, even if the store keeps no count of it.
            self.hold(window.lease.clone(), ping.expires);
            let (order, lease) = (window.order.clone(), window.lease.clone());
            let pings = state.pings_since_turn.saturating_add(1);
            let Some(id) = shared.sent_keep_alive(&key, window, now) else {
                let _ = shared.release_lease_named(&lease).await;
                out.push(PingSent {
                    due,
                    outcome: Err(PingError::Forgotten),
                });
                continue;
            };
            let sent = (self.send)(Arc::clone(&key)).await;
            // Counted whether or not it was sent (the cap counts it).
            if let Err(error) = shared.save_ping(&key, &order, pings, now).await {
                tracing::warn!(conversation = &*key, %error, "the ledger's store kept no count of the ping");
            }
            let outcome = match sent {
                Ok(usage) => shared.received(&id, &usage).await.map_err(PingError::from),
                Err(error) => Err(PingError::Send(error)),
            };
            out.push(PingSent { due, outcome });
        }
        out
    }
}
