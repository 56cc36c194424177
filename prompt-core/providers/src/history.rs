//! [`History`]: a conversation kept exactly as it was sent.

use super::anthropic::takes_system_messages;
use super::placement::{context_text, user_prefix};
use super::{Message, Role};
use crate::AssembledPrompt;

/// Where a turn's per-turn context (the prompt's dynamic suffix and reminder)
/// goes in a [`History`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContextChannel {
    /// At the head of the user's turn, in one `<system-reminder>` block
    /// ([`user_prefix`](super::user_prefix)): every provider takes it.
    #[default]
    UserTurn,
    /// As a `{"role": "system"}` message right after the user's turn:
    /// Anthropic's mid-conversation system messages, on the models that take
    /// them ([`takes_system_messages`]).
    SystemMessage,
}

/// Why a [`History`] cannot send its context the way asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Mid-conversation system messages for a model not known to take them.
    #[error(
        "model `{model}` is not known to take a system message inside `messages` (Anthropic lists \
         the Claude API models that do; Bedrock and Vertex take none): keep the per-turn context in \
         the user turn (`ContextChannel::UserTurn`)"
    )]
    SystemMessagesUnsupported {
        /// The model asked for.
        model: String,
    },
}

/// A conversation kept exactly as it was sent, so each request's messages
/// begin with the previous request's, byte for byte, and the provider reads
/// the whole history from its cache.
///
/// A provider caches the request prefix (tools -> system -> messages). The
/// per-turn part of a prompt (its dynamic suffix and reminder) goes at the
/// head of the newest user turn, in one [`CONTEXT_OPEN`](super::CONTEXT_OPEN)
/// block ([`user_prefix`](super::user_prefix)); when the next request re-sends
/// that turn without its block, the history differs from what was sent at
/// that turn and nothing after it is read from the cache. [`History`] keeps
/// each message as it went out, block included, and only appends: the reply,
/// then the next turn with its own block. Earlier turns are never rewritten.
///
/// Each request builder takes it with `history(&history)`
/// ([`anthropic::MessagesRequest::history`](super::anthropic::MessagesRequest::history),
/// [`openai::ResponsesRequest::history`](super::openai::ResponsesRequest::history),
/// [`openai::ChatRequest::history`](super::openai::ChatRequest::history)):
/// the system prompt is then the stable prefix alone (the per-turn part rides
/// in the history), and the request's [cache plan](super::plan) puts a
/// breakpoint at the conversation's frontier, the newest message, so the next
/// turn reads everything before it.
///
/// ```
/// use prompt_providers::{anthropic, History, Role};
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocHistory;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocHistory)]
/// # struct Persona;
/// # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Turn context.", pipeline = DocHistory)]
/// # struct Now;
/// # let pipeline = Pipeline::of::<DocHistory>()?;
/// let builder = PromptBuilder::new(&pipeline);
/// let mut history = History::new();
///
/// // Turn 1: assemble the prompt, add the user's turn, send.
/// let prompt = builder.build_cached(&Context::new(), &Context::new())?;
/// history.user_turn(&prompt, "Fix the failing test.");
/// let first = anthropic::MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).history(&history)?;
/// let first = serde_json::to_value(&first)?;
/// history.reply("Done: the assertion compared the wrong field.");
///
/// // Turn 2: the same, with the reply in between.
/// let prompt = builder.build_cached(&Context::new(), &Context::new())?;
/// history.user_turn(&prompt, "Now run the linter.");
/// let second = anthropic::MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).history(&history)?;
/// let second = serde_json::to_value(&second)?;
///
/// // The system prompt is the stable prefix alone; the turn's block heads its user turn.
/// assert_eq!(second["system"].as_array().map(Vec::len), Some(1));
/// assert!(history.messages()[2].text.starts_with("<system-reminder>"));
/// assert_eq!(history.messages()[2].role, Role::User);
/// // The first request's message is re-sent as it went out...
/// assert_eq!(first["messages"][0]["content"][0]["text"], second["messages"][0]["content"][0]["text"]);
/// // ...and the breakpoint is at the frontier, the newest message.
/// assert!(second["messages"][2]["content"][0]["cache_control"].is_object());
/// assert!(second["messages"][0]["content"][0].get("cache_control").is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    messages: Vec<Message>,
    channel: ContextChannel,
}

impl History {
    /// An empty conversation whose turns carry their context at the head of
    /// the user's turn ([`ContextChannel::UserTurn`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty conversation whose turns carry their context as a
    /// mid-conversation system message after the user's turn
    /// ([`ContextChannel::SystemMessage`]), for `model`.
    ///
    /// # Errors
    /// [`HistoryError::SystemMessagesUnsupported`] when `model` is not known
    /// to take them ([`takes_system_messages`]): the option is never chosen
    /// for a model that may refuse it.
    ///
    /// ```
    /// use prompt_providers::History;
    ///
    /// assert!(History::context_as_system_message("claude-opus-4-8").is_ok());
    /// assert!(History::context_as_system_message("claude-sonnet-4-5").is_err());
    /// ```
    pub fn context_as_system_message(model: &str) -> Result<Self, HistoryError> {
        if !takes_system_messages(model) {
            return Err(HistoryError::SystemMessagesUnsupported {
                model: model.to_owned(),
            });
        }
        Ok(Self {
            messages: Vec::new(),
            channel: ContextChannel::SystemMessage,
        })
    }

    /// Where this conversation's turns carry their context.
    pub fn channel(&self) -> ContextChannel {
        self.channel
    }

    /// Appends the user's turn `words` with `prompt`'s per-turn context (its
    /// dynamic suffix on the Cached path, and its reminder) in this
    /// conversation's [`channel`](Self::channel), and returns the messages
    /// to send. Only the new messages carry this turn's context; earlier
    /// ones stay as they were sent. A turn with no words and no context adds
    /// nothing (providers refuse empty text).
    pub fn user_turn(&mut self, prompt: &AssembledPrompt, words: &str) -> &[Message] {
        match self.channel {
            ContextChannel::UserTurn => {
                let mut text = user_prefix(prompt);
                text.push_str(words);
                self.push(Message::user(text));
            }
            ContextChannel::SystemMessage => {
                self.push(Message::user(words));
                self.push(Message::system(context_text(prompt)));
            }
        }
        &self.messages
    }

    /// Appends the model's reply, as it came back (empty text adds nothing).
    pub fn reply(&mut self, text: impl Into<String>) {
        self.push(Message::assistant(text));
    }

    /// Appends a message as it was sent (a tool result relayed as the user's
    /// turn, a reply assembled elsewhere); empty text adds nothing.
    pub fn push(&mut self, message: Message) {
        if !message.text.is_empty() {
            self.messages.push(message);
        }
    }

    /// Every message, as sent, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// How many messages it holds.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Whether any message is a mid-conversation system message.
    pub fn has_system_messages(&self) -> bool {
        self.messages.iter().any(|m| m.role == Role::System)
    }
}
