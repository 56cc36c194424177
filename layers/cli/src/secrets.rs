//! `--check-secrets`: what the guard reports about everything a command sends.
//!
//! The prompt is scanned channel by channel ([`scan_prompt`]: the system
//! prompt and the reminder that rides in the user message), each finding
//! named with its layer; then what actually leaves the process (the text
//! printed, a request body, a CLI agent's invocation) is scanned too, and a
//! finding there that no layer accounts for (an agent's text welded on after
//! assembly, the `--message`) is reported with its place.

use std::collections::BTreeSet;

use prompt_checks::secrets::{scan, scan_prompt, scan_request};
use prompt_core::AssembledPrompt;
use prompt_core::spec::Channel;

use super::escape;

/// One thing a command sends besides the assembled prompt's own parts.
pub(crate) enum Sent<'a> {
    /// Text, named by what it is (`the text printed`).
    Text(&'a str, &'a str),
    /// A request body (JSON), as it is printed or sent.
    Body(&'a str),
}

/// One finding, as the lines to print (escaped).
pub(crate) struct Report {
    /// What kind, where, and which layer: the lines `--check-secrets` prints.
    pub(crate) lines: String,
}

/// Every credential-shaped string in `prompt` and in `sent`, each once:
/// the prompt's own with their layer, then any other that `sent` carries.
/// `verb` is `secret` or `redacted`.
pub(crate) fn check(prompt: &AssembledPrompt, sent: &[Sent<'_>], verb: &str) -> Vec<Report> {
    let mut reports = Vec::new();
    let mut named = BTreeSet::new();
    let system = prompt.text();
    for found in scan_prompt(prompt) {
        let text = match found.channel {
            Channel::Reminder => prompt.reminder().unwrap_or_default(),
            _ => system.as_str(),
        };
        named.insert(text[found.finding.range.clone()].to_owned());
        let of = match found.channel {
            Channel::Reminder => "the reminder (sent in the user message)",
            _ => "the prompt",
        };
        reports.push(Report {
            lines: format!(
                "prompt: {verb}: {} at bytes {}..{} of {of}\n          in layer {}\n",
                found.finding.label(),
                found.finding.range.start,
                found.finding.range.end,
                escape(found.layer.unwrap_or("(between layers)")),
            ),
        });
    }
    for item in sent {
        let findings: Vec<(String, String)> = match item {
            Sent::Text(what, text) => scan(text)
                .into_iter()
                .map(|f| {
                    (
                        text[f.range.clone()].to_owned(),
                        format!(
                            "{} at bytes {}..{} of {what}",
                            f.label(),
                            f.range.start,
                            f.range.end
                        ),
                    )
                })
                .collect(),
            Sent::Body(json) => match serde_json::from_str(json) {
                Ok(body) => scan_request(&body)
                    .into_iter()
                    .map(|f| {
                        (
                            f.text[f.finding.range.clone()].to_owned(),
                            format!(
                                "{} at bytes {}..{} of the request's {}",
                                f.finding.label(),
                                f.finding.range.start,
                                f.finding.range.end,
                                escape(&f.pointer)
                            ),
                        )
                    })
                    .collect(),
                // Not JSON: scanned as it is printed.
                Err(_) => scan(json)
                    .into_iter()
                    .map(|f| {
                        (
                            json[f.range.clone()].to_owned(),
                            format!("{} in the request body", f.label()),
                        )
                    })
                    .collect(),
            },
        };
        for (secret, place) in findings {
            if named.insert(secret) {
                reports.push(Report {
                    lines: format!(
                        "prompt: {verb}: {place}\n          not in any layer's text: sent with the prompt\n"
                    ),
                });
            }
        }
    }
    reports
}
