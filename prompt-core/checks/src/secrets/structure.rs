//! Secrets a structure names rather than a `NAME=value`: an element
//! (`<password>...</password>`), a quoted pair (PHP's `define('DB_PASSWORD',
//! '...')`, `setenv("API_TOKEN", "...")`), a name-and-value pair (a Postman
//! or HAR header `{"key": "X-Api-Key", "value": "..."}`, a Kubernetes `env`
//! entry `- name: DB_PASSWORD` / `value: ...`), an HTML `<input>`'s value,
//! SQL's `IDENTIFIED BY '...'` and `WITH PASSWORD '...'`, a Markdown table's
//! cell under a `password` header, and a `.pgpass` line.

use std::sync::OnceLock;

use regex::Regex;

use super::assignment::{common_password, is_placeholder, plausible, secret_name, value_after};
use super::scan::compile;
use super::{SecretFinding, SecretKind};

/// Every structured secret in `text`.
pub(super) fn find(text: &str, out: &mut Vec<SecretFinding>) {
    elements(text, out);
    quoted_pairs(text, out);
    named_values(text, out);
    inputs(text, out);
    sql(text, out);
    tables(text, out);
    pgpass(text, out);
}

fn assignment(rule: &'static str, range: std::ops::Range<usize>) -> SecretFinding {
    SecretFinding {
        kind: SecretKind::Assignment,
        rule,
        range,
    }
}

/// `<name attr="...">VALUE</name>` on one line, the name secret-looking
/// (`password`, `apiKey`, `db:secret`).
fn elements(text: &str, out: &mut Vec<SecretFinding>) {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        compile(concat!(
            r"<(?P<name>[A-Za-z_][A-Za-z0-9_.:-]{0,63})(?:[ \t][^<>\n]{0,256})?>",
            r"[ \t]*(?P<s>[^<>\n]{1,512}?)[ \t]*",
            r"</(?P<close>[A-Za-z_][A-Za-z0-9_.:-]{0,63})[ \t]*>",
        ))
    });
    for captures in pattern.captures_iter(text) {
        let (Some(name), Some(close), Some(value)) = (
            captures.name("name"),
            captures.name("close"),
            captures.name("s"),
        ) else {
            continue;
        };
        let local = name.as_str().rsplit(':').next().unwrap_or_default();
        if name.as_str() == close.as_str()
            && secret_name(local)
            && !value.as_str().contains(char::is_whitespace)
            && plausible(value.as_str(), local, true, true)
        {
            out.push(assignment("element", value.range()));
        }
    }
}

/// A quoted secret-looking name, a comma, and a quoted value: a call or a
/// pair (`define('DB_PASSWORD', '...')`, `headers.set("X-Api-Key", "...")`).
/// The value is one run of characters that is not itself a name.
fn quoted_pairs(text: &str, out: &mut Vec<SecretFinding>) {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        compile(concat!(
            r#"(?P<q>["'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["'][ \t]*,[ \t]*"#,
            r#"(?:"(?P<s>[^"\s]{1,256})"|'(?P<s2>[^'\s]{1,256})')"#,
        ))
    });
    for captures in pattern.captures_iter(text) {
        let (Some(name), Some(value)) = (
            captures.name("name"),
            captures.name("s").or_else(|| captures.name("s2")),
        ) else {
            continue;
        };
        let v = value.as_str();
        // `["password", "api_token"]` lists names, it gives none a value.
        let a_name = v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && (v.contains('_') || secret_name(v))
            && !v.chars().any(|c| c.is_ascii_digit());
        if secret_name(name.as_str()) && !a_name && plausible(v, name.as_str(), true, true) {
            out.push(assignment("quoted-pair", value.range()));
        }
    }
}

/// A `name` (or `key`, `header`) field holding a secret-looking name, then
/// a `value` field: on the same line after a comma (JSON) or on the next
/// line (YAML, a list item's next key). The value is read as an
/// assignment's is.
fn named_values(text: &str, out: &mut Vec<SecretFinding>) {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        compile(concat!(
            r#"["']?\b(?:name|key|header)["']?[ \t]*[:=][ \t]*["']?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63})["']?"#,
            r#"[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?["']?\bvalue["']?[ \t]*(?P<sep>[:=])"#,
        ))
    });
    for captures in pattern.captures_iter(text) {
        let (Some(name), Some(sep)) = (captures.name("name"), captures.name("sep")) else {
            continue;
        };
        if !secret_name(name.as_str()) {
            continue;
        }
        let Some((value, quoted)) = value_after(text, sep.end()) else {
            continue;
        };
        let v = &text[value.clone()];
        let v_trimmed = v.trim_end_matches([',', '}', ']']);
        let range = value.start..value.start + v_trimmed.len();
        if !v_trimmed.contains(char::is_whitespace)
            && plausible(v_trimmed, name.as_str(), true, quoted)
        {
            out.push(assignment("named-value", range));
        }
    }
}

/// An HTML `<input>`'s `value` when its `type` is `password` or `hidden`
/// and its `name` (or `id`) is secret-looking, or its type is `password`.
fn inputs(text: &str, out: &mut Vec<SecretFinding>) {
    static TAG: OnceLock<Regex> = OnceLock::new();
    static ATTRIBUTE: OnceLock<Regex> = OnceLock::new();
    let tag = TAG.get_or_init(|| compile(r"(?i)<input\b(?P<attrs>[^<>]{0,1024})>"));
    let attribute = ATTRIBUTE.get_or_init(|| {
        compile(
            r#"(?i)(?:^|[ \t\n])(?P<k>name|id|type|value)[ \t]*=[ \t]*(?:"(?P<v1>[^"]*)"|'(?P<v2>[^']*)'|(?P<v3>[^\s"'>]+))"#,
        )
    });
    for captures in tag.captures_iter(text) {
        let Some(attrs) = captures.name("attrs") else {
            continue;
        };
        let (mut name, mut kind, mut value) = (None, None, None);
        for a in attribute.captures_iter(attrs.as_str()) {
            let Some(v) = a
                .name("v1")
                .or_else(|| a.name("v2"))
                .or_else(|| a.name("v3"))
            else {
                continue;
            };
            match a["k"].to_ascii_lowercase().as_str() {
                "name" | "id" if name.is_none() => name = Some(v.as_str()),
                "type" => kind = Some(v.as_str().to_ascii_lowercase()),
                "value" => value = Some(v),
                _ => {}
            }
        }
        let Some(value) = value else {
            continue;
        };
        let password = kind.as_deref() == Some("password");
        let hidden = kind.as_deref() == Some("hidden");
        let named = name.is_some_and(secret_name);
        let label = name.unwrap_or("password");
        if (password || (hidden && named))
            && !value.as_str().contains(char::is_whitespace)
            && plausible(value.as_str(), label, true, true)
        {
            let start = attrs.start() + value.start();
            out.push(assignment("html-input", start..start + value.len()));
        }
    }
}

/// SQL that sets a password: `IDENTIFIED BY '...'` (MySQL, Oracle) and
/// `CREATE|ALTER USER|ROLE ... PASSWORD '...'` (PostgreSQL, Snowflake).
fn sql(text: &str, out: &mut Vec<SecretFinding>) {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        compile(concat!(
            r"(?i)\bIDENTIFIED[ \t]+(?:WITH[ \t]+[A-Za-z0-9_]+[ \t]+)?BY[ \t]+(?:PASSWORD[ \t]+)?'(?P<s>[^'\n]{1,256})'",
            r"|(?i)\b(?:CREATE|ALTER)[ \t]+(?:USER|ROLE|LOGIN)\b[^;\n]{0,256}?\bPASSWORD[ \t]*=?[ \t]*'(?P<s2>[^'\n]{1,256})'",
        ))
    });
    for captures in pattern.captures_iter(text) {
        let Some(value) = captures.name("s").or_else(|| captures.name("s2")) else {
            continue;
        };
        let v = value.as_str();
        if v.chars().count() >= 6 && !is_placeholder(v) && !common_password(v) {
            out.push(SecretFinding {
                kind: SecretKind::SqlPassword,
                rule: "sql-password",
                range: value.range(),
            });
        }
    }
}

/// The cells of a Markdown table under a secret-looking header (`Password`,
/// `API key`, `client_secret`): one run of characters, a plausible value.
/// Each line is read once.
fn tables(text: &str, out: &mut Vec<SecretFinding>) {
    let mut previous: Option<(usize, &str)> = None;
    // The secret columns of the table being read, and its column count.
    let mut columns: Vec<(usize, String)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if !columns.is_empty() {
            if content.contains('|') {
                for (i, cell) in cells(content) {
                    let Some((_, header)) = columns.iter().find(|(c, _)| *c == i) else {
                        continue;
                    };
                    let value = cell.trim_matches(|c: char| c == '`' || c.is_whitespace());
                    if !value.is_empty()
                        && !value.contains(char::is_whitespace)
                        && plausible(value, header, true, false)
                    {
                        let offset = value.as_ptr() as usize - content.as_ptr() as usize;
                        let begin = start + offset;
                        out.push(assignment("markdown-table", begin..begin + value.len()));
                    }
                }
                continue;
            }
            columns.clear();
        }
        if let Some((_, header)) = previous.filter(|_| is_delimiter_row(content)) {
            columns = cells(header)
                .filter_map(|(i, cell)| {
                    let name = cell
                        .trim()
                        .trim_matches(['*', '`', '_'])
                        .trim()
                        .replace(' ', "_");
                    secret_name(&name).then_some((i, name))
                })
                .collect();
        }
        previous = content.contains('|').then_some((start, content));
    }
}

/// A table row's cells and their column numbers (outer pipes dropped).
fn cells(row: &str) -> impl Iterator<Item = (usize, &str)> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').enumerate()
}

/// `|---|:--:|`: pipes, dashes, colons and spaces, with a dash and a pipe.
fn is_delimiter_row(line: &str) -> bool {
    line.contains('-')
        && line.contains('|')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// `host:port:database:user:password`, a `.pgpass` line (the port digits
/// or `*`), optionally as a list item.
fn pgpass(text: &str, out: &mut Vec<SecretFinding>) {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        compile(concat!(
            r"(?m)^[ \t]*(?:[-*+][ \t]+)?(?:[A-Za-z0-9*][A-Za-z0-9.*_-]{0,253}|\[[0-9A-Fa-f:.]+\])",
            r":(?:[0-9]{1,5}|\*):(?P<db>[^:\s]{1,63}):(?P<user>[^:\s]{1,63}):(?P<s>[^\s]{1,256})[ \t]*\r?$",
        ))
    });
    for captures in pattern.captures_iter(text) {
        let (Some(user), Some(value)) = (captures.name("user"), captures.name("s")) else {
            continue;
        };
        let v = value.as_str();
        if v != user.as_str()
            && v.chars().count() >= 6
            && !is_placeholder(v)
            && !common_password(v)
            && !v.contains("://")
        {
            out.push(SecretFinding {
                kind: SecretKind::PasswordFile,
                rule: "pgpass",
                range: value.range(),
            });
        }
    }
}
