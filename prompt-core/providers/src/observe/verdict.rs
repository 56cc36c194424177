//! What the ledger concludes about one response: hit, or miss and why.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::wire::{self, human, thousands};
use super::{Provider, ProviderDiagnosis};
use crate::diff::{ChangeKind, LineChange, escape};
use crate::fingerprint::Fingerprint;
use crate::spec::Scope;

/// Why a response read less from the cache than a hit would have.
///
/// Each cause names what moved, and only what the ledger saw move:
/// [`ProviderSide`](Self::ProviderSide) says that nothing of ours did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
#[non_exhaustive]
pub enum MissCause {
    /// The conversation's first request, or the first after the cache held
    /// nothing for it: there was nothing to read.
    #[non_exhaustive]
    ColdStart {},
    /// A Stable layer's text changed: the cache serves the prefix only up to
    /// the last breakpoint before it, and everything after is written again.
    #[non_exhaustive]
    LayerChanged {
        /// The layer's name.
        layer: String,
        /// Its scope (`None` when the prompt was recorded without scopes).
        scope: Option<Scope>,
        /// The byte of the stable prefix where the two prompts first differ.
        offset: usize,
        /// Whether the layer's text changed, or it spoke in one prompt only.
        kind: ChangeKind,
        /// Tokens of the stable prefix from `offset` to its end (an
        /// estimate: counted when the build had a counter, else 4 bytes a token).
        tokens_after: u64,
        /// Bytes before `offset` that a breakpoint still closes: what the
        /// cache could still read of the prefix.
        kept_bytes: usize,
        /// The layer's first differing line, before and after, each side
        /// cut after 240 characters and followed by `... (N more
        /// characters)` when longer: a verdict on a one-line prompt of
        /// megabytes holds a few hundred bytes of it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<Box<LineChange>>,
        /// What the layer noted as it rendered (the files it read, what it cut).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reads: Vec<String>,
    },
    /// The conversation was idle longer than the cache's lifetime.
    #[non_exhaustive]
    TtlExpired {
        /// Time since the previous request.
        #[serde(with = "wire::seconds")]
        idle: Duration,
        /// The cache's lifetime.
        #[serde(with = "wire::seconds")]
        ttl: Duration,
    },
    /// The cacheable prefix is shorter than the model caches: nothing is
    /// written, nothing will be read.
    #[non_exhaustive]
    BelowMinimum {
        /// The prefix's tokens (an estimate from its bytes, or the whole
        /// prompt's count when that is already below).
        tokens: u64,
        /// The model's minimum.
        minimum: u64,
    },
    /// Another model than the previous request's: caches are per model.
    #[non_exhaustive]
    ModelChanged {
        /// The previous request's model.
        from: String,
        /// This request's.
        to: String,
    },
    /// The tool definitions changed; they come before the system prompt.
    #[non_exhaustive]
    ToolsChanged {
        /// Which tool and how, when both requests declared their tools
        /// ([`Sent::declared_tools`](super::Sent::declared_tools)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        change: Option<super::ToolChange>,
    },
    /// The messages are not the previous request's with more appended.
    ///
    /// Never said of a history kept as sent: when each request's messages
    /// begin with the previous request's, byte for byte (breakpoint markers
    /// aside, with [`Sent::history`](super::Sent::history)), the history grew.
    #[non_exhaustive]
    MessagesRewritten {
        /// The first message that differs, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<usize>,
        /// Its role (`user`, `assistant`, ...), when its JSON said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<String>,
        /// The bytes of that message the two requests share at its start: it
        /// differs from there, within 128 bytes (a coarser step in a message
        /// past 32 KiB), since the ledger keeps digests, never text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
        /// The previous request's message count.
        before: usize,
        /// This request's.
        now: usize,
    },
    /// Not one response of the conversation has read or written the cache,
    /// `requests` requests in (the conversation's second request on, those
    /// below the minimum aside): not a cold start but a cache that never took.
    /// The request carries less than the model caches (its minimum), no
    /// breakpoint (no `cache_control`, or one a client or proxy dropped), or
    /// caching is disabled for the account, the region or the key.
    #[non_exhaustive]
    NeverWritten {
        /// The conversation's requests so far, this one included.
        requests: u64,
    },
    /// Nothing the ledger was told about moved (prefix, model, tools,
    /// messages, within the TTL): the provider evicted the entry or served
    /// the request elsewhere.
    #[non_exhaustive]
    ProviderSide {},
    /// The response read nothing, and the conversation's previous request is
    /// not known: a shared ledger's store (`SharedLedger`, feature `redis`)
    /// did not answer in time, was unreachable, held a record it could not
    /// read, or lost the record (restarted) while this replica had sent the
    /// conversation's earlier requests. Not a cold start: nothing says there
    /// was nothing to read. See [`CacheVerdict::previous_unknown`].
    #[non_exhaustive]
    PreviousUnknown {},
}

impl MissCause {
    /// The cause's name in logs and traces (`layer_changed`, ...).
    pub const fn name(&self) -> &'static str {
        match self {
            Self::ColdStart { .. } => "cold_start",
            Self::LayerChanged { .. } => "layer_changed",
            Self::TtlExpired { .. } => "ttl_expired",
            Self::BelowMinimum { .. } => "below_minimum",
            Self::ModelChanged { .. } => "model_changed",
            Self::ToolsChanged { .. } => "tools_changed",
            Self::MessagesRewritten { .. } => "messages_rewritten",
            Self::NeverWritten { .. } => "never_written",
            Self::ProviderSide { .. } => "provider_side",
            Self::PreviousUnknown { .. } => "previous_unknown",
        }
    }

    /// Whether a cause on our side: anything but the provider's.
    pub const fn is_ours(&self) -> bool {
        !matches!(self, Self::ProviderSide { .. })
    }

    pub(crate) fn cold_start() -> Self {
        Self::ColdStart {}
    }

    pub(crate) fn tools_changed(change: Option<super::ToolChange>) -> Self {
        Self::ToolsChanged { change }
    }

    pub(crate) fn provider_side() -> Self {
        Self::ProviderSide {}
    }

    pub(crate) fn previous_unknown() -> Self {
        Self::PreviousUnknown {}
    }
}

impl fmt::Display for MissCause {
    /// What moved, in a few words (the verdict adds its cost and the fix).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ColdStart {} => f.write_str("cold start"),
            Self::LayerChanged {
                layer,
                scope,
                offset,
                kind,
                ..
            } => {
                let scope = scope.map_or(String::new(), |s| format!(" ({})", s.ident()));
                let how = match kind {
                    ChangeKind::Changed => "changed",
                    ChangeKind::Added => "spoke again",
                    ChangeKind::Removed => "went silent",
                };
                write!(
                    f,
                    "layer `{}`{scope} {how} at byte {}",
                    escape(layer),
                    thousands(*offset as u64)
                )
            }
            Self::TtlExpired { idle, ttl } => {
                write!(
                    f,
                    "TTL expired: idle {} against {}",
                    human(*idle),
                    human(*ttl)
                )
            }
            Self::BelowMinimum { tokens, minimum } => write!(
                f,
                "below the minimum: about {} tokens, the model caches from {}",
                thousands(*tokens),
                thousands(*minimum)
            ),
            Self::ModelChanged { from, to } => write!(
                f,
                "model changed from `{}` to `{}`",
                escape(from),
                escape(to)
            ),
            Self::ToolsChanged { change: None } => f.write_str("tools changed"),
            Self::ToolsChanged {
                change: Some(change),
            } => write!(f, "tools changed: {change}"),
            Self::MessagesRewritten {
                at,
                role,
                offset,
                before,
                now,
            } => {
                f.write_str("messages rewritten")?;
                if let Some(at) = at {
                    write!(f, " from message {at}")?;
                }
                f.write_str(" (")?;
                if let Some(role) = role.as_deref().filter(|_| at.is_some()) {
                    write!(f, "{}, ", escape(role))?;
                }
                match offset.filter(|_| at.is_some()) {
                    Some(0) => f.write_str("at its start; ")?,
                    Some(offset) => {
                        write!(f, "after its first {} bytes; ", thousands(offset as u64))?
                    }
                    None => {}
                }
                write!(f, "{before} before, {now} now)")
            }
            Self::NeverWritten { requests } => write!(
                f,
                "nothing ever written: no response of the conversation's {requests} requests \
                 read or wrote the cache"
            ),
            Self::ProviderSide {} => f.write_str("provider side: nothing of ours moved"),
            Self::PreviousUnknown {} => f.write_str(
                "previous request unknown: the ledger's store did not say what this \
                 conversation sent before",
            ),
        }
    }
}

/// How the verdict compares with the provider's own diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "agreement", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Agreement {
    /// The provider says the same.
    Agrees {},
    /// The provider says otherwise; `note` says how the two differ.
    Differs {
        /// The ledger's cause (`None`: a hit).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ours: Option<String>,
        /// The provider's outcome or reason, verbatim.
        theirs: String,
        /// Where they differ, for a person.
        note: String,
    },
    /// The provider names a cause the ledger is not told about (OpenAI's
    /// `prompt_cache_key_changed` for a key set beside the prompt,
    /// `service_tier_changed`, another request parameter), and the ledger
    /// saw nothing of its own move: the two do not contradict each other,
    /// and the provider's reason is the one to act on. The ledger never
    /// takes it as its own cause.
    OutsideLedger {
        /// The provider's reason, verbatim, with its missed tokens.
        theirs: String,
        /// What it means and why the ledger could not see it, for a person.
        note: String,
    },
    /// The provider gave nothing to compare with (pending, not found,
    /// unavailable).
    NotComparable {
        /// Why.
        why: String,
    },
}

/// The ledger's conclusion about one response: what the cache read, wrote
/// and was expected to read, and, for a miss, its [`MissCause`].
///
/// Its `Display` is one line with the fix:
/// "layer `project_context` (Project) changed at byte 4,210: 3,870 tokens
/// re-written, USD 0.0134 more than a hit; ...".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheVerdict {
    /// Where it was recorded (not in the log; [`seq`](Self::seq) is).
    #[serde(skip, default = "super::SentId::detached")]
    pub id: super::SentId,
    /// The request's number in its conversation, from 1.
    pub seq: u64,
    /// The conversation (empty for a ledger of one).
    #[serde(with = "wire::shared", default = "empty")]
    pub conversation: Arc<str>,
    /// When the request was sent.
    pub at: Timestamp,
    /// Whose API.
    pub provider: Provider,
    /// The model asked for.
    #[serde(with = "wire::shared")]
    pub model: Arc<str>,
    /// The response's id, when its body had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// `gen_ai.prompt.name`, when the application named it.
    #[serde(
        with = "wire::shared_opt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub prompt_name: Option<Arc<str>>,
    /// `gen_ai.prompt.version`, when the application named it.
    #[serde(
        with = "wire::shared_opt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub prompt_version: Option<Arc<str>>,
    /// The stable prefix's fingerprint.
    pub stable_fingerprint: Fingerprint,
    /// Input tokens read from the cache.
    pub read: u64,
    /// Input tokens written to it.
    pub written: u64,
    /// Input tokens billed in full.
    pub uncached: u64,
    /// Output tokens, when the response said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    /// Tokens a hit would have read: what the previous response read and
    /// wrote (exact), or the stable prefix's estimate when that is unknown
    /// ([`expected_estimated`](Self::expected_estimated)).
    pub expected: u64,
    /// Whether [`expected`](Self::expected) is an estimate.
    #[serde(default)]
    pub expected_estimated: bool,
    /// Tokens a hit would have read that this response paid for in full or
    /// as writes (0 on a hit).
    pub lost_tokens: u64,
    /// Of those, how many were written (the rest billed uncached).
    #[serde(default)]
    pub lost_written: u64,
    /// What they cost beyond a read, in US dollars, when a price was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_usd: Option<f64>,
    /// The cache's lifetime the request was judged against.
    #[serde(with = "wire::seconds")]
    pub ttl: Duration,
    /// A keep-alive ping ([`Sent::keep_alive`](super::Sent::keep_alive)),
    /// not a turn: a hit refreshed the cache; a miss is a *failed*
    /// keep-alive, which wrote the prefix instead of reading it (its
    /// [`lost_usd`](Self::lost_usd) is what that cost beyond the read).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_alive: bool,
    /// A prewarm ([`Sent::prewarm`](super::Sent::prewarm)): what it wrote
    /// was asked for. It has no cause unless below the minimum (it then
    /// wrote nothing), loses nothing, and is neither a hit nor a miss.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prewarm: bool,
    /// `None` on a hit and a prewarm; else why it missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<MissCause>,
    /// The provider's own diagnosis, when the response had one (boxed: most
    /// responses have none, and a verdict moves often).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<Box<ProviderDiagnosis>>,
    /// How the verdict compares with it, when the request asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<Box<Agreement>>,
    /// The conversation's previous request was not known when this one was
    /// sent: a shared ledger's store did not answer (down, slow, restarted,
    /// or holding a record it could not read). Nothing was compared: the
    /// cause is [`MissCause::PreviousUnknown`] when the response read
    /// nothing, none when it read something ([`expected`](Self::expected)
    /// is then 0), [`MissCause::BelowMinimum`] when below the minimum.
    /// Always false for a [`CacheLedger`](super::CacheLedger) alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub previous_unknown: bool,
}

fn empty() -> Arc<str> {
    Arc::from("")
}

impl super::SentId {
    pub(crate) fn detached() -> Self {
        Self {
            ledger: 0,
            conversation: 0,
            seq: 0,
        }
    }
}

impl CacheVerdict {
    /// Whether the cache read what a hit reads (never a prewarm's).
    pub fn is_hit(&self) -> bool {
        self.cause.is_none() && !self.prewarm
    }

    /// Whether a keep-alive ping that wrote the prefix instead of reading it.
    pub fn is_failed_keep_alive(&self) -> bool {
        self.keep_alive && self.cause.is_some()
    }

    /// Every input token: read, written and uncached.
    pub fn input_tokens(&self) -> u64 {
        self.read
            .saturating_add(self.written)
            .saturating_add(self.uncached)
    }

    /// The share of input tokens read from the cache, 0.0 to 1.0.
    pub fn hit_ratio(&self) -> f64 {
        match self.input_tokens() {
            0 => 0.0,
            total => self.read as f64 / total as f64,
        }
    }

    /// What the miss cost, in words: "3,870 tokens re-written, USD 0.0134
    /// more than a hit".
    fn cost(&self, out: &mut String) {
        use fmt::Write as _;
        let uncached = self.lost_tokens - self.lost_written.min(self.lost_tokens);
        match (self.lost_written, uncached) {
            (0, 0) => {}
            (w, 0) => {
                let _ = write!(out, "{} tokens re-written", thousands(w));
            }
            (0, u) => {
                let _ = write!(out, "{} tokens billed uncached", thousands(u));
            }
            (w, u) => {
                let _ = write!(
                    out,
                    "{} tokens re-written and {} billed uncached",
                    thousands(w),
                    thousands(u)
                );
            }
        }
        if let Some(usd) = self.lost_usd.filter(|_| self.lost_tokens > 0) {
            let _ = write!(out, ", USD {usd:.4} more than a hit");
        }
    }

    /// The fix for its cause, in one clause.
    fn fix(&self) -> &'static str {
        match &self.cause {
            None => "",
            Some(MissCause::ColdStart { .. }) => {
                "expected once per conversation; the next call within the TTL reads it"
            }
            Some(MissCause::LayerChanged { scope, .. }) => match scope {
                Some(Scope::Global) | Some(Scope::Project) => {
                    "expected after an edit of what it reads (everyone sharing this scope pays once); \
                     if it changes on every call, it holds a per-call value: move that into a Dynamic layer"
                }
                _ => {
                    "if it changes on every call, it holds a per-call value: move that into a \
                     Dynamic layer"
                }
            },
            Some(MissCause::TtlExpired { .. }) => {
                "calls further apart than the TTL re-write the prefix: send with a longer TTL \
                 (Anthropic `1h`) if the gaps are usual"
            }
            Some(MissCause::BelowMinimum { .. }) => {
                "nothing is cached below it: grow the stable prefix past the minimum, or accept \
                 uncached calls"
            }
            Some(MissCause::ModelChanged { .. }) => {
                "each model has its own cache: keep one model per conversation"
            }
            Some(MissCause::ToolsChanged { .. }) => {
                "tools come before the system prompt: keep their list, order and text stable"
            }
            Some(MissCause::MessagesRewritten { .. }) => {
                "append to the history rather than editing it (compaction rewrites it on purpose)"
            }
            Some(MissCause::NeverWritten { .. }) => {
                "not a cold start: the request may be below the model's minimum, carry no \
                 breakpoint (`cache_control` dropped by a client or proxy), or caching is \
                 disabled for the account or region; check the body as sent"
            }
            Some(MissCause::ProviderSide { .. }) => {
                "the provider evicted or routed the entry elsewhere (OpenAI: a stable \
                 `prompt_cache_key` helps); nothing to change on our side"
            }
            Some(MissCause::PreviousUnknown { .. }) => {
                "the shared ledger's store did not answer in time or lost its record: \
                 check the store (its address, its latency against the ledger's timeout); \
                 the next request is compared again once it answers"
            }
        }
    }
}

impl fmt::Display for CacheVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.prewarm && self.cause.is_none() {
            return write!(
                f,
                "prewarm: {} tokens written at the caller's request, billed as cache writes \
                 ({} read, {} uncached); the next request reads them",
                thousands(self.written),
                thousands(self.read),
                thousands(self.uncached)
            );
        }
        if self.keep_alive {
            f.write_str(if self.cause.is_some() {
                "FAILED keep-alive: "
            } else {
                "keep-alive: "
            })?;
        }
        let Some(cause) = &self.cause else {
            write!(
                f,
                "hit: read {} of {} input tokens ({:.0}%)",
                thousands(self.read),
                thousands(self.input_tokens()),
                self.hit_ratio() * 100.0
            )?;
            if self.previous_unknown {
                f.write_str(" (previous request unknown: nothing to compare with)")?;
            }
            return Ok(());
        };
        let mut line = cause.to_string();
        if let MissCause::LayerChanged {
            line: Some(change), ..
        } = cause
        {
            line.push_str(&format!(
                " (line {}: {} -> {})",
                change.number,
                shown(change.before.as_deref()),
                shown(change.after.as_deref())
            ));
        }
        let noted = match cause {
            MissCause::LayerChanged { reads, .. } => reads.first(),
            _ => None,
        };
        if let Some(first) = noted {
            line.push_str(&format!("; it noted: {}", escape(first)));
        }
        let mut cost = String::new();
        self.cost(&mut cost);
        if cost.is_empty() {
            cost = match cause {
                MissCause::ColdStart { .. } => {
                    format!("{} tokens written", thousands(self.written))
                }
                MissCause::NeverWritten { .. } => {
                    format!("{} tokens billed uncached", thousands(self.uncached))
                }
                _ => "nothing lost".to_owned(),
            };
        }
        let fix = if self.keep_alive {
            "the ping wrote the prefix instead of reading it: ping earlier in the TTL (a lower \
             lead), or stop pinging a conversation whose entries the provider drops"
        } else {
            self.fix()
        };
        write!(f, "{line}: {cost}; {fix}")
    }
}

/// A differing line as the one-line verdict shows it: quoted, escaped, at
/// most 60 characters.
fn shown(line: Option<&str>) -> String {
    match line {
        None => "(end)".to_owned(),
        Some(line) => {
            let head: String = line.chars().take(60).collect();
            let more = if line.chars().nth(60).is_some() {
                "…"
            } else {
                ""
            };
            format!("\"{}{more}\"", escape(&head))
        }
    }
}
