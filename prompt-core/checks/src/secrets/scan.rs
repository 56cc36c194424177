//! One scan of a text: every finder over the text as it is and over its
//! decoded view, then one finding per place (the earliest, then the longest,
//! then the most specific).

use regex::Regex;

use super::rules::RuleSet;
use super::{SecretFinding, SecretKind, assignment, context, decode, structure};

/// A constant pattern; one that does not compile is a bug the tests catch.
pub(super) fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("secret pattern {pattern}: {e}"))
}

/// Every credential-shaped string in `text`, in order, none overlapping (the
/// earliest, then the longest, then the most specific kind wins).
///
/// The text is scanned as it is and as a model reads it at once (JSON
/// `\u` escapes, HTML character references, percent-encoding, Markdown
/// backslash escapes and full-width forms decoded); a finding of the decoded
/// view is reported at the raw bytes it came from.
///
/// ```
/// use prompt_checks::secrets::{scan, SecretKind};
///
/// let text = r#"{"note": "key \u0073k-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"}"#;
/// let found = scan(text);
/// assert_eq!(found[0].kind, SecretKind::Anthropic);
/// assert_eq!(&text[found[0].range.clone()], r"\u0073k-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx");
/// ```
pub fn scan(text: &str) -> Vec<SecretFinding> {
    let mut found = Vec::new();
    view(text, &mut found);
    if let Some(decoded) = decode::decode(text) {
        let mut seen = Vec::new();
        view(&decoded.text, &mut seen);
        found.extend(seen.into_iter().map(|f| SecretFinding {
            range: decoded.raw_range(f.range),
            ..f
        }));
    }
    let rules = RuleSet::get();
    found.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
            .then(generality(a.kind).cmp(&generality(b.kind)))
            .then(a.kind.cmp(&b.kind))
            .then(rules.is_vendored(b.rule).cmp(&rules.is_vendored(a.rule)))
            .then(a.rule.cmp(b.rule))
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

/// Every finder over one view of the text.
fn view(text: &str, out: &mut Vec<SecretFinding>) {
    RuleSet::get().find(text, out);
    context::find(text, out);
    structure::find(text, out);
    assignment::find(text, out);
}

/// Of two findings of the same range, the more specific kind names it: a
/// vendor's format, then a secret known by its context (a header, a command
/// line, a structure), then a connection string, then an assignment, then
/// a shape with neither a prefix nor a name (a bare AWS secret key).
fn generality(kind: SecretKind) -> u8 {
    match kind {
        SecretKind::AuthorizationHeader
        | SecretKind::Azure
        | SecretKind::CommandLine
        | SecretKind::Netrc
        | SecretKind::RegistryAuth
        | SecretKind::SqlPassword
        | SecretKind::PasswordFile => 1,
        SecretKind::ConnectionString => 2,
        SecretKind::Assignment => 3,
        SecretKind::AwsSecretKey => 4,
        _ => 0,
    }
}
