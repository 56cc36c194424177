//! What the ledger is told about a request as it is sent.

use std::time::Duration;

use jiff::Timestamp;
use serde_json::Value;

use super::{MessagesDigest, Pricing, Provider};
use crate::fingerprint::Fingerprint;

/// A request as it is sent: its provider, model and time, and, with the
/// builder methods, what else its cache depends on. Pass it to
/// [`CacheLedger::sent`](super::CacheLedger::sent) with the prompt.
///
/// ```
/// use prompt_providers::observe::{Provider, Sent};
/// use std::time::Duration;
///
/// let tools = serde_json::json!([{"name": "read_file", "input_schema": {"type": "object"}}]);
/// let history = ["{\"role\":\"user\",\"content\":\"Fix the test.\"}"];
/// let sent = Sent::new(Provider::Anthropic, "claude-sonnet-4-5", jiff::Timestamp::UNIX_EPOCH)
///     .conversation("conv-42")
///     .tools(&tools)
///     .ttl(Duration::from_secs(3600))
///     .messages(history)
///     .previous_response("msg_01");
/// # let _ = sent;
/// ```
#[derive(Debug, Clone)]
#[must_use = "a Sent does nothing until it is passed to CacheLedger::sent"]
pub struct Sent<'a> {
    pub(crate) provider: Provider,
    pub(crate) model: &'a str,
    pub(crate) at: Timestamp,
    pub(crate) conversation: &'a str,
    pub(crate) tools: Option<Fingerprint>,
    /// Each declared tool's fingerprints ([`Sent::declared_tools`]).
    pub(crate) tool_prints: Option<Vec<prompt_core::tools::ToolFingerprint>>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) previous_response: Option<String>,
    pub(crate) breakpoints: Option<&'a [usize]>,
    pub(crate) messages: Option<MessagesDigest>,
    pub(crate) minimum: Option<u64>,
    pub(crate) pricing: Option<Pricing>,
    pub(crate) prompt: Option<(&'a str, &'a str)>,
    pub(crate) keep_alive: bool,
    pub(crate) prewarm: bool,
}

impl<'a> Sent<'a> {
    /// A request to `provider`'s `model`, sent `at`.
    pub fn new(provider: Provider, model: &'a str, at: Timestamp) -> Self {
        Self {
            provider,
            model,
            at,
            conversation: "",
            tools: None,
            tool_prints: None,
            ttl: None,
            previous_response: None,
            breakpoints: None,
            messages: None,
            minimum: None,
            pricing: None,
            prompt: None,
            keep_alive: false,
            prewarm: false,
        }
    }

    /// The request is a prewarm (OpenAI's `prompt_cache_options.prewarm`,
    /// [`ResponsesRequest::prewarm`](crate::openai::ResponsesRequest::prewarm)):
    /// it writes the prefix at the caller's request and generates nothing.
    /// Its verdict is never a miss of the conversation: what it writes is
    /// marked [`CacheVerdict::prewarm`](super::CacheVerdict::prewarm), lost
    /// nothing, and is what the next request should read.
    ///
    /// ```
    /// use prompt_providers::observe::{Provider, Sent};
    /// let sent = Sent::new(Provider::OpenAi, "gpt-5.6", jiff::Timestamp::UNIX_EPOCH).prewarm();
    /// # let _ = sent;
    /// ```
    pub fn prewarm(mut self) -> Self {
        self.prewarm = true;
        self
    }

    /// The conversation it belongs to, for a ledger that serves many (an
    /// agent server's); a ledger of one conversation needs none.
    pub fn conversation(mut self, id: &'a str) -> Self {
        self.conversation = id;
        self
    }

    /// The request's tool definitions (its `tools` array), fingerprinted.
    /// Tools precede the system prompt in the cached prefix, so a change in
    /// them re-writes all of it.
    pub fn tools(mut self, tools: &Value) -> Self {
        self.tools = Some(Fingerprint::of(&tools.to_string()));
        self
    }

    /// The tools' fingerprint, computed once by the caller
    /// (`Fingerprint::of(&tools_json)`).
    pub fn tools_fingerprint(mut self, fingerprint: Fingerprint) -> Self {
        self.tools = Some(fingerprint);
        self
    }

    /// The cache's lifetime for this request (default: 5 minutes, the
    /// providers' default; Anthropic's `ttl: "1h"`, OpenAI's `30m`, `12h`
    /// or `24h` retention are longer).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The previous response's id was sent for the provider to compare with
    /// (Anthropic's `diagnostics.previous_message_id`, OpenAI's
    /// `prompt_cache_options.comparison_response_id`): the verdict then
    /// checks itself against the provider's diagnosis, and reads Anthropic's
    /// absent `diagnostics` as "no divergence".
    pub fn previous_response(mut self, id: &str) -> Self {
        self.previous_response = Some(id.to_owned());
        self
    }

    /// The previous response's id given to
    /// [`previous_response`](Self::previous_response), if any.
    ///
    /// ```
    /// use prompt_providers::observe::{Provider, Sent};
    /// let sent = Sent::new(Provider::OpenAi, "gpt-5.6", jiff::Timestamp::UNIX_EPOCH);
    /// assert_eq!(sent.previous_response_id(), None);
    /// assert_eq!(sent.previous_response("resp_a").previous_response_id(), Some("resp_a"));
    /// ```
    pub fn previous_response_id(&self) -> Option<&str> {
        self.previous_response.as_deref()
    }

    /// Byte offsets in the stable prefix where the request places cache
    /// breakpoints (default: one at its end, where every request builder of
    /// this crate puts one; Anthropic's scope cuts add more, see
    /// [`scope_cuts`](crate::providers::anthropic::scope_cuts)). After a
    /// change, the cache still reads up to the last breakpoint before it.
    pub fn breakpoints(mut self, offsets: &'a [usize]) -> Self {
        self.breakpoints = Some(offsets);
        self
    }

    /// The conversation's messages exactly as the request carried them
    /// (each one's bytes, e.g. its JSON as serialized into the body), so the
    /// verdict can tell a history that was rewritten from one that grew, and
    /// name the message, its role and the byte where it parts from the
    /// previous request's. They are hashed here, one pass over their bytes;
    /// the ledger keeps a digest per message (at most
    /// [`MessagesDigest::TRACKED`]), never their text.
    ///
    /// Pass what went out, not the application's own history: a client
    /// that puts the per-turn block at the head of the newest user message
    /// sends bytes the application never kept, and its history compared
    /// with the one sent reads as rewritten. [`history`](Self::history)
    /// takes the request body itself.
    pub fn messages<M: AsRef<[u8]>>(mut self, messages: impl IntoIterator<Item = M>) -> Self {
        self.messages = Some(MessagesDigest::of(messages));
        self
    }

    /// The conversation's messages read from the request body as sent (its
    /// `messages`, `input` or `contents` array, or the array itself), each
    /// hashed as its JSON without its breakpoint markers
    /// ([`MessagesDigest::of_json`]): a history kept as sent, whose
    /// breakpoint moves to the newest message each turn, is never reported
    /// rewritten.
    pub fn history(mut self, body: &Value) -> Self {
        self.messages = Some(MessagesDigest::of_json(body));
        self
    }

    /// The messages' digest, computed by the caller
    /// ([`MessagesDigest::of`] or [`MessagesDigest::of_json`]).
    pub fn messages_digest(mut self, digest: MessagesDigest) -> Self {
        self.messages = Some(digest);
        self
    }

    /// The model's minimum cacheable prefix, in tokens, overriding the
    /// crate's table (Anthropic's: [`CacheMinimums`](crate::providers::anthropic::CacheMinimums),
    /// which a Bedrock id reads through its Claude family; OpenAI and Gemini
    /// have none here yet, so without this a prefix below their minimum
    /// reads as a cold start).
    pub fn minimum(mut self, tokens: u64) -> Self {
        self.minimum = Some(tokens);
        self
    }

    /// The price of this request's tokens, for the dollars a miss lost
    /// (default: the ledger's, [`CacheLedger::pricing`](super::CacheLedger::pricing)).
    pub fn pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// Marks the request as a keep-alive ping (see [`keepalive`](crate::keepalive)):
    /// the conversation's last real turn re-sent with a minimal output to
    /// restart its cache's TTL. A ping is not a turn: the gaps between
    /// turns leave it out, the next real turn is compared with the previous
    /// real turn (its TTL counted from the ping), and its verdict says
    /// whether it refreshed the cache (read the prefix) or failed (wrote it
    /// again, [`CacheVerdict::keep_alive`](super::CacheVerdict::keep_alive)).
    pub fn keep_alive(mut self) -> Self {
        self.keep_alive = true;
        self
    }

    /// The prompt's name and version as the application names them
    /// (`gen_ai.prompt.name`, `gen_ai.prompt.version`), e.g. the pipeline's
    /// name and a release.
    pub fn prompt(mut self, name: &'a str, version: &'a str) -> Self {
        self.prompt = Some((name, version));
        self
    }
}

/// Where a request was recorded in a [`CacheLedger`](super::CacheLedger):
/// pass it back with the response's usage to
/// [`received`](super::CacheLedger::received).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SentId {
    pub(crate) ledger: u32,
    pub(crate) conversation: u64,
    pub(crate) seq: u64,
}

impl SentId {
    /// The request's number in its conversation, from 1.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}
