//! Why did the prompt cache miss? Compare two prompts' stable prefixes, layer
//! by layer.
//!
//! A provider caches the system prompt up to its cache breakpoint: one
//! changed byte in the stable prefix and the whole prefix is written to the
//! cache again, at a premium. [`explain`] says whether two prompts share their
//! stable prefix and, if not, which Stable layer changed first, its first
//! differing line, and how many prefix bytes before it are unchanged.
//!
//! ```standalone_crate
//! use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, SessionValue, Stable};
//! use prompt_core::pipeline::LayerEntry;
//! use prompt_checks::diff::{explain, StablePrefix};
//!
//! /// The pipeline of this example.
//! #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! struct Doc;
//! #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = Doc)]
//! struct Persona;
//!
//! /// The user's notes, loaded per session.
//! struct Notes(&'static str);
//! impl SessionValue for Notes {}
//!
//! #[prompt_layer(priority = 2, stability = Stable, paths = [Cached], pipeline = Doc)]
//! struct UserNotes;
//! impl Render<Stable> for UserNotes {
//!     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
//!         out.push_str(input.get::<Notes>().map_or("", |n| n.0));
//!     }
//! }
//!
//! let pipeline = Pipeline::of::<Doc>().unwrap();
//! let build = |notes| PromptBuilder::new(&pipeline).build_cached(&Context::new().with(Notes(notes)), &Context::new()).unwrap();
//! let (monday, tuesday) = (build("Use vim.\nPrefer tabs."), build("Use vim.\nPrefer spaces."));
//!
//! let diff = explain(&StablePrefix::of(&monday)?, &StablePrefix::of(&tuesday)?);
//! assert!(!diff.identical);
//! let change = diff.first_change.as_ref().unwrap();
//! assert_eq!(change.layer, "user_notes");
//! assert_eq!(change.line.as_ref().unwrap().number, 2);
//! assert_eq!(diff.cacheable_bytes, "You are terse.".len());
//! assert!(diff.to_string().contains("first changed Stable layer: `user_notes`"));
//! # Ok::<(), prompt_checks::diff::PrefixError>(())
//! ```
//!
//! `prompt diff A.json B.json` does the same for two outputs of
//! `prompt render --format json`.

mod prefix;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use prefix::{PrefixError, StablePrefix};

use crate::spec::Scope;

/// How two stable prefixes compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CacheDiff {
    /// Whether the prefixes are byte-identical: the second call reads the cache.
    pub identical: bool,
    /// Bytes of the first prefix.
    pub a_bytes: usize,
    /// Bytes of the second prefix.
    pub b_bytes: usize,
    /// Bytes of the unchanged Stable layers before the first change: what a
    /// cache breakpoint placed before the changed layer would keep. Equal to
    /// both sizes when the prefixes are identical.
    pub cacheable_bytes: usize,
    /// Of those, the bytes a provider cache can still read: up to the last
    /// breakpoint before the change, which sits at the end of the
    /// [`same_through`](Self::same_through) scope's layers (breakpoints fall
    /// at scope boundaries). 0 when no breakpoint sits before the change;
    /// both sizes when the prefixes are identical.
    pub readable_bytes: usize,
    /// The first Stable layer that differs (`None` when identical, or when
    /// only the separator differs).
    pub first_change: Option<LayerChange>,
    /// When the prefixes differ: the narrowest [`Scope`] whose layers, with
    /// every wider one's, are the same in both, so a cache shared at that
    /// scope (a team's, for `Project`) still serves that part. `None` when
    /// they are identical, differ already in a Global layer, or carry no scopes.
    pub same_through: Option<Scope>,
}

/// The first Stable layer whose bytes differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LayerChange {
    /// The layer's name.
    pub layer: String,
    /// How it differs.
    pub kind: ChangeKind,
    /// Its first differing line (`None` when it was added or removed whole).
    pub line: Option<LineChange>,
}

/// How a layer differs between two prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// It spoke in both, with different bytes.
    Changed,
    /// It speaks only in the second (it was silent, or is new).
    Added,
    /// It speaks only in the first (it went silent, or was removed).
    Removed,
}

/// The first line that differs between two texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineChange {
    /// 1-based line number within the layer's text.
    pub number: usize,
    /// The line in the first text (`None`: the first text ended).
    pub before: Option<String>,
    /// The line in the second text (`None`: the second text ended).
    pub after: Option<String>,
}

/// Compares two stable prefixes. See the [module docs](self).
pub fn explain(a: &StablePrefix, b: &StablePrefix) -> CacheDiff {
    let (a_text, b_text) = (a.text(), b.text());
    let identical = a_text == b_text;
    let position = a
        .layers
        .iter()
        .zip(&b.layers)
        .position(|(x, y)| x != y)
        .or_else(|| (a.layers.len() != b.layers.len()).then(|| a.layers.len().min(b.layers.len())));
    let first_change = position.filter(|_| !identical).map(|i| change(a, b, i));
    let cacheable_bytes = match (identical, position) {
        (true, _) => a_text.len(),
        // Lengths of texts held in memory: the sum cannot overflow, but saturate anyway.
        (false, Some(i)) => a.layers[..i]
            .iter()
            .fold(0usize, |sum, (_, t)| sum.saturating_add(t.len()))
            .saturating_add(i.saturating_sub(1).saturating_mul(a.separator.len())),
        (false, None) => 0,
    };
    let same_through = if identical { None } else { same_through(a, b) };
    let readable_bytes = match (identical, same_through) {
        (true, _) => a_text.len(),
        (false, Some(scope)) => {
            // The leading layers of that scope or a wider one: a scope group
            // ends with a breakpoint.
            let n = a
                .scopes
                .iter()
                .take_while(|s| s.is_some_and(|s| !scope.is_wider_than(s)))
                .count();
            a.layers[..n]
                .iter()
                .fold(0usize, |sum, (_, t)| sum.saturating_add(t.len()))
                .saturating_add(n.saturating_sub(1).saturating_mul(a.separator.len()))
        }
        (false, None) => 0,
    };
    CacheDiff {
        identical,
        a_bytes: a_text.len(),
        b_bytes: b_text.len(),
        cacheable_bytes,
        readable_bytes,
        first_change,
        same_through,
    }
}

/// The narrowest scope (short of `Session`) whose layers and every wider
/// one's are the same in both prefixes, in the same order.
fn same_through(a: &StablePrefix, b: &StablePrefix) -> Option<Scope> {
    let through = |p: &StablePrefix, scope: Scope| -> Option<Vec<(String, String)>> {
        let mut kept = Vec::new();
        for (layer, layer_scope) in p.layers.iter().zip(&p.scopes) {
            let layer_scope = (*layer_scope)?;
            if !scope.is_wider_than(layer_scope) {
                kept.push(layer.clone());
            }
        }
        Some(kept)
    };
    if a.scopes.len() != a.layers.len() || b.scopes.len() != b.layers.len() {
        return None;
    }
    let mut best = None;
    for &scope in &[Scope::Global, Scope::Project, Scope::User] {
        let (x, y) = (through(a, scope)?, through(b, scope)?);
        if x != y || x.is_empty() {
            break;
        }
        best = Some(scope);
    }
    best
}

fn change(a: &StablePrefix, b: &StablePrefix, i: usize) -> LayerChange {
    let (x, y) = (a.layers.get(i), b.layers.get(i));
    let in_b = |name: &str| b.layers.iter().any(|(n, _)| n == name);
    let in_a = |name: &str| a.layers.iter().any(|(n, _)| n == name);
    match (x, y) {
        (Some((name, before)), Some((other, after))) if name == other => LayerChange {
            layer: name.clone(),
            kind: ChangeKind::Changed,
            line: first_line_difference(before, after),
        },
        (Some((name, _)), _) if !in_b(name) => LayerChange {
            layer: name.clone(),
            kind: ChangeKind::Removed,
            line: None,
        },
        (_, Some((name, _))) if !in_a(name) => LayerChange {
            layer: name.clone(),
            kind: ChangeKind::Added,
            line: None,
        },
        // Both layers exist on both sides, in another order: call it a change of the first.
        (Some((name, before)), _) => LayerChange {
            layer: name.clone(),
            kind: ChangeKind::Changed,
            line: b
                .layers
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, after)| first_line_difference(before, after)),
        },
        (None, Some((name, _))) => LayerChange {
            layer: name.clone(),
            kind: ChangeKind::Added,
            line: None,
        },
        (None, None) => LayerChange {
            layer: String::new(),
            kind: ChangeKind::Changed,
            line: None,
        },
    }
}

/// The first line (1-based) where `a` and `b` differ, or `None` if they are equal.
pub(crate) fn first_line_difference(a: &str, b: &str) -> Option<LineChange> {
    if a == b {
        return None;
    }
    let (mut x, mut y) = (a.split('\n'), b.split('\n'));
    let mut number = 0;
    loop {
        number += 1;
        let (l, r) = (x.next(), y.next());
        if l != r {
            return Some(LineChange {
                number,
                before: l.map(str::to_owned),
                after: r.map(str::to_owned),
            });
        }
        // Both ended together: equal after all (unreachable, as `a != b`).
        l?;
    }
}

impl fmt::Display for CacheDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.identical {
            return writeln!(
                f,
                "stable prefixes are identical ({} B): the second prompt reads the cache",
                self.a_bytes
            );
        }
        writeln!(
            f,
            "stable prefixes differ ({} B -> {} B): the second prompt misses the cache",
            self.a_bytes, self.b_bytes
        )?;
        match &self.first_change {
            Some(change) => {
                let how = match change.kind {
                    ChangeKind::Changed => "its bytes changed",
                    ChangeKind::Added => "it speaks only in B",
                    ChangeKind::Removed => "it speaks only in A",
                };
                let layer = escape(&change.layer);
                writeln!(f, "first changed Stable layer: `{layer}` ({how})")?;
                if let Some(line) = &change.line {
                    writeln!(
                        f,
                        "first differing line, line {} of the layer:",
                        line.number
                    )?;
                    writeln!(f, "  A: {}", show(line.before.as_deref()))?;
                    writeln!(f, "  B: {}", show(line.after.as_deref()))?;
                }
                writeln!(
                    f,
                    "unchanged: {} of {} B (the layers before `{layer}`)",
                    self.cacheable_bytes, self.b_bytes
                )?;
                match self.same_through {
                    Some(scope) => {
                        let which = if scope == Scope::Global {
                            "every Global layer is".to_owned()
                        } else {
                            format!(
                                "every {} layer, and every layer of a wider scope, is",
                                scope.ident()
                            )
                        };
                        writeln!(
                            f,
                            "they differ only below scope {}: {which} the same in both, so a cache shared at that \
                             scope reads those {} B (up to the breakpoint at the end of the {} layers)",
                            scope.ident(),
                            self.readable_bytes,
                            scope.ident()
                        )
                    }
                    None => writeln!(
                        f,
                        "no cache breakpoint sits before `{layer}`, so a cache reads none of them"
                    ),
                }
            }
            None => writeln!(
                f,
                "every Stable layer wrote the same bytes: the separator differs\nunchanged: 0 of {} B",
                self.b_bytes
            ),
        }
    }
}

/// The most characters of a differing line the report shows.
const MAX_LINE: usize = 240;

fn show(line: Option<&str>) -> String {
    match line {
        // Debug quotes and escapes controls; `escape` catches any invisible it
        // shows. A line past `MAX_LINE` characters is shown cut, saying so.
        Some(line) => {
            let length = line.chars().count();
            let head: String = line.chars().take(MAX_LINE).collect();
            let shown = escape(&format!("{head:?}"));
            if length > MAX_LINE {
                format!("{shown}... ({} more characters)", length - MAX_LINE)
            } else {
                shown
            }
        }
        None => "(end of text)".to_owned(),
    }
}

/// `text` with every character of [`must_escape`](crate::text::must_escape)
/// (controls, C1 included; bidi overrides and isolates, zero-width spaces,
/// tags, BOM; the line separators) written as an escape (`\u{1b}`,
/// `\u{202e}`): what the report prints comes from files and must not drive a
/// terminal or hide text.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if crate::text::must_escape(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{
        CacheDiff, ChangeKind, LayerChange, LineChange, StablePrefix, explain,
        first_line_difference,
    };
    use crate::spec::{AssemblyPath, PromptMode, Scope};

    fn prefix(layers: &[(&str, &str, Option<Scope>)]) -> StablePrefix {
        StablePrefix {
            pipeline: "default".into(),
            path: AssemblyPath::Cached,
            mode: PromptMode::Full,
            layers: layers
                .iter()
                .map(|(n, t, _)| ((*n).to_owned(), (*t).to_owned()))
                .collect(),
            scopes: layers.iter().map(|(_, _, s)| *s).collect(),
            separator: "\n\n".into(),
        }
    }

    /// Each of the diff's messages after the first changed layer, one per
    /// case: a change below Project, below Global (nothing is wider than
    /// Global), in the first scope group (no breakpoint before it), and
    /// only in the separator.
    #[test]
    fn each_message_says_what_a_cache_can_still_read() {
        let (g, p, u) = (Some(Scope::Global), Some(Scope::Project), Some(Scope::User));
        let a = prefix(&[
            ("persona", "Terse.", g),
            ("docs", "Run make.", p),
            ("me", "Tabs.", u),
        ]);

        let below_project = explain(
            &a,
            &prefix(&[
                ("persona", "Terse.", g),
                ("docs", "Run make.", p),
                ("me", "Spaces.", u),
            ]),
        );
        let text = below_project.to_string();
        assert!(
            text.contains("unchanged: 17 of 26 B (the layers before `me`)"),
            "{text}"
        );
        assert!(
            text.contains(
                "they differ only below scope Project: every Project layer, and every layer of a wider scope, \
                 is the same in both, so a cache shared at that scope reads those 17 B \
                 (up to the breakpoint at the end of the Project layers)"
            ),
            "{text}"
        );
        assert!(!text.contains("cacheable"), "{text}");

        let below_global = explain(
            &a,
            &prefix(&[
                ("persona", "Terse.", g),
                ("docs", "Run cargo.", p),
                ("me", "Tabs.", u),
            ]),
        );
        let text = below_global.to_string();
        assert!(
            text.contains("they differ only below scope Global: every Global layer is the same in both, so a cache shared at that scope reads those 6 B"),
            "{text}"
        );
        assert!(!text.contains("wider one"), "{text}");

        let first_group = explain(
            &a,
            &prefix(&[
                ("persona", "Chatty.", g),
                ("docs", "Run make.", p),
                ("me", "Tabs.", u),
            ]),
        );
        let text = first_group.to_string();
        assert!(
            text.contains("unchanged: 0 of 25 B (the layers before `persona`)"),
            "{text}"
        );
        assert!(
            text.contains(
                "no cache breakpoint sits before `persona`, so a cache reads none of them"
            ),
            "{text}"
        );
        assert_eq!(first_group.readable_bytes, 0);

        let mut other_separator = a.clone();
        other_separator.separator = "\n".into();
        let text = explain(&a, &other_separator).to_string();
        assert!(
            text.contains(
                "every Stable layer wrote the same bytes: the separator differs\nunchanged: 0 of"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_report_escapes_names_and_lines_and_cuts_long_lines() {
        let diff = CacheDiff {
            identical: false,
            a_bytes: 1,
            b_bytes: 2,
            cacheable_bytes: 0,
            readable_bytes: 0,
            first_change: Some(LayerChange {
                layer: "x\u{1b}]52;\u{202e}".to_owned(),
                kind: ChangeKind::Changed,
                line: Some(LineChange {
                    number: 1,
                    before: Some("a\u{7}\u{200b}".to_owned()),
                    after: Some("b".repeat(1000)),
                }),
            }),
            same_through: None,
        };
        let text = diff.to_string();
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{200b}']),
            "{text}"
        );
        assert!(text.contains(r"`x\u{1b}]52;\u{202e}`"), "{text}");
        assert!(text.contains(r#"  A: "a\u{7}\u{200b}""#), "{text}");
        assert!(
            text.contains(&format!(
                "  B: \"{}\"... (760 more characters)",
                "b".repeat(240)
            )),
            "{text}"
        );
    }

    #[test]
    fn first_line_difference_is_one_based_and_sees_a_shorter_text() {
        assert_eq!(first_line_difference("a\nb", "a\nb"), None);
        let change = first_line_difference("a\nb\nc", "a\nB\nc").unwrap();
        assert_eq!(
            (
                change.number,
                change.before.as_deref(),
                change.after.as_deref()
            ),
            (2, Some("b"), Some("B"))
        );
        let change = first_line_difference("a", "a\nb").unwrap();
        assert_eq!(
            (change.number, change.before, change.after.as_deref()),
            (2, None, Some("b"))
        );
    }
}
