//! The ledger: each prompt as it was sent, then the usage that came back,
//! and the verdict.

mod judge;
mod prefix;
pub(crate) mod remote;

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use jiff::Timestamp;
use smallvec::SmallVec;

use super::{
    CacheUsage, CacheVerdict, MessagesDigest, MissCause, Pricing, Provider, Sent, SentId, TurnGaps,
};
use crate::AssembledPrompt;
use crate::diff::StablePrefix;
use crate::fingerprint::Fingerprint;
use crate::providers::anthropic::CacheMinimums;
use prefix::Changes;
pub use prefix::GivenPrefix;
pub(crate) use prefix::Prefix;

/// The cache's lifetime a request is judged against unless it says: five
/// minutes, Anthropic's default and the shortest OpenAI keeps an entry.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// How many conversations a ledger keeps unless told: past it, the least
/// recently used are forgotten (their next request reads as a cold start).
pub const DEFAULT_CONVERSATIONS: usize = 4096;

/// Requests of one conversation sent and not yet received that a ledger
/// keeps: past it, the oldest is forgotten.
pub const MAX_IN_FLIGHT: usize = 64;

/// Records each prompt as it is sent and the usage that came back, and says
/// for each response whether the cache served what it should have and, if
/// not, why ([`CacheVerdict`], [`MissCause`]).
///
/// One ledger serves one conversation, or a server's many
/// ([`Sent::conversation`]). Per conversation it keeps the last request's
/// fingerprints and byte ranges, its stable prefix *by reference* (the
/// session's own shared record of it: no byte copied, nothing held that the
/// session does not hold too, until the next request replaces it), a digest
/// per message, and the requests in flight (at most [`MAX_IN_FLIGHT`]); at
/// most [`DEFAULT_CONVERSATIONS`] conversations, the least recently used
/// forgotten first ([`with_capacity`](Self::with_capacity)).
///
/// When a request's prefix is not the previous one's, what changed (the
/// layer, the byte, the first differing line) is worked out once per pair
/// of prefixes and remembered for the last 256 pairs, keyed by which shared
/// record each is (held weakly: the memo keeps no prefix's text alive). So
/// a conversation that goes back and forth between a few prompts compares
/// each pair's bytes once, and a prefix sent again as the same record
/// ([`sent`](Self::sent) in one session, [`sent_given`](Self::sent_given)
/// with one [`GivenPrefix`]) is neither copied nor fingerprinted again. A
/// verdict keeps at most 240 characters of each side of the differing line
/// ([`MissCause::LayerChanged`]).
///
/// Its methods take `&mut self` and never block or await: a conversation
/// that owns its ledger pays no lock, and tasks that share one (a tokio
/// server) hold it in an `Arc<Mutex<CacheLedger>>` (a `std` mutex: no call
/// holds it across an `.await`, and each holds it for well under a
/// microsecond).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use prompt_providers::observe::{CacheLedger, CacheUsage, MissCause, Provider, Sent};
/// # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocLedger;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocLedger)]
/// # struct Persona;
/// # let pipeline = Pipeline::of::<DocLedger>()?;
/// let session = PromptBuilder::new(&pipeline).session(Context::new());
/// let ledger = Arc::new(Mutex::new(CacheLedger::new()));
/// let at = jiff::Timestamp::from_second(1_800_000_000)?;
///
/// // The first call writes the prefix to the cache.
/// let prompt = session.build_cached(&Context::new())?;
/// let id = ledger.lock().unwrap().sent(&prompt, Sent::new(Provider::Anthropic, "claude-sonnet-4-5", at));
/// let verdict = ledger.lock().unwrap().received(id, &CacheUsage::new(40, 0, 2048))?;
/// assert!(matches!(verdict.cause, Some(MissCause::ColdStart { .. })));
///
/// // A minute later, the same prefix: a hit.
/// let prompt = session.build_cached(&Context::new())?;
/// let later = at + jiff::SignedDuration::from_secs(60);
/// let id = ledger.lock().unwrap().sent(&prompt, Sent::new(Provider::Anthropic, "claude-sonnet-4-5", later));
/// let verdict = ledger.lock().unwrap().received(id, &CacheUsage::new(52, 2048, 0))?;
/// assert!(verdict.is_hit(), "{verdict}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CacheLedger {
    id: u32,
    capacity: usize,
    pricing: Option<Pricing>,
    minimums: CacheMinimums,
    /// OpenAI's minimum: its implicit cache keeps nothing of a prompt
    /// shorter than it.
    openai_minimums: CacheMinimums,
    /// The conversation looked up last: a ledger of one conversation
    /// hashes nothing.
    last_key: Option<u64>,
    keys: HashMap<Box<str>, u64>,
    /// Boxed: a table's empty slots then cost a pointer, not a conversation.
    conversations: HashMap<u64, Box<Conversation>, BuildHasherDefault<Identity>>,
    next_conversation: u64,
    tick: u64,
    log: Option<Box<dyn Write + Send + Sync>>,
    /// What changed between pairs of prefixes met lately.
    changes: Changes,
}

/// One conversation's state.
struct Conversation {
    key: Arc<str>,
    used: u64,
    next_seq: u64,
    /// The last request sent: what the next one is compared with.
    last: Option<Record>,
    /// Sent, not yet received, oldest first.
    pending: VecDeque<Pending>,
    /// The usage of the last few requests received.
    received: VecDeque<Received>,
    /// How many responses came back, above the minimum, while none of the
    /// conversation's read or wrote anything; [`CACHED`] once one did.
    never_cached: u32,
    /// The gaps between its turns and its keep-alive pings: boxed, and made
    /// at its second turn or first ping, so a conversation of one request
    /// pays a pointer.
    keep: Option<Box<KeepState>>,
}

/// What keep-alive needs of a conversation beyond its last request.
struct KeepState {
    gaps: TurnGaps,
    /// The last ping since the last real turn: the TTL's clock starts there.
    last_ping: Option<Timestamp>,
    pings_since_turn: u32,
    /// The last real turn's TTL and price.
    ttl: Duration,
    pricing: Option<Pricing>,
}

/// A conversation as keep-alive reads it ([`crate::keepalive`] turns it
/// into a `ConversationState`).
#[derive(Clone, Copy)]
pub(crate) struct KeepRaw {
    pub(crate) last_turn: Timestamp,
    pub(crate) refreshed: Timestamp,
    pub(crate) ttl: Duration,
    pub(crate) prefix_tokens: u64,
    pub(crate) minimum: Option<u64>,
    pub(crate) gaps: TurnGaps,
    pub(crate) pings_since_turn: u32,
    pub(crate) pricing: Option<Pricing>,
}

/// `Conversation::never_cached` once a response read or wrote the cache.
const CACHED: u32 = u32::MAX;

/// How many received requests' usage a conversation keeps for the ones in
/// flight after them.
const RECEIVED_KEPT: usize = 4;

/// What the cache held after a request: its usage, as far as a hit of the
/// next request depends on it.
///
/// The counts are `u32`: [`CacheUsage::check`] holds every count of a usage
/// the ledger records to [`MAX_REQUEST_TOKENS`](super::MAX_REQUEST_TOKENS)
/// (10^9), which fits, and a conversation keeps four of these (16 bytes
/// each rather than 32, which keeps a conversation under 1 KiB).
#[derive(Clone, Copy)]
pub(crate) struct Received {
    seq: u64,
    read: u32,
    written: u32,
    /// Every input token of the request: a provider that caches the whole
    /// prompt (OpenAI, Gemini) keeps nothing of one below its minimum.
    input: u32,
}

impl Received {
    /// Request `seq`'s counts, each held to `u32::MAX` (a checked usage is
    /// far below it).
    pub(crate) fn new(seq: u64, read: u64, written: u64, input: u64) -> Self {
        let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            seq,
            read: narrow(read),
            written: narrow(written),
            input: narrow(input),
        }
    }

    /// Tokens the request read from the cache.
    pub(crate) fn read(&self) -> u64 {
        u64::from(self.read)
    }

    /// Tokens the request wrote to the cache.
    pub(crate) fn written(&self) -> u64 {
        u64::from(self.written)
    }

    /// Every input token of the request.
    pub(crate) fn input(&self) -> u64 {
        u64::from(self.input)
    }
}

/// What a request carried that the next one is compared with.
pub(crate) struct Record {
    seq: u64,
    pub(crate) at: Timestamp,
    provider: Provider,
    model: Arc<str>,
    /// The crate's table's minimum for the model (Anthropic's, OpenAI's).
    pub(crate) table_minimum: Option<u64>,
    tools: Option<Fingerprint>,
    /// Boxed: a conversation that declares no tools pays one pointer.
    tool_prints: Option<Box<[prompt_core::tools::ToolFingerprint]>>,
    prefix: Prefix,
    breakpoints: Breakpoints,
    messages: Option<MessagesDigest>,
    prompt: Option<(Arc<str>, Arc<str>)>,
    /// Its own cacheable prefix's tokens, an estimate (0 when below a known minimum).
    pub(crate) held_estimate: u64,
}

/// Byte offsets of the breakpoints in the stable prefix.
type Breakpoints = SmallVec<[usize; 4]>;

/// A request in flight: what its verdict needs once the usage is back.
struct Pending {
    seq: u64,
    at: Timestamp,
    provider: Provider,
    model: Arc<str>,
    prompt_name: Option<Arc<str>>,
    prompt_version: Option<Arc<str>>,
    stable_fingerprint: Fingerprint,
    ttl: Duration,
    pricing: Option<Pricing>,
    minimum: Option<u64>,
    /// This request's cacheable prefix, in tokens (an estimate).
    prefix_tokens: u64,
    requested_diagnosis: bool,
    /// A keep-alive ping ([`Sent::keep_alive`]).
    keep_alive: bool,
    /// A prewarm ([`Sent::prewarm`]): its writes were asked for.
    prewarm: bool,
    /// What moved since the previous request (`None`: there was none).
    moved: Option<Moved>,
    /// What a shared store said of the previous request (`None` for a
    /// ledger alone). Boxed: a ledger alone pays a pointer.
    shared: Option<Box<SharedPending>>,
}

/// What a shared store said of a request's previous one, for its verdict.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
struct SharedPending {
    /// The previous request's usage, as the store held it.
    usage: Option<Received>,
    /// Responses that never cached, as of the previous one (`None`: this
    /// ledger's own count).
    never_cached: Option<u32>,
    /// The store did not say.
    unknown: bool,
    /// The request's number in its conversation, the store's count (0 when
    /// the store did not answer).
    seq: u64,
}

/// Where a shared ledger's request is compared from: what its store said.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) struct FromStore {
    pub(crate) previous: StorePrevious,
    /// The previous request's usage, as the store held it.
    pub(crate) usage: Option<Received>,
    /// Responses that never cached, as of the previous request (`None`:
    /// this ledger's own count).
    pub(crate) never_cached: Option<u32>,
    /// The gaps, TTL and prices stored with the previous request (another
    /// replica's gaps replace this ledger's own, which miss its turns).
    pub(crate) keep: Option<remote::StoredKeep>,
}

/// The previous request as a shared store said.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) enum StorePrevious {
    /// This ledger's own last request of the conversation, text and all.
    Local,
    /// Another replica's, read back (fingerprints and ranges, no text).
    Remote(Box<Record>),
    /// The store did not say.
    Unknown,
    /// None: the conversation's first request (or its record expired).
    None,
}

/// What moved between a request and the one before it.
struct Moved {
    previous_seq: u64,
    /// What the previous request's prefix would hold, estimated.
    held_estimate: u64,
    idle: Duration,
    model: Option<(Arc<str>, Arc<str>)>,
    tools: bool,
    /// Where the declared tools first differ, when both requests declared them.
    /// Boxed, as it is rare: every request in flight holds the field.
    tool_change: Option<Box<super::ToolChange>>,
    layer: Option<Box<MissCause>>,
    /// The history rewritten: where it parts, the counts before and now.
    messages: Option<(crate::observe::history::Parting, usize, usize)>,
}

/// Why [`CacheLedger::received`] has no verdict, or could not log it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The id was made by another ledger.
    #[error(
        "this SentId was recorded by another CacheLedger: pass it to the one whose `sent` returned it"
    )]
    ForeignId,
    /// The request is not in flight: received already, or forgotten (its
    /// conversation evicted, or more than [`MAX_IN_FLIGHT`] sent after it).
    #[error(
        "request {seq} is not in flight in this ledger: its usage was received already, or it \
         was forgotten (its conversation evicted past the ledger's capacity, or more than \
         {MAX_IN_FLIGHT} requests sent after it)"
    )]
    NotInFlight {
        /// The request's number.
        seq: u64,
    },
    /// The usage holds a count, or a sum of counts, past
    /// [`MAX_REQUEST_TOKENS`](super::MAX_REQUEST_TOKENS) ([`CacheUsage::check`]):
    /// nothing is recorded, and the request stays in flight.
    #[error(transparent)]
    Usage(#[from] super::UsageError),
    /// The verdict was made but its log line could not be written. The
    /// writer's error is the [`source`](std::error::Error::source), not part
    /// of the message: a report that walks the chain prints it once.
    #[error("the cache ledger could not write its log line")]
    Log {
        /// The verdict, whole: nothing is lost.
        verdict: Box<CacheVerdict>,
        /// What the writer said.
        #[source]
        source: std::io::Error,
    },
}

static LEDGERS: AtomicU32 = AtomicU32::new(1);

impl Default for CacheLedger {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for CacheLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheLedger")
            .field("conversations", &self.conversations.len())
            .field("capacity", &self.capacity)
            .field("logging", &self.log.is_some())
            .finish()
    }
}

impl CacheLedger {
    /// A ledger of up to [`DEFAULT_CONVERSATIONS`] conversations, without a
    /// log or prices.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CONVERSATIONS)
    }

    /// A ledger that keeps up to `conversations` conversations (at least one).
    pub fn with_capacity(conversations: usize) -> Self {
        Self {
            id: LEDGERS.fetch_add(1, Ordering::Relaxed),
            capacity: conversations.max(1),
            pricing: None,
            minimums: CacheMinimums::anthropic(),
            openai_minimums: CacheMinimums::openai(),
            last_key: None,
            keys: HashMap::new(),
            conversations: HashMap::default(),
            next_conversation: 1,
            tick: 0,
            log: None,
            changes: Changes::default(),
        }
    }

    /// Writes each verdict to `writer` as one JSON line, flushed after each
    /// (what `prompt explain` reads). Wrap a file in a `BufWriter`: the line
    /// is written whole, then flushed.
    pub fn log(mut self, writer: impl Write + Send + Sync + 'static) -> Self {
        self.log = Some(Box::new(writer));
        self
    }

    /// The price of tokens for requests that give none
    /// ([`Sent::pricing`]): the verdicts then say what each miss cost.
    pub fn pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// Anthropic's minimum cacheable prefixes, overridden
    /// ([`CacheMinimums::set`]). Bedrock's Claude models read the same
    /// table, through the Anthropic model their id names
    /// ([`bedrock::anthropic_model`](crate::providers::bedrock::anthropic_model)).
    pub fn minimums(mut self, minimums: CacheMinimums) -> Self {
        self.minimums = minimums;
        self
    }

    /// How many conversations it holds now.
    pub fn conversations(&self) -> usize {
        self.conversations.len()
    }

    /// Records `prompt` as sent with `sent`'s details, and compares it with
    /// the conversation's previous request. Returns the id to pass to
    /// [`received`](Self::received) with the response's usage.
    pub fn sent(&mut self, prompt: &AssembledPrompt, mut sent: Sent<'_>) -> SentId {
        self.record(Prefix::of(prompt), &mut sent, None).0
    }

    /// Records a stable prefix the ledger did not see assembled (a recorded
    /// transcript's, another process's `prompt render --format json`), as
    /// [`sent`](Self::sent) does. Its text is copied and fingerprinted on
    /// every call: for a prefix sent more than once, make a [`GivenPrefix`]
    /// once and call [`sent_given`](Self::sent_given).
    pub fn sent_prefix(&mut self, prefix: &StablePrefix, sent: Sent<'_>) -> SentId {
        self.sent_given(&GivenPrefix::new(prefix), sent)
    }

    /// Records `prefix` as sent, as [`sent_prefix`](Self::sent_prefix) does,
    /// without copying or fingerprinting it again: the same `GivenPrefix`
    /// sent again is known to be the same bytes at once, and what changed
    /// between two of them is worked out once.
    pub fn sent_given(&mut self, prefix: &GivenPrefix, mut sent: Sent<'_>) -> SentId {
        self.record(Prefix::given(prefix), &mut sent, None).0
    }

    /// The verdict on the response to request `id`, from its `usage`;
    /// emitted as a `tracing` event and, with a log, written as a JSON line.
    ///
    /// # Errors
    /// [`LedgerError::ForeignId`] or [`LedgerError::NotInFlight`] when the
    /// ledger has no such request; [`LedgerError::Usage`] when `usage` holds
    /// a count no request can ([`CacheUsage::check`]), before anything is
    /// recorded; [`LedgerError::Log`] (holding the verdict) when the log
    /// could not be written.
    pub fn received(
        &mut self,
        id: SentId,
        usage: &CacheUsage,
    ) -> Result<CacheVerdict, LedgerError> {
        self.received_stored(id, usage, &mut None)
    }

    /// [`received`](Self::received), putting in `stored` what a shared
    /// store keeps of the response (its usage and the never-cached count
    /// after it) once the verdict is made, whether or not it was logged.
    pub(crate) fn received_stored(
        &mut self,
        id: SentId,
        usage: &CacheUsage,
        stored: &mut Option<remote::StoredUsage>,
    ) -> Result<CacheVerdict, LedgerError> {
        if id.ledger != self.id {
            return Err(LedgerError::ForeignId);
        }
        let not_in_flight = LedgerError::NotInFlight { seq: id.seq };
        let conversation = self
            .conversations
            .get_mut(&id.conversation)
            .ok_or(not_in_flight)?;
        let index = conversation
            .pending
            .iter()
            .position(|p| p.seq == id.seq)
            .ok_or(LedgerError::NotInFlight { seq: id.seq })?;
        // Checked before anything moves: every sum the verdict makes of
        // these counts, and of the next request's with them, then fits.
        if let Some(pending) = conversation.pending.get(index) {
            usage.check(pending.provider)?;
        }
        // Usually the oldest, often the only one.
        let pending = match index {
            0 => conversation.pending.pop_front(),
            _ => conversation.pending.remove(index),
        }
        .ok_or(LedgerError::NotInFlight { seq: id.seq })?;
        let shared = pending.shared.as_deref();
        let previous = shared.and_then(|s| s.usage).or_else(|| {
            pending.moved.as_ref().and_then(|m| {
                conversation
                    .received
                    .iter()
                    .find(|r| r.seq == m.previous_seq)
                    .copied()
            })
        });
        let pricing = pending.pricing.or(self.pricing);
        let count = shared
            .and_then(|s| s.never_cached)
            .unwrap_or(conversation.never_cached);
        let never_cached = match count {
            CACHED => 0,
            n => u64::from(n),
        };
        let mut verdict = judge::verdict(
            id,
            &conversation.key,
            &pending,
            previous,
            usage,
            pricing,
            never_cached,
        );
        if let Some(shared) = shared {
            verdict.seq = shared.seq;
        }
        let count = if usage.read > 0 || usage.written > 0 {
            CACHED
        } else if count < CACHED - 1
            && !matches!(verdict.cause, Some(MissCause::BelowMinimum { .. }))
        {
            // A response below the minimum wrote nothing for a known reason.
            count + 1
        } else {
            count
        };
        conversation.never_cached = count;
        if conversation.received.len() == RECEIVED_KEPT {
            conversation.received.pop_front();
        }
        conversation.received.push_back(Received::new(
            id.seq,
            usage.read,
            usage.written,
            usage.input_tokens(),
        ));
        *stored = Some(remote::StoredUsage {
            received: Received::new(id.seq, usage.read, usage.written, usage.input_tokens()),
            never_cached: count,
        });
        super::emit::verdict(&verdict, usage.response_model.as_deref());
        if let Some(Err(source)) = self.log.as_mut().map(|log| write_line(log, &verdict)) {
            return Err(LedgerError::Log {
                verdict: Box::new(verdict),
                source,
            });
        }
        Ok(verdict)
    }

    /// The request `id`'s number in its conversation as a shared store
    /// counts them (its verdict's [`CacheVerdict::seq`]).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn set_shared_seq(&mut self, id: SentId, seq: u64) {
        if let Some(shared) = self
            .conversations
            .get_mut(&id.conversation)
            .and_then(|c| c.pending.iter_mut().find(|p| p.seq == id.seq))
            .and_then(|p| p.shared.as_mut())
        {
            shared.seq = seq;
        }
    }

    /// This ledger's own last request of `conversation`: its number here
    /// and when it was sent.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn last_sent(&self, conversation: &str) -> Option<(u64, jiff::Timestamp)> {
        let number = self.keys.get(conversation)?;
        let last = self.conversations.get(number)?.last.as_ref()?;
        Some((last.seq, last.at))
    }

    /// Records a request as [`sent`](Self::sent) does. With `store`, it is
    /// compared with the previous request the store said, and the record a
    /// store keeps of it (written by `writer`) comes back with its id: none
    /// for a keep-alive ping, which is not a turn and leaves the store's
    /// record as it is.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn record_with(
        &mut self,
        prefix: Prefix,
        sent: &mut Sent<'_>,
        store: FromStore,
        writer: u64,
    ) -> (SentId, Option<Vec<u8>>) {
        self.record(prefix, sent, Some((store, writer)))
    }

    fn record(
        &mut self,
        prefix: Prefix,
        sent: &mut Sent<'_>,
        store: Option<(FromStore, u64)>,
    ) -> (SentId, Option<Vec<u8>>) {
        self.tick += 1;
        let tick = self.tick;
        let ledger_pricing = self.pricing;
        let number = self.conversation_number(sent.conversation);
        let (minimums, openai_minimums) = (&self.minimums, &self.openai_minimums);
        let changes = &mut self.changes;
        let conversation = self
            .conversations
            .get_mut(&number)
            .expect("a conversation number always has its conversation");
        conversation.used = tick;
        conversation.next_seq += 1;
        let seq = conversation.next_seq;
        let (store, writer) = match store {
            Some((store, writer)) => (Some(store), writer),
            None => (None, 0),
        };
        let previous = match store.as_ref().map(|s| &s.previous) {
            None | Some(StorePrevious::Local) => conversation.last.as_ref(),
            Some(StorePrevious::Remote(record)) => Some(&**record),
            Some(StorePrevious::Unknown) | Some(StorePrevious::None) => None,
        };
        // A ping re-sends the last real turn: without one, it is a turn.
        let ping = sent.keep_alive && previous.is_some();
        // The cache's clock: the last request, turn or ping.
        let clock = previous.map(|p| {
            conversation
                .keep
                .as_ref()
                .and_then(|k| k.last_ping)
                .filter(|&ping| ping > p.at)
                .unwrap_or(p.at)
        });
        let previous_at = previous.map(|p| p.at);
        // The model's name and its minimum, the previous request's when the
        // same model (the table's lookup allocates).
        let (model, table_minimum): (Arc<str>, Option<u64>) = match previous {
            Some(p) if &*p.model == sent.model && p.provider == sent.provider => {
                (Arc::clone(&p.model), p.table_minimum)
            }
            _ => (
                Arc::from(sent.model),
                match sent.provider {
                    Provider::Anthropic => Some(minimums.lookup(sent.model).tokens as u64),
                    // A Bedrock model id names an Anthropic family.
                    Provider::Bedrock => Some(
                        minimums
                            .lookup(crate::providers::bedrock::table_id(sent.model))
                            .tokens as u64,
                    ),
                    Provider::OpenAi => Some(openai_minimums.lookup(sent.model).tokens as u64),
                    _ => None,
                },
            ),
        };
        let minimum = sent.minimum.or(table_minimum);
        let breakpoints: Breakpoints = match sent.breakpoints {
            Some(offsets) => offsets
                .iter()
                .copied()
                .filter(|&o| o <= prefix.len())
                .collect(),
            None if prefix.len() > 0 => smallvec::smallvec![prefix.len()],
            None => Breakpoints::new(),
        };
        let last_breakpoint = breakpoints.iter().copied().max().unwrap_or(0);
        let prefix_tokens = prefix.tokens_of(last_breakpoint);
        // Anthropic and Bedrock cache at the breakpoints, so the prefix
        // through the last must reach the minimum; the others cache the whole
        // prompt, whose length is known only from the response.
        let held_estimate = match minimum {
            Some(minimum) if sent.provider.caches_at_breakpoints() && prefix_tokens < minimum => 0,
            _ => prefix_tokens,
        };
        // The prompt's name and version, shared likewise.
        let prompt =
            sent.prompt.map(
                |(name, version)| match previous.and_then(|p| p.prompt.as_ref()) {
                    Some((n, v)) if &**n == name && &**v == version => {
                        (Arc::clone(n), Arc::clone(v))
                    }
                    _ => (Arc::from(name), Arc::from(version)),
                },
            );
        let moved = previous
            .zip(clock)
            .map(|(p, clock)| judge::moved(p, clock, &prefix, sent, &model, changes));
        let stable_fingerprint = prefix.fingerprint();
        let pending = Pending {
            seq,
            at: sent.at,
            provider: sent.provider,
            model: Arc::clone(&model),
            prompt_name: prompt.as_ref().map(|(name, _)| Arc::clone(name)),
            prompt_version: prompt.as_ref().map(|(_, version)| Arc::clone(version)),
            stable_fingerprint,
            ttl: sent.ttl.unwrap_or(DEFAULT_TTL),
            pricing: sent.pricing,
            minimum,
            prefix_tokens,
            requested_diagnosis: sent.previous_response.is_some(),
            keep_alive: ping,
            prewarm: sent.prewarm,
            moved,
            shared: store.as_ref().map(|s| {
                Box::new(SharedPending {
                    usage: s.usage,
                    never_cached: s.never_cached,
                    unknown: matches!(s.previous, StorePrevious::Unknown),
                    seq: 0,
                })
            }),
        };
        let ttl = pending.ttl;
        if conversation.pending.len() == MAX_IN_FLIGHT {
            conversation.pending.pop_front();
        }
        conversation.pending.push_back(pending);
        let id = SentId {
            ledger: self.id,
            conversation: number,
            seq,
        };
        if ping {
            // Not a turn: the next one is compared with the last real turn,
            // and its TTL counted from here.
            let keep = conversation.keep.get_or_insert_with(|| {
                Box::new(KeepState::new(ttl, sent.pricing.or(ledger_pricing)))
            });
            keep.last_ping = Some(sent.at);
            keep.pings_since_turn = keep.pings_since_turn.saturating_add(1);
            return (id, None);
        }
        if let Some(stored) = store
            .as_ref()
            .filter(|s| matches!(s.previous, StorePrevious::Remote(_)))
            .and_then(|s| s.keep)
        {
            conversation
                .keep
                .get_or_insert_with(|| Box::new(KeepState::new(ttl, None)))
                .gaps = stored.gaps;
        }
        if let Some(previous_at) = previous_at {
            let gap = sent.at.duration_since(previous_at);
            let gap = Duration::try_from(gap).unwrap_or(Duration::ZERO);
            conversation
                .keep
                .get_or_insert_with(|| Box::new(KeepState::new(ttl, None)))
                .gaps
                .push(gap);
        }
        if let Some(keep) = conversation.keep.as_mut() {
            keep.last_ping = None;
            keep.pings_since_turn = 0;
            keep.ttl = ttl;
            keep.pricing = sent.pricing.or(ledger_pricing);
        }
        let record = Record {
            seq,
            at: sent.at,
            provider: sent.provider,
            model,
            table_minimum,
            tools: sent.tools,
            tool_prints: sent.tool_prints.take().map(Vec::into_boxed_slice),
            prefix,
            breakpoints,
            messages: sent.messages.take(),
            prompt,
            held_estimate,
        };
        let never_cached = conversation.never_cached;
        let keep = remote::StoredKeep {
            gaps: conversation
                .keep
                .as_ref()
                .map_or_else(TurnGaps::new, |k| k.gaps),
            ttl,
            pricing: sent.pricing.or(ledger_pricing),
        };
        let stored = store.map(|s| {
            remote::encode(
                &record,
                writer,
                s.never_cached.unwrap_or(never_cached),
                Some(&keep),
            )
        });
        conversation.last = Some(record);
        (id, stored)
    }

    /// Records a keep-alive ping of `conversation` sent `at`: its last
    /// real turn re-sent (prefix, provider, model, TTL and price), for a
    /// sender that holds the request but not the prompt (the keep-alive
    /// scheduler). `None` when the ledger holds no turn of that
    /// conversation. [`Sent::keep_alive`] with [`sent`](Self::sent) records
    /// one whose details the caller gives.
    pub fn sent_keep_alive(&mut self, conversation: &str, at: Timestamp) -> Option<SentId> {
        let number = *self.keys.get(conversation)?;
        let held = self.conversations.get(&number)?;
        let last = held.last.as_ref()?;
        let (prefix, provider, model) =
            (last.prefix.clone(), last.provider, Arc::clone(&last.model));
        let keep = held.keep.as_deref();
        let ttl = keep.map_or(DEFAULT_TTL, |k| k.ttl);
        let pricing = keep.and_then(|k| k.pricing);
        let mut sent = Sent::new(provider, &model, at)
            .conversation(conversation)
            .ttl(ttl)
            .keep_alive();
        sent.pricing = pricing;
        Some(self.record(prefix, &mut sent, None).0)
    }

    /// Records a keep-alive ping of `conversation` sent `at` that re-sends
    /// the previous request a shared store said (`from`), under `ttl` and
    /// `pricing`. `None` when it names none.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn sent_keep_alive_from(
        &mut self,
        conversation: &str,
        at: Timestamp,
        ttl: Duration,
        pricing: Option<Pricing>,
        from: FromStore,
        writer: u64,
    ) -> Option<SentId> {
        let (prefix, provider, model) = match &from.previous {
            StorePrevious::Remote(r) => (r.prefix.clone(), r.provider, Arc::clone(&r.model)),
            StorePrevious::Local => {
                let number = *self.keys.get(conversation)?;
                let last = self.conversations.get(&number)?.last.as_ref()?;
                (last.prefix.clone(), last.provider, Arc::clone(&last.model))
            }
            StorePrevious::Unknown | StorePrevious::None => return None,
        };
        let mut sent = Sent::new(provider, &model, at)
            .conversation(conversation)
            .ttl(ttl)
            .keep_alive();
        sent.pricing = pricing;
        Some(self.record(prefix, &mut sent, Some((from, writer))).0)
    }

    /// The prices it was given for every conversation, if any.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn default_pricing(&self) -> Option<Pricing> {
        self.pricing
    }

    /// The keys of the conversations it holds.
    pub(crate) fn conversation_keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.conversations.values().map(|c| &c.key)
    }

    /// What keep-alive reads of `key`'s conversation: `None` when the
    /// ledger holds no turn of it.
    pub(crate) fn keep_raw(&self, key: &str) -> Option<KeepRaw> {
        let conversation = self.conversations.get(self.keys.get(key)?)?;
        let last = conversation.last.as_ref()?;
        let prefix_tokens = conversation
            .received
            .iter()
            .find(|r| r.seq == last.seq)
            .map_or(last.held_estimate, |r| r.read().saturating_add(r.written()));
        let keep = conversation.keep.as_deref();
        let pending_ttl = conversation
            .pending
            .iter()
            .find(|p| p.seq == last.seq)
            .map(|p| (p.ttl, p.pricing));
        let (ttl, pricing) = match (keep, pending_ttl) {
            (Some(k), _) => (k.ttl, k.pricing),
            (None, Some((ttl, pricing))) => (ttl, pricing),
            (None, None) => (DEFAULT_TTL, None),
        };
        Some(KeepRaw {
            last_turn: last.at,
            refreshed: keep
                .and_then(|k| k.last_ping)
                .filter(|&ping| ping > last.at)
                .unwrap_or(last.at),
            ttl,
            prefix_tokens,
            minimum: last.table_minimum,
            gaps: keep.map_or_else(TurnGaps::new, |k| k.gaps),
            pings_since_turn: keep.map_or(0, |k| k.pings_since_turn),
            pricing: pricing.or(self.pricing),
        })
    }

    /// The number of the conversation `key`, made (and room made) when new.
    fn conversation_number(&mut self, key: &str) -> u64 {
        let same = |number: &u64| {
            self.conversations
                .get(number)
                .is_some_and(|c| &*c.key == key)
        };
        if let Some(number) = self.last_key.filter(same) {
            return number;
        }
        let number = match self.keys.get(key) {
            Some(&number) => number,
            None => {
                if self.conversations.len() >= self.capacity {
                    self.evict();
                }
                let number = self.next_conversation;
                self.next_conversation += 1;
                self.keys.insert(Box::from(key), number);
                self.conversations.insert(
                    number,
                    Box::new(Conversation {
                        key: Arc::from(key),
                        used: self.tick,
                        next_seq: 0,
                        last: None,
                        // Room for one in flight: most conversations wait
                        // for each response before the next request.
                        pending: VecDeque::with_capacity(1),
                        received: VecDeque::with_capacity(RECEIVED_KEPT),
                        never_cached: 0,
                        keep: None,
                    }),
                );
                number
            }
        };
        self.last_key = Some(number);
        number
    }

    /// Forgets the least recently used eighth of the conversations (at
    /// least one), so a full ledger evicts in batches rather than on every new one.
    fn evict(&mut self) {
        let mut by_use: Vec<(u64, u64)> = self
            .conversations
            .iter()
            .map(|(&number, c)| (c.used, number))
            .collect();
        by_use.sort_unstable();
        let drop = (self.capacity / 8).max(1);
        for &(_, number) in by_use.iter().take(drop) {
            if let Some(gone) = self.conversations.remove(&number) {
                self.keys.remove(&*gone.key);
            }
        }
        self.last_key = None;
    }
}

impl KeepState {
    fn new(ttl: Duration, pricing: Option<Pricing>) -> Self {
        Self {
            gaps: TurnGaps::new(),
            last_ping: None,
            pings_since_turn: 0,
            ttl,
            pricing,
        }
    }
}

/// One JSON line.
fn write_line(
    log: &mut Box<dyn Write + Send + Sync>,
    verdict: &CacheVerdict,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(verdict).map_err(std::io::Error::other)?;
    line.push(b'\n');
    log.write_all(&line)?;
    log.flush()
}

/// A hasher for the ledger's own conversation numbers (unique, counted
/// up): they are their own hash.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

// A shared ledger crosses tasks and threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<CacheLedger>();
};
