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
//! - **Read**: the longest prefix, ending at any unit boundary up to the
//!   last breakpoint, that an earlier request wrote.
//! - **Write**: every breakpoint's prefix that is longer than what was read
//!   and at least the model's minimum ([`CacheMinimums`]); the tokens
//!   written are the last such prefix's, minus the read. OpenAI reports
//!   writes for GPT-5.6 and later only; before, its automatic cache
//!   remembers the prefix for free.
//! - **Tokens** are [`ApproxCounter`]'s count of each unit's text.
//!
//! It does not expire entries, and it caches what the real API might not
//! (Anthropic looks back at most 20 blocks from a breakpoint): it answers
//! "did the bytes at the breakpoints repeat", which is what a wire test
//! asks.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hasher};

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
pub struct Served {
    /// Input tokens neither read nor written.
    pub uncached: u64,
    /// Read from the cache.
    pub read: u64,
    /// Written to it (reported).
    pub written: u64,
}

/// The prefixes written so far.
#[derive(Debug, Default)]
pub struct Cache {
    written: BTreeSet<u64>,
    /// Earlier requests' texts by `prompt_cache_key`, for OpenAI's models
    /// before GPT-5.6 (the latest [`AUTOMATIC_KEPT`] of each key).
    automatic: BTreeMap<String, Vec<String>>,
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
    breakpoint: bool,
}

impl Cache {
    /// What the provider would read and write for `body`, a request to
    /// `api`; the prefixes it writes are remembered.
    pub fn serve(&mut self, api: Api, body: &Value) -> Served {
        let model = body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (units, seed, minimum, reports_writes) = match api {
            Api::Messages => (
                anthropic_units(body),
                0,
                CacheMinimums::anthropic().lookup(model).tokens,
                true,
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
                    true,
                )
            }
        };
        let minimum = u64::try_from(minimum).unwrap_or(u64::MAX);
        let mut hasher = DefaultHasher::new();
        hasher.write_u64(seed);
        let mut prefixes = Vec::with_capacity(units.len());
        let mut tokens = 0;
        for unit in &units {
            hasher.write_usize(unit.bytes.len());
            hasher.write(unit.bytes.as_bytes());
            tokens += unit.tokens;
            prefixes.push((hasher.finish(), tokens, unit.breakpoint));
        }
        let total = tokens;
        let last_breakpoint = prefixes.iter().rposition(|&(_, _, bp)| bp);
        let read = last_breakpoint.map_or(0, |last| {
            prefixes[..=last]
                .iter()
                .filter(|(digest, _, _)| self.written.contains(digest))
                .map(|&(_, tokens, _)| tokens)
                .max()
                .unwrap_or(0)
        });
        let mut written_to = read;
        for &(digest, tokens, breakpoint) in &prefixes {
            if breakpoint && tokens > read && tokens >= minimum {
                self.written.insert(digest);
                written_to = tokens;
            }
        }
        let written = if reports_writes { written_to - read } else { 0 };
        Served {
            uncached: total - read - written,
            read,
            written,
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
        Served {
            uncached: total - read,
            read,
            written: 0,
        }
    }

    /// The response `api` would send for `body`, the `seq`-th request: a
    /// short text answer with the usage [`serve`](Self::serve) found.
    pub fn answer(&mut self, api: Api, body: &Value, seq: usize) -> Value {
        let served = self.serve(api, body);
        let model = body.get("model").cloned().unwrap_or(Value::Null);
        let text = format!("Loopback reply {seq}.");
        let output = 5;
        let input = served.uncached + served.read + served.written;
        match api {
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
        }
    }
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

/// A content block (or a message's string content) as a unit, `role` in
/// what identifies it.
fn block(role: &str, content: &Value) -> Unit {
    let text = content
        .get("text")
        .and_then(Value::as_str)
        .or(content.as_str())
        .map_or_else(|| content.to_string(), str::to_owned);
    Unit {
        bytes: format!("{role}\u{0}{}", without_breakpoints(content)),
        tokens: tokens(&text),
        text: format!("{role}\u{0}{text}\u{0}"),
        breakpoint: content.get("cache_control").is_some_and(|c| !c.is_null())
            || content
                .get("prompt_cache_breakpoint")
                .is_some_and(|c| !c.is_null()),
    }
}

/// A message's units: its string content, or each of its parts.
fn message_units(message: &Value, units: &mut Vec<Unit>) {
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match message.get("content") {
        Some(Value::Array(parts)) => units.extend(parts.iter().map(|part| block(role, part))),
        Some(content) => units.push(block(role, content)),
        None => units.push(block(role, message)),
    }
}

fn anthropic_units(body: &Value) -> Vec<Unit> {
    let mut units = Vec::new();
    for tool in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        units.push(block("tool", tool));
    }
    match body.get("system") {
        Some(Value::Array(blocks)) => units.extend(blocks.iter().map(|b| block("system", b))),
        Some(Value::String(text)) => units.push(block("system", &Value::String(text.clone()))),
        _ => {}
    }
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        message_units(message, &mut units);
    }
    // Automatic caching: a top-level `cache_control` marks the last block.
    if body.get("cache_control").is_some_and(|c| !c.is_null())
        && let Some(last) = units.last_mut()
    {
        last.breakpoint = true;
    }
    units
}

fn openai_units(api: Api, body: &Value) -> Vec<Unit> {
    let mut units = Vec::new();
    if let Some(instructions) = body.get("instructions").filter(|v| v.is_string()) {
        units.push(block("instructions", instructions));
    }
    let messages = match api {
        Api::Responses => body.get("input"),
        _ => body.get("messages"),
    };
    match messages {
        Some(Value::Array(items)) => {
            for item in items {
                message_units(item, &mut units);
            }
        }
        Some(text @ Value::String(_)) => units.push(block("user", text)),
        _ => {}
    }
    let explicit = body
        .pointer("/prompt_cache_options/mode")
        .and_then(Value::as_str)
        == Some("explicit");
    if !explicit && let Some(last) = units.last_mut() {
        last.breakpoint = true;
    }
    units
}

#[cfg(test)]
mod tests {
    use super::{Api, Cache, Served};
    use serde_json::json;

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
        assert_eq!(
            first,
            Served {
                uncached: 1,
                read: 0,
                written: 1100
            }
        );
        let second = cache.serve(Api::Messages, &messages(&long, "two"));
        assert_eq!(
            second,
            Served {
                uncached: 1,
                read: 1100,
                written: 0
            }
        );
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
            cache.serve(Api::ChatCompletions, &chat("a", "one")),
            Served {
                uncached: 1102,
                read: 0,
                written: 0
            }
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
}
