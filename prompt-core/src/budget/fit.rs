//! The fitting algorithm: shed, then truncate, then notice; never the stable prefix.
//!
//! The notice is kept when trimming can make room for it. When no trimming
//! can, the notice is dropped and the prompt is sent as it was at the first
//! step that fit without it (the least trimmed): the notice is never the
//! reason a prompt that fits fails.

use std::cmp::Reverse;
use std::fmt::Write as _;

use super::BudgetError;
use super::{BudgetTrace, LayerSize, TokenBudget, TruncatedLayer};
use crate::spec::Yields;

/// The marker a truncated layer ends with.
pub(crate) const CUT_MARKER: &str = "\n[…]";

/// One Dynamic layer's output, as the budget sees it.
#[derive(Debug)]
pub(crate) struct Candidate {
    pub(crate) name: &'static str,
    pub(crate) priority: u32,
    pub(crate) yields: Yields,
    pub(crate) text: String,
}

/// Fits `stable` plus `dynamic` (in render order) into `budget`, editing
/// `dynamic` in place: a shed layer's text becomes empty, a truncated one is
/// cut. `stable` is never touched. `measure` counts in the budget's unit.
pub(crate) fn fit(
    budget: TokenBudget,
    measure: &dyn Fn(&str) -> usize,
    stable: &str,
    stable_layers: &[(&'static str, &str)],
    dynamic: &mut [Candidate],
    separator: &str,
) -> Result<BudgetTrace, BudgetError> {
    let limit = budget.limit();
    let whole = |dynamic: &[Candidate], notice: Option<&str>| {
        measure(&compose(stable, dynamic, notice, separator))
    };
    let before = whole(dynamic, None);
    let mut trace = BudgetTrace {
        budget,
        before,
        after: before,
        shed: Vec::new(),
        truncated: Vec::new(),
        notice: None,
    };
    if before <= limit {
        return Ok(trace);
    }
    let stable_size = measure(stable);
    if stable_size > limit {
        return Err(BudgetError::StablePrefixOverBudget {
            stable: stable_size,
            limit,
            unit: budget.unit(),
            largest: largest(stable_layers.iter().copied(), measure),
        });
    }
    let mut removed = 0usize;
    // The first (least trimmed) state that fits without the notice.
    let mut without_notice: Option<(Vec<String>, BudgetTrace)> = None;
    let remember = |slot: &mut Option<(Vec<String>, BudgetTrace)>,
                    dynamic: &[Candidate],
                    trace: &BudgetTrace,
                    size: usize| {
        if slot.is_none() && size <= limit {
            let mut trace = trace.clone();
            trace.after = size;
            let texts = dynamic.iter().map(|c| c.text.clone()).collect();
            *slot = Some((texts, trace));
        }
    };

    // 1. Shed whole layers, least important (highest priority number) first.
    for i in yielding(dynamic, Yields::Shed) {
        let text = std::mem::take(&mut dynamic[i].text);
        removed += measure(&text);
        trace.shed.push(dynamic[i].name);
        let notice = notice(&trace, removed, budget);
        let size = whole(dynamic, Some(&notice));
        if size <= limit {
            trace.after = size;
            trace.notice = Some(notice);
            return Ok(trace);
        }
        remember(&mut without_notice, dynamic, &trace, whole(dynamic, None));
    }

    // 2. Cut Truncate layers on a character boundary, least important first.
    for i in yielding(dynamic, Yields::Truncate) {
        let original = std::mem::take(&mut dynamic[i].text);
        let from = measure(&original);
        // Every char boundary but the end (the whole text is over budget already).
        let boundaries: Vec<usize> = original.char_indices().map(|(at, _)| at).collect();
        let attempt = |dynamic: &mut [Candidate], trace: &mut BudgetTrace, keep: usize| {
            dynamic[i].text = cut(&original, keep);
            let to = measure(&dynamic[i].text);
            trace.truncated.push(TruncatedLayer {
                name: dynamic[i].name,
                from,
                to,
            });
            let notice = notice(trace, removed + from.saturating_sub(to), budget);
            let size = whole(dynamic, Some(&notice));
            trace.truncated.pop();
            (size, to, notice)
        };
        // The longest cut that fits: binary search over char boundaries.
        let (mut lo, mut hi) = (0usize, boundaries.len());
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            if attempt(dynamic, &mut trace, boundaries[mid]).0 <= limit {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // `lo` is a cut the search saw fit, or 0 (keep nothing), which it never
        // tried: one attempt settles it. (The search returns a cut that fits
        // even when token counts are not monotone in the cut; it may then not
        // be the longest.)
        let (size, to, notice) = attempt(dynamic, &mut trace, boundaries[lo]);
        if size <= limit {
            trace.truncated.push(TruncatedLayer {
                name: dynamic[i].name,
                from,
                to,
            });
            trace.after = size;
            trace.notice = Some(notice);
            return Ok(trace);
        }
        if without_notice.is_none() {
            // The longest cut that fits without the notice, if any, in case
            // no later step makes room for it.
            let (mut lo, mut hi) = (0usize, boundaries.len());
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                dynamic[i].text = cut(&original, boundaries[mid]);
                if whole(dynamic, None) <= limit {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            dynamic[i].text = cut(&original, boundaries[lo]);
            let to = measure(&dynamic[i].text);
            trace.truncated.push(TruncatedLayer {
                name: dynamic[i].name,
                from,
                to,
            });
            remember(&mut without_notice, dynamic, &trace, whole(dynamic, None));
            trace.truncated.pop();
        }
        // Even an empty cut does not fit: the layer goes whole, and the next one is cut.
        dynamic[i].text.clear();
        removed += from;
        trace.truncated.push(TruncatedLayer {
            name: dynamic[i].name,
            from,
            to: 0,
        });
    }

    // 3. Only the stable prefix and the Keep layers are left. Without the
    //    notice they may fit: then the notice is dropped, never the reason
    //    the build fails.
    if let Some((texts, trace)) = without_notice {
        for (candidate, text) in dynamic.iter_mut().zip(texts) {
            candidate.text = text;
        }
        return Ok(trace);
    }
    let total = whole(dynamic, None);
    Err(BudgetError::KeptOverBudget {
        total,
        limit,
        unit: budget.unit(),
        largest: largest(
            dynamic
                .iter()
                .filter(|c| c.yields == Yields::Keep)
                .map(|c| (c.name, c.text.as_str())),
            measure,
        ),
    })
}

/// Indices of non-empty layers that yield by `how`, least important first.
fn yielding(dynamic: &[Candidate], how: Yields) -> Vec<usize> {
    let mut order: Vec<usize> = (0..dynamic.len())
        .filter(|&i| dynamic[i].yields == how && !dynamic[i].text.is_empty())
        .collect();
    order.sort_by_key(|&i| Reverse(dynamic[i].priority));
    order
}

/// `text` cut to `keep` bytes (a char boundary) with the cut marker; empty when nothing is kept.
fn cut(text: &str, keep: usize) -> String {
    if keep == 0 {
        return String::new();
    }
    let mut out = String::with_capacity(keep + CUT_MARKER.len());
    out.push_str(text[..keep].trim_end());
    out.push_str(CUT_MARKER);
    out
}

/// The notice for the model: what was left out, and that tools can fetch it again.
///
/// It names at most [`NOTICE_NAMES`] layers per list, so it stays short
/// however many layers gave way (the full lists are in the trace).
fn notice(trace: &BudgetTrace, removed: usize, budget: TokenBudget) -> String {
    let mut notice = format!(
        "[Trimmed to fit the prompt budget: {removed} {} left out",
        budget.unit()
    );
    let omitted: Vec<&str> = trace
        .shed
        .iter()
        .copied()
        .chain(trace.truncated.iter().filter(|t| t.to == 0).map(|t| t.name))
        .collect();
    let shortened: Vec<&str> = trace
        .truncated
        .iter()
        .filter(|t| t.to > 0)
        .map(|t| t.name)
        .collect();
    if !omitted.is_empty() {
        let _ = write!(notice, "; omitted: {}", names(&omitted));
    }
    if !shortened.is_empty() {
        let _ = write!(notice, "; shortened: {}", names(&shortened));
    }
    notice.push_str(". Fetch details again with your tools if you need them.]");
    notice
}

/// How many layer names a notice lists before it counts the rest.
const NOTICE_NAMES: usize = 3;

/// `a, b, c and 2 more`.
fn names(names: &[&str]) -> String {
    let mut out = names[..names.len().min(NOTICE_NAMES)].join(", ");
    if names.len() > NOTICE_NAMES {
        let _ = write!(out, " and {} more", names.len() - NOTICE_NAMES);
    }
    out
}

/// The prompt as it would be sent: non-empty pieces joined with the separator.
pub(crate) fn compose(
    stable: &str,
    dynamic: &[Candidate],
    notice: Option<&str>,
    separator: &str,
) -> String {
    let mut out = String::with_capacity(stable.len() + 256);
    let pieces = std::iter::once(stable)
        .chain(dynamic.iter().map(|c| c.text.as_str()))
        .chain(notice);
    for piece in pieces.filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push_str(separator);
        }
        out.push_str(piece);
    }
    out
}

/// The five largest layers, largest first (ties by name, for determinism).
fn largest<'a>(
    layers: impl Iterator<Item = (&'static str, &'a str)>,
    measure: &dyn Fn(&str) -> usize,
) -> Vec<LayerSize> {
    let mut sizes: Vec<LayerSize> = layers
        .map(|(name, text)| LayerSize {
            name,
            size: measure(text),
        })
        .filter(|l| l.size > 0)
        .collect();
    sizes.sort_by(|a, b| b.size.cmp(&a.size).then(a.name.cmp(b.name)));
    sizes.truncate(5);
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    fn layer(name: &'static str, priority: u32, yields: Yields, text: &str) -> Candidate {
        Candidate {
            name,
            priority,
            yields,
            text: text.to_owned(),
        }
    }

    #[test]
    fn within_budget_changes_nothing() {
        let mut dynamic = [layer("a", 10_000, Yields::Shed, "aaaa")];
        let fitted = fit(
            TokenBudget::chars(100),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(dynamic[0].text, "aaaa");
        assert!(!fitted.trimmed());
        assert_eq!(fitted.before, 7);
    }

    #[test]
    fn sheds_highest_priority_first_then_stops() {
        let mut dynamic = [
            layer("first", 10_000, Yields::Shed, &"x".repeat(200)),
            layer("second", 10_100, Yields::Shed, &"y".repeat(200)),
            layer("third", 10_200, Yields::Shed, &"z".repeat(200)),
        ];
        // 612 chars; shedding `third` alone leaves 410 plus the notice.
        let budget = TokenBudget::chars(560);
        let fitted = fit(budget, &chars, "stable", &[], &mut dynamic, "\n\n").unwrap();
        assert_eq!(fitted.shed, ["third"]);
        assert!(dynamic[2].text.is_empty() && !dynamic[1].text.is_empty());
        assert!(fitted.after <= 560);
        let notice = fitted.notice.unwrap();
        assert!(
            notice.contains("200 chars left out; omitted: third"),
            "{notice}"
        );
    }

    #[test]
    fn truncates_on_a_char_boundary_after_shedding() {
        let mut dynamic = [
            layer("plan", 10_000, Yields::Truncate, &"計画".repeat(200)),
            layer("tip", 10_500, Yields::Shed, "a tip"),
        ];
        let fitted = fit(
            TokenBudget::chars(300),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(fitted.shed, ["tip"]);
        assert_eq!(fitted.truncated.len(), 1);
        assert!(dynamic[0].text.ends_with(CUT_MARKER));
        assert!(fitted.after <= 300);
        // The longest cut that fits: one more character would not.
        let kept = dynamic[0].text.trim_end_matches(CUT_MARKER).chars().count();
        assert!(kept > 0);
        let notice = fitted.notice.clone().unwrap();
        let mut longer = [layer("plan", 10_000, Yields::Truncate, "")];
        longer[0].text = format!(
            "{}{CUT_MARKER}",
            "計画"
                .repeat(200)
                .chars()
                .take(kept + 1)
                .collect::<String>()
        );
        assert!(chars(&compose("S", &longer, Some(&notice), "\n\n")) > 300);
    }

    #[test]
    fn keep_layers_are_never_touched_and_can_fail_the_build() {
        let mut dynamic = [
            layer("keep", 10_000, Yields::Keep, &"k".repeat(100)),
            layer("shed", 10_100, Yields::Shed, "s"),
        ];
        let error = fit(
            TokenBudget::chars(50),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap_err();
        assert_eq!(dynamic[0].text.len(), 100);
        let message = error.to_string();
        assert!(message.contains("keep (100)"), "{message}");
    }

    #[test]
    fn a_stable_prefix_over_budget_is_an_error_naming_the_largest_layers() {
        let mut dynamic = [layer("d", 10_000, Yields::Shed, "d")];
        let stable = "aaaaaaaaaa\n\nbbbbb";
        let error = fit(
            TokenBudget::chars(5),
            &chars,
            stable,
            &[("big", "aaaaaaaaaa"), ("small", "bbbbb")],
            &mut dynamic,
            "\n\n",
        )
        .unwrap_err();
        assert!(matches!(
            error,
            BudgetError::StablePrefixOverBudget {
                stable: 17,
                limit: 5,
                ..
            }
        ));
        assert!(error.to_string().contains("big (10), small (5)"), "{error}");
    }

    #[test]
    fn the_notice_is_dropped_rather_than_failing_a_prompt_that_fits() {
        // 992 stable chars, budget 1100: with every Dynamic layer shed the
        // prompt fits, but not with the notice saying so.
        let stable = "s".repeat(992);
        let mut dynamic = [
            layer("runtime_context", 10_000, Yields::Shed, &"r".repeat(150)),
            layer("scratchpad", 11_000, Yields::Shed, &"p".repeat(40)),
        ];
        let fitted = fit(
            TokenBudget::chars(1100),
            &chars,
            &stable,
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(fitted.shed, ["scratchpad", "runtime_context"]);
        assert_eq!(fitted.notice, None);
        assert_eq!(fitted.after, 992);
        assert!(fitted.trimmed());
    }

    #[test]
    fn the_notice_is_kept_when_trimming_makes_room_for_it() {
        // Shedding `tip` alone fits without the notice; `plan` goes too to
        // make room for the notice, which then fits.
        let mut dynamic = [
            layer("plan", 10_000, Yields::Shed, &"p".repeat(100)),
            layer("tip", 10_100, Yields::Shed, &"t".repeat(100)),
        ];
        let fitted = fit(
            TokenBudget::chars(140),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(fitted.shed, ["tip", "plan"]);
        assert!(fitted.notice.is_some());
    }

    #[test]
    fn when_no_trimming_makes_room_for_the_notice_the_least_trimmed_fit_is_sent() {
        // Shedding `tip` fits without the notice; even with everything gone
        // the notice does not fit: `plan` stays and the notice is dropped.
        let mut dynamic = [
            layer("plan", 10_000, Yields::Shed, &"p".repeat(50)),
            layer("tip", 10_100, Yields::Shed, &"t".repeat(50)),
        ];
        let fitted = fit(
            TokenBudget::chars(60),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(fitted.shed, ["tip"]);
        assert_eq!((fitted.notice, fitted.after), (None, 53));
        assert_eq!(dynamic[0].text.len(), 50);
        assert!(dynamic[1].text.is_empty());
    }

    #[test]
    fn a_cut_that_fits_only_without_the_notice_is_kept_when_nothing_makes_room() {
        let mut dynamic = [layer("plan", 10_000, Yields::Truncate, &"p".repeat(200))];
        let fitted = fit(
            TokenBudget::chars(40),
            &chars,
            "S",
            &[],
            &mut dynamic,
            "\n\n",
        )
        .unwrap();
        assert_eq!(fitted.notice, None);
        assert!(dynamic[0].text.ends_with(CUT_MARKER), "{}", dynamic[0].text);
        assert_eq!(fitted.after, 40);
        assert_eq!(fitted.truncated.len(), 1);
    }

    #[test]
    fn a_zero_budget_is_an_error_not_a_panic() {
        // An empty stable prefix fits a zero budget once the layer is gone
        // (no room for a notice, so none).
        let mut dynamic = [layer("d", 10_000, Yields::Truncate, "ddd")];
        let fitted = fit(TokenBudget::chars(0), &chars, "", &[], &mut dynamic, "\n\n").unwrap();
        assert_eq!((fitted.after, fitted.notice), (0, None));
        assert!(dynamic[0].text.is_empty());
        let mut dynamic = [layer("d", 10_000, Yields::Truncate, "ddd")];
        assert!(
            fit(
                TokenBudget::tokens(0),
                &chars,
                "S",
                &[],
                &mut dynamic,
                "\n\n"
            )
            .is_err()
        );
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    fn yields() -> impl Strategy<Value = Yields> {
        prop_oneof![
            Just(Yields::Shed),
            Just(Yields::Truncate),
            Just(Yields::Keep)
        ]
    }

    /// Up to six Dynamic layers with distinct priorities and mixed-width text.
    fn layers() -> impl Strategy<Value = Vec<(Yields, String)>> {
        prop::collection::vec((yields(), "[a-zé計 ]{0,120}"), 0..6)
    }

    fn candidates(layers: &[(Yields, String)]) -> Vec<Candidate> {
        const NAMES: [&str; 6] = ["l0", "l1", "l2", "l3", "l4", "l5"];
        layers
            .iter()
            .enumerate()
            .map(|(i, (yields, text))| Candidate {
                name: NAMES[i],
                priority: 10_000 + 100 * i as u32,
                yields: *yields,
                text: text.clone(),
            })
            .collect()
    }

    proptest! {
        #[test]
        fn fits_or_fails_and_never_touches_the_stable_prefix_or_keep_layers(
            stable in "[a-z計 ]{0,80}",
            layers in layers(),
            limit in 0usize..600,
            tokens in any::<bool>(),
        ) {
            let budget = if tokens { TokenBudget::tokens(limit) } else { TokenBudget::chars(limit) };
            let measure = |s: &str| if tokens { s.len().div_ceil(4) } else { chars(s) };
            let original = candidates(&layers);
            let mut dynamic = candidates(&layers);
            match fit(budget, &measure, &stable, &[], &mut dynamic, "\n\n") {
                Ok(trace) => {
                    let notice = trace.notice.as_deref();
                    let size = measure(&compose(&stable, &dynamic, notice, "\n\n"));
                    prop_assert!(size <= limit, "{size} > {limit}");
                    prop_assert_eq!(size, trace.after);
                    // Keep layers and untouched layers are byte-identical; cut ones are
                    // a prefix of the original (a char boundary) plus the marker.
                    for (before, after) in original.iter().zip(&dynamic) {
                        if before.yields == Yields::Keep || !(trace.shed.contains(&before.name)
                            || trace.truncated.iter().any(|t| t.name == before.name))
                        {
                            prop_assert_eq!(&before.text, &after.text);
                        } else if !after.text.is_empty() {
                            let body = after.text.strip_suffix(CUT_MARKER).unwrap();
                            prop_assert!(before.text.starts_with(body));
                        }
                    }
                    // Shedding follows priority: every shed layer outranks (has a
                    // higher number than) every Shed layer that stayed.
                    let kept_shed: Vec<u32> = original.iter().zip(&dynamic)
                        .filter(|(b, a)| b.yields == Yields::Shed && !a.text.is_empty())
                        .map(|(b, _)| b.priority).collect();
                    for name in &trace.shed {
                        let shed = original.iter().find(|c| c.name == *name).unwrap();
                        prop_assert_eq!(shed.yields, Yields::Shed);
                        prop_assert!(kept_shed.iter().all(|&p| p < shed.priority));
                    }
                    // Truncation only starts when no Shed layer is left.
                    if !trace.truncated.is_empty() {
                        prop_assert!(kept_shed.is_empty());
                    }
                }
                Err(BudgetError::StablePrefixOverBudget { stable: size, .. }) => {
                    prop_assert!(size > limit);
                    prop_assert_eq!(size, measure(&stable));
                }
                Err(BudgetError::KeptOverBudget { .. }) => {
                    for (before, after) in original.iter().zip(&dynamic) {
                        if before.yields == Yields::Keep {
                            prop_assert_eq!(&before.text, &after.text);
                        }
                    }
                }
            }
        }
    }
}
