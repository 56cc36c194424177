//! Scope order and priority clashes between the layers a pipeline includes and the ones that join it, where the `#[prompt_pipeline]` and `#[prompt_layer]` expansions see both sides.

use super::msg::Msg;
use super::rules::{self, Facts, Who};
use crate::spec::{LayerSpec, PipelineSpec, Scope, ScopeBounds, ScopeOrder};

/// The clashing layer whose scope `me` would need to stay where it is, given
/// one more clashing layer `other` (of include entry `j`): the widest of
/// those it comes before (`ahead`), or the narrowest of those it comes after.
const fn fitting(
    shown: Option<(LayerSpec, usize)>,
    other: LayerSpec,
    j: usize,
    ahead: bool,
) -> Option<(LayerSpec, usize)> {
    match shown {
        None => Some((other, j)),
        Some((seen, k)) => {
            let better = if ahead {
                other.scope.is_wider_than(seen.scope)
            } else {
                seen.scope.is_wider_than(other.scope)
            };
            if better {
                Some((other, j))
            } else {
                Some((seen, k))
            }
        }
    }
}

/// The clashing layer farthest on the wrong side of `me`, given one more
/// clashing layer `other` (of include entry `j`): the highest priority of
/// those it comes before (`ahead`), or the lowest of those it comes after.
const fn farthest(
    clash: Option<(LayerSpec, usize)>,
    other: LayerSpec,
    j: usize,
    ahead: bool,
) -> Option<(LayerSpec, usize)> {
    let farther = match &clash {
        None => true,
        Some((seen, _)) => {
            if ahead {
                other.priority > seen.priority
            } else {
                other.priority < seen.priority
            }
        }
    };
    if farther { Some((other, j)) } else { clash }
}

/// `` `name` (Scope, the default: audience, priority N) `` for the layer the
/// user owns: as [`who`], saying when its scope is the unwritten default.
const fn who_mine(msg: Msg, spec: &LayerSpec) -> Msg {
    msg.s("`")
        .s(spec.name)
        .s("` (")
        .s(spec.scope.ident())
        .s(if matches!(spec.scope, Scope::Session) {
            ", the default"
        } else {
            ""
        })
        .s(": ")
        .s(spec.scope.audience())
        .s(", priority ")
        .n(spec.priority)
        .s(")")
}

/// `` `name` (Scope: audience, priority N) ``.
const fn who(msg: Msg, spec: &LayerSpec) -> Msg {
    msg.s("`")
        .s(spec.name)
        .s("` (")
        .s(spec.scope.ident())
        .s(": ")
        .s(spec.scope.audience())
        .s(", priority ")
        .n(spec.priority)
        .s(")")
}

/// The fix of a scope-order mistake by `me`, the layer the user owns, given
/// the other side: `ahead` (me is narrower and before wider layers) or not
/// (me is wider and after narrower ones). `target` is the scope that would
/// fit where `me` is (the widest of those after it, or the narrowest of
/// those before it); `farthest` the layer to move past. The words are
/// [`rules::scope_fix`]'s, as at run time.
const fn scope_fix(
    msg: Msg,
    me: &LayerSpec,
    target: Scope,
    ahead: bool,
    farthest: &LayerSpec,
    shown: &LayerSpec,
) -> Msg {
    let facts = Facts {
        target,
        bound: farthest.priority,
        // The layer to move past, when it is not the one the message names.
        past: if farthest.same_layer(shown) {
            None
        } else {
            Some(farthest.name)
        },
        flag: ahead,
        ..Facts::about(Who::Name(me.name))
    };
    rules::write(msg.s(": "), rules::scope_fix(me.scope, ahead), &facts)
}

/// Whether `me` might clash with a layer `pipelines` include: the same
/// priority, or a place against a strict scope order. A scan of the
/// included specs as written, without taking each one as its pipeline does
/// ([`Include::member`](crate::spec::Include::member) narrows paths, modes
/// and `yields`, never a priority, a stability or a scope), so a layer that
/// clashes with none (nearly every one) costs the build a few reads per
/// included layer; any other goes through the full check below.
const fn may_clash(me: &LayerSpec, pipelines: &[&PipelineSpec]) -> bool {
    let mut p = 0;
    while p < pipelines.len() {
        let pipeline = pipelines[p];
        let strict = matches!(pipeline.scope_order, ScopeOrder::Strict);
        let mut j = 0;
        while j < pipeline.include.len() {
            let layers = pipeline.include[j].layers;
            let mut k = 0;
            while k < layers.len() {
                let other = &layers[k].spec;
                if other.priority == me.priority
                    || (strict
                        && (rules::out_of_scope_order(me, other)
                            || rules::out_of_scope_order(other, me)))
                {
                    return true;
                }
                k += 1;
            }
            j += 1;
        }
        p += 1;
    }
    false
}

/// [`may_clash`] for a layer in one pipeline, with that pipeline's
/// [`ScopeBounds`]: the same answer, from two
/// comparisons and a pass over the included priorities.
pub(crate) const fn may_clash_in(
    me: &LayerSpec,
    pipeline: &PipelineSpec,
    bounds: &ScopeBounds,
) -> bool {
    if matches!(pipeline.scope_order, ScopeOrder::Strict)
        && rules::may_be_out_of_scope_order(me, bounds)
    {
        return true;
    }
    let mut j = 0;
    while j < pipeline.include.len() {
        let layers = pipeline.include[j].layers;
        let mut k = 0;
        while k < layers.len() {
            if layers[k].spec.priority == me.priority {
                return true;
            }
            k += 1;
        }
        j += 1;
    }
    false
}

/// What is wrong with layer `me` joining `pipelines` (written `written`)
/// against the layers those pipelines include: the same priority as one of
/// them, or a place against the scope order (a narrower layer ahead of an
/// included wider one, or a wider one after an included narrower one). The
/// included layers belong to crates the user may not own, so every fix
/// moves `me`. One message at most: the first clash found.
pub const fn included_clash_problem(
    me: &LayerSpec,
    pipelines: &[&PipelineSpec],
    written: &[&str],
) -> Msg {
    if me.stub || !may_clash(me, pipelines) {
        return Msg::NONE;
    }
    let mut p = 0;
    while p < pipelines.len() {
        let pipeline = pipelines[p];
        let strict = matches!(pipeline.scope_order, ScopeOrder::Strict);
        // The scope clash with the farthest layer on the wrong side, so that
        // moving past it fixes every clash at once.
        let mut scope_clash: Option<(LayerSpec, usize)> = None;
        let mut shown: Option<(LayerSpec, usize)> = None;
        let mut j = 0;
        while j < pipeline.include.len() {
            let inc = &pipeline.include[j];
            let mut k = 0;
            while k < inc.layers.len() {
                if let Some(other) = inc.member(k, pipeline)
                    && !other.stub
                    && !other.same_layer(me)
                {
                    if other.priority == me.priority {
                        return Msg::NONE
                            .s("layer `")
                            .s(me.name)
                            .s("` has priority ")
                            .n(me.priority)
                            .s(", as `")
                            .s(other.name)
                            .s("` (")
                            .s(other.krate)
                            .s(": ")
                            .s(other.file)
                            .s(":")
                            .n(other.line)
                            .s(") that pipeline `")
                            .s(written[p])
                            .s("` includes through `")
                            .s(inc.written)
                            .s("`, so their order is undefined: give `")
                            .s(me.name)
                            .s("` another priority");
                    }
                    let ahead = rules::out_of_scope_order(me, &other);
                    if strict && (ahead || rules::out_of_scope_order(&other, me)) {
                        shown = fitting(shown, other, j, ahead);
                        scope_clash = farthest(scope_clash, other, j, ahead);
                    }
                }
                k += 1;
            }
            j += 1;
        }
        if let (Some((farthest, _)), Some((other, j))) = (scope_clash, shown) {
            let ahead = me.priority < other.priority;
            let msg = who_mine(Msg::NONE.s("layer "), me)
                .s(" comes ")
                .s(if ahead { "before " } else { "after " });
            let msg = who(msg, &other)
                .s(", which pipeline `")
                .s(written[p])
                .s("` includes through `")
                .s(pipeline.include[j].written)
                .s("`, but ")
                .s(Scope::ORDER_TEXT);
            return scope_fix(msg, me, other.scope, ahead, &farthest, &other);
        }
        p += 1;
    }
    Msg::NONE
}

/// Whether entry `i` of an `include` list, rather than entry `j`, answers
/// for a clash between them: a single layer before a set (a set is a
/// library's, a single layer most likely the user's own), else the later one.
const fn blamed(pipeline: &PipelineSpec, i: usize, j: usize) -> bool {
    let (a, b) = (pipeline.include[i].set, pipeline.include[j].set);
    if a != b { !a } else { i > j }
}

/// The scope-order clash of the `index`th `include` entry of `pipeline`
/// with another entry, when this entry answers for it ([`blamed`]): one
/// message per entry, naming the farthest layer on the wrong side.
pub(crate) const fn include_scope_problem(pipeline: &PipelineSpec, index: usize) -> Msg {
    if matches!(pipeline.scope_order, ScopeOrder::Relaxed) {
        return Msg::NONE;
    }
    let inc = &pipeline.include[index];
    let mut k = 0;
    while k < inc.layers.len() {
        if let Some(me) = inc.member(k, pipeline) {
            let mut clash: Option<(LayerSpec, usize)> = None;
            let mut shown: Option<(LayerSpec, usize)> = None;
            let mut j = 0;
            while j < pipeline.include.len() {
                if j != index && blamed(pipeline, index, j) {
                    let other_inc = &pipeline.include[j];
                    let mut m = 0;
                    while m < other_inc.layers.len() {
                        if let Some(other) = other_inc.member(m, pipeline) {
                            let ahead = rules::out_of_scope_order(&me, &other);
                            if !me.stub
                                && !other.stub
                                && (ahead || rules::out_of_scope_order(&other, &me))
                            {
                                shown = fitting(shown, other, j, ahead);
                                clash = farthest(clash, other, j, ahead);
                            }
                        }
                        m += 1;
                    }
                }
                j += 1;
            }
            if let (Some((farthest, _)), Some((other, j))) = (clash, shown) {
                let ahead = me.priority < other.priority;
                let msg = Msg::NONE
                    .s("pipeline `")
                    .s(pipeline.type_name)
                    .s("` includes `")
                    .s(inc.written)
                    .s("`, whose layer ");
                let msg = who_mine(msg, &me).s(if ahead {
                    " would come before "
                } else {
                    " would come after "
                });
                let msg = who(msg, &other)
                    .s(" that `")
                    .s(pipeline.include[j].written)
                    .s("` brings, but ")
                    .s(Scope::ORDER_TEXT);
                return scope_fix(msg, &me, other.scope, ahead, &farthest, &other);
            }
        }
        k += 1;
    }
    Msg::NONE
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::spec::{Include, IncludedLayer, Stability};

    fn layer() -> impl Strategy<Value = LayerSpec> {
        // Few priorities, so that equal ones and every order turn up.
        (0u32..12, any::<bool>(), 0usize..4).prop_map(|(priority, stable, scope)| {
            let stability = if stable {
                Stability::Stable
            } else {
                Stability::Dynamic
            };
            LayerSpec::new("other", priority, stability).scope(Scope::ALL[scope])
        })
    }

    proptest! {
        /// The summary a pipeline's layers check themselves against clears
        /// exactly the layers the pass over every included layer clears.
        #[test]
        fn scope_bounds_agree_with_the_pass_over_every_included_layer(
            included in proptest::collection::vec(proptest::collection::vec(layer(), 0..6), 0..3),
            me in layer(),
            strict in any::<bool>(),
        ) {
            let include: Vec<Include> = included
                .into_iter()
                .map(|layers| {
                    let layers: Vec<IncludedLayer> = layers.into_iter().map(IncludedLayer::spec_only).collect();
                    Include::set(Vec::leak(layers), "Set")
                })
                .collect();
            let include: &'static [Include] = Vec::leak(include);
            let order = if strict { ScopeOrder::Strict } else { ScopeOrder::Relaxed };
            let pipeline: &'static PipelineSpec =
                Box::leak(Box::new(PipelineSpec::new("main").include(include).scope_order(order)));
            let bounds = ScopeBounds::of(pipeline.include);
            prop_assert_eq!(may_clash_in(&me, pipeline, &bounds), may_clash(&me, &[pipeline]));
        }
    }
}
