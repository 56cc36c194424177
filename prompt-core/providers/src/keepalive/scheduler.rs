//! A keep-alive scheduler for tokio servers (feature `tokio`).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;

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
    ledger: Arc<Mutex<CacheLedger>>,
    policy: KeepAlive,
    send: F,
    origin: (tokio::time::Instant, Timestamp),
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
}

impl<F, Fut, E> Scheduler<F>
where
    F: Fn(Arc<str>) -> Fut,
    Fut: Future<Output = Result<CacheUsage, E>>,
{
    /// A scheduler of `policy`'s pings over `ledger`'s conversations, sent
    /// with `send`; its clock reads [`Timestamp::now`] now.
    pub fn new(ledger: Arc<Mutex<CacheLedger>>, policy: KeepAlive, send: F) -> Self {
        Self {
            ledger,
            policy,
            send,
            origin: (tokio::time::Instant::now(), Timestamp::now()),
        }
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
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
