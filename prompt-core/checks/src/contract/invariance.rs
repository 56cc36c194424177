//! The stable prefix is the same bytes for every turn and every rebuild.

use std::collections::BTreeSet;

use super::renders::{Rendered, Renders};
use super::report::{Check, Finding};
use crate::diff::first_line_difference;
use crate::spec::Stability;
use crate::testing::Segment;

const STABLE_FIX: &str = "a Stable layer may format only what `input.get::<T>()` returns from the \
    session context: load what it reads (a clock, a counter, a global, the environment, a file) \
    into the session context before assembly, or make the layer Dynamic";
const DYNAMIC_FIX: &str = "a layer must be a pure function of its input: pass what it reads \
    (a clock, a counter, a global, the environment) in the turn context instead";

/// Compares, for each scenario, path and mode, every turn's stable prefix
/// with the first turn's, and a rebuild from the same inputs with the first build.
pub(crate) fn check(renders: &Renders<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    let mut first: Option<&Rendered<'_>> = None;
    for item in &renders.items {
        if item.turn == 0 {
            first = Some(item);
            if let Some(again) = &item.again {
                let rebuilt = Rendered {
                    scenario: item.scenario,
                    turn: 0,
                    path: item.path,
                    mode: item.mode,
                    prompt: again.clone(),
                    again: None,
                };
                compare(
                    renders,
                    item,
                    &rebuilt,
                    "two builds from the same inputs",
                    true,
                    &mut seen,
                    &mut findings,
                );
            }
            continue;
        }
        if let Some(base) = first {
            let what = format!(
                "turn 1 and turn {} (only the turn context differs)",
                item.turn + 1
            );
            compare(renders, base, item, &what, false, &mut seen, &mut findings);
        }
    }
    findings
}

fn compare(
    renders: &Renders<'_>,
    a: &Rendered<'_>,
    b: &Rendered<'_>,
    what: &str,
    whole: bool,
    seen: &mut BTreeSet<&'static str>,
    findings: &mut Vec<Finding>,
) {
    let (sa, sb) = (a.segments(), b.segments());
    let moved = |s: &&Segment<'_>| {
        (whole || s.layer.stability == Stability::Stable)
            && sb
                .iter()
                .find(|t| t.layer.name == s.layer.name)
                .is_none_or(|t| t.text != s.text)
    };
    // Stable layers first: a moving prefix is the costly fault.
    let culprit = sa
        .iter()
        .filter(|s| s.layer.stability == Stability::Stable)
        .find(moved)
        .or_else(|| sa.iter().find(moved));
    let Some(segment) = culprit else { return };
    let name = segment.layer.name;
    if !seen.insert(name) {
        return;
    }
    let after = sb
        .iter()
        .find(|t| t.layer.name == name)
        .map_or("", |t| t.text);
    let line = first_line_difference(segment.text, after)
        .map(|l| {
            format!(
                "; line {}: {:?} became {:?}",
                l.number,
                l.before.unwrap_or_default(),
                l.after.unwrap_or_default()
            )
        })
        .unwrap_or_default();
    let (problem, fix) = match segment.layer.stability {
        Stability::Stable => (
            format!(
                "its bytes moved between {what} ({}){line}: the stable prefix, and the prompt cache, breaks on every call",
                a.at()
            ),
            STABLE_FIX,
        ),
        Stability::Dynamic => (
            format!("its bytes differ between {what} ({}){line}", a.at()),
            DYNAMIC_FIX,
        ),
    };
    findings.push(Finding {
        check: Check::PrefixInvariance,
        subject: renders.layer(name),
        problem,
        fix: fix.to_owned(),
    });
}
