//! Token counting: how many tokens a text costs a model.
//!
//! A [`TokenCounter`] turns text into a token count. [`ApproxCounter`], the
//! default, needs no tables and is within a few percent of OpenAI's
//! `o200k_base` on prose and Markdown (its docs give the measured error). With
//! the `tiktoken` cargo feature, `O200kBase` and `Cl100kBase` count exactly
//! for OpenAI's encodings; Anthropic publishes no tokenizer, so the approximate
//! counter is the honest choice for Claude models.
//!
//! ```
//! use prompt_core::tokens::{ApproxCounter, TokenCounter};
//!
//! let counter = ApproxCounter;
//! assert_eq!(counter.count(""), 0);
//! assert_eq!(counter.count("hello world"), 3); // o200k_base says 2
//!
//! // Any counter works behind a reference or a box.
//! let boxed: Box<dyn TokenCounter> = Box::new(counter);
//! assert_eq!(boxed.count("hello world"), 3);
//! ```

mod approx;
#[cfg(feature = "tiktoken")]
mod tiktoken;

pub use approx::ApproxCounter;
#[cfg(feature = "tiktoken")]
pub use tiktoken::{Cl100kBase, O200kBase};

use std::sync::Arc;

/// Counts the tokens a text costs.
///
/// Object-safe and `Send + Sync`, so one counter can be shared by every
/// session of a process (`Arc<dyn TokenCounter>`). Implementations never
/// panic: every `&str` has a count, and the empty string counts 0.
pub trait TokenCounter: Send + Sync {
    /// The number of tokens in `text`.
    fn count(&self, text: &str) -> usize;

    /// A short name for reports and traces, such as `"approx"` or
    /// `"o200k_base"`.
    fn name(&self) -> &'static str;
}

impl<T: TokenCounter + ?Sized> TokenCounter for &T {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }
}

impl<T: TokenCounter + ?Sized> TokenCounter for Box<T> {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }
}

impl<T: TokenCounter + ?Sized> TokenCounter for Arc<T> {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }
}
