//! gitleaks' rules, vendored: the vendor formats of a maintained list.
//!
//! `vendor/gitleaks.toml` is gitleaks' default configuration, byte for byte
//! (gitleaks v8.30.1, MIT, `vendor/LICENSE-gitleaks`; `vendor/README.md`
//! records the commit and checksum). It is parsed at the first scan, and its
//! rules run as gitleaks runs them:
//!
//! - a rule runs only on a text holding one of its keywords, in any case;
//! - its expression reads bytes with ASCII classes, as Go's RE2 does;
//! - the secret is its `secretGroup`, else the first capture group that
//!   matched something, else the match without newlines at its ends;
//! - a secret at or below the rule's `entropy` is dropped, and so is one the
//!   global allowlist or the rule's own allows (regexes over the secret, the
//!   match or its line; stopwords inside the secret).
//!
//! A `gitleaks:allow` comment is not honoured: the text scanned is a
//! repository's, and it could write one beside a key it makes a layer read.
//! A prompt has no file path: a path condition is taken as unmet (an
//! allowlist of paths never allows, an `AND` allowlist with paths never
//! applies), and a rule gated on a path runs on any text, except the ones in
//! [`DROPPED`]. [`TRANSLATED`] lists the rules run with another expression.

use serde::Deserialize;

use super::SecretKind;
use super::rules::{Allowlist, Rule, Source, Target, ascii_regex};

/// The vendored file.
const CONFIG: &str = include_str!("vendor/gitleaks.toml");

/// Rules of the vendored file that are not run, and why.
pub(super) const DROPPED: &[(&str, &str)] = &[
    (
        "generic-api-key",
        "a name-and-value rule over any text: the assignment scan reads names and values with \
         placeholders and prose in mind, where this rule needs a 1,500-word stoplist",
    ),
    (
        "pkcs12-file",
        "matches a file's path only, and a prompt has none",
    ),
    (
        "curl-auth-user",
        "the crate's command-line rule reads `curl -u user:PASS` and reports the password \
         alone; this rule's secret is `user:PASS` with its quotes",
    ),
    (
        "hashicorp-tf-password",
        "gated on `.tf` paths; on other text it is any quoted `password = \"...\"`, which the \
         assignment scan reads",
    ),
];

/// How a translated rule's expression differs from the file's.
pub(super) enum Translation {
    /// This expression instead.
    Pattern(&'static str),
    /// The file's, with every group non-capturing: the whole match is the
    /// secret (gitleaks would report the first group that matched, a
    /// piece of it).
    WholeMatch,
}

/// Rules run with another expression than the file's, and why.
pub(super) const TRANSLATED: &[(&str, Translation, &str)] = &[
    (
        "sourcegraph-access-token",
        Translation::Pattern(
            r#"(?i)\b(\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40})\b)(?:[\x60'"\s;]|\\[nr]|$)"#,
        ),
        "the file's expression also takes any 40 hex digits once the word `sourcegraph` is \
         anywhere in the text: a commit hash in a prompt that names Sourcegraph would be a finding",
    ),
    (
        "microsoft-teams-webhook",
        Translation::WholeMatch,
        "its repetitions are capture groups, so its secret would be 5 characters of the URL \
         (`abcd-`); the URL is the secret",
    ),
    (
        "jwt-base64",
        Translation::WholeMatch,
        "its header alternatives are named groups, so its secret would be the 10 characters that \
         name the first header field; the encoded token is the secret",
    ),
];

#[derive(Deserialize)]
struct Config {
    allowlist: Option<AllowlistConfig>,
    rules: Vec<RuleConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleConfig {
    id: String,
    regex: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    secret_group: usize,
    #[serde(default)]
    allowlists: Vec<AllowlistConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowlistConfig {
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// The vendored rules and the global allowlist.
pub(super) struct Vendored {
    pub(super) rules: Vec<Rule>,
    pub(super) global: Allowlist,
}

/// Parses and compiles the vendored file. It is a constant: a rule that does
/// not parse or compile is a bug, which the unit tests catch.
pub(super) fn load() -> Vendored {
    let config: Config =
        toml::from_str(CONFIG).unwrap_or_else(|e| panic!("vendor/gitleaks.toml: {e}"));
    let global = config
        .allowlist
        .as_ref()
        .and_then(|a| allowlist("global", a))
        .unwrap_or(Allowlist {
            target: Target::Secret,
            regexes: Vec::new(),
            stopwords: Vec::new(),
        });
    let rules = config
        .rules
        .iter()
        .filter(|r| !DROPPED.iter().any(|(id, _)| *id == r.id))
        .filter_map(|r| {
            let file = r.regex.as_deref();
            let pattern = match TRANSLATED.iter().find(|(id, _, _)| *id == r.id) {
                Some((_, Translation::Pattern(pattern), _)) => (*pattern).to_owned(),
                Some((_, Translation::WholeMatch, _)) => non_capturing(file?),
                None => file?.to_owned(),
            };
            Some(Rule {
                id: r.id.clone(),
                kind: kind_of(&r.id),
                source: Source::Gitleaks,
                regex: compile(&r.id, &pattern),
                keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
                secret_group: r.secret_group,
                entropy: r.entropy,
                allowlists: r
                    .allowlists
                    .iter()
                    .filter_map(|a| allowlist(&r.id, a))
                    .collect(),
                check: None,
            })
        })
        .collect();
    Vendored { rules, global }
}

/// An allowlist as this module applies it, or `None` when it can never
/// allow a finding in a prompt (it needs a path to match).
fn allowlist(id: &str, config: &AllowlistConfig) -> Option<Allowlist> {
    let and = config
        .condition
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("and"));
    if (and && !config.paths.is_empty())
        || (config.regexes.is_empty() && config.stopwords.is_empty())
    {
        return None;
    }
    let target = match config.regex_target.as_deref() {
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        _ => Target::Secret,
    };
    Some(Allowlist {
        target,
        regexes: config
            .regexes
            .iter()
            .map(|r| compile(&format!("{id} allowlist"), r))
            .collect(),
        stopwords: config.stopwords.iter().map(|w| w.to_lowercase()).collect(),
    })
}

fn compile(what: &str, pattern: &str) -> regex::bytes::Regex {
    ascii_regex(&go_syntax(pattern)).unwrap_or_else(|e| panic!("vendor/gitleaks.toml: {what}: {e}"))
}

/// `pattern` as the `regex` crate reads what Go reads it as: a `{` that does
/// not open a repetition (`{2}`, `{2,}`, `{2,5}`) is a literal brace in Go
/// and an error here, so it is escaped.
pub(super) fn go_syntax(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.char_indices().peekable();
    let mut in_class = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // `[]...]` and `[^]...]` hold a literal `]`.
                if chars.peek().is_some_and(|&(_, n)| n == '^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek().is_some_and(|&(_, n)| n == ']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '{' if !in_class && !opens_repetition(&pattern[at + 1..]) => out.push_str(r"\{"),
            _ => out.push(c),
        }
    }
    out
}

/// `pattern` with every capture group, named or not, non-capturing.
fn non_capturing(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '(' if !in_class => {
                let mut ahead = chars.clone();
                let named = ahead.next() == Some('?')
                    && match ahead.next() {
                        Some('P') => ahead.next() == Some('<'),
                        Some('<') => true,
                        _ => false,
                    };
                if named {
                    // `(?P<name>` and `(?<name>` lose their name.
                    for n in chars.by_ref() {
                        if n == '>' {
                            break;
                        }
                    }
                    out.push_str("(?:");
                } else if chars.peek() == Some(&'?') {
                    // `(?:`, `(?i:`, `(?i)` are kept.
                    out.push('(');
                } else {
                    out.push_str("(?:");
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether `rest` (what follows a `{`) is `n}`, `n,}` or `n,m}`.
fn opens_repetition(rest: &str) -> bool {
    let Some(end) = rest.find('}') else {
        return false;
    };
    let inner = &rest[..end];
    let (low, high) = inner.split_once(',').unwrap_or((inner, "0"));
    !low.is_empty()
        && low.bytes().all(|b| b.is_ascii_digit())
        && high.bytes().all(|b| b.is_ascii_digit())
}

/// The kind of a gitleaks rule: the vendor's own kind where the crate has
/// one, [`SecretKind::Vendor`] otherwise.
fn kind_of(id: &str) -> SecretKind {
    let prefix = |p: &str| id.starts_with(p);
    match id {
        "anthropic-api-key" | "anthropic-admin-api-key" => SecretKind::Anthropic,
        "openai-api-key" => SecretKind::OpenAi,
        "aws-access-token" => SecretKind::Aws,
        "gcp-api-key" => SecretKind::Google,
        "private-key" | "age-secret-key" => SecretKind::PrivateKey,
        "stripe-access-token" => SecretKind::Stripe,
        "jwt" | "jwt-base64" => SecretKind::Jwt,
        "pypi-upload-token" => SecretKind::PyPi,
        "huggingface-access-token" | "huggingface-organization-api-token" => {
            SecretKind::HuggingFace
        }
        "sendgrid-api-token" => SecretKind::SendGrid,
        "twilio-api-key" => SecretKind::Twilio,
        "curl-auth-header" => SecretKind::AuthorizationHeader,
        _ if prefix("github-") => SecretKind::GitHub,
        _ if prefix("gitlab-") => SecretKind::GitLab,
        _ if prefix("slack-") => SecretKind::Slack,
        _ if prefix("discord-") => SecretKind::Discord,
        _ => SecretKind::Vendor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        toml::from_str(CONFIG).unwrap()
    }

    #[test]
    fn the_vendored_file_parses_and_every_expression_compiles() {
        let config = config();
        assert_eq!(
            config.rules.len(),
            222,
            "vendor/README.md records the count"
        );
        let mut failed = Vec::new();
        for rule in &config.rules {
            let patterns = rule
                .regex
                .iter()
                .chain(rule.allowlists.iter().flat_map(|a| a.regexes.iter()));
            for pattern in patterns {
                if let Err(e) = ascii_regex(&go_syntax(pattern)) {
                    failed.push(format!("{}: {e}", rule.id));
                }
            }
        }
        for pattern in config.allowlist.iter().flat_map(|a| a.regexes.iter()) {
            if let Err(e) = ascii_regex(&go_syntax(pattern)) {
                failed.push(format!("global allowlist: {e}"));
            }
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
        // Every rule is run, translated or dropped with a reason.
        let loaded = load();
        assert_eq!(
            loaded.rules.len() + DROPPED.len(),
            config.rules.len(),
            "a rule without an expression must be in DROPPED"
        );
    }

    #[test]
    fn every_dropped_or_translated_rule_is_in_the_file() {
        let config = config();
        let ids: Vec<&str> = config.rules.iter().map(|r| r.id.as_str()).collect();
        for id in DROPPED
            .iter()
            .map(|(id, _)| *id)
            .chain(TRANSLATED.iter().map(|(id, _, _)| *id))
        {
            assert!(
                ids.contains(&id),
                "{id} is no longer in vendor/gitleaks.toml"
            );
        }
        for (id, translation, _) in TRANSLATED {
            if let Translation::Pattern(pattern) = translation {
                assert!(ascii_regex(&go_syntax(pattern)).is_ok(), "{id}");
            }
        }
    }

    #[test]
    fn go_braces_that_open_no_repetition_are_literal() {
        assert_eq!(go_syntax(r"^\$(?:\d+|{\d+})$"), r"^\$(?:\d+|\{\d+})$");
        assert_eq!(go_syntax(r"a{2}b{2,}c{2,5}"), r"a{2}b{2,}c{2,5}");
        assert_eq!(go_syntax(r"[{}]\{x{"), r"[{}]\{x\{");
        assert_eq!(go_syntax(r"^\{\{[ \t]*x}}$"), r"^\{\{[ \t]*x}}$");
        let regex = ascii_regex(&go_syntax(r"^\$\{(?:[A-Z_]+|[a-z_]+)}$")).unwrap();
        assert!(regex.is_match(b"${API_KEY}"));
    }

    #[test]
    fn whole_match_translations_capture_nothing() {
        assert_eq!(
            non_capturing(r"a(b)(?:c)(?P<n>d)(?i:e)[(]\(x"),
            r"a(?:b)(?:c)(?:d)(?i:e)[(]\(x"
        );
        for (id, translation, _) in TRANSLATED {
            if let Translation::WholeMatch = translation {
                let rule = config().rules.into_iter().find(|r| r.id == *id).unwrap();
                let regex = ascii_regex(&non_capturing(&rule.regex.unwrap())).unwrap();
                assert_eq!(regex.captures_len(), 1, "{id}");
            }
        }
    }

    #[test]
    fn classes_are_ascii_as_in_go() {
        let word = ascii_regex(r"^\w+$").unwrap();
        assert!(word.is_match(b"abc_123"));
        assert!(!word.is_match("\u{e9}t\u{e9}".as_bytes()));
        let boundary = ascii_regex(r"\bnpm_").unwrap();
        assert!(boundary.is_match("\u{e9}npm_".as_bytes()));
    }
}
