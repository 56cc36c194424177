//! The formats of `prompt render` are one list: the CLI's `Format` enum,
//! read through `prompt_cli::__private::render_formats`. Every other place that
//! names them (the docs, the CLI's synopsis, the SDK validator, the provider
//! snapshots it validates) is checked against it here, so adding a format
//! fails this test until each of them says it too. The hostile sweep
//! iterates the list itself.

use prompt_cli::__private::{FormatKind, render_formats};

fn repo(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The names of the formats for which `keep` holds, in `--help` order.
fn names(keep: impl Fn(FormatKind) -> bool) -> Vec<String> {
    render_formats()
        .into_iter()
        .filter(|(_, kind)| keep(*kind))
        .map(|(name, _)| name)
        .collect()
}

/// Each `--format a|b|c` list written in `text`, as its names.
fn format_lists(text: &str) -> Vec<Vec<String>> {
    text.match_indices("--format ")
        .filter_map(|(at, flag)| {
            let list: String = text[at + flag.len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-' || *c == '|')
                .collect();
            list.contains('|')
                .then(|| list.split('|').map(str::to_owned).collect())
        })
        .collect()
}

#[test]
fn the_list_is_the_cli_enum_and_every_kind_is_represented() {
    let all = names(|_| true);
    assert_eq!(all[..3], ["text", "json", "annotated"]);
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "{all:?}");
    assert!(!names(|k| k == FormatKind::Request).is_empty());
    assert!(!names(|k| k == FormatKind::Invocation).is_empty());
    // `--help` is generated from the same enum: each name is a value it takes.
    let help = crate::common::command(&["render", "--help"], std::env::temp_dir().as_path())
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for name in &all {
        assert!(
            help.contains(&format!("{name}:")),
            "{name} missing from --help:\n{help}"
        );
    }
}

#[test]
fn the_docs_and_the_synopsis_list_every_format() {
    let all = names(|_| true);
    let delivered = names(|k| k != FormatKind::Prompt);
    for (file, want) in [
        ("docs/cli.md", &all),
        ("layers/cli/src/lib.rs", &all),
        ("docs/delivery.md", &delivered),
        ("examples/tests/cli/delivery.rs", &delivered),
    ] {
        let lists = format_lists(&repo(file));
        assert!(!lists.is_empty(), "{file} has no `--format a|b` list");
        for list in lists {
            assert_eq!(&list, want, "{file}'s `--format` list");
        }
    }
    // docs/delivery.md's table: one row per delivered format, in order.
    let delivery = repo("docs/delivery.md");
    let rows: Vec<String> = delivery
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once("` |").map(|(name, _)| name.to_owned()))
        .filter(|name| !name.contains(' '))
        .collect();
    assert_eq!(rows, delivered, "docs/delivery.md's table of formats");
}

#[test]
fn the_sdk_validator_checks_every_request_format() {
    let requests = names(|k| k == FormatKind::Request);
    // tests/sdk/validate.py picks the snapshots it validates by these names.
    let validator = repo("tests/sdk/validate.py");
    let line = validator
        .lines()
        .find(|l| l.starts_with("PROVIDER_NAME = re.compile(r\""))
        .expect("validate.py defines PROVIDER_NAME");
    let pattern = line
        .trim_start_matches("PROVIDER_NAME = re.compile(r\"")
        .trim_end_matches("\")");
    let alternatives: Vec<&str> = pattern.split('|').collect();
    assert_eq!(alternatives, requests, "validate.py's PROVIDER_NAME");
    // Each request format has a snapshot whose name the validator matches,
    // and a row in the providers module's table.
    let snapshots: Vec<String> = std::fs::read_dir(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tests/tools/snapshots"),
    )
    .unwrap()
    .map(|e| e.unwrap().file_name().into_string().unwrap())
    .collect();
    let providers = repo("prompt-core/providers/src/lib.rs");
    for name in &requests {
        assert!(
            snapshots.iter().any(|s| s.contains(name.as_str())),
            "no request snapshot for `{name}` in tests/tests/tools/snapshots"
        );
        assert!(
            providers.contains(&format!("//! | [`{name}`]")),
            "`{name}` has no row in prompt-core/providers/src/lib.rs's table"
        );
    }
}
