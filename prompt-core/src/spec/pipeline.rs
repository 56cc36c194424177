//! What a pipeline is before any layer joins it: its declared type and [`PipelineSpec`].

use super::enums::{AssemblyPath, PromptMode, ScopeOrder};
use super::include::Include;
use super::{DEFAULT_PIPELINE, DEFAULT_SEPARATOR};

/// Everything the framework knows about a pipeline without collecting it.
///
/// `#[prompt_pipeline(..)]` writes one as the associated const
/// [`PromptPipeline::SPEC`]. `#[non_exhaustive]`: build one with
/// [`PipelineSpec::new`] and the `with_*` methods.
///
/// ```
/// use prompt_core::AssemblyPath;
/// use prompt_core::spec::PipelineSpec;
///
/// const SUB_AGENT: PipelineSpec = PipelineSpec::new("sub_agent").paths(&[AssemblyPath::Basic]);
/// assert!(SUB_AGENT.serves_path(AssemblyPath::Basic));
/// assert!(!SUB_AGENT.serves_path(AssemblyPath::Cached));
/// assert_eq!(SUB_AGENT.separator, "\n\n");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PipelineSpec {
    /// Unique (per binary) snake_case name: the type's name in snake_case.
    pub name: &'static str,
    /// The paths its callers assemble. A layer may list only these.
    pub paths: &'static [AssemblyPath],
    /// The modes its callers assemble. A layer may list only these.
    pub modes: &'static [PromptMode],
    /// What joins two non-empty layer outputs, unless the builder sets another.
    pub separator: &'static str,
    /// Whether its Stable layers are held to [`Scope`](super::Scope) order
    /// (`scope_order = Relaxed` turns the check off).
    pub scope_order: ScopeOrder,
    /// The Rust type's name as written at the definition.
    pub type_name: &'static str,
    /// The package that defines the pipeline: [`package`](Self::package).
    pub(crate) krate: &'static str,
    /// Source file of the definition: [`file`](Self::file).
    pub(crate) file: &'static str,
    /// Source line of the definition: [`line`](Self::line).
    pub(crate) line: u32,
    /// The layers and sets it takes with `include = [..]`, besides the
    /// layers that name it in their own `pipeline` key.
    pub include: &'static [Include],
    /// The layer crates it needs (`require_crates = [my_layers]`), as `use NAME as _;`
    /// names them: collecting it fails, naming the `use` line to add, when one
    /// of them has no layer in it (the linker dropped a crate nothing names).
    pub required_crates: &'static [&'static str],
}

impl PipelineSpec {
    /// A pipeline called `name` that serves every path and mode, joined by
    /// `"\n\n"`, with its Stable layers in strict scope order.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            paths: AssemblyPath::ALL,
            modes: PromptMode::ALL,
            separator: DEFAULT_SEPARATOR,
            scope_order: ScopeOrder::Strict,
            type_name: name,
            krate: "",
            file: "",
            line: 0,
            include: &[],
            required_crates: &[],
        }
    }

    /// The same pipeline, needing a layer from each of `crates` (as
    /// `#[prompt_pipeline(require_crates = [..])]` writes).
    #[must_use]
    pub const fn required_crates(mut self, crates: &'static [&'static str]) -> Self {
        self.required_crates = crates;
        self
    }

    /// The same pipeline, taking the layers and sets of `include` (as
    /// `#[prompt_pipeline(include = [..])]` writes).
    #[must_use]
    pub const fn include(mut self, include: &'static [Include]) -> Self {
        self.include = include;
        self
    }

    /// The same pipeline, serving `paths` only.
    #[must_use]
    pub const fn paths(mut self, paths: &'static [AssemblyPath]) -> Self {
        self.paths = paths;
        self
    }

    /// The same pipeline, serving `modes` only.
    #[must_use]
    pub const fn modes(mut self, modes: &'static [PromptMode]) -> Self {
        self.modes = modes;
        self
    }

    /// The same pipeline, joining layer outputs with `separator`.
    #[must_use]
    pub const fn separator(mut self, separator: &'static str) -> Self {
        self.separator = separator;
        self
    }

    /// The same pipeline, holding its Stable layers to `order`.
    #[must_use]
    pub const fn scope_order(mut self, order: ScopeOrder) -> Self {
        self.scope_order = order;
        self
    }

    /// The same pipeline, naming its Rust type.
    #[must_use]
    pub const fn type_name(mut self, type_name: &'static str) -> Self {
        self.type_name = type_name;
        self
    }

    /// The same pipeline, defined in package `krate` at `file` and `line`.
    #[must_use]
    pub const fn defined_at(mut self, krate: &'static str, file: &'static str, line: u32) -> Self {
        self.krate = krate;
        self.file = file;
        self.line = line;
        self
    }

    /// The package that defines the pipeline (`CARGO_PKG_NAME`); empty when unknown.
    pub const fn package(&self) -> &'static str {
        self.krate
    }

    /// Source file of the definition, relative to its package's manifest directory.
    pub const fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the definition (0 when unknown).
    pub const fn line(&self) -> u32 {
        self.line
    }

    /// Where the pipeline is declared: `my-agent: src/agents.rs:12`.
    pub fn location(&self) -> String {
        format!(
            "{}: {}:{}",
            self.krate,
            self.file.replace('\\', "/"),
            self.line
        )
    }

    /// Whether callers of this pipeline assemble `path`.
    pub const fn serves_path(&self, path: AssemblyPath) -> bool {
        let mut i = 0;
        while i < self.paths.len() {
            if self.paths[i] as u8 == path as u8 {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether callers of this pipeline assemble in `mode`.
    pub const fn serves_mode(&self, mode: PromptMode) -> bool {
        let mut i = 0;
        while i < self.modes.len() {
            if self.modes[i] as u8 == mode as u8 {
                return true;
            }
            i += 1;
        }
        false
    }
}

/// A pipeline declared as a type: `#[prompt_pipeline(..)] pub struct Reviewer;`.
///
/// Layers join it with `pipeline = Reviewer` (or `pipeline = [Main, Reviewer]`),
/// so a misspelt pipeline is an ordinary unresolved-name error, and the
/// attribute rejects at compile time every path or mode a layer lists that
/// the pipeline does not serve. Collect it with [`Pipeline::of`](crate::Pipeline::of).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt pipeline",
    label = "not declared with `#[prompt_pipeline]`",
    note = "declare it with `#[prompt_pipeline(paths = [Basic, Cached])] pub struct {Self};`, or drop the `pipeline` key to join the default pipeline"
)]
pub trait PromptPipeline: 'static {
    /// The pipeline's static description.
    const SPEC: PipelineSpec;

    /// [`Self::SPEC`] at one place in memory: `#[prompt_pipeline]` puts it in
    /// a `static`, so the compile-time checks of each layer that joins the
    /// pipeline point at that one copy instead of each making its own (which
    /// the compiler would check again, down to every layer the pipeline
    /// includes). Not part of the public API.
    #[doc(hidden)]
    const __SPEC_REF: &'static PipelineSpec = &Self::SPEC;

    /// The scope order of the layers [`Self::SPEC`] includes, summed up once
    /// for every layer that joins the pipeline to check itself against. Not
    /// part of the public API.
    #[doc(hidden)]
    const __SCOPE_BOUNDS: super::ScopeBounds = super::ScopeBounds::of(Self::SPEC.include);
}

/// The pipeline a layer joins when its attribute has no `pipeline` key.
///
/// Serves every path and mode. [`Pipeline::collect`](crate::Pipeline::collect)
/// collects it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DefaultPipeline;

impl PromptPipeline for DefaultPipeline {
    const SPEC: PipelineSpec = PipelineSpec::new(DEFAULT_PIPELINE)
        .type_name("DefaultPipeline")
        .defined_at(env!("CARGO_PKG_NAME"), "src/spec/pipeline.rs", line!());
}
