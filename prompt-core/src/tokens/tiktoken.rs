//! Exact counters for OpenAI's encodings, through `tiktoken-rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use tiktoken_rs::CoreBPE;

use super::{ApproxCounter, TokenCounter};

/// Exact token counts in OpenAI's `o200k_base` encoding (GPT-4o, GPT-4.1,
/// o-series, GPT-5).
///
/// The encoder is built once per process, on first use, and shared; each
/// count then only encodes. Special-token text such as `<|endoftext|>` counts
/// as ordinary text, as it does when a file contains it.
///
/// ```
/// use prompt_core::tokens::{O200kBase, TokenCounter};
///
/// assert_eq!(O200kBase.count("hello world"), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct O200kBase;

/// Exact token counts in OpenAI's `cl100k_base` encoding (GPT-4, GPT-3.5
/// Turbo, `text-embedding-3`).
///
/// Built once per process, like [`O200kBase`].
///
/// ```
/// use prompt_core::tokens::{Cl100kBase, TokenCounter};
///
/// assert_eq!(Cl100kBase.count("hello world"), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cl100kBase;

impl TokenCounter for O200kBase {
    fn count(&self, text: &str) -> usize {
        exact(tiktoken_rs::o200k_base_singleton(), text, self.name())
    }

    fn name(&self) -> &'static str {
        "o200k_base"
    }
}

impl TokenCounter for Cl100kBase {
    fn count(&self, text: &str) -> usize {
        exact(tiktoken_rs::cl100k_base_singleton(), text, self.name())
    }

    fn name(&self) -> &'static str {
        "cl100k_base"
    }
}

/// Encodes `text`; falls back to the approximate count if the encoder panics.
///
/// `tiktoken-rs` unwraps its pre-tokenizer regex's result, which fails on a
/// backtracking limit for some adversarial inputs. Prompt text comes from
/// files the user did not write, so a count must not take the process down.
fn exact(bpe: &'static CoreBPE, text: &str, name: &'static str) -> usize {
    if text.is_empty() {
        return 0;
    }
    match catch_unwind(AssertUnwindSafe(|| bpe.encode_ordinary(text).len())) {
        Ok(count) => count,
        Err(_) => {
            let approx = ApproxCounter.count(text);
            tracing::warn!(
                target: "prompt_core::tokens",
                encoding = name,
                bytes = text.len(),
                approx,
                "the {name} encoder failed on this text; counted it approximately instead",
            );
            approx
        }
    }
}
