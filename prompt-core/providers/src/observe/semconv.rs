//! The names the ledger's `tracing` spans, events and metric carry:
//! OpenTelemetry's GenAI semantic conventions, and the framework's own. One
//! place, because the GenAI conventions are still marked Development and
//! their names move.
//!
//! As of the conventions' v1.41 (checked 2026-12): `gen_ai.usage.input_tokens`
//! includes cached tokens; `gen_ai.usage.cache_read.input_tokens` and
//! `gen_ai.usage.cache_creation.input_tokens` are parts of it. The unreleased
//! changelog of `open-telemetry/semantic-conventions-genai` renames the
//! latter to `gen_ai.usage.cache_write.input_tokens` and the metric
//! attribute `gen_ai.token.cache`'s values to `uncached` / `read` / `write`:
//! when that ships, this file is the one to change.
//!
//! GenAI backends read these names as attributes of the request's span (a
//! span of kind CLIENT named `{gen_ai.operation.name} {gen_ai.request.model}`),
//! not of an event inside it: the ledger records them on the span
//! [`request_span`](super::request_span) opened, or on one of its own
//! ([`SPAN_FIELDS`] lists what it records).

/// Target of the request spans and of the one event per response.
pub const TARGET: &str = "prompt_providers::observe";

/// What `tracing-opentelemetry` reads as the OpenTelemetry span's name
/// (`chat claude-sonnet-4-5`): a `tracing` span's own name is fixed at
/// compile time.
pub const OTEL_NAME: &str = "otel.name";
/// What `tracing-opentelemetry` reads as the span's kind: `client`.
pub const OTEL_KIND: &str = "otel.kind";
/// `gen_ai.operation.name`: [`OPERATION_CHAT`] or
/// [`OPERATION_GENERATE_CONTENT`].
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.operation.name` of Anthropic's Messages and OpenAI's Responses
/// and Chat Completions.
pub const OPERATION_CHAT: &str = "chat";
/// `gen_ai.operation.name` of Gemini's `generateContent`.
pub const OPERATION_GENERATE_CONTENT: &str = "generate_content";
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

/// The token metric, a histogram in [`TOKEN_UNIT`], recorded through the
/// OpenTelemetry metrics API with feature `otel`.
pub const TOKEN_USAGE: &str = "gen_ai.client.token.usage";
/// The token metric's unit.
pub const TOKEN_UNIT: &str = "{token}";
/// The token metric's description, the conventions' words.
pub const TOKEN_USAGE_DESCRIPTION: &str = "Number of input and output tokens used.";
/// The token metric's bucket boundaries the conventions advise: powers of
/// four from 1 to 67,108,864.
pub const TOKEN_USAGE_BOUNDARIES: [f64; 14] = [
    1.0,
    4.0,
    16.0,
    64.0,
    256.0,
    1_024.0,
    4_096.0,
    16_384.0,
    65_536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
];
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

/// Every field of a request's span, in this order: what
/// [`request_span`](super::request_span) declares. A span of your own is
/// recorded into when it declares [`USAGE_INPUT_TOKENS`] (as
/// `tracing::field::Empty`); then the ledger records each of these it
/// declares but [`OTEL_NAME`] and [`OTEL_KIND`] (your span keeps its name
/// and kind) and skips the others, as `tracing` does.
pub const SPAN_FIELDS: &[&str] = &[
    OTEL_NAME,
    OTEL_KIND,
    OPERATION_NAME,
    PROVIDER_NAME,
    REQUEST_MODEL,
    RESPONSE_MODEL,
    RESPONSE_ID,
    CONVERSATION_ID,
    USAGE_INPUT_TOKENS,
    USAGE_OUTPUT_TOKENS,
    USAGE_CACHE_READ,
    USAGE_CACHE_CREATION,
    PROMPT_NAME,
    PROMPT_VERSION,
    MISS_CAUSE,
    MISS_LAYER,
    STABLE_FINGERPRINT,
    EXPECTED_TOKENS,
    LOST_TOKENS,
    VERDICT,
];
