//! The secrets guard over positive and negative samples, and over an
//! assembled prompt (naming the layer and the byte range).

use prompt_core::secrets::{SecretKind, redact, scan, scan_prompt};
use prompt_core::{Context, Stability};
use prompt_tests::fixed;

/// Credential-shaped samples (made up; none is a real key) and what each is.
const POSITIVE: &[(&str, SecretKind, &str)] = &[
    (
        "key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abc",
        SecretKind::Anthropic,
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abc",
    ),
    (
        "OPENAI: sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34 ok",
        SecretKind::OpenAi,
        "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34",
    ),
    (
        "legacy sk-0123456789abcdefghijABCDEFGHIJ0123456789abcd",
        SecretKind::OpenAi,
        "sk-0123456789abcdefghijABCDEFGHIJ0123456789abcd",
    ),
    (
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        SecretKind::Aws,
        "AKIAIOSFODNN7EXAMPLE",
    ),
    (
        "token ghp_0123456789abcdefghijABCDEFGHIJ012345 here",
        SecretKind::GitHub,
        "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    ),
    (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        SecretKind::GitHub,
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "SLACK xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        SecretKind::Slack,
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "maps AIzaSyA-1234567890abcdefghijklmnopqrstu x",
        SecretKind::Google,
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter",
        SecretKind::PrivateKey,
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow (cut by a cap)",
        SecretKind::PrivateKey,
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow (cut by a cap)",
    ),
    (
        "DATABASE_PASSWORD=hunter2hunter2\n",
        SecretKind::Assignment,
        "hunter2hunter2",
    ),
    (
        "  export STRIPE_SECRET_KEY=\"rk_live_abcdefgh123\"",
        SecretKind::Assignment,
        "rk_live_abcdefgh123",
    ),
    (
        "api_key: 9f8e7d6c5b4a39281706",
        SecretKind::Assignment,
        "9f8e7d6c5b4a39281706",
    ),
];

/// Text that looks a little like a secret and is not one.
const NEGATIVE: &[&str] = &[
    "This is a risk-free change; ask-and-answer sk- style.",
    "Set OPENAI_API_KEY in your environment before you run it.",
    "API_KEY=${API_KEY}",
    "export GITHUB_TOKEN=$(gh auth token)",
    "SECRET_NAME=<your-secret>",
    "PASSWORD=short",
    "The token budget is 4096; see TOKEN_LIMIT below.",
    "AKIA is the prefix of AWS key ids.",
    "ghp_ tokens start with ghp_.",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----",
    "xoxb- is a Slack bot token prefix.",
    "Call AIza to start.",
];

#[test]
fn every_positive_sample_is_found_with_its_kind_and_exact_range() {
    for (text, kind, secret) in POSITIVE {
        let found = scan(text);
        assert_eq!(found.len(), 1, "{text:?}: {found:?}");
        assert_eq!(found[0].kind, *kind, "{text:?}");
        assert_eq!(&text[found[0].range.clone()], *secret, "{text:?}");
    }
}

#[test]
fn no_negative_sample_is_found() {
    for text in NEGATIVE {
        assert_eq!(scan(text), [], "{text:?}");
    }
}

#[test]
fn redact_replaces_each_finding_and_nothing_else() {
    let text = "a AKIAIOSFODNN7EXAMPLE b\nDB_PASSWORD=hunter2hunter2\nc";
    let found = scan(text);
    assert_eq!(
        redact(text, &found),
        "a [REDACTED aws access key id] b\nDB_PASSWORD=[REDACTED secret assignment]\nc"
    );
    assert_eq!(redact("clean", &scan("clean")), "clean");
}

#[test]
fn findings_in_a_prompt_name_their_layer_and_range() {
    let pipeline = fixed(&[
        ("persona", 100, Stability::Stable, "You are careful."),
        ("silent", 150, Stability::Stable, ""),
        (
            "memory",
            200,
            Stability::Stable,
            "Deploy key: ghp_0123456789abcdefghijABCDEFGHIJ012345",
        ),
        (
            "runtime",
            10_000,
            Stability::Dynamic,
            "AWS AKIAIOSFODNN7EXAMPLE",
        ),
    ]);
    let prompt = prompt_core::PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let text = prompt.text();
    let found = scan_prompt(&prompt);
    let summary: Vec<(Option<&str>, SecretKind, &str)> = found
        .iter()
        .map(|f| (f.layer, f.finding.kind, &text[f.finding.range.clone()]))
        .collect();
    assert_eq!(
        summary,
        [
            (
                Some("memory"),
                SecretKind::GitHub,
                "ghp_0123456789abcdefghijABCDEFGHIJ012345"
            ),
            (Some("runtime"), SecretKind::Aws, "AKIAIOSFODNN7EXAMPLE"),
        ]
    );
}
