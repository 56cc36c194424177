//! kitsoki: a story engine that hands one judgment call at a time to `claude`
//! (or Codex), with a three-layer system prompt.
//!
//! As kitsoki's `internal/sysprompt` `Compose` and the host code that calls
//! it (`internal/host/sysprompt.go`, upstream `constructorfabric/Kitsoki` at
//! `1f4abf0e`) compose it:
//!
//! | layer | priority | stability | text |
//! |---|---|---|---|
//! | `framework` | 100 | Stable | `sysprompt/kitsoki.md` on the story's prompt search path (the `search_path` folders given to [`Story::load`], kitsoki's overlay, then the story root), rendered; else [`DEFAULT_FRAMEWORK`] |
//! | `project` | 200 | Stable | `app.context` inline, else the file `app.context_path`, else `prompts/_project.md`, rendered (both keys set: an error naming `app.yaml`) |
//! | `task` | 10000 | Dynamic | the verb's contract, then the agent's persona |
//!
//! Each layer is trimmed (Unicode whitespace included), empty ones are
//! dropped, and the rest are joined with [`SEPARATOR`]; the task layer
//! joins contract and persona with a blank line. Templates see no
//! variables: kitsoki renders these files with `args` unset and its engine
//! values empty, and a name it does not know renders empty, so
//! `{{ app }}` and `{{ nothing }}` are empty text here too. A framework
//! file that fails to render or renders blank falls back to the built-in
//! text; a `context_path` file that is missing, or a project text that
//! fails to render, leaves the project layer out; each with a note in
//! [`Story::notes`] (kitsoki logs a warning). `route` is kitsoki's router:
//! the built-in framework text and the project text as written (not
//! rendered, no `prompts/_project.md`).
//!
//! Per-turn data never enters the system prompt: a call's `prompt` template,
//! rendered with its arguments, is the user message.
//!
//! Every verb but `task` excludes Claude Code's own dynamic sections
//! ([`Verb::excludes_dynamic`]); an agent with `inherit_claude_default: true`
//! gets the legacy `--append-system-prompt PERSONA` form with no framework or
//! project grounding. Codex gets the same bytes through an instructions file
//! ([`codex_args`]). Each call returns and emits (as a `tracing` debug event
//! `sysprompt.composed`, target `kitsoki::sysprompt`) a [`ComposeTrace`].
//!
//! # Built-in texts
//!
//! This project's own words stand where kitsoki has its own: the framework
//! text [`DEFAULT_FRAMEWORK`] (kitsoki's embedded `templates/kitsoki.md`)
//! and the per-verb contracts [`Verb::contract`]. The differential tests
//! (`examples/tests/agents/differential/kitsoki/`) run kitsoki's own
//! composition code with these texts in its place.
//!
//! # Divergences from kitsoki
//!
//! Everything else is kitsoki's byte for byte on the differential cases; the
//! test applies each row marked *tested* to kitsoki's output and then
//! requires equality.
//!
//! | # | kitsoki | here | why |
//! |---|---|---|---|
//! | 1 | a story file's bytes go in as rendered | cleaned: a BOM, the CR of CRLF, control and invisible (zero-width, bidi) characters dropped (*tested*) | story files come from a repository the user may not have written: invisible characters hide instructions from the reader, and control characters reach the terminal |
//! | 2 | a project text of any size goes in whole | cut at [`PROJECT_CAP`] (64 KiB) on a character boundary, ending with the standard marker (*tested*, 130 KB case) | one file cannot fill the context window or the bill; the marker says what was cut |
//! | 3 | templates are pongo2 (Django syntax: `\|default:"x"`, kitsoki's `??`, any filter or call) | the project's bounded Jinja subset (minijinja): Django-only syntax is a syntax error, and the layer is left out with a note | a repository's template runs on the user's machine: this engine bounds fuel, output, includes and what a template may call; pongo2 bounds none of these |
//! | 4 | `{{ run.turn }}` renders `0`, `{{ world }}` and `{{ state }}` print Go maps | every name renders empty | a static render has no run or story state, and a Go map's print form is not text a model can use |
//! | 5 | `@shared/` resolves in the folders `prompts.shared` names (none by default) | always the story's own `shared/` folder | a repository may not point includes outside its story (`prompts.shared: [/home/you]` would read any file); stories that name `shared` render the same |
//! | 6 | a template file of any size | at most 256 KiB read, 1 MiB rendered, else the layer is left out with a note | bounded reads and renders |
//! | 7 | the folders of the prompt search path (its overlay; `--prompt-path` here) are read as named | a folder inside the workspace may not lead out of it through a symlink: the story fails, naming it; one outside the workspace is read as named | a folder named inside a repository is the repository's to redirect: `prompts -> ~/.ssh` would make a file of the user's the framework text |

mod cli;
mod story;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use prompt_core::prompt_pipeline;
use prompt_core::{
    AssembledPrompt, AssemblyPath, Context, LayerInput, LayerWriter, Pipeline, PipelineError,
    PromptBuilder, PromptMode, Render, Stable, prompt_layer,
};
use serde::{Deserialize, Serialize};

pub use cli::{INSTRUCTIONS_FILE, claude_args, claude_invocation, codex_args, codex_invocation};
pub use story::{
    AgentDecl, AppFile, AppMeta, FRAMEWORK_FILE, PROJECT_CAP, PROJECT_CONVENTION,
    PROJECT_RENDER_LIMIT, STORY_FILE_CAP, Story, StoryAgent,
};

use super::{AgentError, RenderRequest, Rendered, Scenario};

/// The pipeline's name: every kitsoki layer declares it.
pub const PIPELINE: &str = "kitsoki";

/// Kitsoki's pipeline: its layers join it with `pipeline = Kitsoki`, and
/// [`Pipeline::of`](prompt_core::Pipeline::of) or `Pipeline::named(PIPELINE)` collects it.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full], separator = "\n\n---\n\n")]
pub struct Kitsoki;
/// kitsoki sends one flat string; the Cached path shows what a cache would reuse.
pub const PATHS: &[AssemblyPath] = &[AssemblyPath::Basic, AssemblyPath::Cached];
/// kitsoki has no modes.
pub const MODES: &[PromptMode] = &[PromptMode::Full];
/// What joins the layers.
pub const SEPARATOR: &str = "\n\n---\n\n";

/// The framework layer used when the story provides none.
pub const DEFAULT_FRAMEWORK: &str = "\
# Kitsoki

You are running inside kitsoki, an engine that walks a story as a fixed graph of states. At one point of that graph it needs a judgment it cannot compute, and that judgment is yours.

## Your part

You are one replaceable operator at one recorded step. Whatever you return is data: it is checked against the step's contract, stored, and replayed later.

## How to work

- Do the task you are given and nothing around it.
- Give the smallest answer that is correct; skip preamble.
- When you are unsure, say so in the form the contract allows.
- Use only the tools you were given.

The project and the task follow.";

/// Why a story or a call could not be composed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KitsokiError {
    /// `app.yaml` (or a file it names) is malformed or names a bad path.
    #[error("{}: {message}", path.display())]
    AppYaml {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// Both `app.context` and `app.context_path` are set.
    #[error("{}: app.context and app.context_path are mutually exclusive; set only one", path.display())]
    ContextConflict {
        /// The `app.yaml`.
        path: PathBuf,
    },
    /// A call names an agent `app.yaml` does not declare.
    #[error("{}: no agent `{agent}` under agents:; declare it or call one of: {known}", path.display())]
    UnknownAgent {
        /// The `app.yaml`.
        path: PathBuf,
        /// The name called.
        agent: String,
        /// The declared names.
        known: String,
    },
    /// A file could not be read or rendered.
    #[error(transparent)]
    Source(prompt_layers::sources::SourceError),
    /// The pipeline is invalid (a bug in its declarations).
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// Assembly failed (a layer panicked: a bug).
    #[error(transparent)]
    Assembly(#[from] prompt_core::AssemblyError),
}

/// A host verb: one kind of judgment call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verb {
    /// Pick the intent of a user's input.
    Route,
    /// Answer one question.
    Ask,
    /// Resolve one decision gate.
    Decide,
    /// Take a turn in a bounded conversation.
    Converse,
    /// Extract fields from input.
    Extract,
    /// Answer one question with MCP tools.
    AskWithMcp,
    /// Answer one question as a schema-shaped object.
    AskStructured,
    /// Do scoped agentic work in a working directory.
    Task,
}

impl Verb {
    /// Every verb.
    pub const ALL: [Verb; 8] = [
        Verb::Route,
        Verb::Ask,
        Verb::Decide,
        Verb::Converse,
        Verb::Extract,
        Verb::AskWithMcp,
        Verb::AskStructured,
        Verb::Task,
    ];

    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Verb::Route => "route",
            Verb::Ask => "ask",
            Verb::Decide => "decide",
            Verb::Converse => "converse",
            Verb::Extract => "extract",
            Verb::AskWithMcp => "ask_with_mcp",
            Verb::AskStructured => "ask_structured",
            Verb::Task => "task",
        }
    }

    /// The verb's contract: the first part of the task layer (empty for `route`).
    pub const fn contract(self) -> &'static str {
        match self {
            Verb::Route => "",
            Verb::Ask | Verb::AskWithMcp => {
                "## Task: answer\n\nAnswer the one question asked, directly, using only the context and tools you were given."
            }
            Verb::AskStructured => {
                "## Task: structured answer\n\nAnswer the one question asked as a single object that matches the schema."
            }
            Verb::Decide => {
                "## Task: decide\n\nResolve this decision point: return exactly one verdict that matches the schema."
            }
            Verb::Extract => {
                "## Task: extract\n\nPull out only the fields the input supports, shaped as the schema says; leave the rest out."
            }
            Verb::Converse => {
                "## Task: converse\n\nTake your turn in this conversation. Stay in character and inside its scope."
            }
            Verb::Task => {
                "## Task: work\n\nCarry out the stated task in the working directory, exactly as scoped."
            }
        }
    }

    /// Whether `claude` should leave out its own dynamic sections (cwd, git,
    /// environment, memory): every verb but `task`.
    pub const fn excludes_dynamic(self) -> bool {
        !matches!(self, Verb::Task)
    }
}

/// The framework layer's text (session context).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameworkText(pub String);

impl prompt_core::SessionValue for FrameworkText {}

/// The project layer's text (session context).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectText(pub String);

impl prompt_core::SessionValue for ProjectText {}

/// What loading the story worked around (session context): the framework
/// and project layers put these notes in their trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadNotes {
    /// Notes on the framework layer.
    pub framework: Vec<String>,
    /// Notes on the project layer.
    pub project: Vec<String>,
}

impl prompt_core::SessionValue for LoadNotes {}

/// The task of one call (turn context).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskText {
    /// The verb.
    pub verb: Verb,
    /// The agent's persona (may be empty).
    pub persona: String,
}

impl prompt_core::TurnValue for TaskText {}

/// Layer 1: what kitsoki is and how to operate inside it.
#[prompt_layer(priority = 100, stability = Stable, scope = Global, paths = [Basic, Cached], modes = [Full],
    pipeline = Kitsoki)]
pub struct Framework;

impl Render<Stable> for Framework {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        for note in input.get::<LoadNotes>().map_or(&[][..], |n| &n.framework) {
            input.note(note.clone());
        }
        let text = input
            .get::<FrameworkText>()
            .map_or(DEFAULT_FRAMEWORK, |t| t.0.as_str());
        out.push_str(text.trim());
    }
}

/// Layer 2: the story's project context.
#[prompt_layer(priority = 200, stability = Stable, scope = Project, paths = [Basic, Cached], modes = [Full],
    pipeline = Kitsoki,
    silent = "app.context, app.context_path or prompts/_project.md with text")]
pub struct Project;

impl Render<Stable> for Project {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        for note in input.get::<LoadNotes>().map_or(&[][..], |n| &n.project) {
            input.note(note.clone());
        }
        if let Some(ProjectText(text)) = input.get::<ProjectText>() {
            out.push_str(text.trim());
        }
    }
}

/// Layer 3: the verb's contract, then the agent's persona.
#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Basic, Cached], modes = [Full],
    pipeline = Kitsoki,
    silent = "a verb with a contract (any but route) or an agent with a persona")]
pub struct Task;

impl Render for Task {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(task) = input.get::<TaskText>() else {
            return;
        };
        let parts: Vec<&str> = [task.verb.contract().trim(), task.persona.trim()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        out.push_str(&parts.join("\n\n"));
    }
}

/// The kitsoki pipeline, collected once.
///
/// # Errors
/// The [`PipelineError`] if the layers do not form a valid pipeline.
pub fn pipeline() -> Result<&'static Pipeline, PipelineError> {
    static CELL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
    CELL.get_or_init(|| Pipeline::named(PIPELINE))
        .as_ref()
        .map_err(Clone::clone)
}

/// One host call: a verb for an agent, with a prompt template and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The verb.
    pub verb: Verb,
    /// The agent, as declared under `agents:`.
    pub agent: String,
    /// A call-site persona (`with: { system_prompt: .. }`) that wins over the agent's.
    pub system_prompt: Option<String>,
    /// The user-message template, relative to the story root.
    pub prompt: Option<String>,
    /// The template's arguments.
    pub args: BTreeMap<String, String>,
}

/// A layer's name and size, as the trace lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerBytes {
    /// `framework`, `project` or `task`.
    pub name: &'static str,
    /// Its trimmed size in bytes.
    pub bytes: usize,
}

/// The record each call emits: verb, layer manifest, size, exclude flag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComposeTrace {
    /// The verb.
    pub verb: Verb,
    /// The layers that spoke, in order (empty on the legacy path).
    pub layers: Vec<LayerBytes>,
    /// The system prompt's size in bytes.
    pub bytes: usize,
    /// Whether Claude Code's dynamic sections are excluded.
    pub exclude_dynamic: bool,
}

/// What one call sends to a backend.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The system prompt: the composed layers, or, on the legacy path, the persona.
    pub system_prompt: String,
    /// Whether `claude` excludes its dynamic sections.
    pub exclude_dynamic: bool,
    /// The legacy `inherit_claude_default` path: no kitsoki grounding.
    pub legacy: bool,
    /// The user message: the call's prompt template, rendered.
    pub user_message: String,
    /// The assembled prompt (absent on the legacy path).
    pub prompt: Option<AssembledPrompt>,
    /// The call's trace record.
    pub trace: ComposeTrace,
}

/// The session context of a story: the framework and project layers.
pub fn session_context(story: &Story) -> Context {
    let mut session = Context::new()
        .with(FrameworkText(story.framework.clone()))
        .with(LoadNotes {
            framework: story.framework_notes.clone(),
            project: story.project_notes.clone(),
        });
    if let Some(project) = &story.project {
        session.insert(ProjectText(project.clone()));
    }
    session
}

/// The router's session context: kitsoki's router composes with the
/// built-in framework layer and the project text as written (see
/// [`Story::router_project`]).
pub fn router_context(story: &Story) -> Context {
    let mut session = Context::new().with(FrameworkText(DEFAULT_FRAMEWORK.trim().to_owned()));
    if let Some(project) = &story.router_project {
        session.insert(ProjectText(project.clone()));
    }
    session
}

/// The session context a call of `verb` composes with: the router's for
/// `route`, the story's for every other verb.
pub fn session_for(story: &Story, verb: Verb) -> Context {
    match verb {
        Verb::Route => router_context(story),
        _ => session_context(story),
    }
}

/// Composes `call` against `story` on `path`, emits its trace record, and
/// returns everything the backend needs.
///
/// # Errors
/// [`KitsokiError`] for an unknown agent or a prompt template that fails.
pub fn compose(story: &Story, call: &Call, path: AssemblyPath) -> Result<Invocation, KitsokiError> {
    let agent = story
        .agents
        .get(&call.agent)
        .ok_or_else(|| KitsokiError::UnknownAgent {
            path: story.app_yaml(),
            agent: call.agent.clone(),
            known: story.agents.keys().cloned().collect::<Vec<_>>().join(", "),
        })?;
    let persona = call
        .system_prompt
        .as_deref()
        .unwrap_or(&agent.persona)
        .trim()
        .to_owned();
    let user_message = match &call.prompt {
        Some(template) => story.user_message(template, &call.args)?,
        None => String::new(),
    };
    let invocation = if agent.inherit_claude_default {
        Invocation {
            trace: ComposeTrace {
                verb: call.verb,
                layers: Vec::new(),
                bytes: 0,
                exclude_dynamic: false,
            },
            system_prompt: persona,
            exclude_dynamic: false,
            legacy: true,
            user_message,
            prompt: None,
        }
    } else {
        let turn = Context::new().with(TaskText {
            verb: call.verb,
            persona,
        });
        let builder = PromptBuilder::new(pipeline()?).separator(SEPARATOR);
        let session = session_for(story, call.verb);
        let prompt = match path {
            AssemblyPath::Cached => builder.build_cached(&session, &turn)?,
            AssemblyPath::Basic => builder.build_basic(&session, &turn)?,
        };
        let system_prompt = prompt.text();
        let layers = prompt
            .trace()
            .layers
            .iter()
            .filter(|l| !l.silent)
            .map(|l| LayerBytes {
                name: l.name,
                bytes: l.bytes,
            })
            .collect();
        Invocation {
            trace: ComposeTrace {
                verb: call.verb,
                layers,
                bytes: system_prompt.len(),
                exclude_dynamic: call.verb.excludes_dynamic(),
            },
            exclude_dynamic: call.verb.excludes_dynamic(),
            system_prompt,
            legacy: false,
            user_message,
            prompt: Some(prompt),
        }
    };
    let trace = &invocation.trace;
    let layers: Vec<&str> = trace.layers.iter().map(|l| l.name).collect();
    tracing::debug!(
        target: "kitsoki::sysprompt",
        verb = trace.verb.as_str(),
        layers = layers.join(","),
        bytes = trace.bytes,
        exclude_dynamic = trace.exclude_dynamic,
        "sysprompt.composed"
    );
    Ok(invocation)
}

/// The story root under a workspace: the workspace itself when it holds
/// `app.yaml`, else the first (by name) `stories/<name>/` that does. An
/// `app.yaml` of any kind counts (a FIFO, a link): reading it then says
/// what is wrong with it, instead of calling it missing.
pub fn story_root(workspace: &Path) -> Option<PathBuf> {
    let holds = |dir: &Path| std::fs::symlink_metadata(dir.join("app.yaml")).is_ok();
    if holds(workspace) {
        return Some(workspace.to_owned());
    }
    let mut stories: Vec<PathBuf> = std::fs::read_dir(workspace.join("stories"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| holds(p))
        .collect();
    stories.sort();
    stories.into_iter().next()
}

fn load(workspace: &Path, prompt_path: &[PathBuf]) -> Result<Story, KitsokiError> {
    let root = story_root(workspace).ok_or_else(|| KitsokiError::AppYaml {
        path: PathBuf::from("app.yaml"),
        message: "no app.yaml here or in stories/*/; point --workspace at a story folder"
            .to_owned(),
    })?;
    Story::load_in(workspace, &root, prompt_path)
}

/// The fixture's demo call: `ask` for the `guide`, with `prompts/narrate.md`.
pub fn demo_call(verb: Verb) -> Call {
    Call {
        verb,
        agent: "guide".to_owned(),
        system_prompt: None,
        prompt: Some("prompts/narrate.md".to_owned()),
        args: BTreeMap::from([("day".to_owned(), "3".to_owned())]),
    }
}

/// The scenarios over a workspace: one per verb of the guide's demo call
/// (`ask`, `task`, `decide`: the host's verbs), each session holding the
/// story's framework and project layers. The router (`route`) composes from
/// its own session ([`router_context`]) and is left out here.
///
/// # Errors
/// As [`Story::load`].
pub fn scenarios(workspace: &Path) -> Result<Vec<Scenario>, KitsokiError> {
    let story = load(workspace, &[])?;
    let persona = story
        .agents
        .get("guide")
        .map(|a| a.persona.clone())
        .unwrap_or_default();
    Ok([Verb::Ask, Verb::Task, Verb::Decide]
        .into_iter()
        .map(|verb| {
            let turn = Context::new().with(TaskText {
                verb,
                persona: persona.clone(),
            });
            Scenario::new(verb.as_str(), session_context(&story), turn)
        })
        .collect())
}

/// `prompt render --agent kitsoki`: the system prompt of the demo `ask` call.
pub(crate) fn render(request: &RenderRequest) -> Result<Rendered, AgentError> {
    render_call(request, None, None)
}

/// The system prompt of a `verb` call (default `ask`) for the story's agent
/// `agent` (default: `guide` when the story has one, else its first agent by
/// name). Only `app.yaml` is needed: the user prompt `prompts/narrate.md` is
/// used when the story has it.
pub(crate) fn render_call(
    request: &RenderRequest,
    verb: Option<Verb>,
    agent: Option<&str>,
) -> Result<Rendered, AgentError> {
    let story = load(&request.workspace, &request.prompt_path)?;
    let agent = match agent {
        Some(name) if story.agents.contains_key(name) => name.to_owned(),
        Some(name) => {
            return Err(AgentError::Unsupported(format!(
                "the story has no agent `{}`; its agents: {}",
                prompt_layers::sources::visible(name),
                story.agents.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        None if story.agents.contains_key("guide") => "guide".to_owned(),
        None => story.agents.keys().next().cloned().ok_or_else(|| {
            AgentError::Unsupported(
                "the story's app.yaml declares no agents: nothing to render".to_owned(),
            )
        })?,
    };
    let mut call = demo_call(verb.unwrap_or(Verb::Ask));
    call.agent = agent;
    if !story.root.join("prompts/narrate.md").is_file() {
        call.prompt = None;
    }
    let invocation = compose(&story, &call, request.path)?;
    let prompt = invocation.prompt.ok_or_else(|| {
        AgentError::Unsupported("the guide inherits Claude Code's prompt: nothing to render".into())
    })?;
    Ok(Rendered::of(prompt))
}

impl std::str::FromStr for Verb {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Verb::ALL
            .into_iter()
            .find(|verb| verb.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown verb `{}`; one of: {}",
                    prompt_layers::sources::visible(s),
                    Verb::ALL.map(Verb::as_str).join(", ")
                )
            })
    }
}

impl KitsokiError {
    /// A story folder (the story under `stories/`, or its `shared/`) that
    /// `Root::within` refused: it leads out of its parent folder.
    pub(crate) fn folder(
        folder: &str,
        role: &str,
        error: prompt_layers::sources::SourceError,
    ) -> Self {
        use prompt_layers::sources::SourceError;
        let reason = match error {
            SourceError::OutsideRoot { target, root, .. } => format!(
                "leads outside {root}{}; a repository may not choose where its folders point (make it a folder inside {root})",
                if target.is_empty() {
                    String::new()
                } else {
                    format!(" through the symlink {target}")
                }
            ),
            other => other.to_string(),
        };
        KitsokiError::AppYaml {
            path: PathBuf::from(prompt_layers::sources::visible(folder)),
            message: format!("the {role} folder {reason}"),
        }
    }
}
