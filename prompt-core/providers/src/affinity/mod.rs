//! Cache affinity: one routing key for every replica and every teammate that
//! sends the same cached prefix, sharded when one key carries more requests
//! than the provider serves from one machine.
//!
//! Providers that cache a prefix per machine route by a key the caller sends:
//! OpenAI hashes `prompt_cache_key` with the prompt's first ~256 tokens and
//! sends the pair to one machine; xAI (`prompt_cache_key`, or the
//! `x-grok-conv-id` header on Chat Completions) and Mistral
//! (`prompt_cache_key`) route by the key too. An agent server of N replicas
//! gets its cache hits when all of them send the same key for the same
//! prefix, and only then.
//!
//! [`AffinityKey`] is that key, derived from what the request's cached prefix
//! shares and nothing else:
//!
//! ```text
//! key    = "<pipeline>-<16 hex>[-s<shard>]"
//! digest = SHA-256 of the stable prefix up to the end of the covered scope
//!          (Global, then Project: what everyone on one repository shares),
//!          joined with the fingerprint of the request's Stable-tier tools
//! ```
//!
//! The User and Session layers, the dynamic suffix, the reminder and the
//! session's or turn's tools never enter it, so two sessions of one agent on
//! one repository send one key, in any process on any machine, and two
//! repositories send two. A prompt with no layer of the covered scope or a
//! wider one is keyed by its whole stable prefix (nobody else shares it
//! anyway). [`prompt_cache_key`](crate::openai::prompt_cache_key), the key the
//! OpenAI builders send by default, is the same derivation over the widest
//! scope alone ([`AffinityKey::widest`]): one key per agent, unchanged by an
//! edit of `AGENTS.md`.
//!
//! Past the provider's per-key rate ([`KeyRate`]: about 15 requests a minute
//! at OpenAI) the provider spills a key's requests to machines that do not
//! hold the prefix. A [`Sharder`] counts each key's requests per minute
//! ([`RateTracker`]; in process [`LocalRateTracker`], or a store every
//! replica shares: `RedisRateTracker`, feature `redis`), works out how
//! many shards the key needs
//! ([`ShardPolicy`]), and gives each conversation its shard by a stable hash
//! of its id: the key gains a suffix `-s1`, `-s2`, ... (shard 0 has none, so a
//! quiet key is never changed). The same key goes to a gateway as a header
//! ([`AffinityKey::header`]) for sticky routing in front of the replicas.
//!
//! ```
//! use prompt_providers::affinity::{AffinityKey, AFFINITY_HEADER};
//! use prompt_providers::openai::ResponsesRequest;
//! use prompt_providers::Message;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocAffinity;
//! # #[prompt_layer(priority = 1, stability = Stable, scope = Global, paths = [Cached], text = "You are terse.", pipeline = DocAffinity)]
//! # struct Persona;
//! # #[prompt_layer(priority = 2, stability = Stable, scope = Project, paths = [Cached], text = "Run make check.", pipeline = DocAffinity)]
//! # struct Agents;
//! # let pipeline = Pipeline::of::<DocAffinity>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! // The key of the Global and Project part, sharded for conversation `c-42`
//! // over 3 shards (a `Sharder` works the count out from the request rate).
//! let key = AffinityKey::of(&prompt).shard("c-42", 3);
//! assert!(key.as_str().starts_with("doc_affinity-"));
//! assert!(key.shard_index() < 3);
//!
//! let request = ResponsesRequest::new(&prompt, "gpt-5")
//!     .affinity(&key)
//!     .message(Message::user("Fix the failing test."));
//! let body = serde_json::to_value(&request)?;
//! assert_eq!(body["prompt_cache_key"], key.as_str());
//! assert_eq!(key.header(), (AFFINITY_HEADER, key.as_str()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod rates;
#[cfg(feature = "redis")]
mod redis_rate;
mod shard;

use std::fmt;

use prompt_core::fingerprint::Fingerprint;
use prompt_core::spec::Scope;
use prompt_core::tools::{RequestTools, ToolTier};

use crate::AssembledPrompt;

pub use rates::{KEY_RATES_CHECKED, KeyRate, KeyedProvider};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use redis_rate::{DEFAULT_RATE_TIMEOUT, RedisRateTracker};
pub use shard::{
    LocalRateTracker, RATE_WINDOWS, RateError, RateTracker, RecentRate, ShardPolicy, Sharder,
    shard_of,
};

/// The header that carries an [`AffinityKey`] to a gateway or load balancer
/// for sticky routing: `x-prompt-cache-key`. A gateway that hashes another
/// header takes the key under that name instead (see docs/serving.md).
pub const AFFINITY_HEADER: &str = "x-prompt-cache-key";

/// The longest `prompt_cache_key` OpenAI accepts, in characters: a longer
/// one fails the request with `string_above_max_length`. Every key this
/// module makes is shorter (at most 57 bytes, 61 with a shard suffix).
pub const MAX_KEY_LEN: usize = 64;

/// The most shards a key is split into: 64 shards carry 64 times the
/// per-key rate (960 requests a minute at OpenAI) and keep the suffix within
/// three characters after `-s`, so the key stays within [`MAX_KEY_LEN`].
pub const MAX_SHARDS: u32 = 64;

/// The longest pipeline name kept in a key, in bytes.
const KEY_PIPELINE_MAX: usize = 40;

/// A routing key for a provider's prompt cache: `<pipeline>-<16 hex>` of the
/// prefix a request shares, with `-s<n>` when it is shard `n` > 0 of a key
/// split past the provider's per-key rate. See the [module](self) docs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AffinityKey {
    /// The whole key, suffix included.
    key: String,
    /// Bytes of `key` before the shard suffix.
    base_len: usize,
    /// The scope whose shared prefix the digest covers.
    covers: Option<Scope>,
    shard: u32,
    shards: u32,
}

impl AffinityKey {
    /// The key of `prompt`'s Global and Project part: what everyone working
    /// on one repository shares. The same as
    /// [`new(prompt, Scope::Project, None)`](Self::new).
    pub fn of(prompt: &AssembledPrompt) -> Self {
        Self::new(prompt, Scope::Project, None)
    }

    /// The key of `prompt`'s stable prefix up to the end of `scope` (its
    /// layers of `scope` and every wider scope, as
    /// [`AssemblyTrace::shared_prefix`](crate::AssemblyTrace::shared_prefix)
    /// cuts it), joined with the Stable-tier tools of `tools` when the
    /// request sends any (a session's or a turn's tools are left out, as the
    /// Session scope is). When the prompt has no layer of `scope` or a wider
    /// one, the whole stable prefix is keyed instead and
    /// [`covers`](Self::covers) is `None`.
    pub fn new(prompt: &AssembledPrompt, scope: Scope, tools: Option<&RequestTools>) -> Self {
        Self::over(prompt, &[scope], tools)
    }

    /// The key of `prompt`'s widest shared part alone: its Global layers,
    /// else its Project ones, else the whole stable prefix. One key for every
    /// session of an agent; an edit of a narrower scope keeps it. What
    /// [`openai::prompt_cache_key`](crate::openai::prompt_cache_key) returns.
    pub fn widest(prompt: &AssembledPrompt) -> Self {
        Self::over(prompt, &[Scope::Global, Scope::Project], None)
    }

    /// The key over the first of `scopes` whose shared prefix has text.
    fn over(prompt: &AssembledPrompt, scopes: &[Scope], tools: Option<&RequestTools>) -> Self {
        let trace = prompt.trace();
        let stable = prompt.stable();
        let covered = scopes
            .iter()
            .map(|&scope| (scope, trace.shared_prefix(scope)))
            .find(|&(_, shared)| shared > 0)
            .and_then(|(scope, shared)| Some((scope, stable.get(..shared)?)));
        let prefix = match covered {
            // The whole stable prefix's fingerprint is computed once per session.
            Some((_, part)) if part.len() < stable.len() => Fingerprint::of(part),
            _ => trace.stable_fingerprint(),
        };
        let digest = match tools.and_then(stable_tools) {
            Some(tools) => Fingerprint::of(&format!("tools {tools}\nsystem {prefix}")),
            None => prefix,
        };
        let pipeline = &trace.pipeline;
        let mut end = pipeline.len().min(KEY_PIPELINE_MAX);
        while !pipeline.is_char_boundary(end) {
            end -= 1;
        }
        let key = format!("{}-{}", &pipeline[..end], digest.short());
        Self {
            base_len: key.len(),
            key,
            covers: covered.map(|(scope, _)| scope),
            shard: 0,
            shards: 1,
        }
    }

    /// This key as shard [`shard_of(conversation, shards)`](shard_of) of
    /// `shards` (clamped to `1..=`[`MAX_SHARDS`]): the same conversation gets
    /// the same shard for as long as the count is unchanged, and shard 0
    /// keeps the key as it was. A key sharded already is re-sharded from its
    /// base.
    pub fn shard(&self, conversation: &str, shards: u32) -> Self {
        let shards = shards.clamp(1, MAX_SHARDS);
        let shard = shard_of(conversation, shards);
        let mut key = self.base().to_owned();
        if shard > 0 {
            key.push_str("-s");
            key.push_str(&shard.to_string());
        }
        Self {
            key,
            base_len: self.base_len,
            covers: self.covers,
            shard,
            shards,
        }
    }

    /// The key as sent: `prompt_cache_key`'s value and the header's.
    pub fn as_str(&self) -> &str {
        &self.key
    }

    /// The key without its shard suffix: what a [`RateTracker`] counts.
    pub fn base(&self) -> &str {
        &self.key[..self.base_len]
    }

    /// Which shard this key is (0 for an unsharded key).
    pub fn shard_index(&self) -> u32 {
        self.shard
    }

    /// How many shards its base was split into (1 for an unsharded key).
    pub fn shard_count(&self) -> u32 {
        self.shards
    }

    /// The scope whose shared prefix the key covers; `None` when the prompt
    /// had no layer of that scope or a wider one and the whole stable prefix
    /// was keyed.
    pub fn covers(&self) -> Option<Scope> {
        self.covers
    }

    /// The key as an HTTP header for a gateway's sticky routing:
    /// ([`AFFINITY_HEADER`], the key). Requests with the same value go to
    /// the same upstream under a consistent-hash policy on that header.
    pub fn header(&self) -> (&'static str, &str) {
        (AFFINITY_HEADER, &self.key)
    }
}

impl fmt::Display for AffinityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key)
    }
}

impl From<AffinityKey> for String {
    fn from(key: AffinityKey) -> Self {
        key.key
    }
}

/// The fingerprint of the Stable-tier tools of `tools` in their canonical
/// bytes, or `None` when there are none.
fn stable_tools(tools: &RequestTools) -> Option<Fingerprint> {
    let end = tools.tier_end(ToolTier::Stable);
    if end == 0 {
        return None;
    }
    let json = tools.to_json();
    let stable = json.get(..end)?.to_vec();
    Some(Fingerprint::of(
        &serde_json::Value::Array(stable).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_fits_openais_limit_with_the_widest_suffix() {
        let base = format!("{}-{}", "p".repeat(KEY_PIPELINE_MAX), "0".repeat(16));
        let suffix = format!("-s{}", MAX_SHARDS - 1);
        assert!(base.len() + suffix.len() <= MAX_KEY_LEN);
    }
}
