//! Recall measured against the vendors' own formats (issue 38, item 3): one
//! real-shaped fake per rule the guard runs (each gitleaks line also checked
//! against gitleaks' own expression, read from the vendored TOML), the
//! structures and encodings the issue lists, the 50 credentials the attack
//! planted, and the ones round five (issue 48) found still let through.
//! Prints recall per vendor; requires every planted credential, a recall of
//! at least 95% over the rest, and a corpus line for every rule.

use std::collections::BTreeMap;
use std::ops::Range;

use prompt_checks::secrets::{SecretFinding, scan, vendor_rules};

use super::marked;

/// One case of a three-column corpus file.
struct Case {
    file: &'static str,
    line: usize,
    group: String,
    /// The rules or kinds (serde names) that may find it.
    expect: Vec<String>,
    text: String,
    marked: Vec<Range<usize>>,
}

/// The cases of `tests/fixtures/secrets/<file>`: `GROUP<TAB>RULES<TAB>TEXT`,
/// `{FAKE}` removed, `\n` for a newline, each secret in `[[ ]]`.
fn cases(file: &'static str) -> Vec<Case> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/secrets")
        .join(file);
    let source = std::fs::read_to_string(&path).unwrap();
    let mut cases = Vec::new();
    for (i, line) in source.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.splitn(3, '\t');
        let (Some(group), Some(expect), Some(raw)) = (fields.next(), fields.next(), fields.next())
        else {
            panic!("{file}:{}: not GROUP<TAB>RULES<TAB>TEXT", i + 1);
        };
        let raw = raw.replace("{FAKE}", "").replace("\\n", "\n");
        let (text, marked) = marked(&raw, file, i + 1);
        assert!(!marked.is_empty(), "{file}:{}: no [[ ]]", i + 1);
        cases.push(Case {
            file,
            line: i + 1,
            group: group.to_owned(),
            expect: expect.split('|').map(str::to_owned).collect(),
            text,
            marked,
        });
    }
    cases
}

fn kind_name(finding: &SecretFinding) -> String {
    serde_json::to_value(finding.kind)
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

/// `None` when the scan finds exactly the marked ranges, each by an
/// expected rule or kind, and nothing else; else what it found.
fn miss(case: &Case) -> Option<String> {
    let found = scan(&case.text);
    let right = found.len() == case.marked.len()
        && found.iter().zip(&case.marked).all(|(f, range)| {
            f.range == *range
                && (case.expect.iter().any(|e| e == f.rule) || case.expect.contains(&kind_name(f)))
        });
    (!right).then(|| {
        let found: Vec<String> = found
            .iter()
            .map(|f| format!("{} {:?}", f.rule, &case.text[f.range.clone()]))
            .collect();
        format!(
            "{}:{} ({}): {:?}\n  expected {:?} at {:?}\n  found    {found:?}",
            case.file, case.line, case.group, case.text, case.expect, case.marked
        )
    })
}

/// gitleaks' rules as its vendored file writes them: id and expression.
fn gitleaks_expressions() -> BTreeMap<String, regex::bytes::Regex> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../prompt-core/checks/src/secrets/vendor/gitleaks.toml");
    let config: toml::Table = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    config["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|rule| {
            let id = rule.get("id")?.as_str()?;
            let pattern = rule.get("regex")?.as_str()?;
            // Go's RE2 reads bytes with ASCII classes.
            let regex = regex::bytes::RegexBuilder::new(pattern)
                .unicode(false)
                .build()
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            Some((id.to_owned(), regex))
        })
        .collect()
}

/// Issue 38, item 3: every credential the attack planted is found, whole,
/// named by the expected rule. Before this round the guard found none of
/// the 50 (the vendor formats had no rule, the structures and encodings no
/// reader).
#[test]
fn every_credential_issue_38_planted_is_found() {
    let cases = cases("issue38.txt");
    assert!(cases.len() >= 50, "issue38.txt shrank");
    let missed: Vec<String> = cases.iter().filter_map(miss).collect();
    println!(
        "issue 38 item 3: {} of {} planted credentials found",
        cases.len() - missed.len(),
        cases.len()
    );
    assert!(missed.is_empty(), "missed or wrong:\n{}", missed.join("\n"));
}

/// Issue 48 ("hostile round five"): every credential the guard still let
/// through is found, whole, named by the expected rule or kind: `\xNN` and
/// `\u{NN}` escapes of a whole key, a Markdown table row, vendor formats as
/// their vendors write them, and real-shaped values with a word inside that
/// the placeholder check took for a placeholder. The commit before this
/// round found none of them whole and named.
#[test]
fn every_credential_issue_48_planted_is_found() {
    let cases = cases("issue48.txt");
    assert!(cases.len() >= 24, "issue48.txt shrank");
    let missed: Vec<String> = cases.iter().filter_map(miss).collect();
    println!(
        "issue 48: {} of {} planted credentials found",
        cases.len() - missed.len(),
        cases.len()
    );
    for why in &missed {
        println!("missed or wrong: {why}");
    }
    assert!(missed.is_empty(), "missed or wrong:\n{}", missed.join("\n"));
}

/// Hostile round five: a key whose vendor prefix holds a Cyrillic or Greek
/// letter (`ѕk-ant-`, `sκ-ant-`, `ghр_`) or whose dashes are U+2010 or
/// U+2212 is found, at its raw bytes: the guard reads the fold the tag
/// matcher reads (NFKC and UTS #39's confusables). Before it read NFKC
/// alone and found none of them.
#[test]
fn every_key_with_a_lookalike_prefix_or_dash_is_found() {
    let cases = cases("lookalikes.txt");
    assert!(cases.len() >= 7, "lookalikes.txt shrank");
    let missed: Vec<String> = cases.iter().filter_map(miss).collect();
    assert!(missed.is_empty(), "missed or wrong:\n{}", missed.join("\n"));
}

/// A fake for every rule the guard runs, each line of a single gitleaks
/// rule real-shaped by that rule's own expression; recall per vendor over
/// the vendor formats, the structures, the encodings and the older labelled
/// corpus; at least 95% overall.
#[test]
fn vendor_formats_structures_and_encodings_are_found_per_vendor() {
    let vendors = cases("vendors.txt");
    let expressions = gitleaks_expressions();
    // Every rule the guard runs has a line that expects it.
    let uncovered: Vec<&str> = vendor_rules()
        .map(|r| r.id)
        .filter(|id| !vendors.iter().any(|c| c.expect.iter().any(|e| e == id)))
        .collect();
    assert!(
        uncovered.is_empty(),
        "rules without a line in vendors.txt: {uncovered:?}"
    );
    // A line for one gitleaks rule is matched by gitleaks' own expression.
    for case in &vendors {
        let own = match case.expect.as_slice() {
            [id] => expressions.get(id).map(|regex| (id, regex)),
            _ => None,
        };
        if let Some((id, regex)) = own {
            assert!(
                regex.is_match(case.text.as_bytes()),
                "vendors.txt:{}: gitleaks' {id} does not match {:?}",
                case.line,
                case.text
            );
        }
    }

    let mut all: Vec<Case> = vendors;
    all.extend(cases("structures.txt"));
    all.extend(cases("encodings.txt"));
    all.extend(cases("issue38.txt"));
    all.extend(cases("issue48.txt"));
    all.extend(cases("lookalikes.txt"));
    // The older corpus: its label is the kind.
    for case in super::corpus("positive.txt") {
        all.push(Case {
            file: "positive.txt",
            line: case.line,
            group: format!("kind: {}", case.label),
            expect: vec![case.label.clone()],
            text: case.text,
            marked: case.marked,
        });
    }

    let mut groups: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for case in &all {
        let entry = groups.entry((case.file, case.group.as_str())).or_default();
        entry.0 += 1;
        match miss(case) {
            Some(why) => missed.push(why),
            None => entry.1 += 1,
        }
    }
    println!("| file | vendor or form | cases | found | recall |");
    println!("|---|---|---|---|---|");
    for ((file, group), (cases, found)) in &groups {
        println!(
            "| {file} | {group} | {cases} | {found} | {:.0}% |",
            100.0 * *found as f64 / *cases as f64
        );
    }
    let recall = 100.0 * (all.len() - missed.len()) as f64 / all.len() as f64;
    println!(
        "secrets recall: {recall:.1}% ({} of {} cases, {} rules, {} of them gitleaks')",
        all.len() - missed.len(),
        all.len(),
        vendor_rules().count(),
        vendor_rules().filter(|r| r.vendored).count()
    );
    for why in &missed {
        println!("missed or wrong: {why}");
    }
    assert!(
        recall >= 95.0,
        "recall {recall:.1}% (at least 95% required); missed or wrong:\n{}",
        missed.join("\n")
    );
}

/// gitleaks skips a line that says `gitleaks:allow`; a repository could
/// write that beside a key it makes a layer read, so the guard does not.
#[test]
fn a_gitleaks_allow_comment_hides_nothing() {
    let key = concat!("npm_", "example0123456789abcdefghijklmnopqrs");
    let text = format!("- publish with {key} # gitleaks:allow");
    let found = scan(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, "npm-access-token");
    assert_eq!(&text[found[0].range.clone()], key);
}
