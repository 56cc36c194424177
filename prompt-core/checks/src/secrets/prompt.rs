//! The findings of a whole assembled prompt, each named with the layer (and
//! the channel) that wrote it.

use std::ops::Range;

use serde::Serialize;

use super::{SecretFinding, scan};
use crate::AssembledPrompt;
use crate::spec::Channel;

/// A finding in an assembled prompt, with the layer that wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PromptFinding {
    /// The layer whose output holds it; `None` when it spans a join (or the
    /// budget's notice).
    pub layer: Option<&'static str>,
    /// Where the layer spoke: the system prompt, or the reminder carried in
    /// the last user message.
    pub channel: Channel,
    /// The finding; its range is in [`AssembledPrompt::text`] for
    /// [`Channel::System`], in [`AssembledPrompt::reminder`] for
    /// [`Channel::Reminder`].
    pub finding: SecretFinding,
}

/// Every finding in what `prompt` sends, each with the layer that wrote it.
///
/// Both channels are scanned: the system prompt ([`AssembledPrompt::text`],
/// Stable and Dynamic layers alike) and the reminder
/// ([`AssembledPrompt::reminder`], the `channel = Reminder` layers, which a
/// request carries in its last user message). A finding's range is in the
/// text of its [`channel`](PromptFinding::channel); its layer is named
/// whichever channel it spoke in. The system prompt's findings come first.
pub fn scan_prompt(prompt: &AssembledPrompt) -> Vec<PromptFinding> {
    let mut findings = Vec::new();
    let system = prompt.text();
    scan_channel(prompt, Channel::System, &system, &mut findings);
    if let Some(reminder) = prompt.reminder() {
        scan_channel(prompt, Channel::Reminder, reminder, &mut findings);
    }
    findings
}

/// The findings of [`scan`] over `text`, the joined text of `channel`.
fn scan_channel(
    prompt: &AssembledPrompt,
    channel: Channel,
    text: &str,
    findings: &mut Vec<PromptFinding>,
) {
    let spans = layer_spans(prompt, channel, text);
    findings.extend(scan(text).into_iter().map(|finding| {
        PromptFinding {
            layer: spans
                .iter()
                .find(|(_, span)| {
                    span.start <= finding.range.start && finding.range.end <= span.end
                })
                .map(|(name, _)| *name),
            channel,
            finding,
        }
    }));
}

/// Each layer that spoke in `channel`: its byte range in `text`, that
/// channel's joined text. The outputs lie in trace order joined by the
/// prompt's separator; the system prompt may end with a budget notice after
/// them. When the text is not laid out so (an assembly this module does not
/// know), no layer is named rather than a wrong one.
fn layer_spans(
    prompt: &AssembledPrompt,
    channel: Channel,
    text: &str,
) -> Vec<(&'static str, Range<usize>)> {
    let separator = prompt.separator();
    let mut spans = Vec::new();
    let mut at = 0;
    for layer in prompt
        .trace()
        .layers
        .iter()
        .filter(|l| l.channel == channel && !l.silent && l.bytes > 0)
    {
        if !spans.is_empty() {
            if !text[at..].starts_with(separator) {
                return Vec::new();
            }
            at += separator.len();
        }
        let span = at..at + layer.bytes;
        if span.end > text.len() || !text.is_char_boundary(span.end) {
            return Vec::new();
        }
        at = span.end;
        spans.push((layer.name, span));
    }
    // What follows the last layer can only be the budget's notice.
    if at < text.len() && (channel == Channel::Reminder || !text[at..].starts_with(separator)) {
        return Vec::new();
    }
    spans
}
