//! One cache plan per request: every breakpoint of the whole request
//! (tools -> system -> messages) decided in one place, within the provider's
//! limit, with each cut's TTL.
//!
//! A provider caches the request prefix up to each breakpoint, and takes only
//! so many of them: Anthropic 4 per request, its top-level automatic caching
//! counting as one ([`anthropic::MAX_BREAKPOINTS`](super::anthropic::MAX_BREAKPOINTS));
//! OpenAI (GPT-5.6 and later) writes the latest 4 explicit
//! `prompt_cache_breakpoint`s, 3 beside its own implicit one at the newest
//! message ([`openai::MAX_BREAKPOINT_WRITES`](super::openai::MAX_BREAKPOINT_WRITES)).
//! Gemini caches implicitly or through cached content and takes no
//! breakpoint. The candidates, in request order:
//!
//! | [`CutAt`] | where | who reads it |
//! |---|---|---|
//! | [`Tools`](CutAt::Tools) | after the last tool definition | a request whose system prompt changed |
//! | [`Scope`](CutAt::Scope) | where a wider scope's part of the stable prefix ends ([`scope_cuts`](super::anthropic::scope_cuts)) | a teammate's first call |
//! | [`StableEnd`](CutAt::StableEnd) | the end of the stable prefix | a new conversation of this session |
//! | [`Frontier`](CutAt::Frontier) | the conversation's newest message | this conversation's next turn, whole history included |
//!
//! **The rule** when there are more candidates than slots: a cut serves the
//! tokens of the prefix it ends (the tokens a later request reads from it),
//! so the candidates ending the longest prefixes are kept; on a tie the later
//! one. The frontier, which ends the whole request, is always kept, and so is
//! the stable end before the scope cuts and the tools. A dropped cut is still
//! read through a kept later one whenever the request up to there is the
//! same.
//!
//! **TTLs**: a provider refuses a longer TTL after a shorter one (Anthropic:
//! `1h` after `5m`). Each kept cut takes the longest TTL of any kept cut after
//! it, so TTLs never increase along the request: what a later `1h` entry
//! holds lives that long anyway.
//!
//! The request builders ask for their plan and place exactly its cuts:
//! [`anthropic::MessagesRequest::history`](super::anthropic::MessagesRequest::history)
//! and [`anthropic::MessagesRequest::cache_plan`](super::anthropic::MessagesRequest::cache_plan),
//! and the OpenAI builders' `history` for GPT-5.6 and later.
//!
//! ```
//! use prompt_providers::anthropic::CacheTtl;
//! use prompt_providers::plan::{CachePlan, Candidate, CutAt};
//!
//! let plan = CachePlan::new(
//!     [
//!         Candidate::new(CutAt::Tools, 900, CacheTtl::FiveMinutes),
//!         Candidate::new(CutAt::Scope, 2_000, CacheTtl::OneHour),
//!         Candidate::new(CutAt::Scope, 2_600, CacheTtl::OneHour),
//!         Candidate::new(CutAt::StableEnd, 3_000, CacheTtl::OneHour),
//!         Candidate::new(CutAt::Frontier, 9_000, CacheTtl::FiveMinutes),
//!     ],
//!     4,
//! );
//! // Five candidates, four slots: the tools' cut, which ends the shortest prefix, goes.
//! assert_eq!(plan.cuts().len(), 4);
//! assert!(!plan.keeps(CutAt::Tools));
//! assert_eq!(plan.dropped()[0].at, CutAt::Tools);
//! assert!(plan.keeps(CutAt::Frontier) && plan.keeps(CutAt::StableEnd));
//! ```

use serde::Serialize;

use super::anthropic::CacheTtl;

/// Where in the request a cut falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutAt {
    /// After the last tool definition: the tools as one cacheable unit.
    Tools,
    /// Where a wider scope's part of the stable prefix ends.
    Scope,
    /// The end of the system prompt's stable prefix.
    StableEnd,
    /// The conversation's newest message (or Anthropic's automatic caching,
    /// which the API puts there).
    Frontier,
}

/// A place a breakpoint could go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Candidate {
    /// Where it falls.
    pub at: CutAt,
    /// The tokens of the request prefix it ends: what a later request reads
    /// from its entry.
    pub prefix_tokens: usize,
    /// The TTL asked for it.
    pub ttl: CacheTtl,
}

impl Candidate {
    /// A candidate at `at`, ending a prefix of `prefix_tokens`, asking `ttl`.
    pub const fn new(at: CutAt, prefix_tokens: usize, ttl: CacheTtl) -> Self {
        Self {
            at,
            prefix_tokens,
            ttl,
        }
    }
}

/// The breakpoints of one request: which candidates are kept, in request
/// order, each with its TTL (see the [module](self) docs for the rule).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CachePlan {
    cuts: Vec<Candidate>,
    dropped: Vec<Candidate>,
    limit: usize,
}

impl CachePlan {
    /// The plan for `candidates` (in request order) within `limit` slots.
    /// Never more than `limit` cuts; TTLs never increase along the request.
    pub fn new(candidates: impl IntoIterator<Item = Candidate>, limit: usize) -> Self {
        let candidates: Vec<Candidate> = candidates.into_iter().collect();
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        // The longest prefixes first; on a tie the later candidate.
        order.sort_by(|&a, &b| {
            (candidates[b].prefix_tokens, candidates[b].at, b).cmp(&(
                candidates[a].prefix_tokens,
                candidates[a].at,
                a,
            ))
        });
        let mut kept = vec![false; candidates.len()];
        for &index in order.iter().take(limit) {
            kept[index] = true;
        }
        let (mut cuts, mut dropped) = (Vec::new(), Vec::new());
        for (candidate, kept) in candidates.into_iter().zip(kept) {
            if kept {
                cuts.push(candidate);
            } else {
                dropped.push(candidate);
            }
        }
        let mut longest = CacheTtl::FiveMinutes;
        for cut in cuts.iter_mut().rev() {
            if cut.ttl == CacheTtl::OneHour {
                longest = CacheTtl::OneHour;
            }
            cut.ttl = longest;
        }
        Self {
            cuts,
            dropped,
            limit,
        }
    }

    /// The kept cuts, in request order, with the TTL each is placed with.
    pub fn cuts(&self) -> &[Candidate] {
        &self.cuts
    }

    /// The candidates left out for want of a slot, in request order.
    pub fn dropped(&self) -> &[Candidate] {
        &self.dropped
    }

    /// The provider's limit the plan was made within.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether a cut at `at` is kept.
    pub fn keeps(&self, at: CutAt) -> bool {
        self.cuts.iter().any(|c| c.at == at)
    }

    /// The TTL of the `n`th kept candidate at `at` (request order), if kept.
    pub fn ttl_of(&self, at: CutAt, n: usize) -> Option<CacheTtl> {
        self.cuts
            .iter()
            .filter(|c| c.at == at)
            .nth(n)
            .map(|c| c.ttl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn candidate() -> impl Strategy<Value = Candidate> {
        (
            prop_oneof![
                Just(CutAt::Tools),
                Just(CutAt::Scope),
                Just(CutAt::StableEnd),
                Just(CutAt::Frontier)
            ],
            0usize..10_000,
            any::<bool>(),
        )
            .prop_map(|(at, tokens, long)| {
                let ttl = if long {
                    CacheTtl::OneHour
                } else {
                    CacheTtl::FiveMinutes
                };
                Candidate::new(at, tokens, ttl)
            })
    }

    /// Candidates as a request has them: in request order, each ending a
    /// prefix at least as long as the one before.
    fn request() -> impl Strategy<Value = Vec<Candidate>> {
        proptest::collection::vec(candidate(), 0..9).prop_map(|mut c| {
            c.sort_by_key(|c| (c.at, c.prefix_tokens));
            c
        })
    }

    proptest! {
        #[test]
        fn a_plan_respects_the_limit_and_the_ttl_order(candidates in request(), limit in 0usize..6) {
            let plan = CachePlan::new(candidates.clone(), limit);
            prop_assert!(plan.cuts().len() <= limit);
            prop_assert_eq!(plan.cuts().len() + plan.dropped().len(), candidates.len());
            prop_assert!(plan.cuts().windows(2).all(|w| w[0].ttl == CacheTtl::OneHour || w[1].ttl == CacheTtl::FiveMinutes));
            // A cut asked for 1h keeps it; one raised to 1h has a 1h cut after it.
            for (i, cut) in plan.cuts().iter().enumerate() {
                let asked = candidates.iter().any(|c| c.at == cut.at && c.prefix_tokens == cut.prefix_tokens && c.ttl == CacheTtl::OneHour);
                if cut.ttl == CacheTtl::OneHour && !asked {
                    prop_assert!(plan.cuts()[i + 1..].iter().any(|c| c.ttl == CacheTtl::OneHour));
                }
            }
            // Every kept cut serves at least as many tokens as every dropped one.
            let least_kept = plan.cuts().iter().map(|c| c.prefix_tokens).min();
            for dropped in plan.dropped() {
                prop_assert!(least_kept.is_none_or(|k| k >= dropped.prefix_tokens));
            }
            // The frontier and the stable end are kept when they serve the most tokens.
            let most = candidates.iter().map(|c| c.prefix_tokens).max();
            for at in [CutAt::Frontier, CutAt::StableEnd] {
                if limit > 0 && candidates.iter().any(|c| c.at == at && Some(c.prefix_tokens) == most)
                    && candidates.iter().filter(|c| Some(c.prefix_tokens) == most).count() <= limit {
                    prop_assert!(plan.keeps(at));
                }
            }
        }
    }
}
