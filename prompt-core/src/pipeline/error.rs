//! Why a pipeline was refused.

use std::fmt;

use crate::checks::rules::{self, Facts, Said, Who};
use crate::spec::{LayerSpec, Scope, Stability};

/// A pipeline that failed validation, with every problem found.
///
/// `Debug` is the struct (its pipeline and problems), then, unless `{:#?}`,
/// the readable message on the lines after it (as minijinja's `Error`
/// does), so `.expect(..)` and `fn main() -> Result<..>` show what to fix
/// as well as what the value holds.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct PipelineError {
    /// The pipeline's name.
    pub pipeline: String,
    /// Every problem, in a stable order (by layer priority, then kind).
    pub problems: Vec<Problem>,
}

impl PipelineError {
    /// The problems of `pipeline`, in the order given.
    pub fn new(pipeline: &str, problems: Vec<Problem>) -> Self {
        Self {
            pipeline: pipeline.to_owned(),
            problems,
        }
    }
}

impl fmt::Debug for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PipelineError")
            .field("pipeline", &self.pipeline)
            .field("problems", &self.problems)
            .finish()?;
        if !f.alternate() {
            write!(f, "\n\n{self}")?;
        }
        Ok(())
    }
}

/// Which relative-order key a [`Problem::Order`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `after = [..]`: the other layer must have a lower priority.
    After,
    /// `before = [..]`: the other layer must have a higher priority.
    Before,
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Relation::After => "after",
            Relation::Before => "before",
        })
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "pipeline `{}` is invalid ({n} problem{}):",
            self.pipeline,
            if n == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// A layer as named in an error: its name, type and definition site.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LayerRef {
    /// The layer's name.
    pub name: &'static str,
    /// The Rust type's name.
    pub type_name: &'static str,
    /// `file:line` of the definition.
    pub location: String,
}

impl From<&LayerSpec> for LayerRef {
    fn from(spec: &LayerSpec) -> Self {
        Self {
            name: spec.name,
            type_name: spec.type_name,
            location: spec.location(),
        }
    }
}

impl LayerRef {
    /// A layer named `name`, of Rust type `type_name`, defined at
    /// `location` (`package: file:line`).
    pub fn new(name: &'static str, type_name: &'static str, location: impl Into<String>) -> Self {
        Self {
            name,
            type_name,
            location: location.into(),
        }
    }

    /// How the rules' messages name this layer: with its type and site.
    fn who(&self) -> Who<'_> {
        Who::Site {
            name: self.name,
            type_name: self.type_name,
            location: &self.location,
        }
    }
}

impl fmt::Display for LayerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` ({} at {})",
            self.name, self.type_name, self.location
        )
    }
}

/// One thing wrong with a pipeline. Each says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// No layer is registered for the pipeline.
    #[error(
        "no layer is registered in this pipeline; pipelines this binary declares: [{}]. \
         Check the layers' `pipeline = ..` key, and that the binary names the crate that defines the layers \
         (`use my_layers as _;` in your library, so its tests link them too)",
        .known.join(", ")
    )]
    Empty {
        /// The pipelines this binary declares.
        known: Vec<String>,
    },
    /// No pipeline type of this name is declared in the binary.
    #[error(
        "no pipeline of this name is declared in this binary; it declares: [{}]. \
         Declare one with `#[prompt_pipeline(..)] pub struct MyPipeline;` (its name is the type's in snake_case)",
        .known.join(", ")
    )]
    UnknownPipeline {
        /// The pipelines this binary declares.
        known: Vec<String>,
    },
    /// Two pipeline types with one name.
    #[error("pipelines {first} and {second} share a name; rename one of the types")]
    DuplicatePipeline {
        /// The first declaration.
        first: String,
        /// The second declaration.
        second: String,
    },
    /// A name given to [`Pipeline::without`](crate::Pipeline::without) that the pipeline does not have.
    #[error("the pipeline has no layer `{name}` to remove; its layers are: [{}]", .known.join(", "))]
    UnknownLayer {
        /// The name asked for.
        name: String,
        /// The pipeline's layers.
        known: Vec<String>,
    },
    /// A package given to [`Pipeline::require_crates`](crate::Pipeline::require_crates) with no layer in the pipeline.
    #[error(
        "no layer from package `{name}` is linked into this binary (packages with layers here: [{}]); \
         add `use {} as _;` to the library that builds the pipeline, so every binary and test links it",
        .linked.join(", "), .name.replace('-', "_")
    )]
    MissingCrate {
        /// The package asked for.
        name: String,
        /// The packages that do have layers in the pipeline.
        linked: Vec<String>,
    },
    /// A package of the binary's Cargo workspace that declares layers and
    /// that the binary's package depends on, none of whose layers is linked
    /// (found by `prompt_checks::testing::forgotten_crates`).
    #[error("{}", forgotten_message(package, lib, dependent))]
    ForgottenCrate {
        /// The package that declares the layers (its name in `Cargo.toml`).
        package: String,
        /// Its library's crate name, the one `use` takes.
        lib: String,
        /// The package whose binary or test this is.
        dependent: String,
    },
    /// A tool (or tool slot) declared as documented by a layer the pipeline
    /// does not hold: the tool could never be sent.
    #[error(
        "the tool `{tool}` (declared at {location}) is documented by layer `{layer}`, which this pipeline does not have; \
         its layers are: [{}]. Name one of them in `documented_by`, or add the layer",
        .known.join(", ")
    )]
    ToolLayerMissing {
        /// The tool's name.
        tool: String,
        /// The layer it names.
        layer: String,
        /// `file:line` of the tool's declaration.
        location: String,
        /// The pipeline's layers.
        known: Vec<String>,
    },
    /// Two tools (or slots) of one pipeline share a name.
    #[error("two tools are called `{name}` ({first} and {second}); rename one")]
    DuplicateTool {
        /// The name.
        name: String,
        /// `file:line` of the first declaration.
        first: String,
        /// `file:line` of the second.
        second: String,
    },
    /// A layer given to [`Pipeline::require_layers`](crate::Pipeline::require_layers) that the pipeline does not have.
    #[error(
        "the pipeline has no layer `{name}`: the crate that defines it is not linked into this binary \
         (add `use that_crate as _;` to your library), or the layer joins another pipeline"
    )]
    MissingLayer {
        /// The layer asked for.
        name: String,
    },
    /// An `after`/`before` relation the priorities contradict.
    #[error("{}", order_message(layer, *priority, *relation, other, *other_priority))]
    Order {
        /// The layer that declares the relation.
        layer: LayerRef,
        /// Its priority.
        priority: u32,
        /// `after` or `before`.
        relation: Relation,
        /// The layer it names.
        other: LayerRef,
        /// That layer's priority.
        other_priority: u32,
    },
    /// A Stable layer on the wrong side of others by scope, in a pipeline
    /// that holds its layers to scope order: before wider-scoped layers
    /// (`ahead`) or after narrower-scoped ones. One problem per mistake: the
    /// layer named is the one whose move fixes the most clashes (a layer
    /// ahead of three wider ones is one problem, not three), so the fix it
    /// offers moves that layer only, never the others.
    #[error(
        "{}",
        scope_order_message(layer, *scope, *priority, *ahead, others, *target, *bound)
    )]
    ScopeOrder {
        /// The layer out of place.
        layer: LayerRef,
        /// Its scope.
        scope: Scope,
        /// Its priority.
        priority: u32,
        /// Whether it comes before wider-scoped layers (else after narrower ones).
        ahead: bool,
        /// The layers on the wrong side of it, in render order, with scope and priority.
        others: Vec<(LayerRef, Scope, u32)>,
        /// The scope that would fit where it is.
        target: Scope,
        /// The priority to move it past.
        bound: u32,
    },
    /// Priority outside the stability's band.
    #[error("{}", band_message(layer, *priority, *stability))]
    OutOfBand {
        /// The layer.
        layer: LayerRef,
        /// Its priority.
        priority: u32,
        /// Its stability.
        stability: Stability,
    },
    /// Two layers share a priority, so their order is undefined.
    #[error(
        "layers {first} and {second} both have priority {priority}; give one of them another priority"
    )]
    DuplicatePriority {
        /// The first layer.
        first: LayerRef,
        /// The second layer.
        second: LayerRef,
        /// The shared priority.
        priority: u32,
    },
    /// Two layers share a name, so traces and manifests are ambiguous.
    #[error(
        "layers {first} and {second} are both named `{name}`; rename one with `name = \"...\"`"
    )]
    DuplicateName {
        /// The first layer.
        first: LayerRef,
        /// The second layer.
        second: LayerRef,
        /// The shared name.
        name: &'static str,
    },
    /// A layer that renders on no path.
    #[error(
        "layer {layer} has no assembly path, so it never renders; list at least one of Basic, Cached in `paths`"
    )]
    NoPaths {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer that speaks in no mode.
    #[error(
        "layer {layer} has no mode, so it never renders; list at least one of Full, Compact, Minimal in `modes` or drop the key"
    )]
    NoModes {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer whose name is not snake_case.
    #[error(
        "layer {layer} has a name that is not snake_case (lowercase ASCII letters, digits, `_`, starting with a letter); rename it"
    )]
    BadName {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer handed to a pipeline it does not join.
    #[error(
        "layer {layer} joins [{}], not `{expected}`; take it into `{expected}` with `#[prompt_pipeline(include = [..])]`, add the pipeline to the layer's `pipeline = [..]` key, or, for a pipeline built by hand, pass `spec.pipelines(&[\"{expected}\"])`",
        .declared.join(", ")
    )]
    WrongPipeline {
        /// The layer.
        layer: LayerRef,
        /// The pipelines its spec names.
        declared: Vec<&'static str>,
        /// The pipeline being built.
        expected: String,
    },
    /// A layer whose paths (or modes) and its pipeline's do not meet: it
    /// would never render in this pipeline. (A path the layer lists and this
    /// pipeline does not serve is fine: the layer renders on the paths both
    /// list, and may render on the others in another pipeline.)
    #[error(
        "layer {layer} lists {what} [{lists}], but pipeline `{pipeline}` serves only [{serves}], so the layer would never render in it; \
         list one of [{serves}] in the layer's `{what}` (or where the pipeline includes it), or leave the layer out of `{pipeline}`"
    )]
    NeverRenders {
        /// The layer.
        layer: LayerRef,
        /// `paths` or `modes`.
        what: &'static str,
        /// What the layer lists, comma-separated.
        lists: String,
        /// What the pipeline serves, comma-separated.
        serves: String,
        /// The pipeline.
        pipeline: String,
    },
}

/// The words of [`Problem::OutOfBand`]: the rule's, as at compile time.
fn band_message(layer: &LayerRef, priority: u32, stability: Stability) -> Said<'_> {
    let facts = Facts {
        priority,
        stability,
        ..Facts::about(layer.who())
    };
    Said(&[rules::BAND], facts)
}

/// The words of [`Problem::Order`]: the rule's, with both priorities.
fn order_message<'a>(
    layer: &'a LayerRef,
    priority: u32,
    relation: Relation,
    other: &'a LayerRef,
    other_priority: u32,
) -> Said<'a> {
    let facts = Facts {
        other: other.who(),
        written: other.type_name,
        priority,
        other_priority,
        flag: relation == Relation::After,
        ..Facts::about(layer.who())
    };
    Said(&[rules::ORDER, rules::ORDER_PRIORITIES], facts)
}

/// The words of [`Problem::ScopeOrder`]: every layer on the wrong side,
/// then the rule's fix, as at compile time.
fn scope_order_message(
    layer: &LayerRef,
    scope: Scope,
    priority: u32,
    ahead: bool,
    others: &[(LayerRef, Scope, u32)],
    target: Scope,
    bound: u32,
) -> String {
    let listed: Vec<String> = others
        .iter()
        .map(|(other, scope, priority)| format!("{other} ({}, priority {priority})", scope.ident()))
        .collect();
    let default = if scope == Scope::Session {
        ", the default"
    } else {
        ""
    };
    let facts = Facts {
        target,
        bound,
        flag: ahead,
        ..Facts::about(layer.who())
    };
    let templates = [rules::scope_fix(scope, ahead), rules::SCOPE_RELAXED];
    let fix = Said(&templates, facts);
    format!(
        "layer {layer} ({}{default}, priority {priority}) comes {} {}, but {}: {fix}",
        scope.ident(),
        if ahead { "before" } else { "after" },
        listed.join(", "),
        Scope::ORDER_TEXT,
    )
}

/// A [`Problem::ForgottenCrate`]'s message: another package of the
/// workspace, or the package's own library, which its `main.rs` or test
/// does not name.
fn forgotten_message(package: &str, lib: &str, dependent: &str) -> String {
    if package == dependent {
        format!(
            "package `{package}` declares layers in its library, and this binary or test of it \
             links none of them, so every pipeline renders without them; add `use {lib} as _;` \
             to its `src/main.rs` (or the test's file): a package's library is another crate to them"
        )
    } else {
        format!(
            "package `{package}` declares layers and `{dependent}` depends on it, but none of its layers \
             is linked into this binary, so every pipeline renders without them; add `use {lib} as _;` \
             to the crate that builds the pipeline (`{dependent}`'s `src/main.rs`, or its library)"
        )
    }
}
