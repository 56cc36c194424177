//! Which Anthropic models take a `{"role": "system"}` message inside
//! `messages` (mid-conversation system messages), dated with its source.
//!
//! A mid-conversation system message carries per-turn context as a system
//! instruction, not as user text, after the cached prefix. The Claude API
//! takes one on the models listed here, placed right after a user turn; other
//! models refuse it (`role 'system' is not supported on this model`), and
//! Bedrock and Vertex do not take it. The list is conservative: a model not
//! in it is treated as one that refuses, so a request never sends one where
//! it may be refused ([`takes_system_messages`]).

/// When the list below was last checked against its source.
pub const SYSTEM_MESSAGES_CHECKED: &str = "2026-12-07";

/// Where the list comes from.
pub const SYSTEM_MESSAGES_SOURCE: &str = "platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-8 \
     (\"Claude Opus 4.8 accepts role: \\\"system\\\" messages immediately after a user turn\"), \
     as quoted in simonw/llm-anthropic#73; \
     platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages";

/// Model id prefixes (Claude API ids, dated or not) that take
/// mid-conversation system messages.
const MODELS: &[&str] = &["claude-opus-4-8"];

/// Whether `model`, a Claude API model id, takes a `{"role": "system"}`
/// message inside `messages`: only the models Anthropic lists
/// ([`SYSTEM_MESSAGES_SOURCE`], read on [`SYSTEM_MESSAGES_CHECKED`]). A
/// Bedrock (`anthropic.claude-…`) or Vertex (`claude-…@date`) id is refused:
/// those platforms do not take them.
///
/// ```
/// use prompt_providers::anthropic::takes_system_messages;
///
/// assert!(takes_system_messages("claude-opus-4-8"));
/// assert!(takes_system_messages("claude-opus-4-8-20260528"));
/// assert!(!takes_system_messages("claude-sonnet-4-5"));
/// assert!(!takes_system_messages("anthropic.claude-opus-4-8-v1:0"));
/// assert!(!takes_system_messages("claude-opus-4-8@20260528"));
/// ```
pub fn takes_system_messages(model: &str) -> bool {
    !model.contains('@')
        && MODELS.iter().any(|prefix| {
            model
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
        })
}
