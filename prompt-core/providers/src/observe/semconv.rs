//! The names the ledger's `tracing` events carry: OpenTelemetry's GenAI
//! semantic conventions, and the framework's own. One place, because the
//! GenAI conventions are still marked Development and their names move.
//!
//! As of the conventions' v1.41 (checked 2026-12): `gen_ai.usage.input_tokens`
//! includes cached tokens; `gen_ai.usage.cache_read.input_tokens` and
//! `gen_ai.usage.cache_creation.input_tokens` are parts of it. The unreleased
//! changelog of `open-telemetry/semantic-conventions-genai` renames the
//! latter to `gen_ai.usage.cache_write.input_tokens` and the metric
//! attribute `gen_ai.token.cache`'s values to `uncached` / `read` / `write`:
//! when that ships, this file is the one to change.

/// Target of the one event per response.
pub const TARGET: &str = "prompt_providers::observe";
/// Target of the metric events (one per token kind), for a metrics layer
/// such as `tracing-opentelemetry`'s `MetricsLayer`.
pub const METRICS_TARGET: &str = "prompt_providers::observe::metrics";

/// `gen_ai.provider.name`.
pub const PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`.
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`.
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.response.id`.
pub const RESPONSE_ID: &str = "gen_ai.response.id";
/// `gen_ai.conversation.id`.
pub const CONVERSATION_ID: &str = "gen_ai.conversation.id";
/// `gen_ai.usage.input_tokens`: every input token, cached ones included.
pub const USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`.
pub const USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens`.
pub const USAGE_CACHE_READ: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.usage.cache_creation.input_tokens`.
pub const USAGE_CACHE_CREATION: &str = "gen_ai.usage.cache_creation.input_tokens";
/// `gen_ai.prompt.name`.
pub const PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `gen_ai.prompt.version`.
pub const PROMPT_VERSION: &str = "gen_ai.prompt.version";

/// The token metric (a histogram, `{token}`), as a metrics layer reads a
/// field: `histogram.gen_ai.client.token.usage`.
pub const TOKEN_USAGE_HISTOGRAM: &str = "histogram.gen_ai.client.token.usage";
/// `gen_ai.token.type`: `input` or `output`.
pub const TOKEN_TYPE: &str = "gen_ai.token.type";
/// `gen_ai.token.cache`: how an input token was served.
pub const TOKEN_CACHE: &str = "gen_ai.token.cache";
/// `gen_ai.token.cache` of input tokens neither read from nor written to a cache.
pub const TOKEN_CACHE_NONE: &str = "none";
/// `gen_ai.token.cache` of input tokens read from the cache.
pub const TOKEN_CACHE_READ: &str = "read";
/// `gen_ai.token.cache` of input tokens written to the cache.
pub const TOKEN_CACHE_CREATION: &str = "creation";

/// `gen_ai.provider.name` of Anthropic.
pub const PROVIDER_ANTHROPIC: &str = "anthropic";
/// `gen_ai.provider.name` of OpenAI.
pub const PROVIDER_OPENAI: &str = "openai";
/// `gen_ai.provider.name` of the Gemini API.
pub const PROVIDER_GEMINI: &str = "gcp.gemini";
/// `gen_ai.provider.name` of Amazon Bedrock (the conventions' well-known
/// value `aws.bedrock`).
pub const PROVIDER_BEDROCK: &str = "aws.bedrock";

/// The framework's own: the miss's cause (`layer_changed`, `ttl_expired`,
/// ...), absent on a hit.
pub const MISS_CAUSE: &str = "prompt.cache.miss_cause";
/// The framework's own: the layer that changed, for `layer_changed`.
pub const MISS_LAYER: &str = "prompt.cache.layer";
/// The framework's own: the stable prefix's fingerprint (16 hex digits).
pub const STABLE_FINGERPRINT: &str = "prompt.stable_fingerprint";
/// The framework's own: tokens a hit would have read.
pub const EXPECTED_TOKENS: &str = "prompt.cache.expected_tokens";
/// The framework's own: tokens the miss did not read that a hit would have.
pub const LOST_TOKENS: &str = "prompt.cache.lost_tokens";
/// The framework's own: the verdict as one line.
pub const VERDICT: &str = "prompt.cache.verdict";
