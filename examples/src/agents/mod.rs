//! The three reference agents, each a named pipeline with a fixture workspace.
//!
//! Every agent module exposes the same small surface:
//!
//! - `PIPELINE`: the pipeline's name (the one place it is spelt at run time);
//! - `PATHS` and `MODES`: the assembly paths and modes the agent serves;
//! - `scenarios(workspace)`: named session + turn contexts over a workspace,
//!   which together make every layer of the agent speak (contract checks and
//!   the reachability tests consume them);
//! - `render(&RenderRequest)`: what `prompt render --agent NAME` prints.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use prompt_cli::Options;
use prompt_core::{AssemblyPath, Context, Pipeline, PromptBuilder, PromptMode, TurnContext};

pub mod aleph;
pub mod kitsoki;
pub mod recursive;

/// One of the reproduced agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    /// recursive: a Rust coding agent whose "Layer 0" prompt is frozen per session.
    Recursive,
    /// Aleph: a Rust agent with a many-layer, two-band, three-mode pipeline.
    Aleph,
    /// kitsoki: a story engine that composes three layers for `claude` and Codex.
    Kitsoki,
}

impl Agent {
    /// Every agent, in the order the README lists them.
    pub const ALL: [Agent; 3] = [Agent::Recursive, Agent::Aleph, Agent::Kitsoki];

    /// The agent's lowercase name, as `--agent` takes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Agent::Recursive => "recursive",
            Agent::Aleph => "aleph",
            Agent::Kitsoki => "kitsoki",
        }
    }

    /// The name of the agent's pipeline.
    pub const fn pipeline_name(self) -> &'static str {
        match self {
            Agent::Recursive => recursive::PIPELINE,
            Agent::Aleph => aleph::PIPELINE,
            Agent::Kitsoki => kitsoki::PIPELINE,
        }
    }

    /// The paths the agent serves.
    pub const fn paths(self) -> &'static [AssemblyPath] {
        match self {
            Agent::Recursive => recursive::PATHS,
            Agent::Aleph => aleph::PATHS,
            Agent::Kitsoki => kitsoki::PATHS,
        }
    }

    /// The modes the agent serves.
    pub const fn modes(self) -> &'static [PromptMode] {
        match self {
            Agent::Recursive => recursive::MODES,
            Agent::Aleph => aleph::MODES,
            Agent::Kitsoki => kitsoki::MODES,
        }
    }

    /// The agent's pipeline, collected from the layers linked into this binary.
    ///
    /// # Errors
    /// A [`prompt_core::PipelineError`] listing every structural problem.
    pub fn pipeline(self) -> Result<Pipeline, prompt_core::PipelineError> {
        Pipeline::named(self.pipeline_name())
    }

    /// The built-in fixture workspace: `examples/fixtures/<agent>` of this checkout.
    pub fn fixture(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(self.as_str())
    }

    /// The agent's scenarios over `workspace`, read as `layout` says.
    ///
    /// # Errors
    /// [`AgentError`] when a workspace file is malformed, or a fixture's
    /// folder leads out of it.
    pub fn scenarios(self, workspace: &Path, layout: Layout) -> Result<Vec<Scenario>, AgentError> {
        match self {
            Agent::Recursive => Ok(recursive::scenarios(&recursive::RecursiveConfig::of(
                workspace, layout,
            )?)),
            Agent::Aleph => aleph::scenarios(workspace).map_err(AgentError::from),
            Agent::Kitsoki => kitsoki::scenarios(workspace).map_err(AgentError::from),
        }
    }

    /// What `prompt render --agent NAME` prints for `request`.
    ///
    /// # Errors
    /// [`AgentError`] when the workspace cannot be read or the prompt cannot be built.
    pub fn render(self, request: &RenderRequest) -> Result<Rendered, AgentError> {
        self.check(request)?;
        match self {
            Agent::Recursive => recursive::render(request),
            Agent::Aleph => aleph::render(request),
            Agent::Kitsoki => kitsoki::render(request),
        }
    }

    /// A path or mode the agent does not serve is an error naming those it does.
    fn check(self, request: &RenderRequest) -> Result<(), AgentError> {
        if !self.paths().contains(&request.path) {
            return Err(AgentError::Unsupported(format!(
                "{self} has no `{}` path; use one of: {}",
                request.path,
                list(self.paths())
            )));
        }
        if let Some(mode) = request.mode.filter(|m| !self.modes().contains(m)) {
            return Err(AgentError::Unsupported(format!(
                "{self} has no `{mode}` mode; use one of: {}",
                list(self.modes())
            )));
        }
        Ok(())
    }
}

/// How the `prompt` binary plugs the agent in: `--agent NAME` renders its
/// own way over its fixture (or `--workspace`); `--sub-agent` enables
/// recursive's coordinator section; kitsoki takes `--set verb=..` and
/// `--set agent=..`.
impl prompt_cli::Agent for Agent {
    fn name(&self) -> &str {
        self.as_str()
    }

    fn pipeline(&self) -> &str {
        self.pipeline_name()
    }

    fn default_workspace(&self) -> Option<PathBuf> {
        Some(self.fixture())
    }

    fn settings(&self) -> &[(&'static str, &'static str)] {
        match self {
            Agent::Kitsoki => &[
                (
                    "verb",
                    "the call's verb: route, ask, decide, converse, extract, ask_with_mcp, ask_structured or task (default ask)",
                ),
                (
                    "agent",
                    "the story's agent that is called (default: guide, else the first by name)",
                ),
            ],
            Agent::Recursive | Agent::Aleph => &[],
        }
    }

    fn render(&self, options: &Options) -> Result<Rendered, prompt_cli::AgentError> {
        if options.budget.is_some() {
            return Err(format!(
                "--budget-chars and --budget-tokens apply to a workspace's standard pipeline; \
                 {self} sizes its own prompt: drop the budget flag or --agent"
            )
            .into());
        }
        let request = RenderRequest::of(options);
        self.check(&request)?;
        Ok(match self {
            Agent::Recursive => recursive::render_with(&request, !options.sub_agents.is_empty())?,
            Agent::Aleph => aleph::render(&request)?,
            Agent::Kitsoki => {
                let verb = options
                    .setting("verb")
                    .map(str::parse::<kitsoki::Verb>)
                    .transpose()
                    .map_err(|e| format!("--set verb: {e}"))?;
                kitsoki::render_call(&request, verb, options.setting("agent"))?
            }
        })
    }

    fn scenarios(
        &self,
        options: &Options,
    ) -> Result<Vec<prompt_checks::contract::Scenario>, prompt_cli::AgentError> {
        let layout = RenderRequest::of(options).layout;
        Ok(Agent::scenarios(*self, &options.workspace, layout)?
            .into_iter()
            .map(|p| prompt_checks::contract::Scenario::new(p.name, p.session).turn(p.turn))
            .collect())
    }
}

fn list<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Agent {
    type Err = AgentError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL
            .into_iter()
            .find(|agent| agent.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                AgentError::Unsupported(format!(
                    "unknown agent `{s}`: expected one of recursive, aleph, kitsoki"
                ))
            })
    }
}

/// A named session + turn context: one way the agent is used.
#[derive(Debug)]
pub struct Scenario {
    /// What the scenario stands for, e.g. `cli`, `background`, `sub_agent`.
    pub name: String,
    /// The session context.
    pub session: Context,
    /// The turn context.
    pub turn: TurnContext,
}

impl Scenario {
    /// A scenario called `name`.
    pub fn new(name: impl Into<String>, session: Context, turn: TurnContext) -> Self {
        Self {
            name: name.into(),
            session,
            turn,
        }
    }
}

/// What an agent sends as its system prompt for one render: the prompt,
/// and its text plus anything the agent adds after assembly (Aleph's
/// sub-agent welds).
pub use prompt_cli::Rendered;

/// How an agent reads the folder it is given.
///
/// Chosen by the caller, never guessed from what the folder holds: a
/// repository cannot make its own files pass for the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// The folder is the workspace. recursive reads no home folder.
    #[default]
    Workspace,
    /// The folder is laid out like the built-in fixtures: recursive reads
    /// `workspace/` as the workspace and `home/` as the user's home (Aleph's
    /// and kitsoki's fixtures are plain workspaces, read the same either way).
    /// `prompt --fixture`, or no `--workspace`, chooses it.
    Fixture,
}

/// What `prompt render --agent NAME` asks for.
#[derive(Debug, Clone)]
pub struct RenderRequest {
    /// The workspace: the agent's fixture unless `--workspace` names another.
    pub workspace: PathBuf,
    /// How `workspace` is read.
    pub layout: Layout,
    /// The path to build.
    pub path: AssemblyPath,
    /// The mode to build in; `None`: the workspace's choice (Aleph's
    /// `aleph.toml`), else [`PromptMode::Full`].
    pub mode: Option<PromptMode>,
    /// The date the turn states, e.g. `2026-11-29`.
    pub date: Option<String>,
    /// The model the turn states.
    pub model: Option<String>,
    /// `--prompt-path` folders: kitsoki searches them for
    /// `sysprompt/kitsoki.md` before the story root (its overlay).
    pub prompt_path: Vec<PathBuf>,
}

impl RenderRequest {
    /// The request the `prompt` CLI's options make.
    pub fn of(options: &Options) -> Self {
        Self {
            workspace: options.workspace.clone(),
            layout: if options.fixture {
                Layout::Fixture
            } else {
                Layout::Workspace
            },
            path: options.path,
            mode: options.mode,
            date: options.date.clone(),
            model: options.model.clone(),
            prompt_path: options.prompt_path.clone(),
        }
    }
}

/// Layers of `pipeline` that speak in none of `scenarios` on any of `paths`
/// and `modes`: the reachability check. Each is returned with its `file:line`.
///
/// # Errors
/// An [`prompt_core::AssemblyError`] from any build (a panicking layer).
pub fn unreachable_layers(
    pipeline: &Pipeline,
    scenarios: &[Scenario],
    paths: &[AssemblyPath],
    modes: &[PromptMode],
) -> Result<Vec<String>, prompt_core::AssemblyError> {
    let mut spoke = std::collections::BTreeSet::new();
    for scenario in scenarios {
        for &mode in modes {
            let builder = PromptBuilder::new(pipeline).mode(mode);
            for &path in paths {
                let prompt = match path {
                    AssemblyPath::Cached => builder.build_cached(&scenario.session, &scenario.turn),
                    AssemblyPath::Basic => builder.build_basic(&scenario.session, &scenario.turn),
                }?;
                spoke.extend(
                    prompt
                        .trace()
                        .layers
                        .iter()
                        .filter(|l| !l.silent)
                        .map(|l| l.name),
                );
            }
        }
    }
    Ok(pipeline
        .specs()
        .filter(|spec| !spoke.contains(spec.name))
        .map(|spec| format!("{} ({})", spec.name, spec.location()))
        .collect())
}

/// Why an agent could not render.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// A path, mode or agent name the agent does not have.
    #[error("{0}")]
    Unsupported(String),
    /// The agent's pipeline is malformed.
    #[error(transparent)]
    Pipeline(#[from] prompt_core::PipelineError),
    /// The prompt could not be assembled.
    #[error(transparent)]
    Assembly(#[from] prompt_core::AssemblyError),
    /// recursive: a channel's input could not be read.
    #[error(transparent)]
    Recursive(#[from] recursive::ChannelError),
    /// Aleph: the workspace could not be read.
    #[error(transparent)]
    Aleph(#[from] aleph::AlephError),
    /// kitsoki: the story could not be read.
    #[error(transparent)]
    Kitsoki(#[from] kitsoki::KitsokiError),
}
