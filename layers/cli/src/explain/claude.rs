//! A Claude Code session, explained from its own transcript.
//!
//! Claude Code (checked with 2.1.328, against a loopback server) keeps a
//! transcript per session, `$CLAUDE_CONFIG_DIR/projects/<folder>/<session>.jsonl`.
//! Beside the conversation it records, per request to the Messages API:
//!
//! - `api-request-shape` (once per shape, keyed by `shapeHash`): the
//!   `system` blocks as sent (the last one is the stable prefix `prompt
//!   exec` placed with `--system-prompt-file`, byte-exact) and the `tools`;
//! - `api-request`: its `id`, `timestamp`, `shapeHash`, `params.model` and
//!   `tail`, one digest per message of the conversation so far;
//! - `assistant`: the response, with `requestRef` naming the request and
//!   `message.usage` (and `message.diagnostics`) as the API returned them,
//!   and `promptCacheRequested` (`5m` or `1h`).
//!
//! So each request is fed to a [`CacheLedger`] as sent (the last system
//! block as the stable prefix; the other blocks, which are Claude Code's own,
//! fingerprinted with the tools, since both come before the prefix), and
//! each response's usage as received. The stable prefix's layers are the
//! ones a render of the turn file's options (`prompt exec` records them for
//! its per-turn hook) gives: where a request's prefix is that render, its
//! layers are the render's; where it differs, the layers before the first
//! differing byte are the render's and the rest is one layer named after the
//! render's layer at that byte (so the diff names the layer and its line).
//! Without a turn file, the prefix is one layer, `(system prompt)`.
//!
//! The work is linear in the transcript's size: a system prompt's text is
//! kept once however many shapes repeat it (looked up by its hash, then
//! compared whole), copied into the ledger and fingerprinted once
//! ([`GivenPrefix`]), and what changed between two of them is worked out
//! once per pair (the ledger remembers the last 256 pairs); each verdict
//! keeps at most 240 characters of each side of the differing line. The
//! ceiling in a debug build is 0.2 s of CPU and 20 MB of memory, plus 0.2 s
//! and 10 MB per MB of transcript (measured: 0.16 s and 34 MB for 2.8 MB of
//! two 1 MB prompts alternating over 2,000 requests); a session going round
//! more than 256 pairs of prompts compares each request's two again, a pass
//! over both. `tests/explain/transcript.py` writes such transcripts;
//! docs/cli.md and docs/BENCHMARKS.md have the figures.
//!
//! What the transcript does not say: the time the request's bytes left (its
//! `timestamp` is when Claude Code recorded it), and anything of a request
//! whose response never came.

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use prompt_checks::diff::StablePrefix;
use prompt_core::fingerprint::Fingerprint;
use prompt_core::spec::{AssemblyPath, PromptMode, Scope};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, CacheVerdict, GivenPrefix, Provider, Sent,
};
use serde_json::Value;

use super::MAX_LOG_BYTES;
use crate::cli::CliError;
use crate::cli::diff::read_capped_as;
use crate::cli::{escape, exec};

/// The name of the one layer of a prefix whose layers are not known.
const UNKNOWN_LAYER: &str = "(system prompt)";

/// The verdicts of a session, and what the reader noticed on the way.
pub(crate) struct Explained {
    pub(crate) verdicts: Vec<CacheVerdict>,
    pub(crate) notes: Vec<String>,
}

/// A request as the transcript records it.
struct Request {
    id: String,
    at: jiff::Timestamp,
    shape: String,
    model: String,
    tail: Vec<String>,
}

/// The verdicts of the session in `transcript`, with the layers of the
/// render of `turn` (the turn file `prompt exec` wrote), if given.
pub(crate) fn explain(transcript: &Path, turn: Option<&Path>) -> Result<Explained, CliError> {
    let shown = escape(&transcript.display().to_string());
    let text = read_capped_as(
        transcript,
        MAX_LOG_BYTES,
        "prompt explain",
        "pass a Claude Code transcript (`~/.claude/projects/*/*.jsonl`)",
    )
    .map_err(CliError::into_usage)?;
    let mut notes = Vec::new();
    let layout = match turn {
        Some(turn) => {
            let rendered = exec::turn::render_recorded(turn)?;
            Some(StablePrefix::of(&rendered.prompt).map_err(CliError::from_error)?)
        }
        None => {
            notes.push(
                "no --turn FILE: the stable prefix is one layer; give the turn file prompt exec \
                 wrote to name the layer that changed"
                    .to_owned(),
            );
            None
        }
    };

    // Shapes: their system blocks' last (the prefix, by its index in
    // `texts`) and a fingerprint of the rest (Claude Code's own blocks and
    // the tools). Each distinct prefix text is kept once.
    let mut texts = Texts::default();
    let mut shapes: HashMap<String, (usize, Fingerprint)> = HashMap::new();
    let mut requests: Vec<Request> = Vec::new();
    // Per request id, the last assistant entry's message and what it asked to cache for.
    let mut responses: HashMap<String, (Value, Option<String>)> = HashMap::new();
    let mut bad_lines = 0usize;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            bad_lines += 1;
            continue;
        };
        let at_line = |what: &str| CliError::failed(format!("{shown}: line {}: {what}", index + 1));
        match entry.get("type").and_then(Value::as_str) {
            Some("api-request-shape") => {
                let (Some(hash), Some(shape)) = (str_at(&entry, "shapeHash"), entry.get("shape"))
                else {
                    return Err(at_line("an api-request-shape without shapeHash or shape"));
                };
                let blocks: Vec<&str> = shape
                    .get("system")
                    .and_then(Value::as_array)
                    .map(|b| b.iter().filter_map(|b| str_at(b, "text")).collect())
                    .unwrap_or_default();
                let (prefix, own) = match blocks.split_last() {
                    Some((last, own)) => (texts.intern(last), own.join("\u{0}")),
                    None => (texts.intern(""), String::new()),
                };
                let tools = shape.get("tools").map(Value::to_string).unwrap_or_default();
                let before = Fingerprint::of(&format!("{own}\u{0}{tools}"));
                shapes.insert(hash.to_owned(), (prefix, before));
            }
            Some("api-request") => {
                let (Some(id), Some(at), Some(shape)) = (
                    str_at(&entry, "id"),
                    str_at(&entry, "timestamp"),
                    str_at(&entry, "shapeHash"),
                ) else {
                    return Err(at_line("an api-request without id, timestamp or shapeHash"));
                };
                let at = at
                    .parse::<jiff::Timestamp>()
                    .map_err(|e| at_line("its timestamp does not parse").with_source(e))?;
                let model = entry
                    .pointer("/params/model")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_owned();
                let tail = entry
                    .get("tail")
                    .and_then(Value::as_array)
                    .map(|t| {
                        t.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                requests.push(Request {
                    id: id.to_owned(),
                    at,
                    shape: shape.to_owned(),
                    model,
                    tail,
                });
            }
            Some("assistant") => {
                if let (Some(reference), Some(message)) =
                    (str_at(&entry, "requestRef"), entry.get("message"))
                {
                    let ttl = str_at(&entry, "promptCacheRequested").map(str::to_owned);
                    responses.insert(reference.to_owned(), (message.clone(), ttl));
                }
            }
            _ => {}
        }
    }
    if bad_lines > 0 {
        notes.push(format!(
            "{bad_lines} line(s) of the transcript are not JSON: skipped"
        ));
    }
    if requests.is_empty() {
        return Err(CliError::usage(format!(
            "{shown} records no api-request entry: it is not a Claude Code transcript of \
                 2.1.328's form (older versions record only each message's usage, which cannot \
                 say what was sent)"
        )));
    }

    let mut ledger = CacheLedger::new();
    let mut verdicts = Vec::new();
    let mut unanswered = 0usize;
    // Per distinct prefix text, its layers, made at its first request.
    let mut prefixes: Vec<Option<GivenPrefix>> = vec![None; texts.all.len()];
    for request in &requests {
        let Some((message, cache_ttl)) = responses.get(&request.id) else {
            unanswered += 1;
            continue;
        };
        let Some(&(text, before)) = shapes.get(&request.shape) else {
            return Err(CliError::failed(format!(
                "{shown}: request {} names a shape the transcript does not record",
                escape(&request.id)
            )));
        };
        let prefix = prefixes[text]
            .get_or_insert_with(|| GivenPrefix::new(&prefix_of(&texts.all[text], layout.as_ref())));
        let ttl = match cache_ttl.as_deref() {
            Some("1h") => std::time::Duration::from_secs(3600),
            _ => std::time::Duration::from_secs(300),
        };
        let sent = Sent::new(Provider::Anthropic, &request.model, request.at)
            .tools_fingerprint(before)
            .messages(&request.tail)
            .ttl(ttl);
        let id = ledger.sent_given(prefix, sent);
        let usage = CacheUsage::from_response(Provider::Anthropic, message).map_err(|e| {
            CliError::failed(format!(
                "{shown}: the response to request {}: {e}",
                escape(&request.id)
            ))
        })?;
        verdicts.push(ledger.received(id, &usage).map_err(CliError::from_error)?);
    }
    if unanswered > 0 {
        notes.push(format!(
            "{unanswered} request(s) have no response in the transcript: left out"
        ));
    }
    Ok(Explained { verdicts, notes })
}

/// `text` (a request's stable prefix) as layers: the render's where it is
/// the render's text; else the render's layers before the first differing
/// byte, then the rest as one layer named after the render's layer there.
fn prefix_of(text: &str, layout: Option<&StablePrefix>) -> StablePrefix {
    let one = |name: &str, scope: Option<Scope>| StablePrefix {
        pipeline: String::new(),
        path: AssemblyPath::Cached,
        mode: PromptMode::Full,
        layers: vec![(name.to_owned(), text.to_owned())],
        scopes: vec![scope],
        separator: String::new(),
    };
    let Some(layout) = layout else {
        return one(UNKNOWN_LAYER, None);
    };
    if layout.text() == text {
        return layout.clone();
    }
    let rendered = layout.text();
    let same = rendered
        .bytes()
        .zip(text.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let mut layers = Vec::new();
    let mut scopes = Vec::new();
    let mut at = 0;
    for (i, (name, layer)) in layout.layers.iter().enumerate() {
        let start = if i == 0 {
            0
        } else {
            at + layout.separator.len()
        };
        let end = start + layer.len();
        if end > same {
            // The layer the prefixes part in: the rest of `text` is its.
            layers.push((name.clone(), text.get(start..).unwrap_or("").to_owned()));
            scopes.push(layout.scopes.get(i).copied().flatten());
            return StablePrefix {
                layers,
                scopes,
                ..layout.clone()
            };
        }
        layers.push((name.clone(), layer.clone()));
        scopes.push(layout.scopes.get(i).copied().flatten());
        at = end;
    }
    // Every rendered layer is in `text`: the rest is text after them.
    let rest = text.get(at..).unwrap_or("");
    let rest = rest.strip_prefix(layout.separator.as_str()).unwrap_or(rest);
    layers.push((UNKNOWN_LAYER.to_owned(), rest.to_owned()));
    scopes.push(None);
    StablePrefix {
        layers,
        scopes,
        ..layout.clone()
    }
}

/// Distinct texts, each kept once, by index.
#[derive(Default)]
struct Texts {
    all: Vec<Rc<str>>,
    index: HashMap<Rc<str>, usize>,
}

impl Texts {
    /// The index of `text`, kept if new (found by its hash, then compared whole).
    fn intern(&mut self, text: &str) -> usize {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let text: Rc<str> = Rc::from(text);
        self.all.push(Rc::clone(&text));
        self.index.insert(text, self.all.len() - 1);
        self.all.len() - 1
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> StablePrefix {
        StablePrefix {
            pipeline: String::new(),
            path: AssemblyPath::Cached,
            mode: PromptMode::Full,
            layers: vec![
                ("persona".into(), "You are terse.".into()),
                (
                    "project_context".into(),
                    "Run make check.\nUse tabs.".into(),
                ),
                ("notes".into(), "Login bug.".into()),
            ],
            scopes: vec![
                Some(Scope::Global),
                Some(Scope::Project),
                Some(Scope::Session),
            ],
            separator: "\n\n".into(),
        }
    }

    #[test]
    fn a_prefix_that_differs_keeps_the_renders_layers_up_to_the_change() {
        let layout = layout();
        assert_eq!(prefix_of(&layout.text(), Some(&layout)), layout);
        let edited = "You are terse.\n\nRun make test.\nUse tabs.\n\nLogin bug.";
        let prefix = prefix_of(edited, Some(&layout));
        assert_eq!(prefix.text(), edited);
        let names: Vec<&str> = prefix.layers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["persona", "project_context"]);
        assert_eq!(prefix.scopes, [Some(Scope::Global), Some(Scope::Project)]);
        let diff = prompt_checks::diff::explain(&layout, &prefix);
        let change = diff.first_change.unwrap();
        assert_eq!(change.layer, "project_context");
        assert_eq!(
            change.line.unwrap().after.as_deref(),
            Some("Run make test.")
        );

        let longer = format!("{}\n\nMore.", layout.text());
        let names: Vec<String> = prefix_of(&longer, Some(&layout))
            .layers
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            ["persona", "project_context", "notes", UNKNOWN_LAYER]
        );
        assert_eq!(
            prefix_of("x", None).layers,
            [(UNKNOWN_LAYER.to_owned(), "x".to_owned())]
        );
    }
}
