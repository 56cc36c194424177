//! An opt-in guard against credentials in a prompt.
//!
//! A prompt is built from files an agent did not write, and it is sent to a
//! paid API: a key that found its way into `AGENTS.md`, a memory file or a
//! symlinked `.env` would leave the machine with it. [`scan`] finds
//! credential-shaped strings in a text, [`scan_prompt`] scans every channel
//! of an assembled prompt (the system prompt and the reminder that rides in
//! the user message) and names the layer each finding sits in, `scan_request`
//! (feature `providers`) scans every string of a request body that leaves
//! the process, and [`redact`] replaces them.
//!
//! What is looked for, anywhere in a line (after a list marker, in prose,
//! in a JSON or YAML value):
//!
//! - API keys and tokens by their documented prefixes: Anthropic
//!   (`sk-ant-`), OpenAI (`sk-`, `sk-proj-`), AWS key ids (`AKIA`, `ASIA`),
//!   GitHub (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), GitLab
//!   (`glpat-`), Slack (`xoxb-`, `xoxp-`, ..., and incoming-webhook URLs),
//!   Stripe (`sk_live_`, `sk_test_`, `rk_live_`, `whsec_`), Google (`AIza`),
//!   Slack app tokens (`xapp-`), PyPI (`pypi-AgE`), Hugging Face (`hf_`),
//!   SendGrid (`SG.`), Twilio API keys (`SK` + 32 hex), Discord bot tokens
//!   and webhook URLs, and JSON Web Tokens (`eyJ....eyJ....sig`);
//! - PEM and PGP private key blocks, PuTTY key files, age identities
//!   (`AGE-SECRET-KEY-1...`);
//! - the password of a connection string (`postgres://user:PASSWORD@host`);
//! - secrets known by what stands before them: `Authorization: Bearer ...`
//!   (and `Basic`, `token`), Azure `AccountKey=` / `SharedAccessKey=`, a
//!   `.netrc` entry's `password`, `curl -u user:PASS`, `mysql -pPASS`,
//!   `sshpass -p PASS`, `--password PASS`, a Docker config's `"auth"`;
//! - the value given to a secret-looking name (`DB_PASSWORD=...`,
//!   `export API_TOKEN="..."`, `{"db_password": "..."}`, `client_secret: ...`,
//!   `- AWS_SECRET_ACCESS_KEY=...` in a list, `Deploy with KEY=...` in prose).
//!   A name is secret-looking when one of its parts (split at `_`, `-`, `.`
//!   and camelCase) is `password`, `passwd`, `pwd`, `passphrase`, `secret`,
//!   `token`, `credential(s)` or `apikey`, or is `key` after `api`, `access`,
//!   `secret`, `private`, ...; but not when its last part says it is about
//!   the secret rather than the secret (`PASSWORD_POLICY`, `TOKEN_URL`,
//!   `SECRET_NAME`, `password_file`, `max_tokens`).
//!
//! Shapes, not proof: a finding is a string to look at. Placeholders are not
//! findings: `${API_KEY}`, `$(gh auth token)`, `<your-key>`, `{{ secret }}`,
//! `********`, `your-api-key-here`, `changeme`, an empty value, a number, a
//! path, a URL without a password, a reference such as `os.environ[...]` or
//! `config.db.password`. A plain-word name in prose (`Password: required`)
//! needs a value with both letters and digits. The corpus in
//! `tests/fixtures/secrets/` holds labelled positives and negatives; the
//! `secrets` test measures recall and false positives on it.
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
use crate::spec::Channel;

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
    /// A PEM or PGP private key block.
    PrivateKey,
    /// A GitLab personal access token, `glpat-...`.
    GitLab,
    /// A Stripe secret or restricted key (`sk_live_...`, `rk_test_...`) or webhook secret (`whsec_...`).
    Stripe,
    /// A JSON Web Token, `eyJ....eyJ....signature`.
    Jwt,
    /// The password of a connection string, `scheme://user:PASSWORD@host`.
    ConnectionString,
    /// The value of an assignment to a secret-looking name, in a `.env`
    /// line, a list item, prose, JSON or YAML.
    Assignment,
    /// A PyPI upload token, `pypi-AgE...`.
    PyPi,
    /// A Hugging Face access token, `hf_...`.
    HuggingFace,
    /// A SendGrid API key, `SG.<22>.<43>`.
    SendGrid,
    /// A Twilio API key secret id, `SK` and 32 hex digits.
    Twilio,
    /// A Discord bot token (`<id>.<time>.<hmac>`) or webhook URL.
    Discord,
    /// The credentials of an HTTP `Authorization` header (`Bearer`, `Basic`, `token`).
    AuthorizationHeader,
    /// The key of an Azure connection string (`AccountKey=`, `SharedAccessKey=`).
    Azure,
    /// A password on a command line: `curl -u user:PASS`, `mysql -pPASS`,
    /// `--password PASS`, `sshpass -p PASS`.
    CommandLine,
    /// The password of a `.netrc` entry (`machine ... login ... password PASS`).
    Netrc,
    /// The `auth` of a Docker registry config (base64 of `user:password`).
    RegistryAuth,
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
            SecretKind::GitLab => "gitlab token",
            SecretKind::Stripe => "stripe key",
            SecretKind::Jwt => "json web token",
            SecretKind::ConnectionString => "connection string password",
            SecretKind::Assignment => "secret assignment",
            SecretKind::PyPi => "pypi token",
            SecretKind::HuggingFace => "hugging face token",
            SecretKind::SendGrid => "sendgrid api key",
            SecretKind::Twilio => "twilio api key",
            SecretKind::Discord => "discord token",
            SecretKind::AuthorizationHeader => "authorization header credentials",
            SecretKind::Azure => "azure account key",
            SecretKind::CommandLine => "command-line password",
            SecretKind::Netrc => "netrc password",
            SecretKind::RegistryAuth => "registry auth",
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
    /// The layer whose output holds it; `None` when it spans a join (or the
    /// budget's notice).
    pub layer: Option<&'static str>,
    /// Where the layer spoke: the system prompt, or the reminder carried in
    /// the last user message.
    pub channel: Channel,
    /// The finding; its range is in [`AssembledPrompt::text`] for
    /// [`Channel::System`], in [`AssembledPrompt::reminder`] for
    /// [`Channel::Reminder`].
    pub finding: SecretFinding,
}

/// The provider patterns: each match is a finding of its kind.
fn patterns() -> &'static [(SecretKind, Regex)] {
    static PATTERNS: OnceLock<Vec<(SecretKind, Regex)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let table = [
            (SecretKind::Anthropic, r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
            (
                SecretKind::OpenAi,
                r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            ),
            (SecretKind::Aws, r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
            (
                SecretKind::GitHub,
                r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            ),
            (
                SecretKind::Slack,
                r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{20,}|https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
            ),
            (SecretKind::Google, r"\bAIza[0-9A-Za-z_-]{35}"),
            (
                SecretKind::PrivateKey,
                concat!(
                    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
                    // PuTTY's key file, from its header to its MAC (or the end).
                    r"|PuTTY-User-Key-File-\d+:(?s:.*?)(?:Private-MAC:[ \t]*[0-9A-Fa-f]+|\z)",
                    // An age identity (bech32, upper case), post-quantum ones too.
                    r"|\bAGE-SECRET-KEY-(?:PQ-)?1[02-9AC-HJ-NP-Z]{50,}",
                ),
            ),
            (SecretKind::GitLab, r"\bglpat-[A-Za-z0-9_-]{20,}"),
            (
                SecretKind::Stripe,
                r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/=]{20,})",
            ),
            (
                SecretKind::Jwt,
                r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            ),
            (SecretKind::PyPi, r"\bpypi-AgE[A-Za-z0-9_-]{40,}"),
            (SecretKind::HuggingFace, r"\bhf_[A-Za-z0-9]{30,}\b"),
            (
                SecretKind::SendGrid,
                r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
            ),
            (SecretKind::Twilio, r"\bSK[0-9a-f]{32}\b"),
            (
                SecretKind::Discord,
                concat!(
                    r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
                    r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
                ),
            ),
        ];
        table
            .into_iter()
            .map(|(kind, pattern)| (kind, compile(pattern)))
            .collect()
    })
}

/// A constant pattern; one that does not compile is a bug the tests catch.
fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("secret pattern {pattern}: {e}"))
}

/// Secrets known by what stands before them: each match's group `s` is the
/// secret, kept unless it reads as a placeholder.
fn in_context() -> &'static [(SecretKind, Regex)] {
    static PATTERNS: OnceLock<Vec<(SecretKind, Regex)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let table = [
            (
                SecretKind::AuthorizationHeader,
                r#"(?i)\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|bot)[ \t]+(?-i)(?P<s>[A-Za-z0-9._~+/=-]{12,})"#,
            ),
            (
                SecretKind::Azure,
                r"\b(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
            ),
            (
                SecretKind::CommandLine,
                concat!(
                    // curl -u user:pass / --user user:pass (quoted or not).
                    r#"(?m)\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:[ \t]+|=)?["']?[^\s:"']+:(?P<s>[^\s"'@]+)"#,
                    // mysql -pSECRET (attached; `-p` alone prompts).
                    r#"|\bmysql(?:dump|admin|import)?\b[^\n]*?[ \t]-p(?P<s2>[^\s"'-][^\s"']*)"#,
                    // sshpass -p SECRET.
                    r#"|\bsshpass[ \t]+-p[ \t]*["']?(?P<s3>[^\s"']+)"#,
                    // --password SECRET / --password=SECRET.
                    r#"|(?:^|[ \t])--?(?:password|passwd|pass)(?:[ \t]+|=)["']?(?P<s4>[^\s"'-][^\s"']*)"#,
                ),
            ),
            (
                SecretKind::Netrc,
                r"(?m)(?:^|[ \t])(?:machine[ \t\n]+\S+|default)(?:[ \t\n]+(?:login|account)[ \t\n]+\S+)+[ \t\n]+password[ \t\n]+(?P<s>\S+)",
            ),
            (
                SecretKind::RegistryAuth,
                r#""auth"[ \t]*:[ \t]*"(?P<s>[A-Za-z0-9+/]{12,}={0,2})""#,
            ),
        ];
        table
            .into_iter()
            .map(|(kind, pattern)| (kind, compile(pattern)))
            .collect()
    })
}

/// `scheme://user:PASSWORD@`: group 1 the user, group 2 the password.
fn connection_string() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        compile(r#"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://([^\s:/?#@"'<>]*):([^\s/?#@"'<>]+)@"#)
    })
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
fn value_after(text: &str, at: usize) -> Option<(Range<usize>, bool)> {
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

/// Every credential-shaped string in `text`, in order, none overlapping (the
/// earliest, then the longest, then the most specific kind wins).
pub fn scan(text: &str) -> Vec<SecretFinding> {
    let mut found = Vec::new();
    for (kind, regex) in patterns() {
        for m in regex.find_iter(text) {
            found.push(SecretFinding {
                kind: *kind,
                range: m.range(),
            });
        }
    }
    for (kind, regex) in in_context() {
        for captures in regex.captures_iter(text) {
            let secret = ["s", "s2", "s3", "s4"]
                .into_iter()
                .find_map(|group| captures.name(group));
            if let Some(secret) = secret
                && secret.as_str().chars().count() >= 6
                && !is_placeholder(secret.as_str())
                && !common_password(secret.as_str())
                // A word of prose after `--password` is not one.
                && (*kind != SecretKind::CommandLine
                    || !secret.as_str().chars().all(|c| c.is_ascii_lowercase()))
            {
                found.push(SecretFinding {
                    kind: *kind,
                    range: secret.range(),
                });
            }
        }
    }
    for captures in connection_string().captures_iter(text) {
        if let (Some(user), Some(password)) = (captures.get(1), captures.get(2))
            && !is_placeholder(password.as_str())
            && !common_password(password.as_str())
            && password.as_str() != user.as_str()
        {
            found.push(SecretFinding {
                kind: SecretKind::ConnectionString,
                range: password.range(),
            });
        }
    }
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
        if !secret_name(name.as_str()) {
            at = sep.start();
            continue;
        }
        let Some((value, quoted)) = value_after(text, sep.end()) else {
            at = sep.end();
            continue;
        };
        let skip = value.end + usize::from(quoted);
        match assigned_secret(text, &captures, value, quoted) {
            Some(range) => {
                at = skip.max(range.end);
                found.push(SecretFinding {
                    kind: SecretKind::Assignment,
                    range,
                });
            }
            None => at = skip,
        }
    }
    found.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
            .then(generality(a.kind).cmp(&generality(b.kind)))
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

/// Of two findings of the same range, the more specific kind names it: a
/// vendor's format, then a secret known by its context (a header, a command
/// line), then a connection string, then an assignment.
fn generality(kind: SecretKind) -> u8 {
    match kind {
        SecretKind::AuthorizationHeader
        | SecretKind::Azure
        | SecretKind::CommandLine
        | SecretKind::Netrc
        | SecretKind::RegistryAuth => 1,
        SecretKind::ConnectionString => 2,
        SecretKind::Assignment => 3,
        _ => 0,
    }
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
            let line = &after[..after.find('\n').unwrap_or(after.len())];
            let line = line.find(" #").map_or(line, |i| &line[..i]);
            let whole = &text[range.start..range.end + line.trim_end().len()];
            if captures.name("lead").is_some() && identifier && passphrase(name, whole) {
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
fn secret_name(name: &str) -> bool {
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
fn name_parts(name: &str) -> Vec<String> {
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
fn plausible(value: &str, name: &str, strong: bool, quoted: bool) -> bool {
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
fn is_placeholder(value: &str) -> bool {
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
fn common_password(password: &str) -> bool {
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
    let env_name =
        value.contains('_') && identifier(value) && value.chars().all(|c| !c.is_lowercase());
    dotted || env_name
}

/// Every finding in what `prompt` sends, each with the layer that wrote it.
///
/// Both channels are scanned: the system prompt ([`AssembledPrompt::text`],
/// Stable and Dynamic layers alike) and the reminder
/// ([`AssembledPrompt::reminder`], the `channel = Reminder` layers, which a
/// request carries in its last user message). A finding's range is in the
/// text of its [`channel`](PromptFinding::channel); its layer is named
/// whichever channel it spoke in. The system prompt's findings come first.
pub fn scan_prompt(prompt: &AssembledPrompt) -> Vec<PromptFinding> {
    let mut findings = Vec::new();
    let system = prompt.text();
    scan_channel(prompt, Channel::System, &system, &mut findings);
    if let Some(reminder) = prompt.reminder() {
        scan_channel(prompt, Channel::Reminder, reminder, &mut findings);
    }
    findings
}

/// The findings of [`scan`] over `text`, the joined text of `channel`.
fn scan_channel(
    prompt: &AssembledPrompt,
    channel: Channel,
    text: &str,
    findings: &mut Vec<PromptFinding>,
) {
    let spans = layer_spans(prompt, channel, text);
    findings.extend(scan(text).into_iter().map(|finding| {
        PromptFinding {
            layer: spans
                .iter()
                .find(|(_, span)| {
                    span.start <= finding.range.start && finding.range.end <= span.end
                })
                .map(|(name, _)| *name),
            channel,
            finding,
        }
    }));
}

/// Each layer that spoke in `channel`: its byte range in `text`, that
/// channel's joined text. The outputs lie in trace order joined by the
/// prompt's separator; the system prompt may end with a budget notice after
/// them. When the text is not laid out so (an assembly this module does not
/// know), no layer is named rather than a wrong one.
fn layer_spans(
    prompt: &AssembledPrompt,
    channel: Channel,
    text: &str,
) -> Vec<(&'static str, Range<usize>)> {
    let separator = prompt.separator();
    let mut spans = Vec::new();
    let mut at = 0;
    for layer in prompt
        .trace()
        .layers
        .iter()
        .filter(|l| l.channel == channel && !l.silent && l.bytes > 0)
    {
        if !spans.is_empty() {
            if !text[at..].starts_with(separator) {
                return Vec::new();
            }
            at += separator.len();
        }
        let span = at..at + layer.bytes;
        if span.end > text.len() || !text.is_char_boundary(span.end) {
            return Vec::new();
        }
        at = span.end;
        spans.push((layer.name, span));
    }
    // What follows the last layer can only be the budget's notice.
    if at < text.len() && (channel == Channel::Reminder || !text[at..].starts_with(separator)) {
        return Vec::new();
    }
    spans
}

/// A finding in a request body: the JSON string it sits in, and where.
#[cfg(feature = "providers")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestFinding {
    /// The string's place in the body, as a JSON Pointer (RFC 6901):
    /// `/messages/0/content/1/text`.
    pub pointer: String,
    /// The string's text, as decoded from the JSON.
    pub text: String,
    /// The finding; its range is in [`text`](Self::text).
    pub finding: SecretFinding,
}

/// Every finding in a request body about to leave the process (an
/// Anthropic, OpenAI or Gemini request, a CLI agent's invocation): each
/// string value of `body`, at any depth, is scanned as decoded text, so a
/// JSON escape cannot hide a secret. Object keys are names the request
/// format chose, not text, and are not scanned.
///
/// A body holds the prompt's text and anything added to it (the user's
/// message, an agent's text welded on after assembly): [`scan_prompt`] names
/// the layers, this finds what reaches the wire whatever wrote it.
///
/// ```
/// use prompt_core::secrets::scan_request;
///
/// let body = serde_json::json!({
///     "messages": [{"role": "user", "content": [
///         {"type": "text", "text": "<system-reminder>\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n</system-reminder>"}
///     ]}]
/// });
/// let found = scan_request(&body);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].pointer, "/messages/0/content/0/text");
/// ```
#[cfg(feature = "providers")]
pub fn scan_request(body: &serde_json::Value) -> Vec<RequestFinding> {
    fn walk(value: &serde_json::Value, pointer: &mut String, out: &mut Vec<RequestFinding>) {
        match value {
            serde_json::Value::String(text) => {
                out.extend(scan(text).into_iter().map(|finding| RequestFinding {
                    pointer: pointer.clone(),
                    text: text.clone(),
                    finding,
                }));
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    walk(item, pointer, out);
                    pointer.truncate(len);
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, item) in fields {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    walk(item, pointer, out);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, &mut String::new(), &mut out);
    out
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
