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
//!
//! A tool that counts many texts sharing most of their lines (a team's
//! prompts, a session's turns, every prefix of one prompt) wraps its
//! counter in a [`Memoized`] for the run: each distinct piece of text is
//! counted once, and the work the counter does is bounded.

mod approx;
mod memo;
#[cfg(feature = "tiktoken")]
mod tiktoken;

pub use approx::ApproxCounter;
pub use memo::{CountStats, Memoized};
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

    /// Pushes onto `cuts` the byte offsets where `text` can be cut without
    /// changing its count: at each one, the count of `text` is the count of
    /// the text before it plus the count of the text after it.
    ///
    /// The default pushes none, which is right for every counter. A counter
    /// that knows where its count adds up says so, and [`Memoized`] then
    /// counts the pieces between the cuts apart and remembers each: texts
    /// that share whole pieces (a team's prompts, which differ in one line)
    /// share the work. The exact encodings cut at line starts; the
    /// approximate count rounds up, so it never adds up and cuts nowhere.
    /// Offsets that are not ascending, inside `text` and on a character
    /// boundary are ignored.
    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        let _ = (text, cuts);
    }
}

impl<T: TokenCounter + ?Sized> TokenCounter for &T {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        (**self).cuts(text, cuts)
    }
}

impl<T: TokenCounter + ?Sized> TokenCounter for Box<T> {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        (**self).cuts(text, cuts)
    }
}

impl<T: TokenCounter + ?Sized> TokenCounter for Arc<T> {
    fn count(&self, text: &str) -> usize {
        (**self).count(text)
    }

    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        (**self).cuts(text, cuts)
    }
}
