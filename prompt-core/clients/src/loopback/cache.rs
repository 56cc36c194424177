//! The loopback's prompt cache: what a provider would read and write for a
//! request, from the breakpoints in it, and the response it would send.
//!
//! A request is read as a sequence of **units**, in the providers' prefix
//! order: Anthropic's tools, `system` blocks and message content blocks;
//! OpenAI's instructions and message content (a string or each part). A
//! breakpoint ends a unit: Anthropic's `cache_control` (on a block, or
//! top-level on the last one), OpenAI's `prompt_cache_breakpoint`, and
//! OpenAI's own implicit one at the end of the input unless
//! `prompt_cache_options.mode` is `explicit`. A prefix is the units up to a
//! boundary; OpenAI's are keyed by `prompt_cache_key` too, as OpenAI routes
//! by it. Before GPT-5.6, OpenAI caches any prefix on its own: such a
//! request reads the longest prefix of its text it shares with an earlier
//! one of its key, in steps of 128 tokens, and is billed no write.
//!
//! - **Read**: the longest prefix an earlier request wrote that is still
//!   alive. Anthropic looks for it from each breakpoint back over at most
//!   [`LOOKBACK_BLOCKS`] block boundaries (the breakpoint's own and the 20
//!   before it), as its documentation says; OpenAI at any boundary up to
//!   the last breakpoint.
//! - **Write**: every breakpoint's prefix that is longer than what was read
//!   and at least the model's minimum ([`CacheMinimums`]); the tokens
//!   written are the last such prefix's, minus the read. OpenAI reports
//!   writes for GPT-5.6 and later only; before, its automatic cache
//!   remembers the prefix for free.
//! - **Lifetime**: an entry lives for its breakpoint's TTL (`5m`, or `1h`
//!   with `"ttl": "1h"`; OpenAI's for 5 minutes) and each read starts it
//!   again, against the cache's [`Clock`]: the system clock, or a
//!   [`ManualClock`] a test advances.
//! - **Refusals** ([`refusal`]): an Anthropic request with more than
//!   [`MAX_BREAKPOINTS`] `cache_control` blocks (automatic caching counting
//!   as one), or a `1h` breakpoint after a `5m` one, is answered with a 400
//!   as the API answers it, and neither read nor written.
//! - **Tokens** are [`ApproxCounter`]'s count of each unit's text.
//!
//! Each request (Anthropic's, and OpenAI's from GPT-5.6 on) also says how much of its input could have been
//! read at best ([`Served::readable`]): everything but its new part, the
//! newest user message and the reply right before it (and all of it when
//! no earlier request began with the same tools and system prompt).
//! [`Loopback::read_share`](super::Loopback::read_share) adds them up.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{DefaultHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use prompt_core::tokens::{ApproxCounter, TokenCounter};
use prompt_providers::minimums::CacheMinimums;
use prompt_providers::openai;
use serde_json::{Value, json};

/// Which API a request was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// Anthropic's `POST /v1/messages`.
    Messages,
    /// OpenAI's `POST /v1/chat/completions`.
    ChatCompletions,
    /// OpenAI's `POST /v1/responses`.
    Responses,
}

/// What the cache did with one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Served {
    /// Input tokens neither read nor written.
    pub uncached: u64,
    /// Read from the cache.
    pub read: u64,
    /// Written to it (reported).
    pub written: u64,
    /// What could have been read at best: the input but for the request's
    /// new part (Anthropic requests; 0 for the others).
    pub readable: u64,
}

impl Served {
    /// What the cache did: `uncached`, `read` and `written` tokens, nothing
    /// said about what was readable.
    pub const fn new(uncached: u64, read: u64, written: u64) -> Self {
        Self {
            uncached,
            read,
            written,
            readable: 0,
        }
    }

    /// All its input tokens.
    pub const fn input(&self) -> u64 {
        self.uncached + self.read + self.written
    }
}

/// The most `cache_control` blocks Anthropic takes in one request.
pub const MAX_BREAKPOINTS: usize = 4;
/// How many block boundaries Anthropic checks for a hit from a breakpoint:
/// the breakpoint's own and the 20 before it.
pub const LOOKBACK_BLOCKS: usize = 21;
/// How long an entry lives without a read: Anthropic's default TTL.
pub const FIVE_MINUTES: Duration = Duration::from_secs(5 * 60);
/// Anthropic's `"ttl": "1h"`.
pub const ONE_HOUR: Duration = Duration::from_secs(60 * 60);

/// Where the cache reads the time: entries expire against it.
pub trait Clock: Send + fmt::Debug {
    /// The time since an origin of the clock's own.
    fn now(&self) -> Duration;
}

/// The system's monotonic clock, from when it was made.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        Self(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// A clock that moves only when told: clones share the time, so a test
/// keeps one and gives the cache (or [`Loopback::with_clock`](super::Loopback::with_clock))
/// another.
///
/// ```
/// use prompt_clients::loopback::cache::{Clock, ManualClock, FIVE_MINUTES};
///
/// let clock = ManualClock::default();
/// let theirs = clock.clone();
/// clock.advance(FIVE_MINUTES);
/// assert_eq!(theirs.now(), FIVE_MINUTES);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    /// Moves the time on by `by` (to the millisecond, saturating).
    pub fn advance(&self, by: Duration) {
        let millis = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        let _ = self
            .0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                Some(now.saturating_add(millis))
            });
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_millis(self.0.load(Ordering::SeqCst))
    }
}

/// A prefix written: when it expires and how long a read keeps it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    expires: Duration,
    ttl: Duration,
}

/// The prefixes written so far.
#[derive(Debug)]
pub struct Cache {
    written: BTreeMap<u64, Entry>,
    /// Earlier requests' texts by `prompt_cache_key`, for OpenAI's models
    /// before GPT-5.6 (the latest [`AUTOMATIC_KEPT`] of each key).
    automatic: BTreeMap<String, Vec<String>>,
    /// The tools-and-system prefixes of earlier Anthropic requests.
    heads: BTreeSet<u64>,
    clock: Box<dyn Clock>,
}

impl Default for Cache {
    /// An empty cache on the system clock.
    fn default() -> Self {
        Self::with_clock(SystemClock::default())
    }
}

/// How many requests of one key the automatic cache compares with.
const AUTOMATIC_KEPT: usize = 64;
/// OpenAI's automatic cache reads in steps of this many tokens.
const AUTOMATIC_STEP: u64 = 128;

/// One unit of a request's prefix.
struct Unit {
    /// What identifies it (its role and JSON without breakpoints).
    bytes: String,
    /// Its role and text, as a prefix cache without breakpoints compares it.
    text: String,
    tokens: u64,
    /// The breakpoint's TTL, when the unit ends in one.
    breakpoint: Option<Duration>,
    /// The message it belongs to (`None`: tools, system, instructions).
    message: Option<usize>,
}

/// Why Anthropic would refuse `body`, a request to `api`, for its
/// breakpoints: the message of its 400, or `None` when it takes it.
///
/// ```
/// use prompt_clients::loopback::cache::{refusal, Api};
/// use serde_json::json;
///
/// let marked = json!({"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}});
/// let body = json!({"system": vec![marked; 5], "messages": []});
/// assert_eq!(
///     refusal(Api::Messages, &body).as_deref(),
///     Some("A maximum of 4 blocks with cache_control may be provided. Found 5.")
/// );
/// ```
pub fn refusal(api: Api, body: &Value) -> Option<String> {
    if api != Api::Messages {
        return None;
    }
    // Automatic caching's comes last: the API puts it on the last block.
    let ttls: Vec<Duration> = explicit_anthropic_units(body)
        .iter()
        .filter_map(|u| u.breakpoint)
        .chain(top_level_ttl(body))
        .collect();
    let found = ttls.len();
    if found > MAX_BREAKPOINTS {
        return Some(format!(
            "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
        ));
    }
    let mut short = false;
    for ttl in ttls {
        if ttl == FIVE_MINUTES {
            short = true;
        } else if short {
            return Some(
                "a cache_control block with ttl='1h' cannot come after one with ttl='5m': \
                 breakpoints with a longer TTL must come first"
                    .to_owned(),
            );
        }
    }
    None
}

impl Cache {
    /// An empty cache whose entries expire against `clock`.
    pub fn with_clock(clock: impl Clock + 'static) -> Self {
        Self {
            written: BTreeMap::new(),
            automatic: BTreeMap::new(),
            heads: BTreeSet::new(),
            clock: Box::new(clock),
        }
    }

    /// What the provider would read and write for `body`, a request to
    /// `api`; the prefixes it writes are remembered, those it reads live on.
    /// It does not check [`refusal`]: the server does, before it serves.
    pub fn serve(&mut self, api: Api, body: &Value) -> Served {
        let model = body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (units, seed, minimum, lookback) = match api {
            Api::Messages => (
                anthropic_units(body),
                0,
                CacheMinimums::anthropic().lookup(model).tokens,
                LOOKBACK_BLOCKS,
            ),
            Api::ChatCompletions | Api::Responses => {
                let mut seed = DefaultHasher::new();
                seed.write(
                    body.get("prompt_cache_key")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .as_bytes(),
                );
                if !openai::takes_prompt_cache_options(model) {
                    return self.automatic(body, &openai_units(api, body), model);
                }
                (
                    openai_units(api, body),
                    seed.finish(),
                    CacheMinimums::openai().lookup(model).tokens,
                    usize::MAX,
                )
            }
        };
        let minimum = u64::try_from(minimum).unwrap_or(u64::MAX);
        let now = self.clock.now();
        self.written.retain(|_, entry| entry.expires > now);
        let mut hasher = DefaultHasher::new();
        hasher.write_u64(seed);
        let mut prefixes = Vec::with_capacity(units.len());
        let mut tokens = 0;
        let mut head = hasher.finish();
        for unit in &units {
            hasher.write_usize(unit.bytes.len());
            hasher.write(unit.bytes.as_bytes());
            tokens += unit.tokens;
            if unit.message.is_none() {
                head = hasher.finish();
            }
            prefixes.push((hasher.finish(), tokens, unit.breakpoint));
        }
        let total = tokens;
        // The boundaries a read may end at: within the lookback of a
        // breakpoint.
        let mut reachable = vec![false; prefixes.len()];
        for (at, _) in prefixes
            .iter()
            .enumerate()
            .filter(|(_, (_, _, bp))| bp.is_some())
        {
            for seen in &mut reachable[at.saturating_sub(lookback - 1)..=at] {
                *seen = true;
            }
        }
        let hit = prefixes
            .iter()
            .zip(&reachable)
            .rposition(|((digest, _, _), &reachable)| {
                reachable && self.written.contains_key(digest)
            });
        let read = hit.map_or(0, |at| prefixes[at].1);
        // A read keeps every entry it passes through alive.
        for (digest, _, _) in hit.map_or(&[][..], |at| &prefixes[..=at]) {
            if let Some(entry) = self.written.get_mut(digest) {
                entry.expires = now + entry.ttl;
            }
        }
        let mut written_to = read;
        for &(digest, tokens, breakpoint) in &prefixes {
            if let Some(ttl) = breakpoint
                && tokens > read
                && tokens >= minimum
            {
                self.written.insert(
                    digest,
                    Entry {
                        expires: now + ttl,
                        ttl,
                    },
                );
                written_to = tokens;
            }
        }
        let written = written_to - read;
        let readable = match api {
            _ if !self.heads.insert(head) => total - new_part(&units, body),
            _ => 0,
        };
        Served {
            uncached: total - read - written,
            read,
            written,
            readable,
        }
    }

    /// OpenAI's cache before GPT-5.6: the longest prefix this request shares
    /// with an earlier one of its `prompt_cache_key`, in steps of 128 tokens
    /// from the model's minimum on; no write is billed.
    fn automatic(&mut self, body: &Value, units: &[Unit], model: &str) -> Served {
        let key = body
            .get("prompt_cache_key")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let text: String = units.iter().map(|u| u.text.as_str()).collect();
        let total: u64 = units.iter().map(|u| u.tokens).sum();
        let earlier = self.automatic.entry(key).or_default();
        let shared = earlier
            .iter()
            .map(|other| common_prefix(&text, other))
            .max()
            .unwrap_or(0);
        let minimum =
            u64::try_from(CacheMinimums::openai().lookup(model).tokens).unwrap_or(u64::MAX);
        let shared = tokens(&text[..shared]).min(total);
        let read = if shared >= minimum {
            shared - shared % AUTOMATIC_STEP
        } else {
            0
        };
        if earlier.len() == AUTOMATIC_KEPT {
            earlier.remove(0);
        }
        earlier.push(text);
        Served::new(total - read, read, 0)
    }

    /// The response `api` would send for `body`, the `seq`-th request: a
    /// short text answer with the usage [`serve`](Self::serve) found.
    pub fn answer(&mut self, api: Api, body: &Value, seq: usize) -> Value {
        self.respond(api, body, seq).1
    }

    /// What the cache did with `body` and the response, as
    /// [`answer`](Self::answer) gives it.
    pub fn respond(&mut self, api: Api, body: &Value, seq: usize) -> (Served, Value) {
        let served = self.serve(api, body);
        let model = body.get("model").cloned().unwrap_or(Value::Null);
        let text = reply(seq);
        let output = tokens(&text);
        let input = served.uncached + served.read + served.written;
        let response = match api {
            Api::Messages => json!({
                "id": format!("msg_loopback_{seq}"),
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": null,
                "usage": {
                    "input_tokens": served.uncached,
                    "cache_creation_input_tokens": served.written,
                    "cache_read_input_tokens": served.read,
                    "output_tokens": output,
                },
            }),
            Api::ChatCompletions => json!({
                "id": format!("chatcmpl-loopback-{seq}"),
                "object": "chat.completion",
                "created": 1_800_000_000,
                "model": model,
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": null, "annotations": []},
                    "finish_reason": "stop",
                    "logprobs": null,
                }],
                "usage": {
                    "prompt_tokens": input,
                    "completion_tokens": output,
                    "total_tokens": input + output,
                    "prompt_tokens_details": {"cached_tokens": served.read, "cache_write_tokens": served.written, "audio_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                        "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
                },
                "service_tier": "default",
                "system_fingerprint": null,
            }),
            Api::Responses => json!({
                "id": format!("resp_loopback_{seq}"),
                "object": "response",
                "created_at": 1_800_000_000,
                "status": "completed",
                "model": model,
                "output": [{
                    "type": "message",
                    "id": format!("msg_loopback_{seq}"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }],
                "parallel_tool_calls": true,
                "tool_choice": "auto",
                "tools": [],
                "usage": {
                    "input_tokens": input,
                    "input_tokens_details": {"cached_tokens": served.read, "cache_write_tokens": served.written},
                    "output_tokens": output,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": input + output,
                },
            }),
        };
        (served, response)
    }
}

/// About [`REPLY_BYTES`] of text for the `seq`-th request: a turn's answer
/// as long as a model's usual one, so a conversation grows as a real one.
pub fn reply(seq: usize) -> String {
    let mut text = format!("Loopback reply {seq}.");
    let mut sentence = 0;
    while text.len() < REPLY_BYTES {
        sentence += 1;
        text.push_str(&format!(
            " Sentence {sentence} of reply {seq} says what was found, what changed and why."
        ));
    }
    text
}

/// The length of a reply, in bytes (at least).
pub const REPLY_BYTES: usize = 1500;

/// The tokens of `units` that are new in their request: the newest user
/// message and the assistant reply right before it.
fn new_part(units: &[Unit], body: &Value) -> u64 {
    let messages = body
        .get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let role = |at: usize| {
        messages
            .get(at)
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
    };
    let Some(last_user) = (0..messages.len())
        .rev()
        .find(|&at| role(at) == Some("user"))
    else {
        return 0;
    };
    let first_new = match last_user.checked_sub(1) {
        Some(before) if role(before) == Some("assistant") => before,
        _ => last_user,
    };
    units
        .iter()
        .filter(|u| u.message.is_some_and(|m| m >= first_new))
        .map(|u| u.tokens)
        .sum()
}

/// The length of the longest common prefix of `a` and `b`, on a character
/// boundary of both.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

/// `text`'s tokens.
fn tokens(text: &str) -> u64 {
    u64::try_from(ApproxCounter.count(text)).unwrap_or(u64::MAX)
}

/// A JSON value without its cache fields, as the cache identifies it.
fn without_breakpoints(value: &Value) -> String {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.remove("cache_control");
        object.remove("prompt_cache_breakpoint");
    }
    value.to_string()
}

/// The TTL a `cache_control` (or `prompt_cache_breakpoint`) value asks
/// for: an hour for `"ttl": "1h"`, else five minutes; `None` for none.
fn ttl_of(control: Option<&Value>) -> Option<Duration> {
    let control = control.filter(|c| !c.is_null())?;
    Some(match control.get("ttl").and_then(Value::as_str) {
        Some("1h") => ONE_HOUR,
        _ => FIVE_MINUTES,
    })
}

/// The TTL of a request's top-level `cache_control` (automatic caching).
fn top_level_ttl(body: &Value) -> Option<Duration> {
    ttl_of(body.get("cache_control"))
}

/// A content block (or a message's string content, read as the one text
/// part it stands for) as a unit, `role` in what identifies it.
fn block(role: &str, content: &Value, message: Option<usize>) -> Unit {
    let text = content
        .get("text")
        .and_then(Value::as_str)
        .or(content.as_str())
        .map_or_else(|| content.to_string(), str::to_owned);
    // A string content is shorthand for one text part: both providers
    // cache the same tokens for either form.
    let normal = match content {
        Value::String(text) => json!({"type": "text", "text": text}),
        other => other.clone(),
    };
    Unit {
        bytes: format!("{role}\u{0}{}", without_breakpoints(&normal)),
        tokens: tokens(&text),
        text: format!("{role}\u{0}{text}\u{0}"),
        breakpoint: ttl_of(content.get("cache_control"))
            .or_else(|| ttl_of(content.get("prompt_cache_breakpoint"))),
        message,
    }
}

/// Message `at`'s units: its string content, or each of its parts.
fn message_units(message: &Value, at: usize, units: &mut Vec<Unit>) {
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match message.get("content") {
        Some(Value::Array(parts)) => {
            units.extend(parts.iter().map(|part| block(role, part, Some(at))));
        }
        Some(content) => units.push(block(role, content, Some(at))),
        None => units.push(block(role, message, Some(at))),
    }
}

/// An Anthropic request's units with their own `cache_control` only.
fn explicit_anthropic_units(body: &Value) -> Vec<Unit> {
    let mut units = Vec::new();
    for tool in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        units.push(block("tool", tool, None));
    }
    match body.get("system") {
        Some(Value::Array(blocks)) => {
            units.extend(blocks.iter().map(|b| block("system", b, None)));
        }
        Some(Value::String(text)) => {
            units.push(block("system", &Value::String(text.clone()), None));
        }
        _ => {}
    }
    for (at, message) in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        message_units(message, at, &mut units);
    }
    units
}

fn anthropic_units(body: &Value) -> Vec<Unit> {
    let mut units = explicit_anthropic_units(body);
    // Automatic caching: a top-level `cache_control` marks the last block.
    if let Some(ttl) = top_level_ttl(body)
        && let Some(last) = units.last_mut()
    {
        last.breakpoint = Some(last.breakpoint.map_or(ttl, |own| own.min(ttl)));
    }
    units
}

fn openai_units(api: Api, body: &Value) -> Vec<Unit> {
    let mut units = Vec::new();
    if let Some(instructions) = body.get("instructions").filter(|v| v.is_string()) {
        units.push(block("instructions", instructions, None));
    }
    let messages = match api {
        Api::Responses => body.get("input"),
        _ => body.get("messages"),
    };
    match messages {
        Some(Value::Array(items)) => {
            for (at, item) in items.iter().enumerate() {
                message_units(item, at, &mut units);
            }
        }
        Some(text @ Value::String(_)) => units.push(block("user", text, Some(0))),
        _ => {}
    }
    let explicit = body
        .pointer("/prompt_cache_options/mode")
        .and_then(Value::as_str)
        == Some("explicit");
    if !explicit && let Some(last) = units.last_mut() {
        last.breakpoint = Some(last.breakpoint.unwrap_or(FIVE_MINUTES));
    }
    units
}

#[cfg(test)]
mod tests {
    use super::{
        Api, Cache, FIVE_MINUTES, LOOKBACK_BLOCKS, ManualClock, ONE_HOUR, Served, refusal,
    };
    use serde_json::{Value, json};
    use std::time::Duration;

    /// The usage alone, without what was readable.
    fn usage(served: Served) -> Served {
        Served::new(served.uncached, served.read, served.written)
    }

    fn messages(system: &str, user: &str) -> serde_json::Value {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 8,
               "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
               "messages": [{"role": "user", "content": user}]})
    }

    #[test]
    fn a_repeated_prefix_is_read_and_a_new_one_written() {
        let long = "x".repeat(4 * 1100);
        let mut cache = Cache::default();
        let first = cache.serve(Api::Messages, &messages(&long, "one"));
        assert_eq!(usage(first), Served::new(1, 0, 1100));
        let second = cache.serve(Api::Messages, &messages(&long, "two"));
        assert_eq!(usage(second), Served::new(1, 1100, 0));
        let moved = cache.serve(Api::Messages, &messages(&format!("{long}y"), "two"));
        assert_eq!((moved.read, moved.written), (0, 1101));
    }

    #[test]
    fn a_prefix_below_the_minimum_is_never_written() {
        let mut cache = Cache::default();
        let short = messages("You are terse.", "Hi");
        assert_eq!(cache.serve(Api::Messages, &short).written, 0);
        assert_eq!(cache.serve(Api::Messages, &short).read, 0);
    }

    #[test]
    fn gpt_5_6_caches_only_at_its_breakpoints() {
        let long = "x".repeat(4 * 1100);
        let chat = |suffix: &str, breakpoint: bool| {
            let mut part = json!({"type": "text", "text": long});
            if breakpoint {
                part["prompt_cache_breakpoint"] = json!({"mode": "explicit"});
            }
            json!({"model": "gpt-5.6", "prompt_cache_key": "k",
                   "messages": [{"role": "system", "content": [part]},
                                {"role": "system", "content": suffix},
                                {"role": "user", "content": "hi"}]})
        };
        let mut cache = Cache::default();
        // The implicit breakpoint alone is past the suffix: nothing repeats.
        assert_eq!(
            cache.serve(Api::ChatCompletions, &chat("a", false)).written,
            1102
        );
        assert_eq!(cache.serve(Api::ChatCompletions, &chat("b", false)).read, 0);
        // One at the end of the stable part is read on the next turn.
        assert_eq!(cache.serve(Api::ChatCompletions, &chat("c", true)).read, 0);
        let next = cache.serve(Api::ChatCompletions, &chat("d", true));
        assert_eq!((next.read, next.written), (1100, 2));
    }

    #[test]
    fn before_gpt_5_6_openai_reads_the_shared_prefix_by_key_in_steps() {
        let long = "x".repeat(4 * 1100);
        let chat = |key: &str, suffix: &str| {
            json!({"model": "gpt-5", "prompt_cache_key": key,
                   "messages": [{"role": "system", "content": format!("{long}{suffix}")},
                                {"role": "user", "content": "hi"}]})
        };
        let mut cache = Cache::default();
        assert_eq!(
            usage(cache.serve(Api::ChatCompletions, &chat("a", "one"))),
            Served::new(1102, 0, 0)
        );
        let second = cache.serve(Api::ChatCompletions, &chat("a", "two"));
        assert_eq!(
            (second.read, second.written),
            (1024, 0),
            "1,102 shared tokens, read in steps of 128"
        );
        assert_eq!(
            cache.serve(Api::ChatCompletions, &chat("b", "two")).read,
            0,
            "another key, another cache"
        );
    }

    /// A conversation of `turns` user messages of `words` tokens each, with
    /// a long system prompt and a breakpoint on the last message only.
    fn conversation(turns: usize, ttl: Option<&str>) -> Value {
        let mut control = json!({"type": "ephemeral"});
        if let Some(ttl) = ttl {
            control["ttl"] = json!(ttl);
        }
        let mut messages: Vec<Value> = (0..turns)
            .map(|n| {
                let role = if n % 2 == 0 { "user" } else { "assistant" };
                json!({"role": role, "content": [{"type": "text", "text": format!("turn {n} {}", "w".repeat(400))}]})
            })
            .collect();
        if let Some(last) = messages.last_mut() {
            last["content"][0]["cache_control"] = control;
        }
        json!({"model": "claude-sonnet-4-5", "max_tokens": 8,
               "system": [{"type": "text", "text": "x".repeat(4 * 1100)}],
               "messages": messages})
    }

    #[test]
    fn a_read_looks_back_at_most_twenty_blocks_from_a_breakpoint() {
        let mut cache = Cache::with_clock(ManualClock::default());
        assert_eq!(cache.serve(Api::Messages, &conversation(1, None)).read, 0);
        // The entry at block 1 (the system prompt and one message) is the
        // 21st boundary back from a breakpoint on block 21: still found.
        let near = cache.serve(Api::Messages, &conversation(LOOKBACK_BLOCKS, None));
        assert_eq!(near.read, 1100 + 102);
        let mut far = Cache::with_clock(ManualClock::default());
        far.serve(Api::Messages, &conversation(1, None));
        // One block further and the breakpoint no longer reaches it.
        let missed = far.serve(Api::Messages, &conversation(LOOKBACK_BLOCKS + 1, None));
        assert_eq!(missed.read, 0);
        assert!(missed.written > 0);
    }

    #[test]
    fn an_entry_lives_for_its_ttl_and_each_read_renews_it() {
        let clock = ManualClock::default();
        let mut cache = Cache::with_clock(clock.clone());
        let body = conversation(1, None);
        assert_eq!(cache.serve(Api::Messages, &body).read, 0);
        clock.advance(FIVE_MINUTES - Duration::from_secs(1));
        assert_eq!(
            cache.serve(Api::Messages, &body).read,
            1202,
            "alive, and renewed"
        );
        clock.advance(FIVE_MINUTES - Duration::from_secs(1));
        assert_eq!(
            cache.serve(Api::Messages, &body).read,
            1202,
            "renewed by the read"
        );
        clock.advance(FIVE_MINUTES);
        let expired = cache.serve(Api::Messages, &body);
        assert_eq!(
            (expired.read, expired.written),
            (0, 1202),
            "expired: written again"
        );

        let mut cache = Cache::with_clock(clock.clone());
        let hour = conversation(1, Some("1h"));
        cache.serve(Api::Messages, &hour);
        clock.advance(ONE_HOUR - Duration::from_secs(1));
        assert_eq!(cache.serve(Api::Messages, &hour).read, 1202);
        clock.advance(ONE_HOUR);
        assert_eq!(cache.serve(Api::Messages, &hour).read, 0);
    }

    #[test]
    fn anthropic_refuses_a_fifth_breakpoint_and_an_hour_after_five_minutes() {
        let marked = |ttl: &str| json!({"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": ttl}});
        let four = json!({"system": [marked("5m"), marked("5m")],
                          "messages": [{"role": "user", "content": [marked("5m"), marked("5m")]}]});
        assert_eq!(refusal(Api::Messages, &four), None);
        let mut automatic = four.clone();
        automatic["cache_control"] = json!({"type": "ephemeral"});
        assert_eq!(
            refusal(Api::Messages, &automatic).as_deref(),
            Some("A maximum of 4 blocks with cache_control may be provided. Found 5."),
            "automatic caching takes one of the four"
        );
        let mut tool = four.clone();
        tool["tools"] =
            json!([{"name": "t", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]);
        assert!(refusal(Api::Messages, &tool).is_some_and(|m| m.ends_with("Found 5.")));
        let order = json!({"system": [marked("5m"), marked("1h")], "messages": []});
        assert!(refusal(Api::Messages, &order).is_some_and(|m| m.contains("ttl='1h'")));
        let longer_first = json!({"system": [marked("1h"), marked("5m")], "messages": []});
        assert_eq!(refusal(Api::Messages, &longer_first), None);
        assert_eq!(
            refusal(Api::ChatCompletions, &automatic),
            None,
            "Anthropic's rule"
        );
    }

    #[test]
    fn readable_is_all_but_the_new_turn_once_the_head_was_sent() {
        let mut cache = Cache::with_clock(ManualClock::default());
        let first = cache.serve(Api::Messages, &conversation(1, None));
        assert_eq!(first.readable, 0, "nothing was sent before");
        let third = cache.serve(Api::Messages, &conversation(3, None));
        // The reply (message 1) and the new user turn (message 2) are new.
        assert_eq!(third.readable, third.input() - 2 * 102);
        assert_eq!(third.read, third.readable);
    }
}
