//! Secrets known by what stands before them: an `Authorization` header, a
//! bearer token named in prose, an Azure connection string's key, a
//! password on a command line, a `.netrc` entry, a Docker config's `auth`,
//! and the password of a connection string (`scheme://user:PASSWORD@host`).

use std::sync::OnceLock;

use regex::Regex;

use super::assignment::{common_password, is_placeholder};
use super::scan::compile;
use super::{SecretFinding, SecretKind};

/// Each rule's id, kind and pattern: a match's group `s` (or `s2`, `s3`,
/// `s4`) is the secret, kept unless it reads as a placeholder.
fn in_context() -> &'static [(&'static str, SecretKind, Regex)] {
    static PATTERNS: OnceLock<Vec<(&'static str, SecretKind, Regex)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let table = [
            (
                "authorization-header",
                SecretKind::AuthorizationHeader,
                r#"(?i)\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|bot)[ \t]+(?-i)(?P<s>[A-Za-z0-9._~+/=-]{12,})"#,
            ),
            // `the bearer token 4f9a...`, `Bearer: 4f9a...`: a value with
            // letters and digits after the word (checked below).
            (
                "bearer-token",
                SecretKind::AuthorizationHeader,
                r#"(?i)\bbearer(?:[ \t]+(?:token|key|secret))?(?:[ \t]+(?:is|of|=))?[ \t]*[:=]?[ \t]*["'`]?(?-i)(?P<s>[A-Za-z0-9._~+/=-]{16,})"#,
            ),
            (
                "azure-connection-string",
                SecretKind::Azure,
                r"\b(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
            ),
            (
                "command-line",
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
                "netrc",
                SecretKind::Netrc,
                r"(?m)(?:^|[ \t])(?:machine[ \t\n]+\S+|default)(?:[ \t\n]+(?:login|account)[ \t\n]+\S+)+[ \t\n]+password[ \t\n]+(?P<s>\S+)",
            ),
            (
                "docker-auth",
                SecretKind::RegistryAuth,
                r#""auth"[ \t]*:[ \t]*"(?P<s>[A-Za-z0-9+/]{12,}={0,2})""#,
            ),
        ];
        table
            .into_iter()
            .map(|(id, kind, pattern)| (id, kind, compile(pattern)))
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

/// Every secret in `text` known by what stands before it.
pub(super) fn find(text: &str, out: &mut Vec<SecretFinding>) {
    for (id, kind, regex) in in_context() {
        for captures in regex.captures_iter(text) {
            let Some(secret) = ["s", "s2", "s3", "s4"]
                .into_iter()
                .find_map(|group| captures.name(group))
            else {
                continue;
            };
            let value = secret.as_str();
            // A word of prose after `--password` is not one.
            let prose =
                *kind == SecretKind::CommandLine && value.chars().all(|c| c.is_ascii_lowercase());
            // Nor is one after `bearer`: a token mixes letters and digits.
            let mixed = value.chars().any(|c| c.is_ascii_alphabetic())
                && value.chars().any(|c| c.is_ascii_digit());
            if value.chars().count() >= 6
                && !is_placeholder(value)
                && !common_password(value)
                && !prose
                && (*id != "bearer-token" || mixed)
            {
                out.push(SecretFinding {
                    kind: *kind,
                    rule: id,
                    range: secret.range(),
                });
            }
        }
    }
    for captures in connection_string().captures_iter(text) {
        let (Some(user), Some(password)) = (captures.get(1), captures.get(2)) else {
            continue;
        };
        if !is_placeholder(password.as_str())
            && !common_password(password.as_str())
            && password.as_str() != user.as_str()
        {
            out.push(SecretFinding {
                kind: SecretKind::ConnectionString,
                rule: "connection-string",
                range: password.range(),
            });
        }
    }
}
