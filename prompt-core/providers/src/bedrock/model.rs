//! Bedrock's facts about the Claude models it serves, dated with their
//! sources: how its model ids name Anthropic's families (whose minimums and
//! prices are [`minimums`](crate::providers::minimums)' and
//! [`cost`](crate::providers::cost)'s Anthropic rows), how many cache points a
//! request takes, and which models take the one-hour TTL.

/// When the facts below were last checked against their sources.
pub const BEDROCK_CHECKED: &str = "2026-12-07";

/// Where they come from.
///
/// - The request and response shapes, `CachePointBlock.ttl` (`5m`, `1h`) and
///   `TokenUsage.cacheDetails` included: botocore 1.44.18's `bedrock-runtime`
///   service model (`botocore/data/bedrock-runtime/2023-09-30/service-2.json`),
///   read 2026-12-07.
/// - Claude's minimum tokens per cache checkpoint (the same figures as
///   Anthropic's own page for the same models: 1,024 for Claude 3.7 Sonnet,
///   2,048 for Claude 3.5 Haiku) and 4 cache checkpoints per request, in
///   system, messages and tools: docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html,
///   its table of supported models.
/// - `inputTokens` counts only the input neither read from nor written to
///   the cache (the whole input is `inputTokens + cacheReadInputTokens +
///   cacheWriteInputTokens`): the same page, as quoted in crmne/ruby_llm#832
///   (2026-07-02), which LiteLLM's and opencode's readers follow.
/// - The one-hour TTL on Claude Opus 4.5, Sonnet 4.5, Haiku 4.5 and later
///   (Opus 4.6, 4.7): the same page as quoted in NousResearch/hermes-agent#11970
///   (2026). Models after those are taken to keep it (every family released
///   since has); an id this crate cannot place gets the 5-minute TTL, which
///   every model takes.
/// - Prices: Bedrock bills a Claude model's cache as Anthropic does, a
///   5-minute write at 1.25x its input price and a read at 0.1x (its pricing
///   page, aws.amazon.com/bedrock/pricing, lists Claude 3.7 Sonnet at USD
///   0.003 input, 0.00375 cache write and 0.0003 cache read per 1,000
///   tokens). The crate prices a Bedrock id at its family's row of
///   [`ModelPrices::anthropic`](crate::providers::cost::ModelPrices::anthropic)
///   (`Multipliers::for_model` reads the family inside the id); the one-hour
///   write is taken as Anthropic's 2x, which no Bedrock page was seen to
///   contradict.
pub const BEDROCK_SOURCE: &str = "botocore 1.44.18 bedrock-runtime service-2.json (shapes); \
     docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html (checkpoints, minimums, \
     usage arithmetic, one-hour TTL models; quoted in crmne/ruby_llm#832 and \
     NousResearch/hermes-agent#11970); aws.amazon.com/bedrock/pricing (cache read and write \
     prices of Claude, Anthropic's multipliers)";

/// The most cache points a Converse request for a Claude model takes (the
/// prompt-caching page's "maximum number of cache checkpoints per request"),
/// as Anthropic's own API: the one [cache plan](crate::providers::plan)
/// places the same cuts in both bodies.
pub const MAX_CACHE_POINTS: usize = 4;

const _: () = assert!(MAX_CACHE_POINTS == super::super::anthropic::MAX_BREAKPOINTS);

/// The Anthropic model id inside a Bedrock model id, or `None` when it names
/// no Claude model (another vendor's, or an opaque application inference
/// profile or provisioned-throughput ARN).
///
/// Takes the forms the `modelId` member does: a base model id
/// (`anthropic.claude-sonnet-4-5-20250929-v1:0`), a cross-region inference
/// profile (`us.anthropic…`, `eu.`, `apac.`, `global.`…), and either as the
/// last segment of an ARN. The version suffix (`-v1:0`) is dropped; the date
/// stays, which the minimum and price tables read past.
///
/// ```
/// use prompt_providers::bedrock::anthropic_model;
///
/// assert_eq!(anthropic_model("anthropic.claude-sonnet-4-5-20250929-v1:0"), Some("claude-sonnet-4-5-20250929"));
/// assert_eq!(anthropic_model("global.anthropic.claude-opus-4-5-20251101-v1:0"), Some("claude-opus-4-5-20251101"));
/// assert_eq!(
///     anthropic_model("arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0"),
///     Some("claude-3-5-haiku-20241022"),
/// );
/// assert_eq!(anthropic_model("amazon.nova-pro-v1:0"), None);
/// ```
pub fn anthropic_model(model_id: &str) -> Option<&str> {
    let last = model_id.rsplit('/').next().unwrap_or(model_id);
    let (_, claude) = last.split_once("anthropic.")?;
    if !claude.starts_with("claude") {
        return None;
    }
    Some(strip_version(claude))
}

/// `claude-…-v1:0` without its `-v1:0`, `-v2` suffix.
fn strip_version(id: &str) -> &str {
    let Some((head, tail)) = id.rsplit_once("-v") else {
        return id;
    };
    let (number, revision) = tail.split_once(':').unwrap_or((tail, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(number) && digits(revision) {
        head
    } else {
        id
    }
}

/// The id the minimum and price tables are looked up with: the Anthropic
/// model inside `model_id`, or `model_id` itself (which then matches no
/// Claude family and gets the tables' conservative figures).
pub(crate) fn table_id(model_id: &str) -> &str {
    anthropic_model(model_id).unwrap_or(model_id)
}

/// Whether a cache point of `model_id` may carry `"ttl": "1h"`: the Claude
/// models from the 4.5 generation on ([`BEDROCK_SOURCE`], read on
/// [`BEDROCK_CHECKED`]). A model this crate cannot place takes the 5-minute
/// TTL only, so a request never carries a TTL its model may refuse.
///
/// ```
/// use prompt_providers::bedrock::takes_one_hour_ttl;
///
/// assert!(takes_one_hour_ttl("us.anthropic.claude-sonnet-4-5-20250929-v1:0"));
/// assert!(takes_one_hour_ttl("anthropic.claude-opus-4-7"));
/// assert!(takes_one_hour_ttl("global.anthropic.claude-opus-5-5-v1:0"));
/// assert!(!takes_one_hour_ttl("anthropic.claude-sonnet-4-20250514-v1:0"));
/// assert!(!takes_one_hour_ttl("anthropic.claude-3-7-sonnet-20250219-v1:0"));
/// assert!(!takes_one_hour_ttl("amazon.nova-pro-v1:0"));
/// ```
pub fn takes_one_hour_ttl(model_id: &str) -> bool {
    anthropic_model(model_id)
        .and_then(claude_version)
        .is_some_and(|version| version >= (4, 5))
}

/// `(major, minor)` of a Claude id: `claude-opus-4-5-2025…` is (4, 5),
/// `claude-sonnet-4-2025…` (4, 0), `claude-3-7-sonnet-…` (3, 7).
fn claude_version(id: &str) -> Option<(u32, u32)> {
    let rest = id.strip_prefix("claude-")?;
    let mut numbers = rest
        .split(['-', '.'])
        .skip_while(|segment| !segment.bytes().all(|b| b.is_ascii_digit()) || segment.is_empty());
    // A date (8 digits) is not a version number.
    let small = |s: &str| s.len() <= 2 && !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let major = numbers.next().filter(|s| small(s))?.parse().ok()?;
    let minor = match numbers.next() {
        Some(s) if small(s) => s.parse().ok()?,
        _ => 0,
    };
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_past_family_names_and_dates() {
        assert_eq!(claude_version("claude-opus-4-5-20251101"), Some((4, 5)));
        assert_eq!(claude_version("claude-sonnet-4-20250514"), Some((4, 0)));
        assert_eq!(claude_version("claude-3-7-sonnet-20250219"), Some((3, 7)));
        assert_eq!(claude_version("claude-haiku-4-5"), Some((4, 5)));
        assert_eq!(claude_version("claude-instant"), None);
    }

    #[test]
    fn a_version_suffix_goes_and_anything_else_stays() {
        assert_eq!(strip_version("claude-opus-4-5-v1:0"), "claude-opus-4-5");
        assert_eq!(strip_version("claude-opus-4-5-v2"), "claude-opus-4-5");
        assert_eq!(strip_version("claude-opus-4-5"), "claude-opus-4-5");
        assert_eq!(strip_version("claude-vx-1"), "claude-vx-1");
        assert_eq!(anthropic_model("anthropic.mistral-large"), None);
        assert_eq!(
            anthropic_model(
                "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123def456"
            ),
            None
        );
    }
}
