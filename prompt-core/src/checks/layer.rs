//! A layer's own compile-time checks: its band, its `after`/`before` relations, and where it renders in the pipelines it joins.

use super::msg::{Msg, mode_ident, modes_text, path_ident, paths_text};
use super::rules::{self, Facts, Who};
use crate::spec::{
    AssemblyPath, LayerSpec, PipelineSpec, PromptMode, Scope, ScopeOrder, Stability, mode_mask,
    modes_of, path_mask, paths_of, str_eq,
};

/// What is wrong with `spec`'s priority, if it lies outside its stability's
/// band. The bands are [`Stability::band`]'s: defined once, here in prompt-core;
/// the rule and its words are `checks::rules`'s, as at run time.
pub const fn band_problem(spec: &LayerSpec) -> Msg {
    if spec.stub || rules::in_band(spec.stability, spec.priority) {
        return Msg::NONE;
    }
    let facts = Facts {
        priority: spec.priority,
        stability: spec.stability,
        ..Facts::about(Who::Name(spec.name))
    };
    rules::write(Msg::NONE, rules::BAND, &facts)
}

const fn share_a_pipeline(a: &LayerSpec, b: &LayerSpec) -> bool {
    let mut i = 0;
    while i < a.pipelines.len() {
        let mut j = 0;
        while j < b.pipelines.len() {
            if str_eq(a.pipelines[i], b.pipelines[j]) {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// Whether one of `pipelines` takes `layer` with `include = [..]`.
const fn included_by_any(layer: &LayerSpec, pipelines: &[&PipelineSpec]) -> bool {
    let mut i = 0;
    while i < pipelines.len() {
        let include = pipelines[i].include;
        let mut j = 0;
        while j < include.len() {
            let mut k = 0;
            while k < include[j].layers.len() {
                if include[j].layers[k].spec.same_layer(layer) {
                    return true;
                }
                k += 1;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// What is wrong with `me` declaring `after = [other]` (`after: true`) or
/// `before = [other]`, where `written` is the type as the user wrote it.
/// A stub (an attribute with errors) on either side is never a problem.
///
/// `pipelines` are the pipelines `me` joins: `other` shares one when it
/// joins it too, or when that pipeline takes it with `include = [..]`.
pub const fn relation_problem(
    me: &LayerSpec,
    other: &LayerSpec,
    after: bool,
    written: &str,
    pipelines: &[&PipelineSpec],
) -> Msg {
    if me.stub || other.stub {
        return Msg::NONE;
    }
    let facts = Facts {
        other: Who::Name(other.name),
        other_krate: other.krate,
        written,
        priority: me.priority,
        other_priority: other.priority,
        flag: after,
        pipelines: me.pipelines,
        other_pipelines: other.pipelines,
        ..Facts::about(Who::Name(me.name))
    };
    // An include-only layer (`pipeline = []`) shares the pipelines that
    // include it; those check the order where they take it.
    let include_only = me.pipelines.is_empty() || other.pipelines.is_empty();
    if !include_only && !share_a_pipeline(me, other) && !included_by_any(other, pipelines) {
        let head = rules::write(Msg::NONE, rules::ORDER, &facts);
        return rules::write(head, rules::ORDER_APART, &facts);
    }
    if rules::order_holds(after, me.priority, other.priority) {
        return Msg::NONE;
    }
    let head = rules::write(Msg::NONE, rules::ORDER, &facts);
    let msg = rules::write(head, rules::ORDER_MOVE, &facts);
    let tail = if str_eq(me.krate, other.krate) {
        rules::ORDER_MOVE_EITHER
    } else {
        rules::ORDER_MOVE_MINE
    };
    rules::write(msg, tail, &facts)
}

/// Whether every pipeline of `orders` relaxes the scope order (an empty
/// list is the default pipeline's, which is strict).
const fn all_relaxed(orders: &[ScopeOrder]) -> bool {
    if orders.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < orders.len() {
        if matches!(orders[i], ScopeOrder::Strict) {
            return false;
        }
        i += 1;
    }
    true
}

/// What is wrong with `me` declaring `after = [other]` (`after: true`) or
/// `before = [other]` when their scopes say the opposite order: a layer
/// after a narrower-scoped one, or before a wider-scoped one. `orders` are
/// the scope orders of the pipelines `me` joins (empty: the default
/// pipeline); when all of them are relaxed there is no problem. The rule is
/// worded by [`Scope::ORDER_TEXT`], as the pipeline's check words it.
pub const fn scope_relation_problem(
    me: &LayerSpec,
    other: &LayerSpec,
    after: bool,
    written: &str,
    orders: &[ScopeOrder],
) -> Msg {
    if me.stub
        || other.stub
        || !matches!(me.stability, Stability::Stable)
        || !matches!(other.stability, Stability::Stable)
        || all_relaxed(orders)
    {
        return Msg::NONE;
    }
    let (first, second) = if after { (other, me) } else { (me, other) };
    if !second.scope.is_wider_than(first.scope) {
        return Msg::NONE;
    }
    let key = if after { "after" } else { "before" };
    Msg::NONE
        .s("layer `")
        .s(me.name)
        .s("` declares `")
        .s(key)
        .s(" = [")
        .s(written)
        .s("]`, which puts `")
        .s(second.name)
        .s("` (")
        .s(second.scope.ident())
        .s(": shared by ")
        .s(second.scope.audience())
        .s(") after `")
        .s(first.name)
        .s("` (")
        .s(first.scope.ident())
        .s(": ")
        .s(first.scope.audience())
        .s("), but ")
        .s(Scope::ORDER_TEXT)
        .s(": drop the relation and move `")
        .s(second.name)
        .s("`'s priority below ")
        .n(first.priority)
        .s(", give one of them another `scope`, or set `scope_order = Relaxed` on the pipeline")
}

/// The paths and the modes (as [`path_mask`] and [`mode_mask`] bits) that
/// some pipeline of `pipelines` serves.
const fn served_masks(pipelines: &[&PipelineSpec]) -> (u8, u8) {
    let (mut paths, mut modes) = (0, 0);
    let mut i = 0;
    while i < pipelines.len() {
        paths |= path_mask(pipelines[i].paths);
        modes |= mode_mask(pipelines[i].modes);
        i += 1;
    }
    (paths, modes)
}

/// Whether `pipeline` serves some path of `paths`.
const fn any_path_served(pipeline: &PipelineSpec, paths: &[AssemblyPath]) -> bool {
    path_mask(pipeline.paths) & path_mask(paths) != 0
}

/// Whether `pipeline` serves some mode of `modes`.
const fn any_mode_served(pipeline: &PipelineSpec, modes: &[PromptMode]) -> bool {
    mode_mask(pipeline.modes) & mode_mask(modes) != 0
}

/// Whether some pipeline of `pipelines` serves some path of `paths`.
const fn any_path_served_by(pipelines: &[&PipelineSpec], paths: &[AssemblyPath]) -> bool {
    served_masks(pipelines).0 & path_mask(paths) != 0
}

/// Whether some pipeline of `pipelines` serves some mode of `modes`.
const fn any_mode_served_by(pipelines: &[&PipelineSpec], modes: &[PromptMode]) -> bool {
    served_masks(pipelines).1 & mode_mask(modes) != 0
}

/// What is wrong with layer `layer`, listing `paths` and `modes`, joining
/// `pipeline` (written `written`), one of `all` it joins: nothing, unless the
/// two meet on no path or no mode while another of `all` does, so that the
/// layer renders elsewhere but never in this one. A layer that meets none of
/// its pipelines is one mistake in its `paths` (or `modes`), reported once,
/// at the key, by [`phantom_path_problem`] ([`phantom_mode_problem`]). A path
/// the layer lists and this pipeline does not serve is no problem: the layer
/// renders on the paths both list.
pub const fn never_renders_problem(
    layer: &str,
    pipeline: &PipelineSpec,
    written: &str,
    paths: &[AssemblyPath],
    modes: &[PromptMode],
    all: &[&PipelineSpec],
) -> Msg {
    if !any_path_served_by(all, paths) || !any_mode_served_by(all, modes) {
        return Msg::NONE;
    }
    // The usual case, checked before any message is written: a message is
    // built byte by byte at compile time, and this runs once per layer and
    // pipeline it joins.
    if any_path_served(pipeline, paths) && any_mode_served(pipeline, modes) {
        return Msg::NONE;
    }
    let head = Msg::NONE
        .s("layer `")
        .s(layer)
        .s("` joins pipeline `")
        .s(written);
    if !any_path_served(pipeline, paths) {
        let msg = paths_text(head.s("`, which serves only ["), pipeline.paths);
        let msg = paths_text(msg.s("], but the layer lists paths ["), paths);
        return msg
            .s("], so it would never render there: drop `")
            .s(written)
            .s("` from `pipeline`, or add a path it serves to `paths`");
    }
    if !any_mode_served(pipeline, modes) {
        let msg = modes_text(head.s("`, which serves only the modes ["), pipeline.modes);
        let msg = modes_text(msg.s("], but the layer lists modes ["), modes);
        return msg
            .s("], so it would never speak there: drop `")
            .s(written)
            .s("` from `pipeline`, or add a mode it serves to `modes`");
    }
    Msg::NONE
}

/// What is wrong with layer `layer` listing `path` (one of `listed`) when
/// none of the `pipelines` it joins (written `written`) serves it: a phantom
/// path, on which the layer renders nowhere. When another listed path is
/// served, dropping this one changes no prompt; when none is, the layer
/// renders nowhere at all, and the one error (at the first listed path)
/// says which paths to list instead, never to leave `paths` empty.
pub const fn phantom_path_problem(
    layer: &str,
    pipelines: &[&PipelineSpec],
    written: &[&str],
    path: AssemblyPath,
    listed: &[AssemblyPath],
) -> Msg {
    if any_path_served_by(pipelines, &[path]) {
        return Msg::NONE;
    }
    if !any_path_served_by(pipelines, listed) {
        if listed.is_empty() || listed[0] as u8 != path as u8 {
            return Msg::NONE;
        }
        let served = paths_of(served_masks(pipelines).0);
        let msg = paths_text(Msg::NONE.s("layer `").s(layer).s("` lists paths ["), listed);
        let msg = paths_text(
            msg.s("], but its pipelines (")
                .names(written)
                .s(") serve only ["),
            served,
        );
        return paths_text(
            msg.s("], so the layer would render nowhere: write `paths = ["),
            served,
        )
        .s("]`, or add it to a pipeline's `#[prompt_pipeline(paths = [..])]`");
    }
    phantom(
        layer,
        written,
        "path",
        path_ident(path),
        "renders on it",
        "paths",
    )
}

/// What is wrong with layer `layer` listing `mode` (one of `listed`) when
/// none of its `pipelines` serves it: as [`phantom_path_problem`], for a mode.
pub const fn phantom_mode_problem(
    layer: &str,
    pipelines: &[&PipelineSpec],
    written: &[&str],
    mode: PromptMode,
    listed: &[PromptMode],
) -> Msg {
    if any_mode_served_by(pipelines, &[mode]) {
        return Msg::NONE;
    }
    if !any_mode_served_by(pipelines, listed) {
        if listed.is_empty() || listed[0] as u8 != mode as u8 {
            return Msg::NONE;
        }
        let served = modes_of(served_masks(pipelines).1);
        let msg = modes_text(Msg::NONE.s("layer `").s(layer).s("` lists modes ["), listed);
        let msg = modes_text(
            msg.s("], but its pipelines (")
                .names(written)
                .s(") serve only ["),
            served,
        );
        return modes_text(
            msg.s("], so the layer would speak nowhere: write `modes = ["),
            served,
        )
        .s("]` (or drop `modes`), or add it to a pipeline's `#[prompt_pipeline(modes = [..])]`");
    }
    phantom(
        layer,
        written,
        "mode",
        mode_ident(mode),
        "speaks in it",
        "modes",
    )
}

/// The one wording of a phantom path or mode (`what` is `path` or `mode`,
/// `key` the attribute key that lists it).
const fn phantom(
    layer: &str,
    written: &[&str],
    what: &str,
    ident: &str,
    does: &str,
    key: &str,
) -> Msg {
    Msg::NONE
        .s("layer `")
        .s(layer)
        .s("` lists ")
        .s(what)
        .s(" `")
        .s(ident)
        .s("`, but none of its pipelines (")
        .names(written)
        .s(") serves it, so the layer ")
        .s(does)
        .s(" nowhere: drop `")
        .s(ident)
        .s("` from `")
        .s(key)
        .s("` (no prompt changes), or add it to a pipeline's `#[prompt_pipeline(")
        .s(key)
        .s(" = [..])]`")
}

/// What is wrong with a layer naming pipeline `written`, whose compile-time
/// duplicate check assumed the name `assumed`, when the type's real name differs
/// (an alias): the check would key on the wrong pipeline.
pub const fn pipeline_alias_problem(pipeline: &PipelineSpec, assumed: &str, written: &str) -> Msg {
    if str_eq(pipeline.name, assumed) {
        return Msg::NONE;
    }
    Msg::NONE
        .s("`pipeline = ")
        .s(written)
        .s("` names pipeline `")
        .s(pipeline.name)
        .s("` through another name; write its own type name (`")
        .s(pipeline.type_name)
        .s("`): the duplicate check keys on the name as written")
}
