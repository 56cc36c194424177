//! The conversation's messages as a request carried them, digested: enough
//! to say whether one history extends another, and where they part (which
//! message, its role, the byte), never their text.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// The keys that mark a cache breakpoint on a message or one of its blocks
/// (Anthropic's and genai's `cache_control`, OpenAI's
/// `prompt_cache_breakpoint`), or make a block of its own (Bedrock's
/// `cachePoint`). A provider reads the prefix, not its markers, and a cache
/// plan moves the conversation's breakpoint to the newest message each
/// turn: [`MessagesDigest::of_json`] leaves them out, and a block that held
/// nothing else with them.
pub const BREAKPOINT_MARKERS: [&str; 3] =
    ["cache_control", "prompt_cache_breakpoint", "cachePoint"];

/// A digest of each message of a conversation: enough to say whether one
/// history extends another, at which message they part, its role and about
/// which byte of it.
///
/// Per message it keeps a running digest (8 bytes), its role and a 4-byte
/// digest of its first bytes at every checkpoint: every 128 bytes up to
/// 32 KiB, every 2 KiB up to 512 KiB, and 16 times coarser past each such
/// bound (about one byte kept for 32 of the message's).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessagesDigest {
    /// How many messages.
    pub(crate) count: usize,
    /// The digest of the messages up to each one, for the first
    /// [`TRACKED`](Self::TRACKED).
    pub(crate) running: Vec<u64>,
    /// Each tracked message's own digest: role, length, checkpoints.
    pub(crate) messages: Vec<MessageDigest>,
    /// The digest of them all.
    pub(crate) total: u64,
}

/// One message's digest: its role, its length and its checkpoints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct MessageDigest {
    pub(crate) role: Option<Box<str>>,
    pub(crate) len: usize,
    pub(crate) checkpoints: Vec<u32>,
}

/// Where two histories part: the message, its role, the bytes it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parting {
    /// The first message that differs, when among the tracked ones.
    pub(crate) at: Option<usize>,
    /// That message's role in the newer history (the earlier one's when the
    /// newer one has no such message), when known.
    pub(crate) role: Option<String>,
    /// The bytes of that message both histories share at its start (a lower
    /// bound, within one checkpoint's step: 128 bytes in a message up to
    /// 32 KiB).
    pub(crate) offset: Option<usize>,
}

/// The first checkpoint after byte `pos`.
fn next_checkpoint(pos: usize) -> usize {
    let (mut step, mut limit) = (128usize, 32 * 1024usize);
    while pos >= limit && limit < usize::MAX / 16 {
        step *= 16;
        limit *= 16;
    }
    (pos / step + 1).saturating_mul(step)
}

/// The checkpoint positions of a message of `len` bytes, in order.
fn checkpoints(len: usize) -> impl Iterator<Item = usize> {
    // Saturated at `usize::MAX`, the next is no further: the walk ends.
    std::iter::successors(Some(next_checkpoint(0)), |&p| {
        Some(next_checkpoint(p)).filter(|&next| next > p)
    })
    .take_while(move |&p| p <= len)
}

impl MessageDigest {
    fn of(bytes: &[u8], role: Option<Box<str>>) -> Self {
        let mut hasher = DefaultHasher::new();
        let mut at = 0;
        let mut out = Vec::new();
        for point in checkpoints(bytes.len()) {
            hasher.write(&bytes[at..point]);
            at = point;
            out.push(hasher.finish() as u32);
        }
        Self {
            role,
            len: bytes.len(),
            checkpoints: out,
        }
    }

    /// The bytes `self` and `other` are known to share at their start.
    fn shared(&self, other: &Self) -> usize {
        let same = self
            .checkpoints
            .iter()
            .zip(&other.checkpoints)
            .take_while(|(a, b)| a == b)
            .count();
        match same.checked_sub(1) {
            Some(last) => checkpoints(usize::MAX).nth(last).unwrap_or(0),
            None => 0,
        }
    }
}

/// The longest role kept, in bytes: roles are words (`user`, `assistant`,
/// `tool`), and a digest keeps no text of the caller's beyond them.
const ROLE_MAX: usize = 32;

/// `role`, cut to [`ROLE_MAX`] bytes at a character boundary.
fn kept_role(role: &str) -> Box<str> {
    let mut end = role.len().min(ROLE_MAX);
    while !role.is_char_boundary(end) {
        end -= 1;
    }
    Box::from(&role[..end])
}

/// A message's `role`, read from its JSON (`None` when it is not an object
/// with a string `role`).
fn role_of(bytes: &[u8]) -> Option<Box<str>> {
    #[derive(serde::Deserialize)]
    struct Role<'a> {
        #[serde(borrow, default)]
        role: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Role<'_>>(bytes)
        .ok()
        .and_then(|r| r.role)
        .map(|r| kept_role(&r))
}

/// `message` without its [`BREAKPOINT_MARKERS`], at any depth; `None` when
/// it has none (nothing to copy).
fn unmarked(message: &Value) -> Option<Value> {
    fn marked(value: &Value) -> bool {
        match value {
            Value::Object(map) => {
                BREAKPOINT_MARKERS.iter().any(|k| map.contains_key(*k)) || map.values().any(marked)
            }
            Value::Array(items) => items.iter().any(marked),
            _ => false,
        }
    }
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for key in BREAKPOINT_MARKERS {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => {
                // A block that was only a marker (Bedrock's `{"cachePoint": ..}`) goes whole.
                items.retain(|item| {
                    !matches!(item, Value::Object(map) if !map.is_empty()
                        && map.keys().all(|k| BREAKPOINT_MARKERS.contains(&k.as_str())))
                });
                items.iter_mut().for_each(strip);
            }
            _ => {}
        }
    }
    marked(message).then(|| {
        let mut copy = message.clone();
        strip(&mut copy);
        copy
    })
}

impl MessagesDigest {
    /// How many messages' digests are kept: past it, a rewrite is still
    /// seen, but not where.
    pub const TRACKED: usize = 4096;

    /// The digest of `messages`, each one's bytes as sent (its JSON: a
    /// message's role is read from it when it is a JSON object).
    pub fn of<M: AsRef<[u8]>>(messages: impl IntoIterator<Item = M>) -> Self {
        let mut out = Self::default();
        let mut hasher = DefaultHasher::new();
        for message in messages {
            let bytes = message.as_ref();
            let tracked = out.running.len() < Self::TRACKED;
            let role = if tracked { role_of(bytes) } else { None };
            out.push(&mut hasher, bytes, role);
        }
        out
    }

    /// The digest of a request's messages as its body carried them:
    /// `messages` is the `messages` (Anthropic, OpenAI Chat Completions),
    /// `input` (OpenAI Responses) or `contents` (Gemini) array, or the
    /// request body holding one. Each message is hashed as its compact JSON
    /// with its [`BREAKPOINT_MARKERS`] left out, since a cache plan moves
    /// the conversation's breakpoint to the newest message every turn and
    /// the provider reads the prefix, not its markers.
    ///
    /// ```
    /// use prompt_providers::observe::MessagesDigest;
    /// use serde_json::json;
    ///
    /// let first = json!({"messages": [
    ///     {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}
    /// ]});
    /// let second = json!({"messages": [
    ///     {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
    ///     {"role": "assistant", "content": "Hello."},
    ///     {"role": "user", "content": [{"type": "text", "text": "Go on", "cache_control": {"type": "ephemeral"}}]}
    /// ]});
    /// let (a, b) = (MessagesDigest::of_json(&first), MessagesDigest::of_json(&second));
    /// assert_eq!((a.len(), b.len()), (1, 3));
    /// assert!(b.extends(&a), "a moved breakpoint is not a rewrite");
    /// ```
    pub fn of_json(messages: &Value) -> Self {
        let array = match messages {
            Value::Object(body) => ["messages", "input", "contents"]
                .iter()
                .find_map(|key| body.get(*key)),
            other => Some(other),
        };
        let items: &[Value] = match array {
            Some(Value::Array(items)) => items,
            _ => &[],
        };
        let mut out = Self::default();
        let mut hasher = DefaultHasher::new();
        let mut bytes = Vec::new();
        for message in items {
            bytes.clear();
            let copy = unmarked(message);
            // Serializing a JSON value into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut bytes, copy.as_ref().unwrap_or(message));
            let tracked = out.running.len() < Self::TRACKED;
            let role = match message.get("role") {
                Some(Value::String(role)) if tracked => Some(kept_role(role)),
                _ => None,
            };
            out.push(&mut hasher, &bytes, role);
        }
        out
    }

    fn push(&mut self, hasher: &mut DefaultHasher, bytes: &[u8], role: Option<Box<str>>) {
        bytes.len().hash(hasher);
        hasher.write(bytes);
        let running = hasher.finish();
        if self.running.len() < Self::TRACKED {
            self.running.push(running);
            self.messages.push(MessageDigest::of(bytes, role));
        }
        self.total = running;
        self.count += 1;
    }

    /// How many messages it covers.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it covers none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether `self` begins with every message of `earlier`, byte for
    /// byte: the history grew (or stayed), as a history kept as sent does.
    pub fn extends(&self, earlier: &MessagesDigest) -> bool {
        self.rewritten_since(earlier).is_none()
    }

    /// `None` when `self` starts with every message of `earlier` (the
    /// history grew, or stayed); else where they part.
    pub(crate) fn rewritten_since(&self, earlier: &MessagesDigest) -> Option<Parting> {
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
        let (now, before) = match first {
            Some(i) => (self.messages.get(i), earlier.messages.get(i)),
            None => (None, None),
        };
        Some(Parting {
            at: first,
            role: now
                .or(before)
                .and_then(|m| m.role.as_deref())
                .map(str::to_owned),
            offset: match (now, before) {
                (Some(now), Some(before)) => Some(now.shared(before)),
                // The newer history ends before this message.
                (None, Some(_)) => Some(0),
                _ => None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{MessagesDigest, Parting, checkpoints, next_checkpoint};
    use serde_json::json;

    fn at(i: usize) -> Option<Option<usize>> {
        Some(Some(i))
    }

    fn index(p: Option<Parting>) -> Option<Option<usize>> {
        p.map(|p| p.at)
    }

    #[test]
    fn a_grown_history_extends_and_an_edited_one_says_where() {
        let one = MessagesDigest::of(["a", "b"]);
        assert_eq!(
            index(MessagesDigest::of(["a", "b", "c"]).rewritten_since(&one)),
            None
        );
        assert_eq!(
            index(MessagesDigest::of(["a", "b"]).rewritten_since(&one)),
            None
        );
        assert_eq!(
            index(MessagesDigest::of(["a", "B", "c"]).rewritten_since(&one)),
            at(1)
        );
        assert_eq!(
            index(MessagesDigest::of(["a"]).rewritten_since(&one)),
            at(1)
        );
        // Bytes moved across a message boundary are a rewrite.
        assert_eq!(
            index(MessagesDigest::of(["ab", ""]).rewritten_since(&one)),
            at(0)
        );
        assert_eq!(
            index(MessagesDigest::of(["x"]).rewritten_since(&MessagesDigest::default())),
            None
        );
    }

    #[test]
    fn checkpoints_step_by_128_then_coarser() {
        assert_eq!(next_checkpoint(0), 128);
        assert_eq!(next_checkpoint(127), 128);
        assert_eq!(next_checkpoint(128), 256);
        assert_eq!(next_checkpoint(32 * 1024 - 1), 32 * 1024);
        assert_eq!(next_checkpoint(32 * 1024), 32 * 1024 + 2048);
        assert_eq!(checkpoints(300).collect::<Vec<_>>(), [128, 256]);
        assert_eq!(checkpoints(100).count(), 0);
        // A megabyte keeps a few hundred checkpoints, not thousands.
        assert!(checkpoints(1 << 20).count() < 600);
    }

    #[test]
    fn the_parting_names_the_role_and_the_shared_bytes() {
        let user = |text: &str| json!({"role": "user", "content": text}).to_string();
        let long = "x".repeat(1000);
        let edited = format!("{}y{}", &long[..600], &long[601..]);
        let before = MessagesDigest::of([user("Hi"), user(&long)]);
        let now = MessagesDigest::of([user("Hi"), user(&edited), user("next")]);
        let parting = now.rewritten_since(&before).unwrap();
        assert_eq!(parting.at, Some(1));
        assert_eq!(parting.role.as_deref(), Some("user"));
        // The JSON's first 629 bytes (`{"role":"user","content":"` and 600
        // x's) are shared: the offset is the checkpoint before them.
        let head = r#"{"role":"user","content":""#.len() + 600;
        let offset = parting.offset.unwrap();
        assert!(offset <= head && head - offset < 128, "{offset} for {head}");
        assert_eq!(offset, 512);
    }

    #[test]
    fn markers_are_left_out_and_a_body_is_read_for_its_messages() {
        let marked = json!({"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]},
        ]});
        let moved = json!([
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Yes", "prompt_cache_breakpoint": {"mode": "explicit"}}]},
        ]);
        let (a, b) = (
            MessagesDigest::of_json(&marked),
            MessagesDigest::of_json(&moved),
        );
        assert_eq!((a.len(), b.len()), (1, 2));
        assert!(b.extends(&a));
        let edited = json!([{"role": "user", "content": [{"type": "text", "text": "Ho"}]}]);
        let parting = MessagesDigest::of_json(&edited)
            .rewritten_since(&b)
            .unwrap();
        assert_eq!(parting.at, Some(0));
        assert_eq!(parting.role.as_deref(), Some("user"));
        assert_eq!(parting.offset, Some(0));
        let long = json!([{"role": "é".repeat(40), "content": "Hi"}]);
        let parting = MessagesDigest::of_json(&long).rewritten_since(&b).unwrap();
        assert_eq!(parting.role.map(|r| r.len()), Some(32));
        let responses = json!({"input": [{"role": "user", "content": "Hi"}]});
        assert_eq!(MessagesDigest::of_json(&responses).len(), 1);
        assert!(MessagesDigest::of_json(&json!({"x": 1})).is_empty());
    }
}
