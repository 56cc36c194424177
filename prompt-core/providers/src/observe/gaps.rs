//! The gaps between a conversation's turns, the last few, in a fixed ring.

use std::fmt;
use std::time::Duration;

/// How many gaps a [`TurnGaps`] keeps: the newest 16, the oldest forgotten.
pub const GAPS_KEPT: usize = 16;

/// The time between a conversation's turns (one request sent and the next),
/// the newest [`GAPS_KEPT`] of them, each in whole seconds (at most
/// `u32::MAX`, 136 years): 68 bytes, whatever the conversation's length.
///
/// Keep-alive pings are not turns: the ledger records a gap between two
/// real turns only ([`CacheLedger::keep_alive_state`](super::CacheLedger::keep_alive_state)).
///
/// ```
/// use std::time::Duration;
/// use prompt_providers::observe::{TurnGaps, GAPS_KEPT};
///
/// let mut gaps = TurnGaps::new();
/// gaps.push(Duration::from_secs(90));
/// gaps.push(Duration::from_millis(360_400)); // kept as 360 s
/// assert_eq!(gaps.longest(), Some(Duration::from_secs(360)));
/// for _ in 0..40 {
///     gaps.push(Duration::from_secs(5));
/// }
/// assert_eq!(gaps.len(), GAPS_KEPT);
/// assert_eq!(gaps.longest(), Some(Duration::from_secs(5)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnGaps {
    seconds: [u32; GAPS_KEPT],
    len: u8,
    /// Where the next gap goes once the ring is full.
    next: u8,
}

impl TurnGaps {
    /// No gaps yet.
    pub const fn new() -> Self {
        Self {
            seconds: [0; GAPS_KEPT],
            len: 0,
            next: 0,
        }
    }

    /// Records `gap`, in whole seconds (rounded down, at most `u32::MAX`),
    /// forgetting the oldest when [`GAPS_KEPT`] are held.
    pub fn push(&mut self, gap: Duration) {
        let seconds = u32::try_from(gap.as_secs()).unwrap_or(u32::MAX);
        let len = usize::from(self.len);
        if len < GAPS_KEPT {
            self.seconds[len] = seconds;
            self.len += 1;
        } else {
            let next = usize::from(self.next);
            self.seconds[next] = seconds;
            self.next = ((next + 1) % GAPS_KEPT) as u8;
        }
    }

    /// How many gaps it holds.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether it holds none (the conversation has had one turn at most).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The gaps, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = Duration> + '_ {
        let len = self.len();
        let start = if len < GAPS_KEPT {
            0
        } else {
            usize::from(self.next)
        };
        (0..len).map(move |i| Duration::from_secs(u64::from(self.seconds[(start + i) % GAPS_KEPT])))
    }

    /// The longest gap held, `None` when it holds none.
    pub fn longest(&self) -> Option<Duration> {
        self.iter().max()
    }
}

impl FromIterator<Duration> for TurnGaps {
    /// The last [`GAPS_KEPT`] of `gaps`.
    fn from_iter<I: IntoIterator<Item = Duration>>(gaps: I) -> Self {
        let mut out = Self::new();
        for gap in gaps {
            out.push(gap);
        }
        out
    }
}

impl fmt::Debug for TurnGaps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|gap| gap.as_secs()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_newest_in_order() {
        let gaps: TurnGaps = (1..=20).map(Duration::from_secs).collect();
        let kept: Vec<u64> = gaps.iter().map(|g| g.as_secs()).collect();
        assert_eq!(kept, (5..=20).collect::<Vec<_>>());
        assert_eq!(format!("{gaps:?}").split(',').count(), GAPS_KEPT);
    }

    #[test]
    fn a_gap_past_u32_seconds_saturates() {
        let gaps: TurnGaps = [Duration::from_secs(u64::MAX)].into_iter().collect();
        assert_eq!(
            gaps.longest(),
            Some(Duration::from_secs(u64::from(u32::MAX)))
        );
    }
}
