//! What `prompt render` delivers: the output formats (the prompt itself, or a
//! provider's request carrying it), the budget and the token counter.
//!
//! The request formats are thin: `prompt_providers` builds every body;
//! this file only picks the defaults a command line needs (a model, a
//! placeholder user turn) and says on stderr what a provider would not.

use crate::cli::CliError;
use std::sync::Arc;

use clap::ValueEnum;
use prompt_core::budget::TokenBudget;
use prompt_core::tokens::{ApproxCounter, TokenCounter};
#[cfg(feature = "tiktoken")]
use prompt_core::tokens::{Cl100kBase, O200kBase};
use prompt_core::{AssembledPrompt, AssemblyPath};
use prompt_providers::anthropic::{
    BelowCacheMinimum, CacheMinimums, CacheTtl, MessagesRequest, check_cache_minimum,
};
use prompt_providers::claude_cli;
use prompt_providers::{Message, bedrock, gemini, openai};
use serde::{Deserialize, Serialize};

/// The model of an Anthropic request (and of `prompt cache`) without `--model`.
pub(crate) const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// The model of an OpenAI request without `--model`.
pub(crate) const DEFAULT_OPENAI_MODEL: &str = "gpt-5";
/// The model of a Bedrock request without `--model`: Claude Sonnet 4.5's
/// base model id, the family of [`DEFAULT_ANTHROPIC_MODEL`].
pub(crate) const DEFAULT_BEDROCK_MODEL: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";
/// The user turn a request format carries without `--message`.
const PLACEHOLDER_MESSAGE: &str = "(the user's message goes here)";

/// What `prompt render` prints: the one list of formats. `--help`, the docs'
/// format lists, the hostile sweep and the SDK validator's provider names
/// are checked against it through [`render_formats`].
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The prompt as sent.
    Text,
    /// Its parts and the assembly trace.
    Json,
    /// The text with each layer's name and size at its boundary.
    Annotated,
    /// An Anthropic Messages request body (`POST /v1/messages`); model:
    /// --model, default claude-sonnet-4-5.
    Anthropic,
    /// An OpenAI Responses request body (`POST /v1/responses`); model:
    /// --model, default gpt-5.
    Openai,
    /// A Gemini `generateContent` body, for implicit caching (the model is in
    /// the URL, not the body).
    Gemini,
    /// An Amazon Bedrock Converse request as the AWS SDKs and `aws
    /// bedrock-runtime converse --cli-input-json` take it (`modelId` and the
    /// body); model: --model, default
    /// anthropic.claude-sonnet-4-5-20250929-v1:0.
    Bedrock,
    /// The `claude` CLI's placement as JSON: `args` (the stable prefix as
    /// `--system-prompt`) and `user_prefix` (the dynamic part and reminder,
    /// for the head of the user's prompt).
    ClaudeCli,
}

impl Format {
    /// What it prints. A new variant must say, so every list derived from
    /// [`render_formats`] places it.
    #[cfg_attr(not(prompt_unstable), allow(dead_code))]
    fn kind(self) -> FormatKind {
        match self {
            Format::Text | Format::Json | Format::Annotated => FormatKind::Prompt,
            Format::Anthropic | Format::Openai | Format::Gemini | Format::Bedrock => {
                FormatKind::Request
            }
            Format::ClaudeCli => FormatKind::Invocation,
        }
    }
}

/// What a `--format` value of `prompt render` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FormatKind {
    /// The prompt itself or a view of it (`text`, `json`, `annotated`).
    Prompt,
    /// A provider API's request body carrying the prompt; its snapshots are
    /// validated against the provider's official SDK (`tests/sdk/validate.py`
    /// picks them by this name).
    Request,
    /// A CLI client's placement of the prompt (`claude-cli`).
    Invocation,
}

/// Every `--format` value `prompt render` accepts, in `--help` order, with
/// what it prints. It is read off the CLI's own enum, so a format added
/// there is here too.
///
/// ```
/// # // The hook is behind `--cfg prompt_unstable`: without it, nothing to run.
/// # #[cfg(prompt_unstable)] {
/// use prompt_cli::__private::{render_formats, FormatKind};
///
/// let formats = render_formats();
/// assert_eq!(formats[0], ("text".to_owned(), FormatKind::Prompt));
/// assert!(formats.contains(&("anthropic".to_owned(), FormatKind::Request)));
/// # }
/// ```
#[cfg_attr(not(prompt_unstable), allow(dead_code))]
pub fn render_formats() -> Vec<(String, FormatKind)> {
    Format::value_variants()
        .iter()
        .filter_map(|format| {
            let value = format.to_possible_value()?;
            Some((value.get_name().to_owned(), format.kind()))
        })
        .collect()
}

/// How tokens are counted, as `--tokenizer` names it: every name is listed
/// in `--help`, whether this build counts with it or not.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TokenizerName {
    /// About 4 characters a token (CJK: ¾ token a character); no tables.
    Approx,
    /// OpenAI's `o200k_base` (GPT-4o, GPT-5), exact (feature `tiktoken`).
    O200k,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5), exact (feature `tiktoken`).
    Cl100k,
}

/// A counter this build has: the exact ones only with prompt-layers'
/// `tiktoken` feature, whose tables weigh several MB. A turn file records
/// it by name, and reading it back refuses a name this build cannot count.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "TokenizerName", try_from = "TokenizerName")]
pub(crate) enum Tokenizer {
    Approx,
    #[cfg(feature = "tiktoken")]
    O200k,
    #[cfg(feature = "tiktoken")]
    Cl100k,
}

impl Tokenizer {
    /// The `--tokenizer` parser: a name, refused with the feature to turn on
    /// when this build leaves its tables out.
    pub(crate) fn parser() -> impl clap::builder::TypedValueParser<Value = Self> {
        use clap::builder::TypedValueParser;
        clap::builder::EnumValueParser::<TokenizerName>::new().try_map(Self::from_name)
    }

    fn from_name(name: TokenizerName) -> Result<Self, String> {
        match name {
            TokenizerName::Approx => Ok(Tokenizer::Approx),
            #[cfg(feature = "tiktoken")]
            TokenizerName::O200k => Ok(Tokenizer::O200k),
            #[cfg(feature = "tiktoken")]
            TokenizerName::Cl100k => Ok(Tokenizer::Cl100k),
            #[cfg(not(feature = "tiktoken"))]
            TokenizerName::O200k | TokenizerName::Cl100k => Err(
                "this `prompt` counts exact OpenAI tokens only when built with prompt-cli's \
                 `tiktoken` feature (`prompt-cli = { features = [\"tiktoken\"] }`); \
                 use `--tokenizer approx`, or turn the feature on"
                    .to_owned(),
            ),
        }
    }

    /// The counter, shareable between the builder and the reports.
    pub(crate) fn counter(self) -> Arc<dyn TokenCounter> {
        match self {
            Tokenizer::Approx => Arc::new(ApproxCounter),
            #[cfg(feature = "tiktoken")]
            Tokenizer::O200k => Arc::new(O200kBase),
            #[cfg(feature = "tiktoken")]
            Tokenizer::Cl100k => Arc::new(Cl100kBase),
        }
    }
}

impl From<Tokenizer> for TokenizerName {
    fn from(tokenizer: Tokenizer) -> Self {
        match tokenizer {
            Tokenizer::Approx => TokenizerName::Approx,
            #[cfg(feature = "tiktoken")]
            Tokenizer::O200k => TokenizerName::O200k,
            #[cfg(feature = "tiktoken")]
            Tokenizer::Cl100k => TokenizerName::Cl100k,
        }
    }
}

impl TryFrom<TokenizerName> for Tokenizer {
    type Error = String;

    fn try_from(name: TokenizerName) -> Result<Self, String> {
        Tokenizer::from_name(name)
    }
}

/// The lifetime of Anthropic's cache entry.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
pub(crate) enum Ttl {
    /// 5 minutes: a write costs 1.25x input.
    #[value(name = "5m")]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// 1 hour: a write costs 2x input.
    #[value(name = "1h")]
    #[serde(rename = "1h")]
    OneHour,
}

impl From<Ttl> for CacheTtl {
    fn from(ttl: Ttl) -> Self {
        match ttl {
            Ttl::FiveMinutes => CacheTtl::FiveMinutes,
            Ttl::OneHour => CacheTtl::OneHour,
        }
    }
}

/// The options of `prompt render` beyond the workspace's: budget, counter and
/// the request fields of the provider formats.
#[derive(clap::Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeliveryArgs {
    /// Fit the prompt into N characters, trimming only the dynamic suffix; a
    /// stable prefix over N is an error naming its largest layers.
    #[arg(long, value_name = "N", conflicts_with = "budget_tokens")]
    budget_chars: Option<usize>,
    /// Fit the prompt into N tokens (counted with --tokenizer), trimming only
    /// the dynamic suffix; a stable prefix over N is an error.
    #[arg(long, value_name = "N")]
    budget_tokens: Option<usize>,
    /// How tokens are counted for --budget-tokens, the trace and the cache
    /// warning [default: approx]. Given, the trace and `--format json` also
    /// report tokens per layer.
    #[arg(long, value_parser = Tokenizer::parser())]
    tokenizer: Option<Tokenizer>,
    /// `max_tokens` of an anthropic request, `max_output_tokens` of openai
    /// and gemini ones, `inferenceConfig.maxTokens` of a bedrock one.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_tokens: u32,
    /// The TTL of the anthropic request's cache breakpoint (and the bedrock
    /// request's cache point, on the models that take 1h).
    #[arg(long, value_enum, default_value_t = Ttl::FiveMinutes)]
    ttl: Ttl,
    /// The user turn of a request format.
    #[arg(long, value_name = "TEXT", default_value = PLACEHOLDER_MESSAGE)]
    message: String,
}

impl DeliveryArgs {
    /// The counter `--tokenizer` names, approximate by default.
    pub(crate) fn counter(&self) -> Arc<dyn TokenCounter> {
        self.tokenizer.unwrap_or(Tokenizer::Approx).counter()
    }

    /// The budget `--budget-chars` or `--budget-tokens` gives.
    pub(crate) fn budget(&self) -> Option<TokenBudget> {
        match (self.budget_chars, self.budget_tokens) {
            (Some(chars), _) => Some(TokenBudget::chars(chars)),
            (None, Some(tokens)) => Some(TokenBudget::tokens(tokens)),
            (None, None) => None,
        }
    }

    /// The counter `--tokenizer` names, if given (the trace then reports tokens).
    pub(crate) fn chosen_counter(&self) -> Option<Arc<dyn TokenCounter>> {
        self.tokenizer.map(Tokenizer::counter)
    }
}

/// A provider format's output for `prompt`, with a trailing newline; `None`
/// for the formats `main` prints itself (text, json, annotated).
///
/// Warnings go to stderr, one line each: the stable prefix below the
/// Anthropic model's minimum cacheable length. Every request format carries
/// the prompt's reminder in its user turn.
pub(crate) fn request(
    prompt: &AssembledPrompt,
    format: Format,
    delivery: &DeliveryArgs,
    model: Option<&str>,
) -> Result<Option<String>, CliError> {
    let message = Message::user(delivery.message.as_str());
    let json = match format {
        Format::Text | Format::Json | Format::Annotated => return Ok(None),
        Format::Anthropic => {
            let model = model.unwrap_or(DEFAULT_ANTHROPIC_MODEL);
            if let Some(warning) = below_minimum(prompt, model, &*delivery.counter()) {
                crate::cli::warn(&warning.to_string());
            }
            // The prompt's reminder rides in the user turn: the request adds it.
            to_json(
                &MessagesRequest::new(prompt, model, delivery.max_tokens)
                    .ttl(delivery.ttl.into())
                    .message(message),
            )?
        }
        Format::Openai => {
            let model = model.unwrap_or(DEFAULT_OPENAI_MODEL);
            to_json(
                &openai::ResponsesRequest::new(prompt, model)
                    .max_output_tokens(delivery.max_tokens)
                    .message(message),
            )?
        }
        Format::Gemini => to_json(
            &gemini::GenerateContentRequest::new(prompt)
                .max_output_tokens(delivery.max_tokens)
                .message(message),
        )?,
        Format::Bedrock => {
            let model = model.unwrap_or(DEFAULT_BEDROCK_MODEL);
            let family = bedrock::anthropic_model(model).unwrap_or(model);
            if let Some(warning) = below_minimum(prompt, family, &*delivery.counter()) {
                crate::cli::warn(&warning.to_string());
            }
            let request = bedrock::ConverseRequest::new(prompt, model, delivery.max_tokens)
                .ttl(delivery.ttl.into())
                .message(message);
            to_json(&request.sdk_params().map_err(|e| {
                CliError::failed("cannot build the Bedrock request").with_source(e)
            })?)?
        }
        Format::ClaudeCli => {
            let invocation = claude_cli::invocation(prompt).map_err(CliError::from_error)?;
            to_json(&ClaudeCliPlacement {
                args: &invocation.args,
                user_prefix: &invocation.user_prefix,
            })?
        }
    };
    Ok(Some(json))
}

/// The below-minimum warning for `model`, on the Cached path only (the Basic
/// path marks nothing for caching).
pub(crate) fn below_minimum(
    prompt: &AssembledPrompt,
    model: &str,
    counter: &dyn TokenCounter,
) -> Option<BelowCacheMinimum> {
    check_cache_minimum(prompt, model, counter, &CacheMinimums::anthropic())
}

/// The trace lines `render --trace` adds for delivery: tokens per part, what
/// the budget did, and, for `--format anthropic`, the cache minimum.
pub(crate) fn trace_lines(
    prompt: &AssembledPrompt,
    format: Format,
    delivery: &DeliveryArgs,
    model: Option<&str>,
) -> String {
    let trace = prompt.trace();
    let mut out = String::new();
    if let (Some(name), Some(stable), Some(dynamic)) =
        (trace.tokenizer, trace.stable_tokens, trace.dynamic_tokens)
    {
        out.push_str(&format!(
            "  tokens ({name}): stable {stable}, dynamic {dynamic}\n"
        ));
    }
    if let Some(budget) = &trace.budget {
        out.push_str(&format!(
            "  budget {}: {} -> {}",
            budget.budget, budget.before, budget.after
        ));
        if !budget.shed.is_empty() {
            out.push_str(&format!("; shed {}", budget.shed.join(", ")));
        }
        for cut in &budget.truncated {
            out.push_str(&format!("; cut {} {} -> {}", cut.name, cut.from, cut.to));
        }
        out.push('\n');
    }
    if format == Format::Anthropic && prompt.path() == AssemblyPath::Cached {
        let model = model.unwrap_or(DEFAULT_ANTHROPIC_MODEL);
        let counter = delivery.counter();
        let minimum = CacheMinimums::anthropic().lookup(model).tokens;
        let stable = counter.count(prompt.stable());
        let verdict = if below_minimum(prompt, model, &*counter).is_some() {
            "below it: nothing is cached"
        } else {
            "cacheable"
        };
        let model = crate::cli::escape(model);
        out.push_str(&format!(
            "  cache ({model}): stable prefix {stable} tokens ({}), minimum {minimum}: {verdict}\n",
            counter.name()
        ));
    }
    out
}

/// `--format claude-cli`: the arguments, and what goes before the user's
/// prompt (the dynamic part and the reminder).
#[derive(Serialize)]
struct ClaudeCliPlacement<'a> {
    args: &'a [String],
    user_prefix: &'a str,
}

fn to_json(value: &impl Serialize) -> Result<String, CliError> {
    super::escape::json(value)
        .map_err(|e| CliError::failed("cannot serialize the request").with_source(e))
}
