//! The rules both the compile-time checks and the pipeline's run-time validation hold layers to, each written once.
//!
//! | rule | holds when | words | compile time | run time |
//! |---|---|---|---|---|
//! | band | [`in_band`] | [`BAND`] | `band_problem` | `Problem::OutOfBand` |
//! | order | [`order_holds`] | [`ORDER`], then [`ORDER_PRIORITIES`] at run time; [`ORDER_APART`], [`ORDER_MOVE`] and [`ORDER_MOVE_EITHER`] or [`ORDER_MOVE_MINE`] at compile time | `relation_problem` | `Problem::Order` |
//! | scope order | not [`out_of_scope_order`] (against a pipeline's included layers at once: [`may_be_out_of_scope_order`]) | `Scope::ORDER_TEXT`, then [`scope_fix`]; [`SCOPE_RELAXED`] at run time | `included_clash_problem`, `include_scope_problem` | `Problem::ScopeOrder` |
//!
//! A message is a [`Template`]: text, and holes ([`Piece`]) filled from
//! [`Facts`]. Two front ends write it: [`write`], a `const fn` into the
//! [`Msg`] a generated `const` check panics with, and [`Said`], a `Display`
//! the run-time problems print. The fronts differ only in what they know
//! of a layer ([`Who`]): its name, at compile time, where the error stands
//! at the layer's own span; its type and `file:line` too, at run time.

use core::fmt;

use super::msg::Msg;
use crate::spec::{self, LayerSpec, Scope};

/// Whether `priority` lies in `stability`'s band ([`spec::Stability::band`]).
pub(crate) const fn in_band(stability: spec::Stability, priority: u32) -> bool {
    stability.admits(priority)
}

/// Whether a layer at `priority` declaring `after = [X]` (`after`) or
/// `before = [X]` of a layer at `other_priority` is in order: `after` needs
/// the other lower, `before` higher.
pub(crate) const fn order_holds(after: bool, priority: u32, other_priority: u32) -> bool {
    if after {
        other_priority < priority
    } else {
        priority < other_priority
    }
}

/// Whether `earlier`, rendered before `later` (a lower priority), breaks the
/// scope order: both Stable, and `later` wider-scoped ([`Scope::ORDER_TEXT`]).
pub(crate) const fn out_of_scope_order(earlier: &LayerSpec, later: &LayerSpec) -> bool {
    matches!(earlier.stability, spec::Stability::Stable)
        && matches!(later.stability, spec::Stability::Stable)
        && earlier.priority < later.priority
        && later.scope.is_wider_than(earlier.scope)
}

/// Whether `me` may be out of scope order against one of the Stable layers
/// `bounds` sums up ([`out_of_scope_order`], either way round): Stable, and
/// ahead of a wider-scoped one or after a narrower one. Exactly when some
/// pair of `me` and one of those layers breaks the order, so a layer's
/// compile-time check makes two comparisons instead of a pass over every
/// layer its pipeline includes.
pub(crate) const fn may_be_out_of_scope_order(me: &LayerSpec, bounds: &spec::ScopeBounds) -> bool {
    let at = me.scope as usize;
    matches!(me.stability, spec::Stability::Stable)
        && (bounds.wider_max[at] > me.priority || bounds.narrower_min[at] < me.priority)
}

/// A priority outside its band.
pub(crate) const BAND: Template = &[
    Text("layer "),
    Layer,
    Text(" is "),
    Stability,
    Text(", so its priority must be in "),
    Band,
    Text(", but it is "),
    Priority,
    Text(": change `priority`, or make the layer "),
    Flipped,
    Text(" (band "),
    FlippedBand,
    Text(") if that is what it is"),
];

/// The start of every message about an `after`/`before` relation
/// ([`Facts::flag`]: `after`), `written` the type as the relation names it.
pub(crate) const ORDER: Template = &[
    Text("layer "),
    Layer,
    Text(" declares `"),
    Pick("after", "before"),
    Text(" = ["),
    Written,
    Text("]`, but "),
];

/// After [`ORDER`], at run time: the priorities contradict the relation.
pub(crate) const ORDER_PRIORITIES: Template = &[
    Text("its priority "),
    Priority,
    Text(" is not "),
    Pick("higher", "lower"),
    Text(" than "),
    Other,
    Text("'s "),
    OtherPriority,
    Text("; move one of the priorities"),
];

/// After [`ORDER`], at compile time: the two layers share no pipeline.
pub(crate) const ORDER_APART: Template = &[
    Text("`"),
    Written,
    Text("` is in pipeline "),
    OtherPipelines,
    Text(" and `"),
    Name,
    Text("` in "),
    Pipelines,
    Text(
        "; relative order only holds within one pipeline: drop the relation or move one of the layers",
    ),
];

/// After [`ORDER`], at compile time: both priorities, and the move of the
/// declaring layer that fixes them; then [`ORDER_MOVE_EITHER`] or
/// [`ORDER_MOVE_MINE`].
pub(crate) const ORDER_MOVE: Template = &[
    Text("`"),
    OtherName,
    Text("` has priority "),
    OtherPriority,
    Text(" and `"),
    Name,
    Text("` has "),
    Priority,
    Text(": move `"),
    Name,
    Text("`'s priority "),
    Pick("above", "below"),
    Text(" "),
    OtherPriority,
];

/// After [`ORDER_MOVE`], when both layers are in one package.
pub(crate) const ORDER_MOVE_EITHER: Template = &[
    Text(", or `"),
    OtherName,
    Text("`'s "),
    Pick("below", "above"),
    Text(" "),
    Priority,
];

/// After [`ORDER_MOVE`], when the other layer is another package's: never
/// ask to move it.
pub(crate) const ORDER_MOVE_MINE: Template = &[
    Text(" (`"),
    OtherName,
    Text("` is defined in `"),
    OtherKrate,
    Text("`)"),
];

/// The fix of a layer out of scope order ([`Facts::flag`]: it comes before
/// wider layers), moving that layer only: an unscoped layer (`Session`, the
/// default) ahead of wider ones first hears about `scope`, since the usual
/// mistake is a shared text that never said so. `target` is the scope that
/// would fit where it is, `bound` the priority to move past (with `past`,
/// the layer at it when the message names another).
pub(crate) const fn scope_fix(scope: Scope, ahead: bool) -> Template {
    if ahead && matches!(scope, Scope::Session) {
        SCOPE_FIX_UNSCOPED
    } else {
        SCOPE_FIX
    }
}

const SCOPE_FIX_UNSCOPED: Template = &[
    Text("give `"),
    Name,
    Text("` the scope its text has (`scope = "),
    Target,
    Text("` if it is the same for "),
    TargetAudience,
    Text("), or move its priority above "),
    Bound,
    Past,
    Text(" if it really is per session"),
];

const SCOPE_FIX: Template = &[
    Text("move `"),
    Name,
    Text("`'s priority "),
    Pick("above", "below"),
    Text(" "),
    Bound,
    Past,
    Text(", or give it `scope = "),
    Target,
    Text("` if its text is "),
    Pick("the same for", "only for"),
    Text(" "),
    TargetAudience,
];

/// After [`scope_fix`], at run time, where the whole pipeline is in view.
pub(crate) const SCOPE_RELAXED: Template = &[Text(
    "; or set `#[prompt_pipeline(scope_order = Relaxed)]` if the pipeline's order is fixed from outside",
)];

/// A message: its pieces in order.
pub(crate) type Template = &'static [Piece];

/// One piece of a message: text, or a hole filled from [`Facts`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece {
    /// Text as written.
    Text(&'static str),
    /// The first word when [`Facts::flag`] is set, else the second.
    Pick(&'static str, &'static str),
    /// The layer the message is about, as its front end names a layer.
    Layer,
    /// That layer's name alone.
    Name,
    /// The other layer, as its front end names a layer.
    Other,
    /// The other layer's name alone.
    OtherName,
    /// The other layer's package.
    OtherKrate,
    /// The type a relation names, as written.
    Written,
    /// The layer's priority.
    Priority,
    /// The other layer's priority.
    OtherPriority,
    /// The priority to move past.
    Bound,
    /// ` (past `name`)` when [`Facts::past`] names a layer, else nothing.
    Past,
    /// The layer's stability: `Stable`.
    Stability,
    /// Its band: `0..10_000`.
    Band,
    /// The other stability.
    Flipped,
    /// The other stability's band.
    FlippedBand,
    /// The scope that would fit: `Project`.
    Target,
    /// Whom that scope shares a text with: `everyone on the repository`.
    TargetAudience,
    /// The pipelines the layer joins.
    Pipelines,
    /// The pipelines the other layer joins.
    OtherPipelines,
}

use Piece::{
    Band, Bound, Flipped, FlippedBand, Layer, Name, Other, OtherKrate, OtherName, OtherPipelines,
    OtherPriority, Past, Pick, Pipelines, Priority, Stability, Target, TargetAudience, Text,
    Written,
};

/// How a message names a layer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Who<'a> {
    /// `` `name` ``: a compile-time message stands at the layer's own span.
    Name(&'a str),
    /// `` `name` (Type at package: file:line) ``: a run-time message is read
    /// away from the code.
    Site {
        /// The layer's name.
        name: &'a str,
        /// Its type.
        type_name: &'a str,
        /// `package: file:line`.
        location: &'a str,
    },
}

impl<'a> Who<'a> {
    const fn name(self) -> &'a str {
        match self {
            Who::Name(name) | Who::Site { name, .. } => name,
        }
    }
}

/// What a message's holes are filled with. Start from [`Facts::about`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub(crate) layer: Who<'a>,
    pub(crate) other: Who<'a>,
    pub(crate) other_krate: &'a str,
    pub(crate) written: &'a str,
    pub(crate) priority: u32,
    pub(crate) other_priority: u32,
    pub(crate) bound: u32,
    pub(crate) past: Option<&'a str>,
    /// `after` for a relation, `ahead` for a scope fix.
    pub(crate) flag: bool,
    pub(crate) stability: spec::Stability,
    pub(crate) target: Scope,
    pub(crate) pipelines: &'a [&'a str],
    pub(crate) other_pipelines: &'a [&'a str],
}

impl<'a> Facts<'a> {
    /// Facts about `layer`, every other hole empty.
    pub(crate) const fn about(layer: Who<'a>) -> Self {
        Self {
            layer,
            other: Who::Name(""),
            other_krate: "",
            written: "",
            priority: 0,
            other_priority: 0,
            bound: 0,
            past: None,
            flag: false,
            stability: spec::Stability::Stable,
            target: Scope::Session,
            pipelines: &[],
            other_pipelines: &[],
        }
    }
}

/// What a hole holds: up to seven strings in a row, a number (written as a
/// Rust literal: `10_000`), or a list of names (`` `a`, `b` ``).
enum Part<'a> {
    Strs([&'a str; 7], usize),
    Num(u32),
    Names(&'a [&'a str]),
}

const fn strs<'a>(parts: &[&'a str]) -> Part<'a> {
    let mut out = [""; 7];
    let mut i = 0;
    while i < parts.len() && i < out.len() {
        out[i] = parts[i];
        i += 1;
    }
    Part::Strs(out, i)
}

const fn who<'a>(who: Who<'a>) -> Part<'a> {
    match who {
        Who::Name(name) => strs(&["`", name, "`"]),
        Who::Site {
            name,
            type_name,
            location,
        } => strs(&["`", name, "` (", type_name, " at ", location, ")"]),
    }
}

/// The one meaning of every piece.
const fn part<'a>(piece: Piece, facts: &Facts<'a>) -> Part<'a> {
    match piece {
        Text(text) => strs(&[text]),
        Pick(yes, no) => strs(&[if facts.flag { yes } else { no }]),
        Layer => who(facts.layer),
        Name => strs(&[facts.layer.name()]),
        Other => who(facts.other),
        OtherName => strs(&[facts.other.name()]),
        OtherKrate => strs(&[facts.other_krate]),
        Written => strs(&[facts.written]),
        Priority => Part::Num(facts.priority),
        OtherPriority => Part::Num(facts.other_priority),
        Bound => Part::Num(facts.bound),
        Past => match facts.past {
            Some(name) => strs(&[" (past `", name, "`)"]),
            None => strs(&[]),
        },
        Stability => strs(&[facts.stability.ident()]),
        Band => strs(&[facts.stability.band_text()]),
        Flipped => strs(&[facts.stability.other().ident()]),
        FlippedBand => strs(&[facts.stability.other().band_text()]),
        Target => strs(&[facts.target.ident()]),
        TargetAudience => strs(&[facts.target.audience()]),
        Pipelines => Part::Names(facts.pipelines),
        OtherPipelines => Part::Names(facts.other_pipelines),
    }
}

/// The compile-time front end: `template` filled from `facts`, after `msg`.
pub(crate) const fn write(mut msg: Msg, template: Template, facts: &Facts<'_>) -> Msg {
    let mut i = 0;
    while i < template.len() {
        msg = match part(template[i], facts) {
            Part::Strs(parts, len) => {
                let mut j = 0;
                while j < len {
                    msg = msg.s(parts[j]);
                    j += 1;
                }
                msg
            }
            Part::Num(n) => msg.n(n),
            Part::Names(names) => msg.names(names),
        };
        i += 1;
    }
    msg
}

/// The run-time front end: `templates` in a row, filled from `facts`, as
/// text of any length.
pub(crate) struct Said<'a>(pub(crate) &'a [Template], pub(crate) Facts<'a>);

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for template in self.0 {
            for piece in *template {
                match part(*piece, &self.1) {
                    Part::Strs(parts, len) => {
                        parts[..len].iter().try_for_each(|s| f.write_str(s))?
                    }
                    Part::Num(n) => f.write_str(Msg::NONE.n(n).as_str())?,
                    Part::Names(names) => {
                        for (i, name) in names.iter().enumerate() {
                            let comma = if i > 0 { ", " } else { "" };
                            write!(f, "{comma}`{name}`")?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts that fill every hole.
    fn full<'a>(layer: Who<'a>, other: Who<'a>) -> Facts<'a> {
        Facts {
            other,
            other_krate: "prompt-layers",
            written: "ProjectDocs",
            priority: 10_200,
            other_priority: 200,
            bound: 4_000,
            past: Some("skills"),
            flag: true,
            stability: spec::Stability::Dynamic,
            target: Scope::Project,
            pipelines: &["default", "reviewer"],
            other_pipelines: &["main"],
            ..Facts::about(layer)
        }
    }

    const ALL: [Template; 10] = [
        BAND,
        ORDER,
        ORDER_PRIORITIES,
        ORDER_APART,
        ORDER_MOVE,
        ORDER_MOVE_EITHER,
        ORDER_MOVE_MINE,
        SCOPE_FIX_UNSCOPED,
        SCOPE_FIX,
        SCOPE_RELAXED,
    ];

    /// The two front ends write every template alike: a rule's words are
    /// the same at compile time and at run time.
    #[test]
    fn both_front_ends_write_the_same_words() {
        let site = Who::Site {
            name: "memory",
            type_name: "MemoryLayer",
            location: "app: src/lib.rs:12",
        };
        for (layer, other) in [
            (Who::Name("memory"), Who::Name("project_docs")),
            (site, Who::Name("project_docs")),
        ] {
            for flag in [true, false] {
                let facts = Facts {
                    flag,
                    ..full(layer, other)
                };
                for template in ALL {
                    let compiled = write(Msg::NONE, template, &facts);
                    assert_eq!(compiled.as_str(), Said(&[template], facts).to_string());
                }
            }
        }
        let facts = full(site, Who::Name("project_docs"));
        assert_eq!(
            Said(&[BAND], facts).to_string(),
            "layer `memory` (MemoryLayer at app: src/lib.rs:12) is Dynamic, so its priority must be in \
             10_000..20_000, but it is 10_200: change `priority`, or make the layer Stable (band 0..10_000) \
             if that is what it is"
        );
        assert_eq!(
            Said(&[ORDER, ORDER_APART], facts).to_string(),
            "layer `memory` (MemoryLayer at app: src/lib.rs:12) declares `after = [ProjectDocs]`, but \
             `ProjectDocs` is in pipeline `main` and `memory` in `default`, `reviewer`; relative order \
             only holds within one pipeline: drop the relation or move one of the layers"
        );
        assert_eq!(
            write(
                Msg::NONE,
                SCOPE_FIX,
                &Facts {
                    flag: false,
                    ..facts
                }
            )
            .as_str(),
            "move `memory`'s priority below 4000 (past `skills`), or give it `scope = Project` if its \
             text is only for everyone on the repository"
        );
    }

    /// At run time a message is as long as what it names: a location far
    /// past the compile-time buffer is written whole.
    #[test]
    fn a_run_time_message_is_never_cut() {
        let location = "x/".repeat(1_000);
        let facts = Facts {
            priority: 5,
            stability: spec::Stability::Dynamic,
            ..Facts::about(Who::Site {
                name: "clock",
                type_name: "Clock",
                location: &location,
            })
        };
        let text = Said(&[BAND], facts).to_string();
        assert!(text.contains(&location), "{} bytes", text.len());
        assert!(text.ends_with(") if that is what it is"), "{text}");
    }

    /// The predicates are the rules as documented.
    #[test]
    fn the_predicates_are_the_rules() {
        assert!(in_band(spec::Stability::Stable, 9_999));
        assert!(!in_band(spec::Stability::Stable, 10_000));
        assert!(order_holds(true, 200, 100) && !order_holds(true, 100, 100));
        assert!(order_holds(false, 100, 200) && !order_holds(false, 200, 200));
        let user = LayerSpec::new("notes", 100, spec::Stability::Stable).scope(Scope::User);
        let project = LayerSpec::new("docs", 200, spec::Stability::Stable).scope(Scope::Project);
        assert!(out_of_scope_order(&user, &project));
        assert!(!out_of_scope_order(&project, &user));
        let dynamic = LayerSpec::new("clock", 10_000, spec::Stability::Dynamic);
        assert!(!out_of_scope_order(&user, &dynamic));
    }
}
