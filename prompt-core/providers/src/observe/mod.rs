//! Cache truth in production: did the provider serve the stable prefix from
//! its cache, and when it did not, why.
//!
//! The assembly guarantees a byte-stable prefix; once a request leaves the
//! process, only the response says whether the cache served it. This module
//! reads that answer from the provider's own body ([`CacheUsage`]), keeps a
//! [`CacheLedger`] of what was sent, and turns each response into a
//! [`CacheVerdict`]: tokens read, written and expected and, for a miss, its
//! [`MissCause`]: the layer, scope and byte where the prefix changed, an
//! expired TTL, a prefix below the model's minimum, a model, tools or history
//! change, or the provider (nothing of ours moved). Where the provider
//! diagnosed the request itself (Anthropic's `diagnostics`, OpenAI's
//! `prompt_cache_diagnostics`), the verdict says whether it agrees
//! ([`Agreement`]).
//!
//! Each verdict is also recorded as attributes of the request's `tracing`
//! span under the OpenTelemetry GenAI names ([`request_span`], [`semconv`]),
//! where GenAI backends read them, with one event inside it; with feature
//! `otel`, the token metric `gen_ai.client.token.usage` in `{token}`; and,
//! with [`CacheLedger::log`], a JSON line that `prompt explain` reads
//! ([`read_log`], [`Summary`]).
//!
//! ```
//! use prompt_providers::observe::{CacheLedger, CacheUsage, MissCause, Provider, Sent};
//! use prompt_core::spec::Scope;
//! use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder};
//! use prompt_core::{Render, SessionValue, Stable};
//!
//! /// The pipeline of this example.
//! #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! struct Doc;
//! #[prompt_layer(priority = 1, stability = Stable, scope = Global, paths = [Cached],
//!                text = "You are a careful coding agent.", pipeline = Doc)]
//! struct Persona;
//!
//! /// The repository's rules, read per session.
//! struct Rules(&'static str);
//! impl SessionValue for Rules {}
//!
//! #[prompt_layer(priority = 2, stability = Stable, scope = Project, paths = [Cached], pipeline = Doc)]
//! struct ProjectRules;
//! impl Render<Stable> for ProjectRules {
//!     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
//!         out.push_str(input.get::<Rules>().map_or("", |r| r.0));
//!     }
//! }
//!
//! let pipeline = Pipeline::of::<Doc>()?;
//! let mut ledger = CacheLedger::new();
//! let t0 = jiff::Timestamp::from_second(1_800_000_000)?;
//! let sent = |at| Sent::new(Provider::Anthropic, "claude-sonnet-4-5", at);
//!
//! // Monday's session: written, then read.
//! let monday = PromptBuilder::new(&pipeline).session(Context::new().with(Rules("Run make check.")));
//! let id = ledger.sent(&monday.build_cached(&Context::new())?, sent(t0));
//! ledger.received(id, &CacheUsage::new(30, 0, 1200))?;
//! let id = ledger.sent(&monday.build_cached(&Context::new())?, sent(t0 + jiff::SignedDuration::from_secs(30)));
//! assert!(ledger.received(id, &CacheUsage::new(41, 1200, 0))?.is_hit());
//!
//! // The rules were edited: the response read nothing, and the verdict says why.
//! let tuesday = PromptBuilder::new(&pipeline).session(Context::new().with(Rules("Run make test.")));
//! let id = ledger.sent(&tuesday.build_cached(&Context::new())?, sent(t0 + jiff::SignedDuration::from_secs(90)));
//! let verdict = ledger.received(id, &CacheUsage::new(38, 0, 1200))?;
//! let Some(MissCause::LayerChanged { layer, scope, offset, .. }) = &verdict.cause else {
//!     panic!("{verdict}")
//! };
//! assert_eq!((layer.as_str(), *scope), ("project_rules", Some(Scope::Project)));
//! assert_eq!(*offset, "You are a careful coding agent.\n\nRun make ".len());
//! assert!(verdict.to_string().starts_with("layer `project_rules` (Project) changed at byte 42"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod agreement;
mod emit;
mod gaps;
mod history;
mod ledger;
pub(crate) use ledger::KeepRaw;
mod log;
#[cfg(feature = "otel")]
mod metrics;
mod price;
mod provider;
pub mod semconv;
mod sent;
#[cfg(feature = "redis")]
mod shared;
mod summary;
mod tool_change;
mod usage;
mod verdict;
mod wire;

pub use emit::request_span;
pub use gaps::{GAPS_KEPT, TurnGaps};
pub use history::{BREAKPOINT_MARKERS, MessagesDigest};
/// What moves a [`Timestamp`] (`at + SignedDuration::from_secs(300)`) and
/// what subtracting two of them gives, jiff 1's, re-exported for the same
/// reason.
pub use jiff::SignedDuration;
/// The time [`Sent::new`] takes, jiff 1's: `Timestamp::now()` needs no
/// `jiff` dependency of your own (and no guess at its version).
pub use jiff::Timestamp;
pub use ledger::{
    CacheLedger, DEFAULT_CONVERSATIONS, DEFAULT_TTL, GivenPrefix, LedgerError, MAX_IN_FLIGHT,
};
pub use log::{LogError, read_log};
pub use price::Pricing;
pub use provider::{Provider, UnknownProvider};
pub use sent::{Sent, SentId};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use shared::{
    DEFAULT_EXPIRY_MARGIN, DEFAULT_STORE_TIMEOUT, LedgerStore, MAX_STORED_RECORD, RedisStore,
    SharedLedger, SharedSentId, StoreError, StoreFuture, StoredEntry,
};
pub use summary::{KeepAlives, Lost, Summary};
pub use tool_change::ToolChange;
pub use usage::{
    CacheUsage, DiagnosisOutcome, MAX_REQUEST_TOKENS, ProviderDiagnosis, TtlTokens, UsageError,
};
pub use verdict::{Agreement, CacheVerdict, MissCause};
