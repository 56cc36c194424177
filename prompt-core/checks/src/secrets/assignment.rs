//! The value given to a secret-looking name: `DB_PASSWORD=...`, `export
//! API_TOKEN="..."`, `{"db_password": "..."}`, `client_secret: ...`, a list
//! item, prose, a YAML block (`secret: |` and the lines indented below
//! it), and a Markdown table row (`| DB_PASSWORD | value |`). The name and
//! value checks here serve the structures too.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::scan::compile;
use super::{SecretFinding, SecretKind};

/// Every assignment of a plausible secret to a secret-looking name in `text`.
pub(super) fn find(text: &str, out: &mut Vec<SecretFinding>) {
    table_rows(text, out);
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

/// A Markdown table row that gives a value to a secret-looking name: the
/// name alone in a cell (`DB_PASSWORD`, `` `API_TOKEN` ``, `**Password**`)
/// and the value alone in the next (`| DB_PASSWORD | value | notes |`), the
/// row opening its line (after an indent or a list marker). The table's
/// header need not name a secret (the structures read a column under a
/// `password` header). As in prose, a value must have letters and digits
/// and no spaces: a table of settings describes them in words. Each line
/// is read once.
fn table_rows(text: &str, out: &mut Vec<SecretFinding>) {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let row = content.trim_start_matches([' ', '\t']);
        let row = ["- ", "* ", "+ ", "> "]
            .iter()
            .find_map(|marker| row.strip_prefix(marker))
            .unwrap_or(row)
            .trim_start_matches([' ', '\t']);
        let Some(row) = row.strip_prefix('|') else {
            continue;
        };
        let mut cells = row.split('|').peekable();
        while let Some(cell) = cells.next() {
            let name = cell.trim().trim_matches(['`', '*']);
            let Some(next) = cells.peek() else {
                break;
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                || !secret_name(name)
            {
                continue;
            }
            let value = next.trim().trim_matches(['`', '"', '\'']);
            if value.is_empty() || value.contains(char::is_whitespace) {
                continue;
            }
            if plausible(value, name, false, false) {
                let offset = value.as_ptr() as usize - content.as_ptr() as usize;
                let begin = start + offset;
                out.push(SecretFinding {
                    kind: SecretKind::Assignment,
                    rule: "markdown-table",
                    range: begin..begin + value.len(),
                });
            }
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

/// `${X}`, `<your-key>`, `{{ x }}`, `********`, `your-api-key-here`,
/// `changeme`, `hf_xxx`, ...: judged on the value's shape, never on a word
/// inside it, so a real-shaped key that happens to hold `xxx`, `EXAMPLE`
/// or `here` is no placeholder. A placeholder is a template marker
/// (`${`, `<...>`, `{{`, `...`), a value made mostly of one filler
/// character ([`filler`]), a value of plain words that asks for the real
/// one ([`asks_for_value`]: `YOUR_API_KEY`, `insert-token-here`,
/// `replace_me`), or one word that stands for a value (`changeme`,
/// `redacted`, `none`, ...).
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
        || filler(&squashed)
        || asks_for_value(&lower)
        // `changeme`, `changeme123`, `change_me_please`: a default to change.
        || squashed.starts_with("changeme")
        || WORDS.contains(&squashed.as_str())
        || value.chars().all(|c| value.starts_with(c))
}

/// Whether `squashed` (a value's letters and digits, lowercase) is mostly
/// one filler character: a run of three of it and at least half the value
/// (`xxxxxxxx`, `hf_xxx`, `SG.xxxxx`, `AKIAXXXXXXXXXXXXXXXX`, `sk-0000...`).
/// A random key holds no character that often.
fn filler(squashed: &str) -> bool {
    let bytes = squashed.as_bytes();
    let mut counts = [0usize; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let Some(most) = (0..=255u8).max_by_key(|&b| counts[usize::from(b)]) else {
        return false;
    };
    counts[usize::from(most)] * 2 >= bytes.len()
        && bytes.windows(3).any(|w| w.iter().all(|&b| b == most))
}

/// Whether `lower` is plain words (letters only, split at `_`, `-`, `.` and
/// spaces) that ask for the real value: the first word starts with `your`,
/// `insert`, `replace`, `enter`, `paste` or `put`, or the last ends with
/// `here` or is `me` (`YOUR_API_KEY`, `your-key-here`, `insert_token`,
/// `replace_me`, `yourapikey`). A word with a digit is a key's, not a
/// request's: `Yourp9JILYLdPUJo1WUx` is real-shaped.
fn asks_for_value(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(['_', '-', '.', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    words.iter().all(|w| w.chars().all(char::is_alphabetic))
        && (["your", "insert", "replace", "enter", "paste", "put"]
            .iter()
            .any(|p| first.starts_with(p))
            || last.ends_with("here")
            || (*last == "me" && words.len() > 1))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_is_judged_on_its_shape_not_on_a_word_inside_it() {
        for placeholder in [
            "xxx",
            "xxxxxxxxxxxxxxxx",
            "hf_xxx",
            "SG.xxxxx",
            "AKIAXXXXXXXXXXXXXXXX",
            "npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "YOUR_API_KEY",
            "your-api-key-here",
            "yourapikey",
            "insert_token",
            "REPLACE_ME",
            "changeme",
            "changeme123",
            "<token>",
            "${API_KEY}",
            "********",
        ] {
            assert!(is_placeholder(placeholder), "{placeholder}");
        }
        for key in [
            "d4LBYGxxxoxZWccEa",
            "Yourp9JILYLdPUJo1WUx",
            "ReplaceebDxYc0IdCf3ud",
            "fX0svgE7mgPUhere",
            "npm_sEmiaQEXAMPLEDAoLthmclzgv26zcwIU48Nk",
            "hunter2hunter2",
        ] {
            assert!(!is_placeholder(key), "{key}");
        }
    }

    #[test]
    fn a_table_row_gives_its_value_to_the_name_beside_it() {
        let found = |text: &str| {
            let mut out = Vec::new();
            table_rows(text, &mut out);
            out.into_iter()
                .map(|f| text[f.range].to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(found("| DB_PASSWORD | Zk8q2LmN77 |"), ["Zk8q2LmN77"]);
        assert_eq!(
            found("  - | `API_TOKEN` | `9f8e7d6c5b` | x |"),
            ["9f8e7d6c5b"]
        );
        // Prose, placeholders, a setting about a secret, a header row.
        assert!(found("| DB_PASSWORD | kept in the vault |").is_empty());
        assert!(found("| DB_PASSWORD | <generated> |").is_empty());
        assert!(found("| password_min_length | 12chars |").is_empty());
        assert!(found("| Secret | Purpose |").is_empty());
        assert!(found("text | DB_PASSWORD | Zk8q2LmN77 |").is_empty());
    }
}
