//! The secrets guard over positive and negative samples, over the labelled
//! corpus in `tests/fixtures/secrets/` (recall and false positives measured),
//! and over an assembled prompt (naming the layer and the byte range).
//! `vendors.rs` measures recall against the vendors' formats, `renders.rs`
//! false positives on what the project renders.

mod renders;
mod vendors;

use prompt_checks::secrets::{SecretKind, redact, scan, scan_prompt, scan_request};
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::Channel;
use prompt_core::{AssembledPrompt, Context, Pipeline, PromptBuilder, Stability, TokenBudget};
use prompt_providers::Message;
use prompt_providers::anthropic::MessagesRequest;
use prompt_providers::{claude_cli, gemini, openai};
use prompt_tests::{Fixed, TEST, fixed, spec};

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
        SecretKind::Stripe,
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

/// Issue 31 row 7: a `channel = Reminder` layer holding a key, beside a
/// Dynamic system layer. `scan_prompt` used to read `prompt.text()` only,
/// so the key was not found (and with any reminder speaking, every finding
/// was named `(between layers)`). Now the reminder is scanned too and each
/// finding names its layer, whichever channel it spoke in.
fn reminder_prompt(path_cached: bool, budget: bool) -> AssembledPrompt {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed("You are careful. Key ghp_0123456789abcdefghijABCDEFGHIJ012345".into()),
            ),
            LayerEntry::new(
                spec("runtime", 10_000, Stability::Dynamic),
                Fixed("cwd: /repo\nAWS AKIAIOSFODNN7EXAMPLE".into()),
            ),
            LayerEntry::new(
                spec("todo", 10_100, Stability::Dynamic).channel(Channel::Reminder),
                Fixed("Open todos: deploy.".into()),
            ),
            LayerEntry::new(
                spec("deploy_notes", 10_200, Stability::Dynamic).channel(Channel::Reminder),
                Fixed("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()),
            ),
        ],
    )
    .unwrap();
    let mut builder = PromptBuilder::new(&pipeline);
    if budget {
        builder = builder.budget(TokenBudget::tokens(100_000));
    }
    if path_cached {
        builder.build_cached(&Context::new(), &Context::new())
    } else {
        builder.build_basic(&Context::new(), &Context::new())
    }
    .unwrap()
}

#[test]
fn a_key_in_a_reminder_layer_is_found_and_every_finding_names_its_layer() {
    for (cached, budget) in [(true, false), (false, false), (true, true)] {
        let prompt = reminder_prompt(cached, budget);
        let reminder = prompt.reminder().expect("the reminder layers spoke");
        assert!(
            !prompt.text().contains("wJalrXUtnFEMI"),
            "not a system part"
        );
        let system = prompt.text();
        let found: Vec<(Option<&str>, Channel, SecretKind, &str)> = scan_prompt(&prompt)
            .iter()
            .map(|f| {
                let text = match f.channel {
                    Channel::Reminder => reminder,
                    _ => system.as_str(),
                };
                (
                    f.layer,
                    f.channel,
                    f.finding.kind,
                    &text[f.finding.range.clone()],
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    Some("persona"),
                    Channel::System,
                    SecretKind::GitHub,
                    "ghp_0123456789abcdefghijABCDEFGHIJ012345"
                ),
                (
                    Some("runtime"),
                    Channel::System,
                    SecretKind::Aws,
                    "AKIAIOSFODNN7EXAMPLE"
                ),
                (
                    Some("deploy_notes"),
                    Channel::Reminder,
                    SecretKind::Assignment,
                    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
                ),
            ],
            "cached {cached}, budget {budget}"
        );
    }
}

/// Every request body that leaves the process carries the reminder, and
/// [`scan_request`] finds the key in each, at the string that holds it.
#[test]
fn the_key_is_found_in_every_formats_request_body() {
    let prompt = reminder_prompt(true, false);
    let message = Message::user("Hello.");
    let bodies = [
        (
            "anthropic",
            serde_json::to_value(
                MessagesRequest::new(&prompt, "claude-sonnet-4-5", 64).message(message.clone()),
            )
            .unwrap(),
        ),
        (
            "openai",
            serde_json::to_value(
                openai::ResponsesRequest::new(&prompt, "gpt-5").message(message.clone()),
            )
            .unwrap(),
        ),
        (
            "gemini",
            serde_json::to_value(
                gemini::GenerateContentRequest::new(&prompt).message(message.clone()),
            )
            .unwrap(),
        ),
        ("claude-cli", {
            // As `prompt render --format claude-cli` prints it.
            let invocation = claude_cli::invocation(&prompt).unwrap();
            serde_json::json!({"args": invocation.args, "user_prefix": invocation.user_prefix})
        }),
    ];
    for (format, body) in bodies {
        let found = scan_request(&body);
        let secrets: Vec<&str> = found
            .iter()
            .map(|f| &f.text[f.finding.range.clone()])
            .collect();
        for secret in [
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ] {
            assert!(
                secrets.contains(&secret),
                "{format}: {secret} not found in {body}"
            );
        }
        let reminder = found
            .iter()
            .find(|f| f.text[f.finding.range.clone()].starts_with("wJalr"))
            .unwrap();
        assert!(
            reminder.pointer.starts_with("/messages/")
                || reminder.pointer.starts_with("/input/")
                || reminder.pointer.starts_with("/contents/")
                || reminder.pointer.starts_with("/user_prefix"),
            "{format}: the reminder rides in the user message: {}",
            reminder.pointer
        );
    }
}

/// One corpus case: its line number, label, text, and the ranges marked `[[ ]]`.
struct Case {
    line: usize,
    label: String,
    text: String,
    marked: Vec<std::ops::Range<usize>>,
}

/// The cases of `tests/fixtures/secrets/<file>`: `LABEL<TAB>TEXT`, `\n` for
/// a newline, each secret in `[[ ]]`; `#` lines and blank lines skipped.
fn corpus(file: &str) -> Vec<Case> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/secrets")
        .join(file);
    let source = std::fs::read_to_string(&path).unwrap();
    let mut cases = Vec::new();
    for (i, line) in source.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (label, raw) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("{file}:{}: no tab after the label", i + 1));
        let (text, marked) = marked(&raw.replace("\\n", "\n"), file, i + 1);
        cases.push(Case {
            line: i + 1,
            label: label.to_owned(),
            text,
            marked,
        });
    }
    cases
}

/// `raw` without its `[[ ]]` marks, and the ranges they marked.
fn marked(raw: &str, file: &str, line: usize) -> (String, Vec<std::ops::Range<usize>>) {
    let (mut text, mut marked) = (String::new(), Vec::new());
    let mut rest = raw;
    while let Some(open) = rest.find("[[") {
        text.push_str(&rest[..open]);
        let close = rest[open..]
            .find("]]")
            .unwrap_or_else(|| panic!("{file}:{line}: [[ without ]]"));
        let start = text.len();
        text.push_str(&rest[open + 2..open + close]);
        marked.push(start..text.len());
        rest = &rest[open + close + 2..];
    }
    text.push_str(rest);
    (text, marked)
}

/// Recall on `positive.txt` (each marked secret found, exactly its range,
/// with the labelled kind, and nothing else on the line) and false
/// positives on `negative.txt` (any finding at all). Prints the figures
/// and each miss; requires a recall of at least 95% and no false positive.
#[test]
fn the_labelled_corpus_is_found_whole_with_no_false_positive() {
    let positives = corpus("positive.txt");
    let negatives = corpus("negative.txt");
    assert!(
        positives.len() >= 100 && negatives.len() >= 110,
        "the corpus shrank"
    );

    let mut missed = Vec::new();
    let mut secrets = 0;
    for case in &positives {
        assert!(
            !case.marked.is_empty(),
            "positive.txt:{}: no [[ ]]",
            case.line
        );
        secrets += case.marked.len();
        let found: Vec<(String, std::ops::Range<usize>)> = scan(&case.text)
            .into_iter()
            .map(|f| {
                (
                    serde_json::to_value(f.kind)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_owned(),
                    f.range,
                )
            })
            .collect();
        let expected: Vec<(String, std::ops::Range<usize>)> = case
            .marked
            .iter()
            .map(|range| (case.label.clone(), range.clone()))
            .collect();
        if found != expected {
            missed.push(format!(
                "positive.txt:{}: {:?}\n  expected {expected:?}\n  found    {found:?}",
                case.line, case.text
            ));
        }
    }
    let mut false_positives = Vec::new();
    for case in &negatives {
        let found = scan(&case.text);
        if !found.is_empty() {
            let texts: Vec<&str> = found.iter().map(|f| &case.text[f.range.clone()]).collect();
            false_positives.push(format!(
                "negative.txt:{} ({}): {:?} -> {texts:?}",
                case.line, case.label, case.text
            ));
        }
    }
    let recall = 100.0 * (positives.len() - missed.len()) as f64 / positives.len() as f64;
    let fp_rate = 100.0 * false_positives.len() as f64 / negatives.len() as f64;
    println!(
        "secrets corpus: recall {recall:.1}% ({} of {} positive lines, {secrets} secrets), \
         false positives {fp_rate:.1}% ({} of {} negative lines)",
        positives.len() - missed.len(),
        positives.len(),
        false_positives.len(),
        negatives.len()
    );
    for line in &missed {
        println!("missed or wrong: {line}");
    }
    assert!(
        recall >= 95.0 && false_positives.is_empty(),
        "recall {recall:.1}% (at least 95% required); missed or wrong:\n{}\nfalse positives:\n{}",
        missed.join("\n"),
        false_positives.join("\n")
    );
}

/// docs/RELIABILITY.md's R12: what the layers actually write. The facts and
/// scratchpad layers start every line with `- `, AGENTS.md lists settings,
/// prose names a key inline, and a connection string carries a password;
/// each is found in the layer that wrote it, and redaction leaves the rest.
#[test]
fn secrets_are_found_where_the_layers_put_them() {
    let pipeline = fixed(&[
        (
            "project_context",
            100,
            Stability::Stable,
            "# Project context\n\n- DB_PASSWORD=hunter2hunter2\n\nDeploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY today.",
        ),
        (
            "facts",
            10_000,
            Stability::Dynamic,
            "# Facts\n\n- DB_PASSWORD=S3cretPassw0rd\n- DATABASE_URL=postgres://admin:S3cret@db.internal/app",
        ),
        (
            "scratchpad",
            10_100,
            Stability::Dynamic,
            "# Scratchpad\n\n- db_password: Zk8q2LmN77\n- note: {\"db_password\": \"pa55w0rd-x\"}",
        ),
    ]);
    let prompt = prompt_core::PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let text = prompt.text();
    let found: Vec<(Option<&str>, SecretKind, &str)> = scan_prompt(&prompt)
        .iter()
        .map(|f| (f.layer, f.finding.kind, &text[f.finding.range.clone()]))
        .collect();
    assert_eq!(
        found,
        [
            (
                Some("project_context"),
                SecretKind::Assignment,
                "hunter2hunter2"
            ),
            (
                Some("project_context"),
                SecretKind::Assignment,
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
            ),
            (Some("facts"), SecretKind::Assignment, "S3cretPassw0rd"),
            (Some("facts"), SecretKind::ConnectionString, "S3cret"),
            (Some("scratchpad"), SecretKind::Assignment, "Zk8q2LmN77"),
            (Some("scratchpad"), SecretKind::Assignment, "pa55w0rd-x"),
        ]
    );
    let redacted = redact(&text, &scan(&text));
    assert!(
        redacted.contains("Deploy with AWS_SECRET_ACCESS_KEY=[REDACTED secret assignment] today."),
        "{redacted}"
    );
    assert!(
        redacted.contains("postgres://admin:[REDACTED connection string password]@db.internal/app"),
        "{redacted}"
    );
}

/// A PGP private key block is found whole, armor lines included; a PGP
/// public key block is not a finding.
#[test]
fn pgp_private_key_blocks_are_found_and_public_ones_are_not() {
    let private = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGV0ZXN0AQgA\n=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----";
    let text = format!("- key:\n{private}\nafter");
    let found = scan(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, SecretKind::PrivateKey);
    assert_eq!(&text[found[0].range.clone()], private);
    let public = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENBGV0ZXN0AQgA\n-----END PGP PUBLIC KEY BLOCK-----";
    assert_eq!(scan(public), []);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text: the findings are sorted, disjoint, on character boundaries;
    /// a secret line placed between any two lines of it is found whole, and
    /// redaction leaves none of it.
    #[test]
    fn a_secret_line_anywhere_in_any_text_is_found_and_redacted(
        before in "[ -~\t\u{e9}\u{4e2d}\u{1f600}\n]{0,160}",
        after in "[ -~\t\u{e9}\u{4e2d}\u{1f600}\n]{0,160}",
        line in proptest::sample::select(vec![
            ("- DB_PASSWORD=", "hunter2hunter2"),
            ("db_password: ", "Zk8q2LmN77"),
            ("{\"api_key\": \"", "9f8e7d6c5b4a39281706"),
            ("Deploy with AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ("- ", "ghp_0123456789abcdefghijABCDEFGHIJ012345"),
            ("postgres://admin:", "S3cretPw"),
        ]),
    ) {
        let (lead, secret) = line;
        let closing = if lead.ends_with('"') { "\"}" } else if lead.starts_with("postgres") { "@db/app" } else { "" };
        let text = format!("{before}\n{lead}{secret}{closing}\n{after}");
        let found = scan(&text);
        for pair in found.windows(2) {
            proptest::prop_assert!(pair[0].range.end <= pair[1].range.start, "{found:?}");
        }
        for f in &found {
            proptest::prop_assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
            proptest::prop_assert!(f.range.start < f.range.end);
        }
        let at = before.len() + 1 + lead.len();
        proptest::prop_assert!(
            found.iter().any(|f| f.range == (at..at + secret.len())),
            "{secret} not found whole in {text:?}: {found:?}"
        );
        proptest::prop_assert!(!redact(&text, &found).contains(secret));
    }
}

/// The units of `tests/fixtures/secrets/hostile.txt`.
fn hostile_units() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/secrets/hostile.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            line.replace("\\\\", "\u{0}")
                .replace("\\n", "\n")
                .replace('\u{0}', "\\")
        })
        .collect()
}

/// Texts built to make a scan restart inside every value (`a=a=a=...`,
/// `password=$password=$...`, a line of `password:` pairs, unclosed quotes,
/// URL prefixes, unterminated PEM headers), to make every vendor rule run
/// (all of gitleaks' keywords), and to make the decoded view and the
/// structures work hardest (an escape at every byte, open elements, table
/// rows, YAML blocks) are scanned whole: the findings stay sorted, disjoint
/// and on character boundaries. The units are in
/// `tests/fixtures/secrets/hostile.txt`. What they cost at 1 MiB is measured by
/// `cargo bench -p prompt-tests --bench secrets` (docs/BENCHMARKS.md), not here:
/// no test asserts a time.
#[test]
fn hostile_texts_are_scanned_whole() {
    let units = hostile_units();
    assert!(units.len() >= 30, "hostile.txt shrank");
    for unit in &units {
        let text = unit.repeat(64 * 1024 / unit.len());
        let found = scan(&text);
        assert!(
            found.windows(2).all(|w| w[0].range.end <= w[1].range.start),
            "{unit:?}"
        );
        for f in &found {
            assert!(
                text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end),
                "{unit:?}: {f:?}"
            );
        }
    }
}
