//! No environment fact is stated twice.

use std::collections::BTreeSet;

use super::renders::Renders;
use super::report::{Check, Finding};

/// For each assembly, every declared fact of its scenario whose value two
/// different sources (layers or extra texts) state.
pub(crate) fn check(renders: &Renders<'_>, extras: &[(String, String)]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    for item in &renders.items {
        let segments = item.segments();
        let sources = super::sources(&segments, extras);
        for (fact, value) in item.scenario.facts() {
            if value.trim().is_empty() {
                continue;
            }
            let stating: Vec<_> = sources.iter().filter(|s| states(s.text, value)).collect();
            if let [first, second, ..] = stating.as_slice() {
                if !seen.insert((
                    fact.clone(),
                    value.clone(),
                    first.name.to_owned(),
                    second.name.to_owned(),
                )) {
                    continue;
                }
                let others: Vec<String> =
                    stating[1..].iter().map(|s| s.describe(renders)).collect();
                findings.push(Finding {
                    check: Check::RepeatedFact,
                    subject: first.describe(renders),
                    problem: format!(
                        "states the {fact} `{value}`, which {} state{} too ({})",
                        others.join(" and "),
                        if others.len() == 1 { "s" } else { "" },
                        item.at()
                    ),
                    fix: format!(
                        "state the {fact} in one layer only: keep it in `{}` or in `{}`, not both",
                        first.name, second.name
                    ),
                });
            }
        }
    }
    findings
}

/// Whether `text` contains `value` as a whole token: not inside a longer word,
/// number or path (`/repo` does not state `/re`, `services/api/src/x.md` does
/// not state `services/api/src`).
pub(crate) fn states(text: &str, value: &str) -> bool {
    let joins = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '\\');
    text.match_indices(value).any(|(start, _)| {
        let before = text[..start].chars().next_back();
        let rest = &text[start + value.len()..];
        let mut after = rest.chars();
        let next = after.next();
        let ok_before = before.is_none_or(|c| !joins(c));
        let ok_after = match next {
            None => true,
            // A sentence's full stop ends the token; `.md` does not.
            Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
            Some(c) => !joins(c),
        };
        ok_before && ok_after
    })
}

#[cfg(test)]
mod tests {
    use super::states;

    #[test]
    fn matches_whole_tokens_only() {
        assert!(states("- Working directory: /repo/api\n", "/repo/api"));
        assert!(states("You work in /repo/api.", "/repo/api"));
        assert!(!states("see /repo/api/README.md", "/repo/api"));
        assert!(!states("## services/api/src/CLAUDE.md", "services/api/src"));
        assert!(!states("model: claude-opus-4", "claude-opus"));
        assert!(states("(claude-opus)", "claude-opus"));
    }
}
