//! What the ledger is told about a request as it is sent.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use jiff::Timestamp;
use serde_json::Value;

use super::{Pricing, Provider};
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
    pub(crate) ttl: Option<Duration>,
    pub(crate) previous_response: Option<String>,
    pub(crate) breakpoints: Option<&'a [usize]>,
    pub(crate) messages: Option<MessagesDigest>,
    pub(crate) minimum: Option<u64>,
    pub(crate) pricing: Option<Pricing>,
    pub(crate) prompt: Option<(&'a str, &'a str)>,
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
            ttl: None,
            previous_response: None,
            breakpoints: None,
            messages: None,
            minimum: None,
            pricing: None,
            prompt: None,
        }
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

    /// The conversation's messages as sent (each one's bytes, e.g. its
    /// JSON), so the verdict can tell a history that was rewritten from one
    /// that grew. They are hashed here, one pass over their bytes; the
    /// ledger keeps a digest per message (at most
    /// [`MessagesDigest::TRACKED`]), never their text.
    pub fn messages<M: AsRef<[u8]>>(mut self, messages: impl IntoIterator<Item = M>) -> Self {
        self.messages = Some(MessagesDigest::of(messages));
        self
    }

    /// The model's minimum cacheable prefix, in tokens, overriding the
    /// crate's table (Anthropic's: [`CacheMinimums`](crate::providers::anthropic::CacheMinimums);
    /// OpenAI and Gemini have none here yet, so without this a prefix below
    /// their minimum reads as a cold start).
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

/// A digest of each message of a conversation: enough to say whether one
/// history extends another, and at which message they part.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessagesDigest {
    /// How many messages.
    pub(crate) count: usize,
    /// The digest of the messages up to each one, for the first
    /// [`TRACKED`](Self::TRACKED).
    pub(crate) running: Vec<u64>,
    /// The digest of them all.
    pub(crate) total: u64,
}

impl MessagesDigest {
    /// How many messages' running digests are kept (8 bytes each): past it,
    /// a rewrite is still seen, but not where.
    pub const TRACKED: usize = 4096;

    /// The digest of `messages`, each one's bytes.
    pub fn of<M: AsRef<[u8]>>(messages: impl IntoIterator<Item = M>) -> Self {
        let mut hasher = DefaultHasher::new();
        let mut out = Self::default();
        for message in messages {
            let bytes = message.as_ref();
            bytes.len().hash(&mut hasher);
            hasher.write(bytes);
            let running = hasher.finish();
            if out.running.len() < Self::TRACKED {
                out.running.push(running);
            }
            out.total = running;
            out.count += 1;
        }
        out
    }

    /// How many messages it covers.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it covers none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `None` when `self` starts with every message of `earlier` (the
    /// history grew, or stayed); else the index of the first message that
    /// differs, when it is among the tracked ones (`Some(None)` when not).
    pub(crate) fn rewritten_since(&self, earlier: &MessagesDigest) -> Option<Option<usize>> {
        if earlier.count == 0 {
            return None;
        }
        let at = earlier.count - 1;
        let same = if self.count < earlier.count {
            false
        } else if at < self.running.len() {
            self.running[at] == earlier.total
        } else {
            // Past the tracked ones: equal lengths compare their totals.
            self.count == earlier.count && self.total == earlier.total
        };
        if same {
            return None;
        }
        let first = self
            .running
            .iter()
            .zip(&earlier.running)
            .position(|(a, b)| a != b)
            .or_else(|| {
                let tracked = self.running.len().min(earlier.running.len());
                (tracked < MessagesDigest::TRACKED && self.count < earlier.count)
                    .then_some(self.count)
            });
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::MessagesDigest;

    #[test]
    fn a_grown_history_extends_and_an_edited_one_says_where() {
        let one = MessagesDigest::of(["a", "b"]);
        assert_eq!(
            MessagesDigest::of(["a", "b", "c"]).rewritten_since(&one),
            None
        );
        assert_eq!(MessagesDigest::of(["a", "b"]).rewritten_since(&one), None);
        assert_eq!(
            MessagesDigest::of(["a", "B", "c"]).rewritten_since(&one),
            Some(Some(1))
        );
        assert_eq!(
            MessagesDigest::of(["a"]).rewritten_since(&one),
            Some(Some(1))
        );
        // Bytes moved across a message boundary are a rewrite.
        assert_eq!(
            MessagesDigest::of(["ab", ""]).rewritten_since(&one),
            Some(Some(0))
        );
        assert_eq!(
            MessagesDigest::of(["x"]).rewritten_since(&MessagesDigest::default()),
            None
        );
    }
}
