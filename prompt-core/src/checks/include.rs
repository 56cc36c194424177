//! A pipeline's `include = [..]` checks: each entry against the layers it brings and the entries before it.

use super::msg::{Msg, modes_text, paths_text};
use crate::spec::{PipelineSpec, Stability, mode_mask, path_mask, str_eq};

/// What is wrong with the `index`th entry of `pipeline`'s `include = [..]`:
/// a narrowing that widens, a `yields` on a Stable layer or on a set, a layer
/// that would never render in the pipeline, a set none of whose layers
/// would, and a layer whose name or priority an earlier include already has.
/// A stub (a layer whose attribute had errors) is never a problem.
pub const fn include_problem(pipeline: &PipelineSpec, index: usize) -> Msg {
    let inc = &pipeline.include[index];
    let head = Msg::NONE
        .s("pipeline `")
        .s(pipeline.type_name)
        .s("` includes `")
        .s(inc.written)
        .s("`, but ");
    if inc.yields.is_some() && inc.set {
        return head.s("`yields` narrows one layer, not a set: include the Dynamic layer on its own with `yields = ..`");
    }
    let mut kept = 0;
    let mut k = 0;
    while k < inc.layers.len() {
        let spec = &inc.layers[k].spec;
        k += 1;
        if spec.stub {
            kept += 1;
            continue;
        }
        if !inc.set {
            if let Some(paths) = inc.paths {
                let outside = path_mask(paths) & !path_mask(spec.paths);
                if outside != 0 {
                    let msg = paths_text(
                        head.s("layer `").s(spec.name).s("` renders on [").s(""),
                        spec.paths,
                    );
                    return paths_text(msg.s("] only, and a narrowing can only leave paths out: list some of those in `").s(inc.written).s("(paths = [..])`, not ["), paths)
                        .s("]");
                }
            }
            if let Some(modes) = inc.modes {
                let outside = mode_mask(modes) & !mode_mask(spec.modes);
                if outside != 0 {
                    let msg = modes_text(
                        head.s("layer `").s(spec.name).s("` speaks in [").s(""),
                        spec.modes,
                    );
                    return modes_text(msg.s("] only, and a narrowing can only leave modes out: list some of those in `").s(inc.written).s("(modes = [..])`, not ["), modes)
                        .s("]");
                }
            }
            if inc.yields.is_some() && spec.stability as u8 == Stability::Stable as u8 {
                return head.s("layer `").s(spec.name).s("` is Stable, so it has no `yields` in any pipeline: a budget never cuts the cached prefix; drop `yields` from the include");
            }
        }
        let Some(member) = inc.member(k - 1, pipeline) else {
            continue;
        };
        if path_mask(member.paths) & path_mask(pipeline.paths) == 0 {
            let msg = paths_text(
                head.s("layer `")
                    .s(member.name)
                    .s("` would render there on [")
                    .s(""),
                member.paths,
            );
            return paths_text(msg.s("], and the pipeline serves only ["), pipeline.paths)
                .s("], so it would never render: narrow it to a path the pipeline serves, or leave it out of `include`");
        }
        if mode_mask(member.modes) & mode_mask(pipeline.modes) == 0 {
            let msg = modes_text(
                head.s("layer `")
                    .s(member.name)
                    .s("` would speak there in [")
                    .s(""),
                member.modes,
            );
            return modes_text(msg.s("], and the pipeline serves only ["), pipeline.modes)
                .s("], so it would never speak: narrow it to a mode the pipeline serves, or leave it out of `include`");
        }
        kept += 1;
        // Every layer taken before this one: earlier entries, then earlier
        // members of this one.
        let mut j = 0;
        while j <= index {
            let other = &pipeline.include[j];
            let end = if j == index {
                k - 1
            } else {
                other.layers.len()
            };
            let mut m = 0;
            while m < end {
                if let Some(before) = other.member(m, pipeline) {
                    if before.same_layer(&member) {
                        return head
                            .s("layer `")
                            .s(member.name)
                            .s("` is already included through `")
                            .s(other.written)
                            .s("`: include it once");
                    }
                    if str_eq(before.name, member.name) {
                        return head
                            .s("its layer `")
                            .s(member.name)
                            .s("` has the name of the layer `")
                            .s(before.name)
                            .s("` that `")
                            .s(other.written)
                            .s("` brings (")
                            .s(before.krate)
                            .s(": ")
                            .s(before.file)
                            .s("): leave one of them out");
                    }
                    if before.priority == member.priority {
                        return head
                            .s("its layer `")
                            .s(member.name)
                            .s("` has priority ")
                            .n(member.priority)
                            .s(", as `")
                            .s(before.name)
                            .s("` that `")
                            .s(other.written)
                            .s("` brings: leave one of them out");
                    }
                }
                m += 1;
            }
            j += 1;
        }
    }
    let scope = super::included::include_scope_problem(pipeline, index);
    if scope.is_some() {
        return scope;
    }
    if kept == 0 && inc.set {
        let msg = paths_text(
            head.s("none of its layers renders in the pipeline, which serves ["),
            pipeline.paths,
        );
        return modes_text(msg.s("] in ["), pipeline.modes)
            .s("]: leave the set out, or include the layers that fit");
    }
    Msg::NONE
}
