//! Cache diagnostics: the request names an earlier response, the API says
//! why this one could not reuse that one's cached prefix.
//!
//! The response's `diagnostics.cache_miss_reason` is one of
//! `model_changed`, `system_changed`, `tools_changed`, `messages_changed`
//! (each with an estimate of the input tokens the miss cost),
//! `previous_message_not_found` or `unavailable`; reading it is the caller's
//! (this module builds requests only).
//!
//! The feature launched as a beta behind `anthropic-beta:
//! cache-diagnosis-2026-04-07`; later pages of Anthropic's documentation call
//! it generally available without the header. [`MessagesRequest::diagnostics`]
//! returns the header as data, so the caller sends it where a model or an
//! account still needs it; a request body never holds a header.

use std::fmt;

use serde::Serialize;

use super::MessagesRequest;

/// The `anthropic-beta` value that turns on cache diagnostics.
pub const CACHE_DIAGNOSIS_BETA: &str = "cache-diagnosis-2026-04-07";

/// An HTTP header a request needs beside its body: the caller's HTTP client
/// sends it. `Display` is `name: value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Header {
    /// The header's name, e.g. `anthropic-beta`.
    pub name: &'static str,
    /// Its value, e.g. [`CACHE_DIAGNOSIS_BETA`].
    pub value: &'static str,
}

impl Header {
    /// `anthropic-beta: cache-diagnosis-2026-04-07`.
    pub const CACHE_DIAGNOSIS: Header = Header {
        name: "anthropic-beta",
        value: CACHE_DIAGNOSIS_BETA,
    };
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.value)
    }
}

/// The request's `diagnostics` object: `{"previous_message_id": ID}`, or
/// `{"previous_message_id": null}` on a conversation's first call (it opts in
/// with nothing to compare yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostics {
    /// The `id` (`msg_...`) of the response to compare this request with.
    pub previous_message_id: Option<String>,
}

impl MessagesRequest {
    /// Asks the API to compare this request with the one that produced
    /// `previous_message_id` (`None` on a conversation's first call) and say
    /// in the response why the cached prefix could not be reused.
    ///
    /// Returns the header to send with the request where the model or the
    /// account still has the feature in beta ([`Header::CACHE_DIAGNOSIS`]);
    /// [`headers`](Self::headers) lists it too.
    ///
    /// ```
    /// use prompt_providers::anthropic::{Header, MessagesRequest};
    /// use prompt_providers::Message;
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocDiagnostics;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocDiagnostics)]
    /// # struct Persona;
    /// # let pipeline = Pipeline::of::<DocDiagnostics>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let mut request = MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024)
    ///     .message(Message::user("And now?"));
    /// let header = request.diagnostics(Some("msg_01XFDUDYJgAACzvnptvVoYEL"));
    /// assert_eq!(header.to_string(), "anthropic-beta: cache-diagnosis-2026-04-07");
    /// assert_eq!(
    ///     serde_json::to_value(&request)?["diagnostics"],
    ///     serde_json::json!({"previous_message_id": "msg_01XFDUDYJgAACzvnptvVoYEL"})
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn diagnostics(&mut self, previous_message_id: Option<&str>) -> Header {
        self.diagnostics = Some(Diagnostics {
            previous_message_id: previous_message_id.map(str::to_owned),
        });
        Header::CACHE_DIAGNOSIS
    }

    /// The headers this request needs beside the body and the API key: the
    /// diagnostics beta when [`diagnostics`](Self::diagnostics) is set.
    pub fn headers(&self) -> Vec<Header> {
        self.diagnostics
            .as_ref()
            .map(|_| Header::CACHE_DIAGNOSIS)
            .into_iter()
            .collect()
    }
}
