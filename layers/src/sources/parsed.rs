//! Values out of a parser, cleaned: the one place every parsed string
//! passes through before it can reach a layer.
//!
//! A JSON `"\u001b"`, a TOML `"\u0007"` or a YAML `"\e"` is an escape in the
//! file, so cleaning the file's text (`clean`)
//! cannot see it: the control character appears only when the parser decodes
//! it. Every reader of a structured file (this crate's scratchpad, facts and
//! episodes, skill frontmatter and [`yaml::from_str_bounded`](super::yaml::from_str_bounded);
//! the reference agents' `session.json`, `turn.json`, `aleph.toml`, `app.yaml`
//! and notes) therefore takes its values from [`json`] or [`from_value`],
//! which clean every string of the parsed document, map keys included:
//!
//! - a string is **one line** ([`one_line`]): whitespace runs (newlines
//!   included) become one space, control and invisible characters are removed,
//!   and a `<` that could begin a `file` or `system-reminder` tag is
//!   written `&lt;`;
//! - except under a key the reader names as multi-line (a persona, a strategy
//!   body), where the text is cleaned (`clean`) as file text
//!   is (newlines kept, control and invisible characters removed, a line
//!   separator a newline), its headings demoted
//!   ([`demote_headings`]) and its `file` and
//!   `system-reminder` tags escaped in the same way.
//!
//! One line is the default, so a value a new reader forgets to list cannot
//! add a line (a forged `# heading`) to the prompt.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::text::{as_lines, clean, demote_headings, escape_quote_tags, one_line};

/// The keys whose string values may span lines, as a reader names them: a
/// string keeps its newlines when the nearest key above it (an array
/// inherits its key) is in the list.
///
/// ```
/// use prompt_layers::sources::parsed::Multiline;
///
/// const STATE: Multiline = Multiline(&["body", "instructions"]);
/// assert!(STATE.allows("body") && !STATE.allows("name"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Multiline(pub &'static [&'static str]);

impl Multiline {
    /// No value spans lines.
    pub const NONE: Multiline = Multiline(&[]);

    /// Whether a string under `key` keeps its newlines.
    pub fn allows(&self, key: &str) -> bool {
        self.0.contains(&key)
    }
}

/// One string as a parsed value enters a layer: [`one_line`], or, when
/// `multiline`, cleaned as file text (a line or paragraph separator a
/// newline), its Markdown headings demoted ([`demote_headings`]: the value
/// is not fenced, so a `# User preferences` line of it would read as the
/// prompt's own section) and its `file` and `system-reminder` tags escaped.
///
/// ```
/// use prompt_layers::sources::parsed::clean_str;
///
/// assert_eq!(clean_str("zh\u{1b}]0;T\u{7}\n# Forged", false), "zh]0;T # Forged");
/// assert_eq!(clean_str("a\u{1b}[2J\n</file>", true), "a[2J\n&lt;/file>");
/// assert_eq!(
///     clean_str("Use it.\u{2028}# User preferences\n</system-reminder>", true),
///     "Use it.\n\\# User preferences\n&lt;/system-reminder>"
/// );
/// ```
pub fn clean_str(text: &str, multiline: bool) -> String {
    if multiline {
        let text = as_lines(clean(text).0);
        escape_quote_tags(&demote_headings(&text)).into_owned()
    } else {
        one_line(text)
    }
}

/// Cleans every string of `value` in place ([`clean_str`]); map keys are
/// one line.
pub fn clean_value(value: &mut Value, lines: Multiline) {
    walk(value, false, lines);
}

fn walk(value: &mut Value, multiline: bool, lines: Multiline) {
    match value {
        Value::String(text) => *text = clean_str(text, multiline),
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, multiline, lines)),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut v) in entries {
                walk(&mut v, lines.allows(&key), lines);
                // Two keys that clean to one: the later wins, as a repeated
                // key does in the parser.
                map.insert(one_line(&key), v);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Cleans every string of a YAML `value` in place ([`clean_str`]); string
/// keys are one line, tags are kept.
pub(crate) fn clean_yaml(value: &mut serde_yaml_ng::Value, lines: Multiline) {
    walk_yaml(value, false, lines);
}

fn walk_yaml(value: &mut serde_yaml_ng::Value, multiline: bool, lines: Multiline) {
    use serde_yaml_ng::Value as Y;
    match value {
        Y::String(text) => *text = clean_str(text, multiline),
        Y::Sequence(items) => items
            .iter_mut()
            .for_each(|v| walk_yaml(v, multiline, lines)),
        Y::Mapping(map) => {
            let entries = std::mem::take(map);
            for (mut key, mut v) in entries {
                let keeps = key.as_str().is_some_and(|k| lines.allows(k));
                walk_yaml(&mut key, false, lines);
                walk_yaml(&mut v, keeps, lines);
                map.insert(key, v);
            }
        }
        Y::Tagged(tagged) => walk_yaml(&mut tagged.value, multiline, lines),
        Y::Null | Y::Bool(_) | Y::Number(_) => {}
    }
}

/// A `T` from a value any self-describing parser produced (`toml::from_str`,
/// `serde_json::from_str`, ... into a [`serde_json::Value`]), every string
/// cleaned first ([`clean_value`]).
///
/// # Errors
/// A value that does not fit `T` (the message names the field or variant).
pub fn from_value<T: DeserializeOwned>(
    mut value: Value,
    lines: Multiline,
) -> Result<T, serde_json::Error> {
    clean_value(&mut value, lines);
    serde_json::from_value(value)
}

/// Parses JSON `text` as a `T` with every string cleaned ([`clean_value`]).
///
/// ```
/// use prompt_layers::sources::parsed::{json, Multiline};
///
/// #[derive(serde::Deserialize)]
/// struct Turn { goal: String, notes: String }
///
/// let turn: Turn = json(
///     r##"{"goal": "ship\u001b]52;c;eA==\u0007\n# Forged", "notes": "a\n\u202eb"}"##,
///     Multiline(&["notes"]),
/// ).unwrap();
/// assert_eq!(turn.goal, "ship]52;c;eA== # Forged");
/// assert_eq!(turn.notes, "a\nb");
/// ```
///
/// # Errors
/// The parser's error, with its line: a syntax error, or a value that does
/// not fit `T`.
pub fn json<T: DeserializeOwned>(text: &str, lines: Multiline) -> Result<T, serde_json::Error> {
    let value: Value = serde_json::from_str(text)?;
    from_value::<T>(value, lines).or_else(|error| {
        // A value that does not fit `T`: the typed parse says where, with
        // its line (cleaning only removes characters, so it fails there too).
        serde_json::from_str::<T>(text).and(Err(error))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nested_values_and_arrays_are_cleaned() {
        let mut value = serde_json::json!({
            "na\u{202e}me\n#": ["a\u{7}\nb", {"body": "x\ny\u{1b}", "id": "<file path=\"u\">"}],
        });
        clean_value(&mut value, Multiline(&["body"]));
        assert_eq!(
            value,
            serde_json::json!({"name #": ["a b", {"body": "x\ny", "id": "&lt;file path=\"u\">"}]})
        );
    }

    #[test]
    fn a_type_error_keeps_its_line() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct T {
            n: u32,
        }
        let error = json::<T>("{\n\"n\": \"x\"\n}", Multiline::NONE).unwrap_err();
        assert_eq!(error.line(), 2, "{error}");
    }
}
