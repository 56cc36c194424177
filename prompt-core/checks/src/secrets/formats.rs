//! The crate's own vendor formats: the ones gitleaks' list lacks, or matches
//! more narrowly than the vendor issues them (a shorter or longer key, a
//! bare value gitleaks wants a keyword beside), each checked against the
//! vendor's documentation or trufflehog's detector for it.
//!
//! Each pattern reads bytes with ASCII classes, like gitleaks' rules; a
//! group named `s` is the secret, else the whole match is.

use std::ops::Range;

use super::SecretKind;
use super::rules::{Check, Rule, Source, ascii_regex};

/// One format: its id, kind, keywords (lowercase; the pattern runs only on
/// a text holding one), pattern and further check.
struct Format {
    id: &'static str,
    kind: SecretKind,
    keywords: &'static [&'static str],
    pattern: &'static str,
    check: Option<Check>,
}

const fn format(
    id: &'static str,
    kind: SecretKind,
    keywords: &'static [&'static str],
    pattern: &'static str,
) -> Format {
    Format {
        id,
        kind,
        keywords,
        pattern,
        check: None,
    }
}

use SecretKind::{
    Anthropic, Aws, AwsSecretKey, Azure, Discord, GitHub, GitLab, Google, HuggingFace, Jwt, OpenAi,
    PrivateKey, PyPi, SendGrid, Slack, Stripe, Twilio, Vendor,
};

const FORMATS: &[Format] = &[
    format(
        "anthropic",
        Anthropic,
        &["sk-ant-"],
        r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    ),
    // Also OpenRouter's `sk-or-v1-` and DeepSeek's `sk-`, which share the shape.
    format(
        "openai",
        OpenAi,
        &["sk-"],
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    ),
    format(
        "aws-access-key-id",
        Aws,
        &["akia", "asia", "abia", "acca"],
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
    ),
    Format {
        check: Some(aws_secret),
        ..format(
            "aws-secret-access-key",
            AwsSecretKey,
            &[],
            r"[A-Za-z0-9/+]{40,}",
        )
    },
    format(
        "github",
        GitHub,
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    format(
        "slack",
        Slack,
        &["xox", "xapp-"],
        r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{20,}",
    ),
    // Incoming webhooks, workflow webhooks and workflow triggers.
    format(
        "slack-webhook",
        Slack,
        &["hooks.slack.com"],
        concat!(
            r"https://hooks\.slack\.com/(?:services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
            r"|workflows/T[A-Za-z0-9_]+/A[A-Za-z0-9_]+/[0-9]+/[A-Za-z0-9_]+",
            r"|triggers/T[A-Za-z0-9_]+/[0-9]+/[A-Za-z0-9_]+)",
        ),
    ),
    format(
        "google-api-key",
        Google,
        &["aiza"],
        r"\bAIza[0-9A-Za-z_-]{35}",
    ),
    format(
        "google-oauth-access-token",
        Vendor,
        &["ya29."],
        r"\bya29\.[A-Za-z0-9_-]{20,}",
    ),
    format(
        "google-oauth-client-secret",
        Vendor,
        &["gocspx-"],
        r"\bGOCSPX-[A-Za-z0-9_-]{28}",
    ),
    format(
        "private-key-block",
        PrivateKey,
        &["-----begin", "putty-user-key-file", "age-secret-key-"],
        concat!(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
            // PuTTY's key file, from its header to its MAC (or the end).
            r"|PuTTY-User-Key-File-\d+:(?s:.*?)(?:Private-MAC:[ \t]*[0-9A-Fa-f]+|\z)",
            // An age identity (bech32, upper case), post-quantum ones too.
            r"|\bAGE-SECRET-KEY-(?:PQ-)?1[02-9AC-HJ-NP-Z]{50,}",
        ),
    ),
    // A key's base64 body without its BEGIN line: from the DER header every
    // key of its type starts with (PKCS#1 and PKCS#8 RSA, PKCS#8 and SEC1 EC,
    // Ed25519 and X25519, OpenSSH), or base64 lines that an END line closes.
    format(
        "private-key-body",
        PrivateKey,
        &[
            "ibaak",
            "ibadanbgkqhkig9w0baqefaasc",
            "mhccaqeei",
            "migkagebbda",
            "ageambmgbyqgsm49age",
            "mc4caqawbqydk2v",
            "b3blbnnzac1rzxktdjea",
            "-----end",
        ],
        concat!(
            r"(?:\bMII[A-Za-z0-9+/]{3}IBA(?:AK[BC]|DANBgkqhkiG9w0BAQEFAASC)|\bMIG[A-Za-z0-9+/]AgEAMBMGByqGSM49AgE",
            r"|\bMHcCAQEEI|\bMIGkAgEBBDA|\bMC4CAQAwBQYDK2V[wu]BCIEI|\bb3BlbnNzaC1rZXktdjEA)",
            r"[A-Za-z0-9+/=]*(?:(?:\r?\n|\\n)[A-Za-z0-9+/=]{4,})*",
            r"(?:(?:\r?\n|\\n)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?",
            r"|(?m:^[A-Za-z0-9+/=]{16,}\r?\n)+-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        ),
    ),
    format("gitlab", GitLab, &["glpat-"], r"\bglpat-[A-Za-z0-9_-]{20,}"),
    format(
        "stripe",
        Stripe,
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
        r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/=]{20,})",
    ),
    format(
        "json-web-token",
        Jwt,
        &["eyj"],
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    format("pypi", PyPi, &["pypi-age"], r"\bpypi-AgE[A-Za-z0-9_-]{40,}"),
    format(
        "hugging-face",
        HuggingFace,
        &["hf_"],
        r"\bhf_[A-Za-z0-9]{30,}\b",
    ),
    format(
        "sendgrid",
        SendGrid,
        &["sg."],
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    format("twilio-key", Twilio, &["sk"], r"\bSK[0-9a-f]{32}\b"),
    // A Twilio auth token is 32 hex digits with nothing of its own: it is
    // taken when `twilio`, or an account SID (`AC` and 32 hex digits, as
    // `Client("AC...", "TOKEN")` passes them), stands before it within 96
    // characters on its line. The SID is an account's name, not a secret.
    Format {
        check: Some(letters_and_digits),
        ..format(
            "twilio-auth-token",
            Twilio,
            &[],
            r"(?:(?i:\btwilio\b)|\bAC[0-9a-f]{32}\b)[^\n]{0,96}?\b(?P<s>[0-9a-f]{32})\b",
        )
    },
    // An API key's secret (32 letters and digits) after its SID (`SK` and 32
    // hex digits), as `Client("SK...", "SECRET", "AC...")` passes them.
    Format {
        check: Some(letters_and_digits),
        ..format(
            "twilio-api-key-secret",
            Twilio,
            &["sk"],
            r"\bSK[0-9a-f]{32}\b[^\n]{0,64}?\b(?P<s>[A-Za-z0-9]{32})\b",
        )
    },
    format(
        "discord",
        Discord,
        &[],
        concat!(
            r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
            r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
        ),
    ),
    // Formats gitleaks has no rule for (trufflehog's detectors and the
    // vendors' documentation give their shapes).
    format("groq", Vendor, &["gsk_"], r"\bgsk_[A-Za-z0-9]{52}\b"),
    format("xai", Vendor, &["xai-"], r"\bxai-[A-Za-z0-9_]{80}\b"),
    format(
        "supabase",
        Vendor,
        &["sbp_", "sb_secret_"],
        r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}",
    ),
    format("replicate", Vendor, &["r8_"], r"\br8_[A-Za-z0-9_-]{37}\b"),
    format(
        "docker-hub",
        Vendor,
        &["dckr_"],
        r"\bdckr_(?:pat_[A-Za-z0-9_-]{27}|oat_[A-Za-z0-9_-]{32})",
    ),
    format(
        "square-oauth-secret",
        Vendor,
        &["sq0csp-"],
        r"\b(?:sandbox-)?sq0csp-[A-Za-z0-9_-]{40,50}",
    ),
    format(
        "mapbox-secret-token",
        Vendor,
        &["sk.eyj"],
        r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
    ),
    format(
        "new-relic-user-key",
        Vendor,
        &["nrak-"],
        r"\bNRAK-[A-Z0-9]{27}\b",
    ),
    format(
        "telegram-bot-token",
        Vendor,
        &[":aa"],
        r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b",
    ),
    Format {
        check: Some(letters_and_digits),
        ..format("mailgun-key", Vendor, &["key-"], r"\bkey-[a-f0-9]{32}\b")
    },
    // The signature of an Azure shared access signature, in a URL (its
    // `+`, `/` and `=` written as they are or percent-encoded).
    format(
        "azure-sas-signature",
        Azure,
        &["sig="],
        r"[?&]sig=(?P<s>(?:[A-Za-z0-9+/]|%2[BbFf]){30,}(?:=|%3[Dd]){0,2})",
    ),
    format(
        "langsmith",
        Vendor,
        &["lsv2_"],
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
    ),
    format(
        "tailscale",
        Vendor,
        &["tskey-"],
        r"\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}",
    ),
    format(
        "contentful-pat",
        Vendor,
        &["cfpat-"],
        r"\bCFPAT-[A-Za-z0-9_-]{43}",
    ),
    format(
        "doppler",
        Vendor,
        &["dp."],
        r"\bdp\.(?:ct|st(?:\.[a-z0-9_-]{2,35})?|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b",
    ),
    // `pcsk_` + a key id + `_` + the secret; the id is 4 to 6 characters
    // and the secret about 63 (trufflehog's detector reads 4+ and 40+).
    format(
        "pinecone",
        Vendor,
        &["pcsk_"],
        r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,100}\b",
    ),
    // Random base62: a run of letters only is an identifier
    // (`secret_ManagerClientFactoryImplementations`).
    Format {
        check: Some(letters_and_digits),
        ..format(
            "notion-legacy",
            Vendor,
            &["secret_"],
            r"\bsecret_[A-Za-z0-9]{43}\b",
        )
    },
    // The vendors' formats below are gitleaks' too, but its rules want the
    // token followed by a quote, a space, `;` or the end: a token that ends
    // a sentence (`.`), sits in parentheses or a table cell, or is shorter
    // than gitleaks reads is missed there. These read them with word
    // boundaries; where both find a token, gitleaks' rule names it.
    // npm: `npm_` + 36 base62 (30 random and a 6-character checksum).
    Format {
        check: Some(letters_and_digits),
        ..format("npm-token", Vendor, &["npm_"], r"\bnpm_[A-Za-z0-9]{36}\b")
    },
    // Vault service tokens: `hvs.` + at least 24 characters (a dev server's
    // root token is 24; a namespaced or long-form token 90 and more).
    Format {
        check: Some(letters_and_digits),
        ..format(
            "vault-token",
            Vendor,
            &["hvs."],
            r"\bhvs\.[A-Za-z0-9_-]{24,}",
        )
    },
    // Atlassian API tokens (`ATATT3xFfGF0...`, admin `ATCTT3...`): base64url
    // with `=`, ending in `=` and an 8-character checksum.
    format(
        "atlassian",
        Vendor,
        &["atatt3", "atctt3"],
        r"\bAT[AC]TT3[A-Za-z0-9_=-]{100,300}=[A-Za-z0-9]{8}\b",
    ),
    // Notion integration tokens: `ntn_` + 46 base62 (11 digits first).
    Format {
        check: Some(letters_and_digits),
        ..format("notion", Vendor, &["ntn_"], r"\bntn_[A-Za-z0-9]{40,50}\b")
    },
    // Sentry user tokens (`sntryu_` + 64 hex) and org tokens (`sntrys_` +
    // base64 of the token's JSON claims + `_` + a 43-character secret).
    format(
        "sentry-token",
        Vendor,
        &["sntryu_", "sntrys_"],
        r"\bsntryu_[a-f0-9]{64}\b|\bsntrys_eyJ[A-Za-z0-9+/=]{20,1000}_[A-Za-z0-9+/]{43}",
    ),
    format(
        "zapier-webhook",
        Vendor,
        &["hooks.zapier.com"],
        r"https://hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]+/?",
    ),
    format("buildkite", Vendor, &["bkua_"], r"\bbkua_[a-f0-9]{40}\b"),
    format(
        "circleci",
        Vendor,
        &["ccipat_"],
        r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
    ),
    format("netlify", Vendor, &["nfp_"], r"\bnfp_[A-Za-z0-9_]{36}\b"),
    format(
        "deno-deploy",
        Vendor,
        &["ddp_", "ddw_"],
        r"\bdd[pw]_[A-Za-z0-9]{36}\b",
    ),
    format(
        "bitbucket-app-password",
        Vendor,
        &["atbb"],
        r"\bATBB[A-Za-z0-9_=.-]{28,}",
    ),
    format("figma", Vendor, &["figd_"], r"\bfigd_[A-Za-z0-9_-]{40}"),
];

/// The crate's own rules. Their ids are not gitleaks' (a unit test checks).
pub(super) fn rules() -> Vec<Rule> {
    FORMATS
        .iter()
        .map(|f| {
            let regex =
                ascii_regex(f.pattern).unwrap_or_else(|e| panic!("secret format {}: {e}", f.id));
            let secret_group = regex
                .capture_names()
                .position(|name| name == Some("s"))
                .unwrap_or(0);
            Rule {
                id: f.id.to_owned(),
                kind: f.kind,
                source: Source::Own,
                regex,
                keywords: f.keywords.iter().map(|k| (*k).to_owned()).collect(),
                secret_group,
                entropy: 0.0,
                allowlists: Vec::new(),
                check: f.check,
            }
        })
        .collect()
}

/// Whether `range` holds both letters and digits (a value that is all
/// digits or all letters is a number or a word, not a random key).
fn letters_and_digits(text: &[u8], range: Range<usize>) -> bool {
    let value = &text[range];
    value.iter().any(u8::is_ascii_alphabetic) && value.iter().any(u8::is_ascii_digit)
}

/// Whether the run at `range` reads as an AWS secret access key on its own:
/// exactly 40 characters of base64 (a longer run is other data), not part of
/// a path, name or URL (`_`, `-`, `.`, `%`, `\` before it; `_`, `-`, `=`,
/// `.` and a letter after it), upper and lower case and a digit, at most
/// four `/`, never two together, and as mixed as random text: at least 12
/// changes of class (upper, lower, digit, symbol) between neighbours.
fn aws_secret(text: &[u8], range: Range<usize>) -> bool {
    if range.len() != 40 {
        return false;
    }
    let before = range.start.checked_sub(1).map(|i| text[i]);
    if before.is_some_and(|b| matches!(b, b'_' | b'-' | b'.' | b'%' | b'\\' | b'@' | b':')) {
        return false;
    }
    let after = text.get(range.end).copied();
    let after_next = text.get(range.end + 1).copied();
    if after.is_some_and(|b| matches!(b, b'_' | b'-' | b'=' | b'@'))
        || (after == Some(b'.') && after_next.is_some_and(|b| b.is_ascii_alphanumeric()))
    {
        return false;
    }
    let value = &text[range];
    let class = |b: u8| match b {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let slashes = value.iter().filter(|&&b| b == b'/').count();
    let changes = value
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    value.iter().any(u8::is_ascii_uppercase)
        && value.iter().any(u8::is_ascii_lowercase)
        && value.iter().any(u8::is_ascii_digit)
        && slashes <= 4
        && !value.windows(2).any(|w| w == b"//")
        && changes >= 12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_own_id_is_a_gitleaks_id_or_repeated() {
        let vendored = super::super::gitleaks::load();
        let mut ids: Vec<&str> = FORMATS.iter().map(|f| f.id).collect();
        for id in &ids {
            assert!(
                !vendored.rules.iter().any(|r| r.id == *id),
                "{id} is also a gitleaks rule's id"
            );
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), FORMATS.len(), "an id is repeated");
    }

    #[test]
    fn a_bare_aws_secret_is_told_from_paths_and_hashes() {
        let found = |text: &str| {
            let regex = ascii_regex(r"[A-Za-z0-9/+]{40,}").unwrap();
            regex
                .find_iter(text.as_bytes())
                .any(|m| aws_secret(text.as_bytes(), m.range()))
        };
        assert!(found("key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY here"));
        assert!(found("\"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\""));
        // A commit hash, a longer run, a path, a URL's path, a name.
        assert!(!found("0123456789abcdef0123456789abcdef01234567"));
        assert!(!found("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYX"));
        assert!(!found("src/components/Header/NavigationMenuItem2"));
        assert!(!found(
            "https://example.com/wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        ));
        assert!(!found("my_wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        assert!(!found("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.md"));
    }
}
