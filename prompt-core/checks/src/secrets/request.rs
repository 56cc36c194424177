//! The findings of a request body about to leave the process, each at the
//! JSON string that holds it.

use serde::Serialize;

use super::{SecretFinding, scan};

/// A finding in a request body: the JSON string it sits in, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RequestFinding {
    /// The string's place in the body, as a JSON Pointer (RFC 6901):
    /// `/messages/0/content/1/text`.
    pub pointer: String,
    /// The string's text, as decoded from the JSON.
    pub text: String,
    /// The finding; its range is in [`text`](Self::text).
    pub finding: SecretFinding,
}

/// Every finding in a request body about to leave the process (an
/// Anthropic, OpenAI or Gemini request, a CLI agent's invocation): each
/// string value of `body`, at any depth, is scanned as decoded text, so a
/// JSON escape cannot hide a secret. Object keys are names the request
/// format chose, not text, and are not scanned.
///
/// A body holds the prompt's text and anything added to it (the user's
/// message, an agent's text welded on after assembly): [`scan_prompt`](super::scan_prompt) names
/// the layers, this finds what reaches the wire whatever wrote it.
///
/// ```
/// use prompt_checks::secrets::scan_request;
///
/// let body = serde_json::json!({
///     "messages": [{"role": "user", "content": [
///         {"type": "text", "text": "<system-reminder>\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n</system-reminder>"}
///     ]}]
/// });
/// let found = scan_request(&body);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].pointer, "/messages/0/content/0/text");
/// ```
pub fn scan_request(body: &serde_json::Value) -> Vec<RequestFinding> {
    fn walk(value: &serde_json::Value, pointer: &mut String, out: &mut Vec<RequestFinding>) {
        match value {
            serde_json::Value::String(text) => {
                out.extend(scan(text).into_iter().map(|finding| RequestFinding {
                    pointer: pointer.clone(),
                    text: text.clone(),
                    finding,
                }));
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    walk(item, pointer, out);
                    pointer.truncate(len);
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, item) in fields {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    walk(item, pointer, out);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, &mut String::new(), &mut out);
    out
}
