//! An opt-in guard against credentials in a prompt.
//!
//! A prompt is built from files an agent did not write, and it is sent to a
//! paid API: a key that found its way into `AGENTS.md`, a memory file or a
//! symlinked `.env` would leave the machine with it. [`scan`] finds
//! credential-shaped strings in a text, [`scan_prompt`] names the layer each
//! sits in, and [`redact`] replaces them.
//!
//! What is looked for: API keys of Anthropic (`sk-ant-`), OpenAI (`sk-`,
//! `sk-proj-`), AWS (`AKIA`/`ASIA` key ids), GitHub (`ghp_`, `gho_`, `ghs_`,
//! `ghu_`, `ghr_`, `github_pat_`), Slack (`xoxb-`, `xoxp-`, ...), Google
//! (`AIza`), PEM private key blocks, and `.env`-style assignments to a
//! secret-looking name (`DB_PASSWORD=...`, `export API_TOKEN="..."`). Shapes,
//! not proof: a finding is a string to look at, and a placeholder such as
//! `API_KEY=${API_KEY}` or `<your-key>` is not one.
//!
//! ```
//! use prompt_core::secrets::{redact, scan, SecretKind};
//!
//! let text = "Deploy with GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 set.";
//! let found = scan(text);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].kind, SecretKind::GitHub);
//! assert_eq!(&text[found[0].range.clone()], "ghp_0123456789abcdefghijABCDEFGHIJ012345");
//! assert_eq!(redact(text, &found), "Deploy with GITHUB_TOKEN=[REDACTED github token] set.");
//! ```

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use crate::AssembledPrompt;

/// What kind of credential a string looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SecretKind {
    /// An Anthropic API key, `sk-ant-...`.
    Anthropic,
    /// An OpenAI API key, `sk-...` / `sk-proj-...`.
    OpenAi,
    /// An AWS access key id, `AKIA...` / `ASIA...`.
    Aws,
    /// A GitHub token, `ghp_...` / `github_pat_...`.
    GitHub,
    /// A Slack token, `xoxb-...`.
    Slack,
    /// A Google API key, `AIza...`.
    Google,
    /// A PEM private key block.
    PrivateKey,
    /// The value of a `.env`-style assignment to a secret-looking name.
    Assignment,
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SecretKind::Anthropic => "anthropic api key",
            SecretKind::OpenAi => "openai api key",
            SecretKind::Aws => "aws access key id",
            SecretKind::GitHub => "github token",
            SecretKind::Slack => "slack token",
            SecretKind::Google => "google api key",
            SecretKind::PrivateKey => "private key",
            SecretKind::Assignment => "secret assignment",
        })
    }
}

/// A credential-shaped string in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretFinding {
    /// What it looks like.
    pub kind: SecretKind,
    /// Its byte range in the text scanned.
    pub range: Range<usize>,
}

/// A finding in an assembled prompt, with the layer that wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptFinding {
    /// The layer whose output holds it; `None` when it spans a join.
    pub layer: Option<&'static str>,
    /// The finding; its range is in [`AssembledPrompt::text`].
    pub finding: SecretFinding,
}

fn patterns() -> &'static [(SecretKind, Regex)] {
    static PATTERNS: OnceLock<Vec<(SecretKind, Regex)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let table = [
            (SecretKind::Anthropic, r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
            (
                SecretKind::OpenAi,
                r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            ),
            (SecretKind::Aws, r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
            (
                SecretKind::GitHub,
                r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            ),
            (SecretKind::Slack, r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
            (SecretKind::Google, r"\bAIza[0-9A-Za-z_-]{35}"),
            (
                SecretKind::PrivateKey,
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\z)",
            ),
            (
                SecretKind::Assignment,
                r#"(?m)^[ \t]*(?:export[ \t]+)?[A-Za-z0-9_]*(?i:secret|token|passw(?:or)?d|api_?key|private_?key|access_?key|credentials?)[A-Za-z0-9_]*[ \t]*[=:][ \t]*["']?([^\s"'#$<{][^\s"'#]{7,})"#,
            ),
        ];
        table
            .into_iter()
            .map(|(kind, pattern)| {
                // The patterns are constants; one that does not compile is a bug caught by the tests.
                let regex = Regex::new(pattern).unwrap_or_else(|e| panic!("{kind}: {e}"));
                (kind, regex)
            })
            .collect()
    })
}

/// Every credential-shaped string in `text`, in order, none overlapping (the
/// earliest, then the longest, wins).
pub fn scan(text: &str) -> Vec<SecretFinding> {
    let mut found = Vec::new();
    for (kind, regex) in patterns() {
        for captures in regex.captures_iter(text) {
            // An assignment's finding is its value; a key's is the whole match.
            let Some(m) = captures.get(1).or_else(|| captures.get(0)) else {
                continue;
            };
            found.push(SecretFinding {
                kind: *kind,
                range: m.range(),
            });
        }
    }
    found.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
            .then(a.kind.cmp(&b.kind))
    });
    let mut kept: Vec<SecretFinding> = Vec::with_capacity(found.len());
    for finding in found {
        if kept
            .last()
            .is_none_or(|last| finding.range.start >= last.range.end)
        {
            kept.push(finding);
        }
    }
    kept
}

/// The findings of [`scan`] over `prompt.text()`, each with the layer that wrote it.
pub fn scan_prompt(prompt: &AssembledPrompt) -> Vec<PromptFinding> {
    let text = prompt.text();
    let spans = layer_spans(prompt, text.len());
    scan(&text)
        .into_iter()
        .map(|finding| PromptFinding {
            layer: spans
                .iter()
                .find(|(_, span)| {
                    span.start <= finding.range.start && finding.range.end <= span.end
                })
                .map(|(name, _)| *name),
            finding,
        })
        .collect()
}

/// Each speaking layer's byte range in the prompt's text, from the trace:
/// outputs in order, joined by a separator of a fixed length.
fn layer_spans(prompt: &AssembledPrompt, total: usize) -> Vec<(&'static str, Range<usize>)> {
    let speaking: Vec<_> = prompt
        .trace()
        .layers
        .iter()
        .filter(|l| !l.silent && l.bytes > 0)
        .collect();
    let written: usize = speaking.iter().map(|l| l.bytes).sum();
    let joins = speaking.len().saturating_sub(1);
    let separator = match (total.checked_sub(written), joins) {
        (Some(0), 0) => 0,
        (Some(extra), joins) if joins > 0 && extra % joins == 0 => extra / joins,
        // The text is not the plain join of the outputs: name no layer.
        _ => return Vec::new(),
    };
    let mut at = 0;
    speaking
        .into_iter()
        .map(|layer| {
            let span = at..at + layer.bytes;
            at = span.end + separator;
            (layer.name, span)
        })
        .collect()
}

/// `text` with each finding replaced by `[REDACTED <kind>]`. `findings` must
/// come from [`scan`] of this same text (sorted, not overlapping).
pub fn redact(text: &str, findings: &[SecretFinding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for finding in findings {
        let range = finding.range.clone();
        if range.start < at || range.end > text.len() {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&format!("[REDACTED {}]", finding.kind));
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}
