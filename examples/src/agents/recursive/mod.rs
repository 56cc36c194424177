//! recursive: a Rust coding agent whose system prompt ("Layer 0") is built
//! once per session and shared by four channels.
//!
//! # Sections, in order (stable -> volatile)
//!
//! | layer | priority | source |
//! |---|---|---|
//! | `persona` | 100 | the built-in working principles (silent when a caller replaces the base) |
//! | `user_preferences` | 200 | `# User preferences`: `~/.recursive/memory/user.md`, 8 KiB cap |
//! | `project_memory` | 300 | `# Project memory`: `<workspace>/.recursive/memory/project.md`, 8 KiB cap |
//! | `memory` | 400 | `# Memory`: legacy notes from `<workspace>/.recursive/memory.json` |
//! | `scratchpad` | 500 | `# Scratchpad`: `<workspace>/.recursive/scratchpad.json` |
//! | `facts` | 600 | `# Facts`: `~/.recursive/memory/facts.jsonl` and `<workspace>/.recursive/memory/facts.jsonl` merged |
//! | `episodic_recall` | 700 | `# Episodic recall`: `<workspace>/.recursive/memory/episodes.jsonl` |
//! | `project_context` | 800 | `# Project context`: `AGENTS.md` and `CLAUDE.md` at the root, 16 KiB each, under `## ` sub-headers |
//! | `system_prompt_override` | 850 | a caller's replacement base (HTTP `system_prompt`, CLI `--system-prompt[-file]`) |
//! | `appended_instructions` | 860 | a caller's `append_system_prompt` / `--append-system-prompt` |
//! | `skills` | 900 | `# Available skills`: one line per skill |
//! | `coordinator` | 1000 | `## Coordinator workflow` and the `agent` tool note, when sub-agents are enabled |
//!
//! Every layer is **Stable**. recursive computes its base (sections 1-6) once,
//! when the session starts, and never re-reads it: the scratchpad and the facts
//! an agent writes mid-session reach it through tools, not through the prompt,
//! so the whole prompt stays one cacheable prefix. The standard library's
//! `scratchpad` layer is Dynamic instead (it re-reads the notes every turn, for
//! agents that want them in view). Here the standard layers are reused for
//! their rendering, under recursive's own Stable declarations, and the
//! scratchpad is loaded into the *session* context, which is all a Stable
//! layer may read.
//!
//! Every file goes through the standard sources: memory files and project docs
//! are read under their caps, end with the standard truncation marker when cut,
//! and a multi-byte character (CJK, emoji) that straddles a cap is dropped
//! whole.
//!
//! # Channels
//!
//! [`cli_run`], [`cli_loop`], [`http`] and [`tui`] each fold their own base
//! (a [`BaseFold`]) and call the one entry, [`assemble`]. A replaced base drops
//! the persona and the memory sections (they belong to the base it replaces),
//! and still gets the project context in front of it. [`cli_run`] alone adds a
//! suffix after assembly: the bodies of the skills its goal matches.
//!
//! # Where this follows the issue rather than upstream
//!
//! - Section order: upstream writes the project context *before* the base
//!   text; the issue lists it after the six base sections, and so does this
//!   pipeline. A replaced base is still preceded by the project context,
//!   because the replacement renders at 850, after it.
//! - `# Memory`: upstream's heading is `# Memory summary`.
//! - Project context merges AGENTS.md and CLAUDE.md under `## ` sub-headers
//!   (upstream later read CLAUDE.md only when AGENTS.md is absent).
//! - `# Available skills` is a section of the system prompt; upstream either
//!   lists skills without a heading or sends the index as a per-turn reminder.
//! - Truncation drops a straddling character whole; upstream panicked (memory
//!   files) or wrote U+FFFD (project docs).
//! - The `cli_run` suffix holds the bodies of *goal-matched* skills (a
//!   `trigger`-mode skill whose trigger occurs in the goal); upstream injects
//!   `always`-mode bodies and only a hint for triggered ones.
//! - Facts and episodes use the standard dated-JSONL sources: facts are
//!   ordered by `last_accessed`, episodes come from `episodes.jsonl` rather
//!   than session metadata folders.

mod channels;
mod layers;
mod notes;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use prompt_core::prompt_pipeline;
use prompt_core::{
    AssembledPrompt, AssemblyPath, Context, Pipeline, PipelineError, PromptBuilder, PromptMode,
};
use prompt_layers::ToolSpec;
use prompt_layers::sources::{
    DatedEntries, DatedSpec, EntryBudget, Episodes, Facts, MemoryFile, ProjectDocs,
    ProjectDocsConfig, ProjectMemory, Root, Scratchpad, SkillIndex, SkillLimits, UserPreferences,
};

/// At most this many bytes are read of each JSON-lines file: its tail.
pub const JSONL_READ_CAP: usize = 256 * 1024;

pub use channels::{
    ChannelError, ChannelPrompt, CliFlags, RUN_SKILLS_CAP, RunRequest, SYSTEM_PROMPT_FILE_CAP,
    cli_loop, cli_run, http, tui,
};
pub use layers::{
    AGENT_TOOL, AppendedInstructions, AppendedInstructionsLayer, CallerBase, Coordinator,
    EpisodicRecall, FactsSection, MemorySection, PERSONA, Persona, ScratchpadSection,
    SubAgentsEnabled, SystemPromptOverride,
};
pub use notes::{HOOK_BYTES, LegacyNotes, NOTES_FILE_CAP, Note};

use super::{AgentError, Layout, Paradigm, RenderRequest, Rendered};

/// The pipeline's name: every recursive layer declares it.
pub const PIPELINE: &str = "recursive";

/// Recursive's pipeline: its own layers join it with `pipeline = Recursive`,
/// the standard layers whose section and place it keeps are included as they
/// are (in Full, the only mode it serves), and
/// [`Pipeline::of`](prompt_core::Pipeline::of) or `Pipeline::named(PIPELINE)` collects it.
///
/// `scope_order = Relaxed`: the seed's Layer 0 puts the user's preferences
/// right after the persona, before the project's memory and docs, and the
/// reproduction keeps that order; the contract check `scope_sharing`
/// reports what it costs in cross-user cache sharing.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full], scope_order = Relaxed, include = [
    prompt_layers::ProjectMemoryLayer,
    prompt_layers::ProjectContextLayer,
    prompt_layers::SkillsIndexLayer,
])]
pub struct Recursive;
/// recursive builds one flat prompt, also offered as a Cached prompt whose dynamic part is empty.
pub const PATHS: &[AssemblyPath] = &[AssemblyPath::Basic, AssemblyPath::Cached];
/// recursive has no modes: every layer speaks in Full only.
pub const MODES: &[PromptMode] = &[PromptMode::Full];

/// Cap of each memory file (`user.md`, `project.md`), in bytes.
pub const MEMORY_CAP: usize = 8 * 1024;
/// Cap of each project doc (`AGENTS.md`, `CLAUDE.md`), in bytes.
pub const PROJECT_DOC_CAP: usize = 16 * 1024;
/// How many notes, facts and episodes the base lists by default.
pub const SUMMARY_LIMIT: usize = 5;

/// Where a recursive session reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecursiveConfig {
    /// The workspace root.
    pub workspace: PathBuf,
    /// The user's home; `None` skips the user-level files.
    pub home: Option<PathBuf>,
    /// Whether sub-agents are enabled: the coordinator section and the `agent` tool.
    pub sub_agents: bool,
    /// How many notes, facts and episodes to list.
    pub summary_limit: usize,
    /// Whether `home` is the user's own, so a file with more than one name
    /// (a hard link) in its `.recursive` or `.claude` is read, as in the
    /// standard `~/.<app>`. `false` for a fixture's `home/`, which comes with
    /// the folder it was handed: a hard link there (to `~/.ssh/id_rsa`) is
    /// refused like one in the workspace.
    pub home_is_users: bool,
}

impl RecursiveConfig {
    /// Defaults for `workspace`, with no home and sub-agents off.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            home: None,
            sub_agents: false,
            summary_limit: SUMMARY_LIMIT,
            home_is_users: true,
        }
    }

    /// The fixture's configuration: `<fixture>/workspace`, home `<fixture>/home`,
    /// sub-agents on.
    pub fn fixture(root: &Path) -> Self {
        Self {
            workspace: root.join("workspace"),
            home: Some(root.join("home")),
            sub_agents: true,
            summary_limit: SUMMARY_LIMIT,
            home_is_users: false,
        }
    }

    /// The configuration for `dir` read as `layout` says: a fixture root
    /// ([`RecursiveConfig::fixture`]), or the workspace itself with no home
    /// and sub-agents on. Never chosen by what `dir` holds.
    pub fn of(dir: &Path, layout: Layout) -> Self {
        match layout {
            Layout::Fixture => Self::fixture(dir),
            Layout::Workspace => Self {
                sub_agents: true,
                ..Self::new(dir)
            },
        }
    }

    fn project_dir(&self) -> PathBuf {
        self.workspace.join(".recursive")
    }

    fn user_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(".recursive"))
    }

    /// Skill roots, in precedence order: the workspace's `.recursive/skills`
    /// and `.claude/skills`, then the same under the home; each with the root
    /// its files must stay in.
    pub fn skill_roots(&self) -> Vec<(PathBuf, Root)> {
        let workspace = self.workspace_root();
        let mut roots = vec![
            (self.workspace.join(".recursive/skills"), workspace.clone()),
            (self.workspace.join(".claude/skills"), workspace),
        ];
        if let Some(home) = &self.home {
            for app in [".recursive", ".claude"] {
                let root = self.home_root(home.join(app), format!("~/{app}"));
                roots.push((home.join(app).join("skills"), root));
            }
        }
        roots
    }

    /// The workspace, as the root its files must stay in.
    pub fn workspace_root(&self) -> Root {
        Root::new(&self.workspace, "")
    }

    /// `~/.recursive`, as the root the user's files must stay in.
    fn user_root(&self) -> Option<Root> {
        self.user_dir()
            .map(|dir| self.home_root(dir, "~/.recursive".to_owned()))
    }

    /// A folder of the home as a root: hard links read only when the home is
    /// the user's own ([`RecursiveConfig::home_is_users`]).
    fn home_root(&self, dir: PathBuf, label: String) -> Root {
        let root = Root::new(dir, label);
        if self.home_is_users {
            root.allow_hard_links()
        } else {
            root
        }
    }
}

/// How a channel folds its base: recursive's default base (persona and memory
/// sections), replaced by a caller's text, with optional appended instructions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseFold {
    /// A caller's system prompt that replaces the default base.
    pub replacement: Option<String>,
    /// Text appended to the base.
    pub append: Option<String>,
}

/// The session context for `config` with the base folded as `fold`.
///
/// Loads every source once; the prompt never changes for the session after.
pub fn session(config: &RecursiveConfig, fold: &BaseFold) -> Context {
    let mut session = Context::new();
    match fold.replacement.as_deref() {
        Some(text) => {
            session.insert(CallerBase(text.to_owned()));
        }
        None => load_base(config, &mut session),
    }
    if let Some(append) = fold.append.as_deref().filter(|a| !a.trim().is_empty()) {
        session.insert(AppendedInstructions(append.to_owned()));
    }
    let docs_config = ProjectDocsConfig {
        cap_per_file: PROJECT_DOC_CAP,
        nested: false,
        ..ProjectDocsConfig::default()
    };
    session.insert(ProjectDocs::load(
        &config.workspace,
        &config.workspace,
        &docs_config,
    ));
    session.insert(SkillIndex::load(
        &config.skill_roots(),
        &SkillLimits::default(),
    ));
    session.insert(SubAgentsEnabled(config.sub_agents));
    session
}

/// Sections 1-6: the memory that belongs to the default base.
fn load_base(config: &RecursiveConfig, session: &mut Context) {
    let project = config.project_dir();
    let user = config.user_dir();
    let user_md = match (&user, config.user_root()) {
        (Some(dir), Some(root)) => MemoryFile::load(&dir.join("memory/user.md"), &root, MEMORY_CAP),
        _ => MemoryFile {
            path: PathBuf::from("~/.recursive/memory/user.md"),
            text: None,
            problem: None,
        },
    };
    session.insert(UserPreferences(user_md));
    let workspace = config.workspace_root();
    session.insert(ProjectMemory(MemoryFile::load(
        &project.join("memory/project.md"),
        &workspace,
        MEMORY_CAP,
    )));
    session.insert(LegacyNotes::load(
        &project.join("memory.json"),
        &workspace,
        config.summary_limit,
    ));
    // Frozen at session start: a Stable section, read from the session context.
    let scratchpad = Scratchpad::load(&project.join("scratchpad.json"), &workspace);
    session.insert(scratchpad.unwrap_or_default());

    let mut fact_files: Vec<(PathBuf, Root)> = user
        .iter()
        .zip(config.user_root())
        .map(|(dir, root)| (dir.join("memory/facts.jsonl"), root))
        .collect();
    fact_files.push((project.join("memory/facts.jsonl"), workspace.clone()));
    let spec = |text_key, time_key| DatedSpec {
        text_key,
        time_key,
        budget: EntryBudget::Bytes(4 * 1024),
        max_entries: config.summary_limit,
        read_cap: JSONL_READ_CAP,
        now: jiff::Timestamp::now(),
    };
    session.insert(Facts(DatedEntries::load(
        &fact_files,
        &spec("text", "last_accessed"),
    )));
    let episodes = (project.join("memory/episodes.jsonl"), workspace);
    session.insert(Episodes(DatedEntries::load(
        &[episodes],
        &spec("summary", "ended_at"),
    )));
}

/// The recursive pipeline, collected once.
///
/// # Errors
/// The [`PipelineError`] if the layers do not form a valid pipeline.
pub fn pipeline() -> Result<&'static Pipeline, PipelineError> {
    static PIPELINE_CELL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
    PIPELINE_CELL
        .get_or_init(|| Pipeline::named(PIPELINE))
        .as_ref()
        .map_err(Clone::clone)
}

/// An assembled prompt and the tools that go with it.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The prompt.
    pub prompt: AssembledPrompt,
    /// The tools registered with it: the `agent` tool exactly when the
    /// coordinator section speaks.
    pub tools: Vec<ToolSpec>,
}

/// The one assembly entry every channel calls: loads the session for `config`
/// with the base folded as `fold`, and assembles it on `path`.
///
/// # Errors
/// [`ChannelError`] when the pipeline is invalid or a layer panics (both bugs).
pub fn assemble(
    config: &RecursiveConfig,
    fold: &BaseFold,
    path: AssemblyPath,
) -> Result<Assembled, ChannelError> {
    let pipeline = pipeline()?;
    let session = session(config, fold);
    let builder = PromptBuilder::new(pipeline);
    let turn = Context::new();
    let prompt = match path {
        AssemblyPath::Cached => builder.build_cached(&session, &turn)?,
        AssemblyPath::Basic => builder.build_basic(&session, &turn)?,
    };
    Ok(Assembled {
        prompt,
        tools: tools(&session),
    })
}

/// The tools a session registers: the `agent` tool when sub-agents are enabled.
///
/// Read from the same [`SubAgentsEnabled`] value as the coordinator section,
/// so the two appear together or not at all.
pub fn tools(session: &Context) -> Vec<ToolSpec> {
    session
        .get::<SubAgentsEnabled>()
        .filter(|enabled| enabled.0)
        .map(|_| layers::agent_tool())
        .into_iter()
        .collect()
}

/// The paradigms of `config`: `default_base` (the TUI's fold) and
/// `replaced_base` (an HTTP caller's own system prompt plus nothing else),
/// which over the fixture ([`RecursiveConfig::fixture`]) wake every layer.
pub fn paradigms(config: &RecursiveConfig) -> Vec<Paradigm> {
    let appended = BaseFold {
        replacement: None,
        append: Some("Answer in British English.".to_owned()),
    };
    let replaced = BaseFold {
        replacement: Some("You are a release engineer for this repository.".to_owned()),
        append: None,
    };
    vec![
        Paradigm::new("default_base", session(config, &appended), Context::new()),
        Paradigm::new("replaced_base", session(config, &replaced), Context::new()),
    ]
}

/// `prompt render --agent recursive`: the TUI's prompt (the default base)
/// for the workspace, read as `request.layout` says: a fixture root (holding
/// `workspace/` and `home/`) only when the caller chose
/// [`Layout::Fixture`]; otherwise the folder is the workspace and no home is
/// read.
pub(crate) fn render(request: &RenderRequest) -> Result<Rendered, AgentError> {
    render_with(request, true)
}

/// [`render`] with sub-agents enabled or not: the coordinator section (and
/// the `agent` tool) only when they are.
pub(crate) fn render_with(
    request: &RenderRequest,
    sub_agents: bool,
) -> Result<Rendered, AgentError> {
    let mut config = RecursiveConfig::of(&request.workspace, request.layout);
    config.sub_agents = sub_agents;
    Ok(Rendered::of(
        assemble(&config, &BaseFold::default(), request.path)?.prompt,
    ))
}
