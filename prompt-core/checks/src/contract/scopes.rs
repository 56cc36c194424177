//! Scope order: the part of the stable prefix a team could share is shared.

use std::collections::BTreeSet;

use super::renders::Renders;
use super::report::{Check, Finding};
use crate::spec::{AssemblyPath, Scope, ScopeOrder};

/// For each Cached assembly of a turn's first build, the first Stable layer
/// that wrote text after a narrower-scoped one: its text (and everything
/// after it) is written to the cache once per teammate instead of once for
/// the team. Each (layer, narrower layer) pair is reported once, where it
/// costs the most bytes. A failure in a pipeline held to scope order (which
/// its validation should already have refused), a note in one that says
/// `scope_order = Relaxed`, where the order is a choice.
pub(crate) fn check(renders: &Renders<'_>) -> (Vec<Finding>, Vec<Finding>) {
    let relaxed = renders.pipeline.spec().scope_order == ScopeOrder::Relaxed;
    let mut worst: Vec<(String, String, usize, usize, String)> = Vec::new();
    let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
    for item in renders
        .items
        .iter()
        .filter(|i| i.turn == 0 && i.path == AssemblyPath::Cached)
    {
        let trace = item.prompt.trace();
        let groups = trace.scope_groups();
        let Some(at) = groups
            .windows(2)
            .position(|pair| pair[1].scope.is_wider_than(pair[0].scope))
        else {
            continue;
        };
        let (narrow, wide) = (groups[at], groups[at + 1]);
        let layer_at = |offset: usize| {
            trace
                .layers
                .stable()
                .iter()
                .find(|l| l.stable_range().is_some_and(|r| r.start == offset))
                .map_or("?", |l| l.name)
        };
        let (wider, narrower) = (layer_at(wide.start), layer_at(narrow.start));
        // What the team could share: every group at least as wide as the one
        // that comes too late.
        let lost: usize = groups[at + 1..]
            .iter()
            .filter(|g| !narrow.scope.is_wider_than(g.scope) && g.scope != narrow.scope)
            .map(|g| g.end - g.start)
            .sum();
        let shared = trace.shared_prefix(wide.scope);
        let stable = item.prompt.stable().len();
        let detail = format!(
            "{}: `{wider}` ({}) follows `{narrower}` ({}), so the team shares {shared} of {stable} \
             stable bytes and each teammate writes {lost} bytes of {} text again",
            item.at(),
            wide.scope.ident(),
            narrow.scope.ident(),
            wide.scope.ident(),
        );
        if seen.insert((wider, narrower)) {
            worst.push((wider.to_owned(), narrower.to_owned(), lost, shared, detail));
        } else if let Some(entry) = worst
            .iter_mut()
            .find(|e| e.0 == wider && e.1 == narrower && e.2 < lost)
        {
            entry.2 = lost;
            entry.4 = detail;
        }
    }
    let findings = worst.into_iter().map(|(wider, narrower, _, _, detail)| Finding {
        check: Check::ScopeSharing,
        subject: renders.layer(&wider),
        problem: format!("{detail}; {}", Scope::ORDER_TEXT),
        fix: if relaxed {
            format!(
                "the pipeline says `scope_order = Relaxed`, so this is its choice; to share the text, \
                 move `{wider}`'s priority below `{narrower}`'s and drop the opt-out"
            )
        } else {
            format!("move `{wider}`'s priority below `{narrower}`'s")
        },
    });
    if relaxed {
        (Vec::new(), findings.collect())
    } else {
        (findings.collect(), Vec::new())
    }
}
