//! The value given to a secret-looking name: `DB_PASSWORD=...`, `export
//! API_TOKEN="..."`, `{"db_password": "..."}`, `client_secret: ...`, a list
//! item, prose, and a YAML block (`secret: |` and the lines indented below
//! it). The name and value checks here serve the structures too.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::scan::compile;
use super::{SecretFinding, SecretKind};

/// Every assignment of a plausible secret to a secret-looking name in `text`.
pub(super) fn find(text: &str, out: &mut Vec<SecretFinding>) {
    // Not `captures_iter`: the name of a value that is no secret
    // (`user=admin,password=...`) must not hide the names after it, so the
    // search goes on at its separator. A secret-looking name's value is read
    // once and skipped whole, found or not: every byte is looked at a bounded
    // number of times, whatever the text.
    let mut at = 0;
    while let Some(captures) = assignment().captures_at(text, at) {
        let (Some(name), Some(sep)) = (captures.name("name"), captures.name("sep")) else {
            break;
        };
        // `tiktoken_rs::CoreBPE` is a path, not a value given to a name.
        if !secret_name(name.as_str()) || text[sep.end()..].starts_with(':') {
            at = sep.start();
            continue;
        }
        let Some((value, quoted)) = value_after(text, sep.end()) else {
            at = sep.end();
            continue;
        };
        let mut skip = value.end + usize::from(quoted);
        let block = !quoted && captures.name("lead").is_some() && &captures["sep"] == ":";
        let found = if block && is_block_indicator(&text[value.clone()]) {
            // The block is read once and skipped whole, found or not.
            let (end, found) = yaml_block(text, &captures, value.end);
            skip = skip.max(end);
            found
        } else {
            assigned_secret(text, &captures, value, quoted)
        };
        match found {
            Some(range) => {
                at = skip.max(range.end);
                out.push(SecretFinding {
                    kind: SecretKind::Assignment,
                    rule: "assignment",
                    range,
                });
            }
            None => at = skip,
        }
    }
}

/// A name about to be given a value: `NAME =`, `NAME:`, `"NAME":`,
/// `NAME =>`, anywhere in a line. Group `lead`: the line's start (indent and
/// list marker), when the name opens the line; `q`: the name's opening
/// quote; `name`; `sep`. The value is read by [`value_after`].
fn assignment() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        compile(concat!(
            r#"(?m)(?:(?P<lead>^[ \t]*(?:[-*+>][ \t]+)?)|[^A-Za-z0-9_.$-])"#,
            r#"(?:export[ \t]+)?(?P<q>["']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})["']?"#,
            r#"[ \t]*(?P<sep>=>|=|:)"#,
        ))
    })
}

/// The value after a separator ending at `at`: spaces and tabs skipped, then
/// a quoted string (`"..."` or `'...'`, closed on the same line) or a bare run
/// up to whitespace, a quote or a backtick. Its range, and whether quoted.
pub(super) fn value_after(text: &str, at: usize) -> Option<(Range<usize>, bool)> {
    let start = at + text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len();
    let rest = &text[start..];
    match rest.chars().next()? {
        quote @ ('"' | '\'') => {
            let body = &rest[1..];
            let close = body.find([quote, '\n'])?;
            (body[close..].starts_with(quote) && close > 0)
                .then_some((start + 1..start + 1 + close, true))
        }
        _ => {
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'))
                .unwrap_or(rest.len());
            (end > 0).then_some((start..start + end, false))
        }
    }
}

/// `|`, `>`, with a chomping indicator (`-`, `+`) or an indentation digit.
fn is_block_indicator(value: &str) -> bool {
    let mut chars = value.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.as_str().len() <= 2
        && chars.all(|c| matches!(c, '-' | '+' | '1'..='9'))
}

/// The most lines and bytes a YAML block's secret is read over.
const BLOCK_LINES: usize = 64;
const BLOCK_BYTES: usize = 16 * 1024;

/// A YAML block scalar (`key: |` and the lines below it indented deeper
/// than the key): where the block ends (it is read at most to
/// [`BLOCK_LINES`] lines and [`BLOCK_BYTES`] bytes), and its text's range
/// when it reads as a secret: its first line one run of characters, a
/// plausible value for the name. `indicator_end` is where the `|` or `>`
/// ends.
fn yaml_block(
    text: &str,
    captures: &regex::Captures<'_>,
    indicator_end: usize,
) -> (usize, Option<Range<usize>>) {
    let (Some(name), Some(lead)) = (captures.name("name"), captures.name("lead")) else {
        return (indicator_end, None);
    };
    // A list item's key is indented past its marker.
    let indent = lead.as_str().len();
    let rest = &text[indicator_end..];
    // Nothing but spaces (or a comment) may follow the indicator.
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let after = rest[..line_end].trim();
    if !(after.is_empty() || after.starts_with('#')) || line_end == rest.len() {
        return (indicator_end, None);
    }
    let body_start = indicator_end + line_end + 1;
    let mut window_end = (body_start + BLOCK_BYTES).min(text.len());
    while !text.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let mut range: Option<Range<usize>> = None;
    let mut at = body_start;
    for line in text[body_start..window_end]
        .split_inclusive('\n')
        .take(BLOCK_LINES)
    {
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start_matches([' ', '\t']);
        if !trimmed.is_empty() {
            if content.len() - trimmed.len() <= indent {
                break;
            }
            let start = at + (content.len() - trimmed.len());
            let end = at + content.trim_end().len();
            range = Some(range.map_or(start..end, |r| r.start..end));
        }
        at += line.len();
    }
    let Some(range) = range else {
        return (body_start, None);
    };
    let first = text[range.clone()].lines().next().unwrap_or("").trim();
    let secret =
        !first.contains(char::is_whitespace) && plausible(first, name.as_str(), true, true);
    (range.end, secret.then_some(range))
}

/// The byte range of the secret `value` (read after a secret-looking name),
/// or `None` when the value is a placeholder or reads as prose.
fn assigned_secret(
    text: &str,
    captures: &regex::Captures<'_>,
    value: Range<usize>,
    quoted: bool,
) -> Option<Range<usize>> {
    let name = captures.name("name")?.as_str();
    let quoted_key = captures.name("q").is_some_and(|q| !q.as_str().is_empty());
    // A name with `_`, `-`, `.` or capitals inside is a key, not a word of prose.
    let identifier = name.contains(['_', '-', '.']) || name.chars().skip(1).any(char::is_uppercase);
    let equals = captures["sep"].starts_with('=');
    let mut strong = quoted_key || quoted || identifier || equals;
    let mut range = value;
    if !quoted {
        let after = &text[range.end..];
        // Whether more words follow the value on its line (a ` #` comment is
        // not more). Only the spaces after the value are read: no line is
        // scanned once per name on it.
        let more = after
            .trim_start_matches([' ', '\t'])
            .chars()
            .next()
            .is_some_and(|c| !matches!(c, '#' | '\n' | '\r'));
        if equals && captures.name("lead").is_some() && identifier && more {
            // `KEY=value with spaces` opening a line, as .env files allow:
            // the value runs to the end of the line or a ` #` comment (once
            // per line: only the name opening it has a `lead`).
            let line = &after[..after.find('\n').unwrap_or(after.len())];
            let line = line.find(" #").map_or(line, |i| &line[..i]);
            range.end += line.trim_end().len();
        } else if !equals && more {
            // A passphrase is a few words: only the name opening a line is
            // read on, and at most [`PASSPHRASE_BYTES`] of the line (a name
            // in the middle of a long line costs nothing more).
            let opens_line = captures.name("lead").is_some() && identifier;
            let whole = if opens_line {
                let mut window = after.len().min(PASSPHRASE_BYTES);
                while !after.is_char_boundary(window) {
                    window -= 1;
                }
                after[..window]
                    .find('\n')
                    .or((window == after.len()).then_some(window))
                    .map(|end| {
                        let line = &after[..end];
                        let line = line.find(" #").map_or(line, |i| &line[..i]);
                        &text[range.start..range.end + line.trim_end().len()]
                    })
            } else {
                None
            };
            if let Some(whole) = whole.filter(|whole| passphrase(name, whole)) {
                // `db_password: correct horse battery staple` opening a line
                // of YAML: a passphrase, not a description.
                range.end = range.start + whole.len();
            } else {
                // `key: several words` (a skill, a list item, prose) is a
                // description, unless its first word reads as a secret.
                strong = false;
            }
        }
        // Prose punctuation after the value is not part of it.
        let trimmed =
            text[range.clone()].trim_end_matches(['.', ',', ';', ':', ')', ']', '}', '!', '?']);
        range.end = range.start + trimmed.len();
    }
    let value = &text[range.clone()];
    plausible(value, name, strong, quoted).then_some(range)
}

/// The most of a line read after a value for the passphrase it may start.
const PASSPHRASE_BYTES: usize = 256;

/// Whether `words`, given to the identifier `name`, read as a passphrase:
/// the name is a password's, and the value is 2 to 8 words of letters,
/// digits and symbols, none of them a word that prose needs (`the`, `it`,
/// `from`, ...), not ending a sentence.
fn passphrase(name: &str, words: &str) -> bool {
    const PROSE: &[&str] = &[
        "a", "an", "the", "to", "for", "in", "on", "of", "from", "is", "are", "be", "it", "its",
        "this", "that", "set", "use", "see", "with", "by", "and", "or", "not", "no", "your", "our",
        "my", "their", "when", "if", "as", "at", "via", "must", "should", "will", "can", "get",
        "put", "keep", "store", "ask", "read", "stored", "kept", "required", "same", "user",
    ];
    let password = name_parts(name)
        .iter()
        .any(|part| matches!(part.as_str(), "password" | "passwd" | "passphrase" | "pwd"));
    let list: Vec<&str> = words.split_whitespace().collect();
    password
        && (2..=8).contains(&list.len())
        && !words.ends_with('.')
        && list.iter().all(|word| {
            word.chars()
                .all(|c| c.is_alphanumeric() || "-_!@#%&*+=.,".contains(c))
                && !PROSE.contains(&word.to_lowercase().as_str())
        })
}

/// Whether `name` (an identifier) names a secret itself, not a fact about one.
pub(super) fn secret_name(name: &str) -> bool {
    let parts = name_parts(name);
    let Some(last) = parts.last() else {
        return false;
    };
    const ABOUT: &[&str] = &[
        "policy",
        "length",
        "len",
        "min",
        "max",
        "file",
        "path",
        "dir",
        "name",
        "names",
        "type",
        "url",
        "uri",
        "endpoint",
        "env",
        "var",
        "field",
        "label",
        "count",
        "limit",
        "hint",
        "prompt",
        "regex",
        "pattern",
        "id",
        "ids",
        "expiry",
        "expires",
        "expiration",
        "ttl",
        "header",
        "prefix",
        "suffix",
        "format",
        "budget",
        "size",
        "rotation",
        "enabled",
        "required",
        "version",
        "mode",
        "kind",
        "source",
        "location",
        "ref",
        "hash",
        "command",
        "cmd",
        "helper",
        "store",
        "manager",
        "provider",
        "usage",
        "estimate",
        "counter",
    ];
    if ABOUT.contains(&last.as_str()) {
        return false;
    }
    const NAMES: &[&str] = &[
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "secret",
        "token",
        "credential",
        "credentials",
        "apikey",
        "privatekey",
        "secretkey",
        "accesskey",
    ];
    const KEY_AFTER: &[&str] = &[
        "api",
        "access",
        "secret",
        "private",
        "signing",
        "encryption",
        "master",
        "client",
        "auth",
        "app",
        "license",
        "session",
    ];
    // Glued names count too: `PGPASSWORD`, `authtoken`, `clientsecret`.
    const ENDINGS: &[&str] = &["password", "passwd", "secret", "token", "apikey"];
    parts.iter().enumerate().any(|(i, part)| {
        NAMES.contains(&part.as_str())
            || ENDINGS.iter().any(|ending| part.ends_with(ending))
            || (part == "key" && i > 0 && KEY_AFTER.contains(&parts[i - 1].as_str()))
            || (part == "pass" && i + 1 == parts.len() && i > 0)
    })
}

/// `DB_PASSWORD` -> `db`, `password`; `clientSecret` -> `client`, `secret`.
pub(super) fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            if !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !part.is_empty() {
            parts.push(std::mem::take(&mut part));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        part.extend(c.to_lowercase());
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// Whether `value`, given to the secret-looking `name`, may be a secret.
pub(super) fn plausible(value: &str, name: &str, strong: bool, quoted: bool) -> bool {
    let length = value.chars().count();
    if length < if strong { 6 } else { 8 } || is_placeholder(value) {
        return false;
    }
    let lower = value.to_lowercase();
    if lower == name.to_lowercase()
        || value.contains("://")
        || value.starts_with(['/', '~'])
        || value.starts_with("./")
        || value.starts_with("../")
        || value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '_'))
        || is_reference(value)
        || (!quoted && value.contains(['(', ')', '[', ']']))
    {
        return false;
    }
    if strong {
        return true;
    }
    // A plain word of prose before `:` (`Password: required`): only a value
    // with letters and digits, and no spaces, reads as a secret.
    !value.contains(char::is_whitespace)
        && value.chars().any(char::is_alphabetic)
        && value.chars().any(|c| c.is_ascii_digit())
}

/// `${X}`, `<your-key>`, `{{ x }}`, `********`, `your-api-key-here`, `changeme`, ...
pub(super) fn is_placeholder(value: &str) -> bool {
    let lower = value.to_lowercase();
    let squashed: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    const WORDS: &[&str] = &[
        "changeme",
        "password",
        "passwd",
        "secret",
        "placeholder",
        "redacted",
        "required",
        "optional",
        "default",
        "enabled",
        "disabled",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "example",
        "sample",
        "test",
        "todo",
        "tbd",
        "notset",
        "unset",
        "empty",
        "hidden",
        "masked",
        "token",
        "apikey",
        "secretkey",
    ];
    value.starts_with(['$', '<', '{', '%', '[', '(', '*', '#'])
        // A YAML tag (`!vault |`).
        || (value.starts_with('!') && value.chars().skip(1).all(char::is_alphabetic))
        || value.ends_with(['>', '}'])
        || value.contains("...")
        || value.contains('…')
        || value.contains("{{")
        || value.contains("${")
        || lower.contains("xxx")
        || lower.starts_with("your")
        || lower.starts_with("insert")
        || lower.starts_with("replace")
        || lower.ends_with("here")
        || lower.contains("changeme")
        || lower.contains("change_me")
        || lower.contains("change-me")
        || WORDS.contains(&squashed.as_str())
        || value.chars().all(|c| value.starts_with(c))
}

/// Passwords of documentation connection strings (`user:pass@localhost`).
pub(super) fn common_password(password: &str) -> bool {
    matches!(
        password.to_lowercase().as_str(),
        "pass" | "pwd" | "password" | "passwd" | "secret" | "pw" | "p" | "x" | "user" | "admin"
    )
}

/// A reference to a value kept elsewhere: `config.db.password`,
/// `DB_PASSWORD` (an environment variable's name).
fn is_reference(value: &str) -> bool {
    let identifier = |part: &str| {
        part.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let dotted = value.contains('.') && value.split('.').all(identifier);
    // `LIVE_7F3B9C2A4E8D1F6B` is a key with a prefix, not a variable's name:
    // no part of a name is a long run mixing letters and digits.
    let random_part = value.split('_').any(|part| {
        part.len() >= 12
            && part.chars().any(|c| c.is_ascii_alphabetic())
            && part.chars().any(|c| c.is_ascii_digit())
    });
    let env_name = value.contains('_')
        && identifier(value)
        && value.chars().all(|c| !c.is_lowercase())
        && !random_part;
    dotted || env_name
}
