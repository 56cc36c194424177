//! The ledger's conversations as keep-alive reads them.

use std::sync::Arc;

use super::{ConversationState, Decision, KeepAlive, Ping};
use crate::observe::CacheLedger;
use crate::observe::KeepRaw;
use jiff::Timestamp;

/// A conversation whose decision is a ping, and the ping.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DuePing {
    /// The conversation ([`Sent::conversation`](crate::observe::Sent::conversation)).
    pub conversation: Arc<str>,
    /// When and why.
    pub ping: Ping,
}

impl CacheLedger {
    /// What [`KeepAlive::decide`] reads of `conversation`: its last real
    /// turn, the gaps between its turns (pings left out), the pings since
    /// that turn and the last one's time, the TTL, price and minimum of its
    /// last turn, and the prefix that turn cached (what its response read
    /// and wrote, or the prefix's estimate before the response is back).
    ///
    /// `None` when the ledger holds no turn of it, or no price for it
    /// ([`Sent::pricing`](crate::observe::Sent::pricing),
    /// [`CacheLedger::pricing`]).
    pub fn keep_alive_state(&self, conversation: &str) -> Option<ConversationState> {
        ConversationState::from_raw(self.keep_raw(conversation)?)
    }

    /// Every conversation whose decision under `policy` is a ping, the
    /// soonest first (ties by conversation).
    pub fn pings(&self, policy: &KeepAlive) -> Vec<DuePing> {
        let mut out: Vec<DuePing> = self
            .conversation_keys()
            .filter_map(|key| {
                let state = self.keep_alive_state(key)?;
                match policy.decide(&state) {
                    Decision::Ping(ping) => Some(DuePing {
                        conversation: Arc::clone(key),
                        ping,
                    }),
                    Decision::Decline(_) => None,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            a.ping
                .at
                .cmp(&b.ping.at)
                .then_with(|| a.conversation.cmp(&b.conversation))
        });
        out
    }

    /// The pings due `now`: their time has come and their entry has not
    /// expired (a ping after expiry writes the prefix, which the next turn
    /// would do anyway).
    pub fn due(&self, now: Timestamp, policy: &KeepAlive) -> Vec<DuePing> {
        let mut pings = self.pings(policy);
        pings.retain(|due| due.ping.at <= now && now < due.ping.expires);
        pings
    }
}

impl ConversationState {
    /// The state of a conversation as a ledger or a shared store reads it:
    /// `None` without a price.
    pub(crate) fn from_raw(raw: KeepRaw) -> Option<Self> {
        let mut state =
            ConversationState::new(raw.last_turn, raw.ttl, raw.prefix_tokens, raw.pricing?)
                .refreshed(raw.refreshed)
                .gaps(raw.gaps)
                .pings_since_turn(raw.pings_since_turn);
        state.minimum = raw.minimum;
        Some(state)
    }
}
