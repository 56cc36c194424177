//! A prompt's stable prefix, layer by layer: from an assembly or its JSON.

use serde::Deserialize;

use super::escape;
use crate::assembly::AssembledPrompt;
use crate::spec::{AssemblyPath, PromptMode, Scope, Stability};
use crate::testing::{segments, split};

/// The Stable layers of one prompt and the text they wrote: what a prompt
/// cache keys on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StablePrefix {
    /// The pipeline assembled.
    pub pipeline: String,
    /// The path assembled (a Basic prompt caches nothing, but its Stable layers still compare).
    pub path: AssemblyPath,
    /// The mode assembled.
    pub mode: PromptMode,
    /// The Stable layers that spoke, in order, with their text.
    pub layers: Vec<(String, String)>,
    /// Each of `layers`' [`Scope`], in the same order (`None` when the JSON
    /// was written before scopes, or for a Basic prompt's layers).
    pub scopes: Vec<Option<Scope>>,
    /// The separator between layers.
    pub separator: String,
}

/// A prompt the explainer cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    /// Not the JSON of `prompt render --format json`.
    #[error("{source_name}: not the JSON `prompt render --format json` writes: {message}")]
    Json {
        /// Which input (a file name, or `"A"`/`"B"`).
        source_name: String,
        /// What serde said.
        message: String,
    },
    /// The trace does not account for the text.
    #[error("{source_name}: {message}")]
    Inconsistent {
        /// Which input.
        source_name: String,
        /// What does not add up.
        message: String,
    },
}

impl StablePrefix {
    /// The stable prefix of an assembled prompt.
    pub fn of(prompt: &AssembledPrompt) -> Result<Self, PrefixError> {
        let segments = segments(prompt).map_err(|e| PrefixError::Inconsistent {
            source_name: "prompt".to_owned(),
            message: e.to_string(),
        })?;
        let trace = prompt.trace();
        let separator = separator_of(
            prompt.stable(),
            segments
                .iter()
                .filter(|s| s.layer.stability == Stability::Stable)
                .map(|s| s.text),
        );
        Ok(Self {
            pipeline: trace.pipeline.to_owned(),
            path: trace.path,
            mode: trace.mode,
            layers: segments
                .iter()
                .filter(|s| s.layer.stability == Stability::Stable && !s.text.is_empty())
                .map(|s| (s.layer.name.to_owned(), s.text.to_owned()))
                .collect(),
            scopes: segments
                .iter()
                .filter(|s| s.layer.stability == Stability::Stable && !s.text.is_empty())
                .map(|s| s.layer.scope)
                .collect(),
            separator,
        })
    }

    /// The stable prefix recorded in the JSON that `prompt render --format
    /// json` writes (the serde form of an [`AssembledPrompt`]). `source_name`
    /// names the input in errors, e.g. the file's path.
    pub fn from_json(json: &str, source_name: &str) -> Result<Self, PrefixError> {
        let record: Record = serde_json::from_str(json).map_err(|e| PrefixError::Json {
            source_name: source_name.to_owned(),
            message: bounded(&e.to_string()),
        })?;
        let inconsistent = |message: String| PrefixError::Inconsistent {
            source_name: source_name.to_owned(),
            message,
        };
        let trace = record.trace;
        // Each layer with its index in `trace.layers`, for errors.
        let (text, layers): (&str, Vec<(usize, &LayerRecord)>) = match trace.path {
            AssemblyPath::Cached => (
                record
                    .parts
                    .iter()
                    .find(|p| p.cache)
                    .map_or("", |p| p.content.as_str()),
                trace
                    .layers
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.stability == Stability::Stable)
                    .collect(),
            ),
            AssemblyPath::Basic => (
                record.parts.first().map_or("", |p| p.content.as_str()),
                trace.layers.iter().enumerate().collect(),
            ),
        };
        let sizes = checked_sizes(&layers, text.len()).map_err(inconsistent)?;
        let texts = split(text, &sizes).map_err(|problem| {
            inconsistent(format!(
                "the trace does not account for the prompt text: {}; render it again",
                bounded(&problem)
            ))
        })?;
        let spoken: Vec<(&LayerRecord, &str)> = layers
            .iter()
            .zip(texts)
            .filter(|((_, l), text)| l.stability == Stability::Stable && !text.is_empty())
            .map(|((_, l), text)| (*l, text))
            .collect();
        let stable: Vec<(String, String)> = spoken
            .iter()
            .map(|(l, text)| (l.name.clone(), (*text).to_owned()))
            .collect();
        let scopes = spoken.iter().map(|(l, _)| l.scope).collect();
        Ok(Self {
            pipeline: trace.pipeline,
            path: trace.path,
            mode: trace.mode,
            layers: stable,
            scopes,
            separator: record.separator,
        })
    }

    /// The prefix text: the layers joined with the separator.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.layers.iter().map(|(_, t)| t.as_str()).collect();
        texts.join(&self.separator)
    }
}

/// The most characters of a parser's message an error repeats: serde quotes
/// the unknown value it met, and a file can make that value megabytes long.
const MAX_MESSAGE: usize = 240;

/// `message`, escaped, and cut after [`MAX_MESSAGE`] characters with a note
/// saying how many more there were.
fn bounded(message: &str) -> String {
    let length = message.chars().count();
    let head: String = message.chars().take(MAX_MESSAGE).collect();
    let head = escape(&head);
    if length > MAX_MESSAGE {
        format!("{head}... ({} more characters)", length - MAX_MESSAGE)
    } else {
        head
    }
}

/// Each layer's `bytes`, checked against the text they must account for:
/// a count that exceeds it, alone or summed with those before, is an error
/// naming the field (never an overflow).
fn checked_sizes(layers: &[(usize, &LayerRecord)], text_len: usize) -> Result<Vec<usize>, String> {
    let mut total: usize = 0;
    let mut sizes = Vec::with_capacity(layers.len());
    for &(i, layer) in layers {
        match total.checked_add(layer.bytes) {
            Some(sum) if sum <= text_len => total = sum,
            _ => {
                return Err(format!(
                    "`trace.layers[{i}].bytes` (layer `{}`) is {}, which with the layers before it \
                     exceeds the {text_len} bytes of prompt text it must account for: \
                     render it again with `prompt render --format json`",
                    escape(&layer.name),
                    layer.bytes
                ));
            }
        }
        sizes.push(layer.bytes);
    }
    Ok(sizes)
}

/// The separator `joined` puts between its non-empty `texts` (empty when there are fewer than two).
fn separator_of<'a>(joined: &str, texts: impl Iterator<Item = &'a str>) -> String {
    let texts: Vec<&str> = texts.filter(|t| !t.is_empty()).collect();
    let written: usize = texts.iter().map(|t| t.len()).sum();
    match (texts.first(), texts.len().checked_sub(1)) {
        (Some(first), Some(gaps)) if gaps > 0 => {
            let len = joined.len().saturating_sub(written) / gaps;
            joined
                .get(first.len()..first.len() + len)
                .unwrap_or_default()
                .to_owned()
        }
        _ => String::new(),
    }
}

#[derive(Deserialize)]
struct Record {
    parts: Vec<PartRecord>,
    #[serde(default = "default_separator")]
    separator: String,
    trace: TraceRecord,
}

fn default_separator() -> String {
    crate::spec::DEFAULT_SEPARATOR.to_owned()
}

#[derive(Deserialize)]
struct PartRecord {
    content: String,
    cache: bool,
}

#[derive(Deserialize)]
struct TraceRecord {
    pipeline: String,
    path: AssemblyPath,
    mode: PromptMode,
    layers: Vec<LayerRecord>,
}

#[derive(Deserialize)]
struct LayerRecord {
    name: String,
    stability: Stability,
    #[serde(default)]
    scope: Option<Scope>,
    bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(path: &str, bytes: &str) -> String {
        format!(
            r#"{{"parts": [{{"content": "abc", "cache": true}}], "separator": "\n\n",
               "trace": {{"pipeline": "p", "path": {path}, "mode": "full",
               "layers": [{{"name": "a", "stability": "stable", "bytes": 3}},
                          {{"name": "b\u001b]52;", "stability": "stable", "bytes": {bytes}}}]}}}}"#
        )
    }

    #[test]
    fn byte_counts_past_the_text_are_an_error_naming_the_field() {
        assert!(StablePrefix::from_json(&json("\"cached\"", "0"), "A").is_ok());
        let error = StablePrefix::from_json(&json("\"cached\"", &u64::MAX.to_string()), "A")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            format!(
                "A: `trace.layers[1].bytes` (layer `b\\u{{1b}}]52;`) is {}, which with the layers \
                 before it exceeds the 3 bytes of prompt text it must account for: render it again \
                 with `prompt render --format json`",
                u64::MAX
            )
        );
    }

    #[test]
    fn a_separator_quoted_in_an_error_is_cut() {
        // Two layers of 1 byte around a 100,000-byte "separator" that differs
        // from the one before it: the error quotes it, cut.
        let gap = "s".repeat(100_000);
        let text = format!("a{gap}b{}c", "t".repeat(100_000));
        let json = format!(
            r#"{{"parts": [{{"content": "{text}", "cache": true}}],
               "trace": {{"pipeline": "p", "path": "cached", "mode": "full",
               "layers": [{{"name": "a", "stability": "stable", "bytes": 1}},
                          {{"name": "b", "stability": "stable", "bytes": 1}},
                          {{"name": "c", "stability": "stable", "bytes": 1}}]}}}}"#
        );
        let error = StablePrefix::from_json(&json, "A").unwrap_err().to_string();
        assert!(error.len() < 500, "{} bytes", error.len());
        assert!(error.contains("more characters)"), "{error}");
    }

    #[test]
    fn a_parser_message_quoting_a_huge_value_is_cut_and_escaped() {
        let huge = format!("\"\\u001b{}\"", "x".repeat(100_000));
        let error = StablePrefix::from_json(&json(&huge, "0"), "A")
            .unwrap_err()
            .to_string();
        assert!(error.len() < 400, "{} bytes", error.len());
        assert!(error.contains("unknown variant `\\u{1b}xxx"), "{error}");
        assert!(error.contains("more characters)"), "{error}");
    }
}
