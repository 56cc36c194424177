//! The one placement every client module translates: where the stable
//! prefix, its breakpoints, the dynamic suffix and the reminder go in one
//! request, decided by prompt-core's own rules.
//!
//! | piece | a client with one breakpoint per system block (genai, async-openai) | a client that marks one system block (rig) |
//! |---|---|---|
//! | stable prefix | system blocks cut at [`anthropic::breakpoint_offsets`] or [`openai::breakpoint_offsets`], each with a breakpoint | the one system block, which the client marks |
//! | dynamic suffix | a system block after the last breakpoint, unmarked | a context block at the head of the latest user turn ([`providers::user_prefix`]) |
//! | reminder | a block at the end of the latest user turn ([`providers::reminder_block`]) | inside that context block |
//! | `prompt_cache_key` | [`openai::prompt_cache_key`] (OpenAI) | — |
//!
//! The client modules only turn a [`Placement`] into the client's types;
//! none of them decides anything of its own.
//!
//! [`providers::user_prefix`]: prompt_providers::user_prefix
//! [`providers::reminder_block`]: prompt_providers::reminder_block

use prompt_core::{AssembledPrompt, AssemblyPath};
use prompt_providers::observe::Provider;
use prompt_providers::{self as providers, anthropic, openai};

/// How many breakpoints a client can put in a request's system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SystemSlot {
    /// One per system block, on the blocks the request chooses, with
    /// unmarked blocks after them (genai's `ChatMessage::system(..)
    /// .with_options(CacheControl::..)`, async-openai's content parts).
    Blocks,
    /// One system block, which the client marks itself (rig's preamble with
    /// its static-prefix cache setting): the stable prefix goes there, and
    /// everything that changes per call goes into the latest user turn.
    OneBlock,
}

/// One system block of a request, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SystemBlock {
    /// Its text; never empty.
    pub text: String,
    /// Whether a cache breakpoint ends it.
    pub breakpoint: bool,
}

/// Where each piece of an assembled prompt goes in one request to
/// `provider` through a client with `slot`.
///
/// ```
/// use prompt_clients::{Placement, SystemSlot};
/// use prompt_providers::observe::Provider;
/// # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// # #[prompt_core::prompt_pipeline(paths = [Cached])]
/// # struct DocPlacement;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocPlacement)]
/// # struct Persona;
/// # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-12-01", pipeline = DocPlacement)]
/// # struct Today;
/// # let pipeline = Pipeline::of::<DocPlacement>()?;
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
///
/// let blocks = Placement::new(&prompt, Provider::Anthropic, Some("claude-sonnet-4-5"), SystemSlot::Blocks);
/// assert_eq!(blocks.system().len(), 2);
/// assert!(blocks.system()[0].breakpoint && !blocks.system()[1].breakpoint);
/// assert_eq!(blocks.user_head(), None);
///
/// let one = Placement::new(&prompt, Provider::Anthropic, Some("claude-sonnet-4-5"), SystemSlot::OneBlock);
/// assert_eq!(one.system()[0].text, "You are terse.");
/// assert!(one.user_head().is_some_and(|head| head.contains("Date: 2026-12-01")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    provider: Provider,
    system: Vec<SystemBlock>,
    user_head: Option<String>,
    user_tail: Option<String>,
    breakpoints: Vec<usize>,
    prompt_cache_key: Option<String>,
}

impl Placement {
    /// The placement of `prompt` in a request to `provider`'s `model`
    /// (`None` when the client names the model elsewhere, as rig's model
    /// does: the breakpoints are then those every model of `provider`
    /// takes).
    ///
    /// Anthropic's breakpoints fall where [`anthropic::MessagesRequest::new`]
    /// puts them ([`anthropic::breakpoint_offsets`]); OpenAI's where its
    /// request builders do ([`openai::breakpoint_offsets`]: GPT-5.6 and
    /// later), and for an earlier model the prompt is one unmarked block, as
    /// OpenAI caches its prefix on its own. A [`SystemSlot::OneBlock`] client
    /// gets the stable prefix alone in its system block, whatever the
    /// provider. Gemini is treated as OpenAI is (an implicit prefix cache, no
    /// breakpoint): no client module here sends to it.
    pub fn new(
        prompt: &AssembledPrompt,
        provider: Provider,
        model: Option<&str>,
        slot: SystemSlot,
    ) -> Self {
        // No model: no model-specific minimum moves a breakpoint.
        let model = model.unwrap_or_default();
        let openai = provider != Provider::Anthropic;
        let prompt_cache_key = openai.then(|| openai::prompt_cache_key(prompt));
        let cached = prompt.path() == AssemblyPath::Cached && !prompt.stable().is_empty();
        match slot {
            SystemSlot::OneBlock => {
                let slot = providers::system_slot(prompt);
                let head = providers::user_prefix(prompt);
                Self {
                    provider,
                    system: non_empty(slot, cached).into_iter().collect(),
                    user_head: (!head.is_empty()).then_some(head),
                    user_tail: None,
                    breakpoints: if cached {
                        vec![prompt.stable().len()]
                    } else {
                        Vec::new()
                    },
                    prompt_cache_key,
                }
            }
            SystemSlot::Blocks => {
                let (system, breakpoints) = if openai {
                    let offsets = openai::breakpoint_offsets(prompt, model);
                    (cut(&prompt.text(), &offsets), offsets)
                } else {
                    let offsets = anthropic::breakpoint_offsets(prompt, model);
                    let blocks = anthropic::scoped_system_blocks(
                        prompt,
                        anthropic::CacheTtl::FiveMinutes,
                        &offsets,
                    );
                    let system = blocks
                        .into_iter()
                        .filter(|b| !b.text.is_empty())
                        .map(|b| SystemBlock {
                            breakpoint: b.cache_control.is_some(),
                            text: b.text,
                        })
                        .collect();
                    (system, offsets)
                };
                Self {
                    provider,
                    system,
                    user_head: None,
                    user_tail: prompt.reminder().and_then(providers::reminder_block),
                    breakpoints,
                    prompt_cache_key,
                }
            }
        }
    }

    /// The provider the request goes to.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The system blocks, in order; joined, they hold the system prompt
    /// (without the separator before the dynamic suffix for Anthropic, which
    /// takes it as a block of its own, and [`SystemSlot::OneBlock`]'s without
    /// the dynamic suffix at all).
    pub fn system(&self) -> &[SystemBlock] {
        &self.system
    }

    /// What goes before the user's words in the latest user turn: the
    /// context block of [`SystemSlot::OneBlock`] (the dynamic suffix and the
    /// reminder, from [`prompt_providers::user_prefix`], which ends in
    /// a blank line); `None` when there is nothing to carry.
    pub fn user_head(&self) -> Option<&str> {
        self.user_head.as_deref()
    }

    /// What goes after the user's words in the latest user turn: the
    /// reminder block of [`SystemSlot::Blocks`]; `None` without a reminder.
    pub fn user_tail(&self) -> Option<&str> {
        self.user_tail.as_deref()
    }

    /// Byte offsets in the stable prefix where the request's breakpoints end
    /// a cached block, ascending: what [`prompt_providers::observe::Sent::breakpoints`]
    /// takes. Empty when the request has none (the Basic path, an empty
    /// prefix, an OpenAI model before GPT-5.6).
    pub fn breakpoints(&self) -> &[usize] {
        &self.breakpoints
    }

    /// The request's `prompt_cache_key` (OpenAI); `None` for Anthropic.
    pub fn prompt_cache_key(&self) -> Option<&str> {
        self.prompt_cache_key.as_deref()
    }

    /// [`PlacementError::NoUserTurn`] for `client`'s request, when it has
    /// something for the latest user turn; `Ok` when it has nothing.
    #[cfg_attr(
        not(any(feature = "rig", feature = "genai", feature = "async-openai")),
        allow(dead_code)
    )]
    pub(crate) fn no_user_turn(&self, client: &'static str) -> Result<(), PlacementError> {
        let bytes = [&self.user_head, &self.user_tail]
            .into_iter()
            .flatten()
            .map(String::len)
            .sum();
        match bytes {
            0 => Ok(()),
            bytes => Err(PlacementError::NoUserTurn { client, bytes }),
        }
    }
}

/// `text` as one block, marked when `cached`; `None` when empty.
fn non_empty(text: String, cached: bool) -> Option<SystemBlock> {
    (!text.is_empty()).then_some(SystemBlock {
        text,
        breakpoint: cached,
    })
}

/// `text` cut at `ends` (ascending byte offsets on character boundaries),
/// each piece up to an end marked, the rest one unmarked block; the whole
/// text as one unmarked block without ends. Joined, the blocks are `text`.
fn cut(text: &str, ends: &[usize]) -> Vec<SystemBlock> {
    let mut blocks = Vec::with_capacity(ends.len() + 1);
    let mut start = 0;
    for &end in ends {
        if end > start && end <= text.len() && text.is_char_boundary(end) {
            blocks.push(SystemBlock {
                text: text[start..end].to_owned(),
                breakpoint: true,
            });
            start = end;
        }
    }
    if start < text.len() {
        blocks.push(SystemBlock {
            text: text[start..].to_owned(),
            breakpoint: false,
        });
    }
    blocks
}

/// A prompt that cannot be placed in a client's request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlacementError {
    /// The dynamic suffix or the reminder needs a user turn and the
    /// conversation has none.
    #[error(
        "the prompt has {bytes} B for the latest user turn (its dynamic suffix or reminder) and the \
         {client} request has no user message to carry them: add the user's turn to the history \
         before building the request"
    )]
    NoUserTurn {
        /// Whose request: `rig`, `genai`, `async-openai`.
        client: &'static str,
        /// How much had nowhere to go.
        bytes: usize,
    },
    /// The model names a provider this client module does not place for.
    #[error(
        "{client} sends `{model}` to {adapter}, which prompt-clients does not place prompts for: \
         use an Anthropic or OpenAI model (or its namespace, e.g. `openai::{model}`)"
    )]
    UnsupportedProvider {
        /// Whose request.
        client: &'static str,
        /// The model as given.
        model: String,
        /// Where the client would send it.
        adapter: String,
    },
    /// A system message in the conversation, which the client would send
    /// as part of the system prompt, after the cached blocks (where it takes
    /// rig's breakpoint, or moves the dynamic suffix's place).
    #[error(
        "message {index} of the history given to the {client} request is a system message: the \
         system prompt is the assembled prompt's; put per-call instructions in a Dynamic layer \
         (or `channel = Reminder`), not in the history"
    )]
    SystemMessageInHistory {
        /// Whose request.
        client: &'static str,
        /// Its index in the history.
        index: usize,
    },
    /// The conversation is empty, and the client needs a message to send.
    #[error("the {client} request needs at least one message: pass the user's turn in the history")]
    EmptyConversation {
        /// Whose request.
        client: &'static str,
    },
    /// prompt-core's request with the history could not be carried into
    /// the client's request type (a field the client's types do not take).
    #[error("the {client} request cannot carry prompt-core's request with its history: {reason}")]
    Conversion {
        /// Whose request.
        client: &'static str,
        /// What did not fit.
        reason: String,
    },
}
