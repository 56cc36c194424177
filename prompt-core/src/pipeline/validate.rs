//! The runtime second net: the structural rules the attribute also checks at compile time (band, order and scope order through `checks::rules`, as the attribute's checks do).

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::error::{LayerRef, Problem, Relation};
use crate::checks::rules;
use crate::spec::{LayerSpec, PipelineSpec, ScopeOrder, Stability};

/// Whether `name` is snake_case: `[a-z][a-z0-9_]*`.
pub(crate) fn is_snake_case(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// Every problem with `specs` as pipeline `pipeline`, in a stable order.
/// `specs` must already be sorted by (priority, name).
pub(crate) fn problems(pipeline: &PipelineSpec, specs: &[&LayerSpec]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut by_name: BTreeMap<&str, &LayerSpec> = BTreeMap::new();
    let mut previous: Option<&LayerSpec> = None;

    for &spec in specs {
        // Built only for a problem: formatting a location for every layer
        // would be most of the cost of validating a valid pipeline.
        let layer = || LayerRef::from(spec);
        if !spec.in_pipeline(pipeline.name) {
            problems.push(Problem::WrongPipeline {
                layer: layer(),
                declared: spec.pipelines.to_vec(),
                expected: pipeline.name.to_owned(),
            });
        }
        // A layer renders on the paths and modes both it and the pipeline
        // list; only an empty meeting is a problem.
        if !spec.paths.is_empty() && !spec.paths.iter().any(|p| pipeline.serves_path(*p)) {
            problems.push(Problem::NeverRenders {
                layer: layer(),
                what: "paths",
                lists: joined(spec.paths),
                serves: joined(pipeline.paths),
                pipeline: pipeline.name.to_owned(),
            });
        }
        if !spec.modes.is_empty() && !spec.modes.iter().any(|m| pipeline.serves_mode(*m)) {
            problems.push(Problem::NeverRenders {
                layer: layer(),
                what: "modes",
                lists: joined(spec.modes),
                serves: joined(pipeline.modes),
                pipeline: pipeline.name.to_owned(),
            });
        }
        if !is_snake_case(spec.name) {
            problems.push(Problem::BadName { layer: layer() });
        }
        if !rules::in_band(spec.stability, spec.priority) {
            problems.push(Problem::OutOfBand {
                layer: layer(),
                priority: spec.priority,
                stability: spec.stability,
            });
        }
        if spec.paths.is_empty() {
            problems.push(Problem::NoPaths { layer: layer() });
        }
        if spec.modes.is_empty() {
            problems.push(Problem::NoModes { layer: layer() });
        }
        if let Some(prev) = previous.filter(|p| p.priority == spec.priority) {
            problems.push(Problem::DuplicatePriority {
                first: prev.into(),
                second: layer(),
                priority: spec.priority,
            });
        }
        match by_name.entry(spec.name) {
            Entry::Occupied(first) => problems.push(Problem::DuplicateName {
                first: (*first.get()).into(),
                second: layer(),
                name: spec.name,
            }),
            Entry::Vacant(slot) => {
                slot.insert(spec);
            }
        }
        previous = Some(spec);
    }
    problems.extend(relation_problems(specs));
    if pipeline.scope_order == ScopeOrder::Strict {
        problems.extend(scope_problems(specs));
    }
    problems
}

/// Every Stable layer out of scope order, one problem per mistake.
///
/// Each clash is a pair (a narrower layer before a wider one). The layer in
/// the most clashes answers for all of them (ties: the earlier, narrower
/// one), then the next, until none is left: a User layer ahead of three
/// Project layers is one problem about that layer, whose fix (move it past
/// the last of them, or give it a scope) touches nothing else. `specs` are
/// sorted.
fn scope_problems(specs: &[&LayerSpec]) -> Vec<Problem> {
    let stable: Vec<&LayerSpec> = specs
        .iter()
        .copied()
        .filter(|s| s.stability == Stability::Stable)
        .collect();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (j, wider) in stable.iter().enumerate() {
        for (i, earlier) in stable[..j].iter().enumerate() {
            if rules::out_of_scope_order(earlier, wider) {
                pairs.push((i, j));
            }
        }
    }
    let mut problems = Vec::new();
    while !pairs.is_empty() {
        let mut counts = vec![0usize; stable.len()];
        for &(i, j) in &pairs {
            counts[i] += 1;
            counts[j] += 1;
        }
        // The most clashes; ties go to the earlier layer, which for a pair is
        // the narrower one ahead.
        let blamed = (0..stable.len())
            .max_by_key(|&k| (counts[k], std::cmp::Reverse(k)))
            .unwrap_or(0);
        let ahead: Vec<usize> = pairs
            .iter()
            .filter(|p| p.0 == blamed)
            .map(|p| p.1)
            .collect();
        let after: Vec<usize> = pairs
            .iter()
            .filter(|p| p.1 == blamed)
            .map(|p| p.0)
            .collect();
        let me = stable[blamed];
        for (is_ahead, others) in [(true, ahead), (false, after)] {
            if others.is_empty() {
                continue;
            }
            let scopes = others.iter().map(|&k| stable[k].scope);
            let (target, bound) = if is_ahead {
                (
                    scopes.min().unwrap_or(me.scope),
                    others
                        .iter()
                        .map(|&k| stable[k].priority)
                        .max()
                        .unwrap_or(0),
                )
            } else {
                (
                    scopes.max().unwrap_or(me.scope),
                    others
                        .iter()
                        .map(|&k| stable[k].priority)
                        .min()
                        .unwrap_or(0),
                )
            };
            problems.push(Problem::ScopeOrder {
                layer: me.into(),
                scope: me.scope,
                priority: me.priority,
                ahead: is_ahead,
                others: others
                    .iter()
                    .map(|&k| (stable[k].into(), stable[k].scope, stable[k].priority))
                    .collect(),
                target,
                bound,
            });
        }
        pairs.retain(|p| p.0 != blamed && p.1 != blamed);
    }
    problems
}

/// `a, b`: a list for a message.
pub(crate) fn joined<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every `after`/`before` relation between two layers of `specs` that their
/// priorities contradict. A relation to a layer the pipeline does not hold
/// (removed with `without`, or in another pipeline) constrains nothing.
fn relation_problems(specs: &[&LayerSpec]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for &spec in specs {
        let relations = spec
            .after
            .iter()
            .map(|link| (Relation::After, link))
            .chain(spec.before.iter().map(|link| (Relation::Before, link)));
        for (relation, link) in relations {
            let named = link.spec();
            let Some(other) = specs.iter().find(|s| {
                (s.name, s.krate, s.type_name) == (named.name, named.krate, named.type_name)
            }) else {
                continue;
            };
            let after = relation == Relation::After;
            if !rules::order_holds(after, spec.priority, other.priority) {
                problems.push(Problem::Order {
                    layer: spec.into(),
                    priority: spec.priority,
                    relation,
                    other: (*other).into(),
                    other_priority: other.priority,
                });
            }
        }
    }
    problems
}
