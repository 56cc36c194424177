//! Breakpoints at scope boundaries: the stable prefix cut where a wider
//! scope's text ends, so a teammate's first call reads what the team shares.
//!
//! The one placement rule: OpenAI's explicit breakpoints (GPT-5.6 and later)
//! fall at the same cuts, with OpenAI's minimum
//! ([`openai`](crate::providers::openai)).

use super::{CacheControl, CacheMinimums, CacheTtl, MAX_BREAKPOINTS, TextBlock};
use crate::AssembledPrompt;
use crate::spec::Scope;
use crate::tokens::TokenCounter;

/// The most breakpoints the system prompt takes: one where the widest shared
/// part ends and one at the end of the stable prefix. With the tools' own
/// breakpoint and the conversation's that makes [`MAX_BREAKPOINTS`].
pub const SYSTEM_BREAKPOINTS: usize = MAX_BREAKPOINTS - 2;

/// Which scope boundary a breakpoint goes to first: the end of the Project
/// part (everyone on the repository reads it), then the Global part (everyone
/// on the key), then the User part (one person's sessions).
const PREFERENCE: [Scope; 3] = [Scope::Project, Scope::Global, Scope::User];

/// Byte offsets in `prompt.stable()` where the system prompt is cut into
/// blocks with a breakpoint each, before the one at its end: the ends of
/// the scope groups ([`AssemblyTrace::scope_groups`](crate::AssemblyTrace::scope_groups))
/// whose prefix up to there is long enough for `model` to cache (at least
/// its minimum in `minimums`, counted with `counter`), at most
/// [`SYSTEM_BREAKPOINTS`]` - 1` of them, the end of the Project part first.
/// Each offset is where the next group starts, so the separator stays with
/// the block before it and the blocks joined are the stable prefix.
///
/// Empty when the prompt has one scope group or none, or no group ends late
/// enough to cache.
pub fn scope_cuts(
    prompt: &AssembledPrompt,
    model: &str,
    counter: &dyn TokenCounter,
    minimums: &CacheMinimums,
) -> Vec<usize> {
    let groups = prompt.trace().scope_groups();
    let stable = prompt.stable();
    let minimum = minimums.lookup(model).tokens;
    let mut candidates: Vec<(Scope, usize)> = groups
        .windows(2)
        .filter(|pair| pair[1].start <= stable.len())
        .map(|pair| (pair[0].scope, pair[1].start))
        .filter(|&(_, cut)| counter.count(&stable[..cut]) >= minimum.max(1))
        .collect();
    candidates.sort_by_key(|&(scope, cut)| {
        let rank = PREFERENCE
            .iter()
            .position(|s| *s == scope)
            .unwrap_or(PREFERENCE.len());
        (rank, std::cmp::Reverse(cut))
    });
    let mut cuts: Vec<usize> = candidates
        .into_iter()
        .take(SYSTEM_BREAKPOINTS - 1)
        .map(|(_, cut)| cut)
        .collect();
    cuts.sort_unstable();
    cuts
}

/// Byte offsets in `prompt.stable()` where a request for `model` ends a
/// cached block: the [`scope_cuts`] [`MessagesRequest::new`](super::MessagesRequest::new)
/// makes (tokens counted with [`ApproxCounter`](crate::tokens::ApproxCounter),
/// minimums from [`CacheMinimums::anthropic`]), then the end of the stable
/// prefix. Empty on the Basic path and for an empty stable prefix.
///
/// The one placement of Anthropic's breakpoints: the request builder cuts
/// its `system` blocks here, and so does a client library's integration
/// that builds the client's own request type.
pub fn breakpoint_offsets(prompt: &AssembledPrompt, model: &str) -> Vec<usize> {
    if prompt.path() != crate::AssemblyPath::Cached || prompt.stable().is_empty() {
        return Vec::new();
    }
    let mut offsets = scope_cuts(
        prompt,
        model,
        &crate::tokens::ApproxCounter,
        &CacheMinimums::anthropic(),
    );
    offsets.push(prompt.stable().len());
    offsets
}

/// The `system` blocks for `prompt` with breakpoints at `cuts` (from
/// [`scope_cuts`]) and at the end of the stable prefix, all of `ttl`; the
/// dynamic suffix unmarked after them. Without cuts it is
/// [`system_blocks`](super::system_blocks).
pub fn scoped_system_blocks(
    prompt: &AssembledPrompt,
    ttl: CacheTtl,
    cuts: &[usize],
) -> Vec<TextBlock> {
    let mut blocks = Vec::new();
    for part in prompt.parts().iter().filter(|p| !p.content.is_empty()) {
        if !part.cache {
            blocks.push(TextBlock::new(part.content.to_string()));
            continue;
        }
        let text: &str = &part.content;
        let mut start = 0;
        for &cut in cuts
            .iter()
            .filter(|&&c| c > 0 && c < text.len() && text.is_char_boundary(c))
        {
            blocks.push(TextBlock {
                text: text[start..cut].to_owned(),
                cache_control: Some(CacheControl::new(ttl)),
            });
            start = cut;
        }
        blocks.push(TextBlock {
            text: text[start..].to_owned(),
            cache_control: Some(CacheControl::new(ttl)),
        });
    }
    blocks
}
