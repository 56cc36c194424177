//! One run's counter: each distinct piece of text counted once, and the
//! counter's work bounded.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use super::{ApproxCounter, TokenCounter};

/// A counter for one run that counts each distinct piece of text once and
/// bounds what the counter it wraps is given.
///
/// A tool that prices a team's prompts, a session's turns or every prefix
/// of one prompt counts texts that share almost all of their lines. Through
/// a `Memoized` counter, each text is cut where the wrapped counter says its
/// count adds up ([`TokenCounter::cuts`]: line starts for the exact
/// encodings), and each piece is counted once: a hundred teammates whose
/// prompts differ in one line cost one count of the shared text and a
/// hundred counts of that line. The counts are the wrapped counter's, piece
/// by piece, so they equal the counts of the whole texts.
///
/// **The budget.** The wrapped counter is given at most
/// [`budget`](Self::with_budget) bytes over the run (each piece costs its
/// length plus [`PIECE_COST`](Self::PIECE_COST)); [`DEFAULT_BUDGET`](Self::DEFAULT_BUDGET)
/// is 1 MiB, which an exact encoder counts in about a second in a debug
/// build whatever the text. A piece that does not fit is *estimated*: its
/// [`ApproxCounter`] count, scaled by the ratio of exact to approximate
/// tokens over everything counted exactly before it (1 when nothing was).
/// From the first estimate on, every new piece is estimated, so one text
/// always gets one count in a run. [`stats`](Self::stats) says how much
/// was estimated, for a report to say so; the first estimate also logs a
/// warning (target `prompt_core::tokens`).
///
/// What it remembers is bounded too: the pieces counted exactly (at most
/// the budget's worth), and estimated pieces up to as much again; an
/// estimate that is not remembered is computed again, to the same value.
/// The memory is keyed by the text itself (hashed with a per-process random
/// key), so two different texts never share a count.
///
/// ```
/// use prompt_core::tokens::{ApproxCounter, Memoized, TokenCounter};
///
/// let counter = Memoized::new(ApproxCounter);
/// assert_eq!(counter.count("hello world"), 3);
/// assert_eq!(counter.count("hello world"), 3); // remembered
/// let stats = counter.stats();
/// assert_eq!((stats.counted, stats.counted_bytes, stats.remembered), (1, 11, 1));
/// assert_eq!(stats.estimated_bytes, 0);
/// ```
pub struct Memoized<C> {
    counter: C,
    budget: usize,
    state: Mutex<State>,
}

/// What a [`Memoized`] counter has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct CountStats {
    /// Pieces given to the wrapped counter.
    pub counted: usize,
    /// Their bytes: the wrapped counter's work.
    pub counted_bytes: usize,
    /// Pieces answered from memory.
    pub remembered: usize,
    /// Pieces estimated past the budget.
    pub estimated: usize,
    /// Their bytes.
    pub estimated_bytes: usize,
}

#[derive(Default)]
struct State {
    known: HashMap<Box<str>, usize>,
    /// Bytes of pieces held by `known`, estimated ones only.
    estimates_held: usize,
    /// Budget spent: each exact piece's length plus `PIECE_COST`.
    spent: usize,
    /// Set at the first estimate: nothing is counted exactly after it.
    closed: bool,
    /// Exact and approximate tokens of everything counted exactly: the
    /// ratio that scales an estimate.
    exact_tokens: u128,
    approx_tokens: u128,
    stats: CountStats,
    cuts: Vec<usize>,
}

impl<C: TokenCounter> Memoized<C> {
    /// The default budget: 1 MiB given to the wrapped counter per run.
    pub const DEFAULT_BUDGET: usize = 1 << 20;

    /// What each piece counted costs the budget beyond its bytes: the call,
    /// and the memory that remembers it.
    pub const PIECE_COST: usize = 32;

    /// `counter`, remembering, with [`DEFAULT_BUDGET`](Self::DEFAULT_BUDGET).
    pub fn new(counter: C) -> Self {
        Self::with_budget(counter, Self::DEFAULT_BUDGET)
    }

    /// `counter`, remembering, giving it at most `budget` bytes over the run.
    pub fn with_budget(counter: C, budget: usize) -> Self {
        Self {
            counter,
            budget,
            state: Mutex::new(State::default()),
        }
    }

    /// The bytes the wrapped counter may be given over the run.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// What the counter has done so far.
    pub fn stats(&self) -> CountStats {
        self.lock().stats
    }

    /// The wrapped counter.
    pub fn inner(&self) -> &C {
        &self.counter
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A counter that panicked left counts that are still counts.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The count of one piece: remembered, counted, or estimated.
    fn piece(&self, state: &mut State, piece: &str) -> usize {
        if let Some(&tokens) = state.known.get(piece) {
            state.stats.remembered += 1;
            return tokens;
        }
        let cost = piece.len().saturating_add(Self::PIECE_COST);
        if !state.closed && state.spent.saturating_add(cost) <= self.budget {
            let tokens = self.counter.count(piece);
            state.spent += cost;
            state.exact_tokens += tokens as u128;
            state.approx_tokens += ApproxCounter.count(piece) as u128;
            state.stats.counted += 1;
            state.stats.counted_bytes += piece.len();
            state.known.insert(piece.into(), tokens);
            return tokens;
        }
        if !state.closed {
            state.closed = true;
            tracing::warn!(
                target: "prompt_core::tokens",
                counter = self.counter.name(),
                budget = self.budget,
                "{} bytes of distinct text were counted with {}; what is new after them is estimated",
                state.stats.counted_bytes,
                self.counter.name(),
            );
        }
        let approx = ApproxCounter.count(piece) as u128;
        let tokens = if state.approx_tokens == 0 {
            approx
        } else {
            (approx * state.exact_tokens).div_ceil(state.approx_tokens)
        };
        let tokens = usize::try_from(tokens).unwrap_or(usize::MAX);
        state.stats.estimated += 1;
        state.stats.estimated_bytes += piece.len();
        if state.estimates_held.saturating_add(cost) <= self.budget {
            state.estimates_held += cost;
            state.known.insert(piece.into(), tokens);
        }
        tokens
    }
}

impl<C: TokenCounter> TokenCounter for Memoized<C> {
    fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let mut state = self.lock();
        let mut cuts = std::mem::take(&mut state.cuts);
        cuts.clear();
        self.counter.cuts(text, &mut cuts);
        let mut total = 0usize;
        let mut start = 0;
        for &cut in &cuts {
            if cut > start && cut < text.len() && text.is_char_boundary(cut) {
                total = total.saturating_add(self.piece(&mut state, &text[start..cut]));
                start = cut;
            }
        }
        total = total.saturating_add(self.piece(&mut state, &text[start..]));
        state.cuts = cuts;
        total
    }

    fn name(&self) -> &'static str {
        self.counter.name()
    }

    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        self.counter.cuts(text, cuts)
    }
}

impl<C: TokenCounter> fmt::Debug for Memoized<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memoized")
            .field("counter", &self.counter.name())
            .field("budget", &self.budget)
            .field("stats", &self.stats())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A counter that counts words, adds up at every line start, and
    /// records the bytes it is given.
    #[derive(Default)]
    struct Words {
        given: AtomicUsize,
    }

    impl TokenCounter for Words {
        fn count(&self, text: &str) -> usize {
            self.given.fetch_add(text.len(), Ordering::Relaxed);
            text.split_whitespace().count()
        }

        fn name(&self) -> &'static str {
            "words"
        }

        fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
            cuts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        }
    }

    /// Texts that share lines cost their distinct lines once, and their
    /// counts are the whole texts' counts.
    #[test]
    fn shared_lines_are_counted_once() {
        let shared = "one two three\nfour five\nsix\n";
        let counter = Memoized::new(Words::default());
        let mut expected_given = shared.len();
        for user in 0..100 {
            let text = format!("{shared}user {user}\n");
            assert_eq!(counter.count(&text), text.split_whitespace().count());
            expected_given += format!("user {user}\n").len();
        }
        assert_eq!(
            counter.inner().given.load(Ordering::Relaxed),
            expected_given
        );
        let stats = counter.stats();
        assert_eq!(stats.counted_bytes, expected_given);
        assert_eq!(stats.counted, 3 + 100);
        assert_eq!(stats.remembered, 3 * 99);
        assert_eq!(stats.estimated, 0);
    }

    /// Past the budget, new pieces are estimated (approximate count scaled
    /// by what was counted exactly), the stats say how much, and a piece
    /// counts the same before and after the budget closed.
    #[test]
    fn past_the_budget_pieces_are_estimated_and_keep_one_count() {
        let first = "alpha beta gamma delta\n"; // 23 bytes, 4 words, approx 6
        let counter = Memoized::with_budget(Words::default(), first.len() + 32);
        assert_eq!(counter.count(first), 4);
        let late = "epsilon zeta eta theta iota\n"; // 28 bytes: approx 7, x 4/6
        assert_eq!(counter.count(late), 5);
        // Everything new is estimated from now on, even what would fit.
        assert_eq!(counter.count("x\n"), 1);
        let stats = counter.stats();
        assert_eq!((stats.counted, stats.counted_bytes), (1, first.len()));
        assert_eq!(
            (stats.estimated, stats.estimated_bytes),
            (2, late.len() + 2)
        );
        // The same texts again: the same counts, from memory (`x`), or
        // estimated again to the same value (`late`, which is more than the
        // memory holds for estimates: the budget, 55 bytes).
        assert_eq!(counter.count(&format!("{first}{late}x\n")), 10);
        let stats = counter.stats();
        assert_eq!((stats.remembered, stats.estimated), (2, 3));
        assert_eq!(counter.inner().given.load(Ordering::Relaxed), first.len());
    }

    /// Cuts a counter gives out of order, out of range or inside a
    /// character are ignored, never a panic.
    #[test]
    fn bad_cuts_are_ignored() {
        struct Wild;
        impl TokenCounter for Wild {
            fn count(&self, text: &str) -> usize {
                text.len()
            }
            fn name(&self) -> &'static str {
                "wild"
            }
            fn cuts(&self, _text: &str, cuts: &mut Vec<usize>) {
                cuts.extend([1, 0, 5, 2, 99, usize::MAX, 3]);
            }
        }
        let counter = Memoized::new(Wild);
        assert_eq!(counter.count("é1234567"), 9);
        assert_eq!(counter.count(""), 0);
    }
}
