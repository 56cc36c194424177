//! recursive: a Rust coding agent whose system prompt ("Layer 0") is built
//! once per session and shared by four channels.
//!
//! # The prompt, in order
//!
//! As recursive's `prepend_project_context` and `Config::from_env` write it
//! (upstream `jeffkit/recursive` at `d5e27aa`, the last commit whose
//! `load_project_context` merges both files, as the seed describes):
//!
//! | layer | priority | writes |
//! |---|---|---|
//! | `quoted_files` | 10 | the framework's rule on `<file>` quotes, [`QUOTED_FILES_RULE`](prompt_layers::QUOTED_FILES_RULE), then a blank line (divergence 10) |
//! | `project_context` | 50 | `# Project context`, then `## AGENTS.md` and `## CLAUDE.md` (16 KiB each) each with its file, then the rule `---` |
//! | `persona` | 100 | the built-in working principles, [`PERSONA`] (silent when a caller replaces the base) |
//! | `system_prompt_override` | 110 | a caller's replacement base (HTTP `system_prompt`, CLI `--system-prompt[-file]`), as written |
//! | `memory_rule` | 150 | the rule `---`, when a memory section follows |
//! | `user_preferences` | 200 | `# User preferences`: `~/.recursive/memory/user.md`, 8 KiB |
//! | `project_memory` | 300 | `# Project memory`: `<workspace>/.recursive/memory/project.md`, 8 KiB |
//! | `memory` | 400 | `# Memory summary`: the newest notes of `<workspace>/.recursive/memory.json` |
//! | `scratchpad` | 500 | `# Scratchpad`: `~/.recursive/workspaces/<hash>/scratchpad.json`, in file order ([`RecursiveScratchpad`]) |
//! | `facts` | 600 | `# Facts`: `~/.recursive/memory/facts.jsonl` then the workspace's, active facts by `last_accessed` ([`FactStores`]) |
//! | `episodic_recall` | 700 | `# Episodic recall`: the newest session folders under `~/.recursive/workspaces/<hash>/sessions/` ([`RecentSessions`]) |
//! | `appended_instructions` | 800 | a caller's `append_system_prompt` / `--append-system-prompt`, after a single newline |
//! | `coordinator` | 1000 | the rule `---`, `## Coordinator workflow` and the `agent` tool note, when sub-agents are enabled |
//! | `skills` | 10900 | **not in the system prompt**: the per-turn reminder `# Available skills`, [`SKILLS_LINE`], one line per skill (Dynamic, `channel = Reminder`) |
//!
//! The joints are recursive's: `\n\n` between sections, `# Heading` then a
//! single newline before a memory section's body, `\n\n---\n\n` after the
//! project context, between the base and its memory sections and before
//! the coordinator section. The pipeline's separator is empty and each
//! layer writes the joint before it, so a silent layer leaves none.
//! Truncation markers are recursive's: `[…truncated at 8KB]` after a memory
//! file, `[…truncated, AGENTS.md is N KB; …]` after a project doc.
//!
//! Every system-prompt layer is **Stable**. recursive computes its base once,
//! when the session starts, and never re-reads it, so the whole prompt stays
//! one cacheable prefix; the scratchpad is loaded into the *session* context.
//! The skill index is the one Dynamic layer: recursive sends it with every
//! request as a `<system-reminder>` user turn at the end of the conversation
//! (its `skill_reminder` and `inject_skill_reminder`), and so does this
//! reproduction, through [`AssembledPrompt::reminder`] and the providers'
//! `with_reminder`: a skill added or edited changes no cached byte.
//!
//! # Built-in texts
//!
//! This project's own words stand where recursive has its own: [`PERSONA`]
//! (recursive's `default_system_prompt`), [`COORDINATOR_TEXT`] and
//! [`AGENT_TOOL_NOTE`] (its coordinator prompt and sub-agent note),
//! [`NOTES_LINE`], [`FACTS_LINE`], [`SCRATCHPAD_LINE`], [`EPISODES_LINE`]
//! and [`SKILLS_LINE`] (the one-line headings recursive writes under
//! `# Memory summary`, `# Facts`, `# Scratchpad`, `# Episodic recall` and
//! the reminder's `# Available skills`) and
//! [`DOC_MARKER_TAIL`] (the end of its project-doc marker). The differential
//! tests (`examples/tests/agents/differential/recursive/`) run recursive's
//! own assembly with these texts in its place.
//!
//! # Divergences from recursive
//!
//! Everything else is recursive's byte for byte, on the differential cases;
//! the test applies each row marked *tested* to recursive's output and then
//! requires equality.
//!
//! | # | recursive | here | why |
//! |---|---|---|---|
//! | 1 | a file's bytes go in raw, under its sub-header or heading | cleaned (BOM, CR of CRLF, control and invisible characters dropped) and fenced as `<file path="AGENTS.md">…</file>`, leading blank lines and trailing whitespace trimmed (*tested*) | every repository file is hostile: unfenced, an AGENTS.md can write its own `---` and `# Project context` and pass for the agent's own sections; invisible characters hide instructions from the user reading the file |
//! | 2 | a cap that splits a character: U+FFFD (project docs) or a panic (memory files) | the character is dropped whole (*tested* on a real AGENTS.md) | no panic on a file with CJK or emoji at the cap, and no replacement character in the prompt |
//! | 3 | an AGENTS.md, CLAUDE.md or memory file of only whitespace gets its header over blank text | treated as absent | a fence around nothing tells the model nothing |
//! | 4 | a note's, fact's or scratchpad value's newlines go into the prompt (and a fact's id, tags and source) | folded onto one line | one entry is one line: an entry cannot add a line (or a heading) to the prompt |
//! | 5 | the scratchpad, `~/.recursive/workspaces/<hash>/scratchpad.json` (`<hash>`: 12 hex digits of BLAKE3 of the workspace's canonical path), is listed in file order; when that folder cannot be created, `<workspace>/.recursive/scratchpad.json` is read instead, and assembly creates the folder and a `path.txt` in it | the same file in the same order (*tested*: byte-identical, and a file not in recursive's form shows nothing in both), read through the user's `~/.recursive` root, at most 64 KiB; nothing is created and the workspace's copy is never read; the fixture layout names the folder `fixture` | a repository cannot plant working notes through its own `.recursive/scratchpad.json`, and a scratchpad linked to another of the user's files cannot put that file in the prompt; rendering a prompt writes nothing to the home; the fixture's folder has a fixed name because the hash is of the checkout's path |
//! | 6 | a fact store is read whole, however large | a store over 256 KiB is left out, with a note | bounded reads: a repository's `facts.jsonl` cannot make every session read gigabytes |
//! | 7 | `# Episodic recall` lists the newest session folders `~/.recursive/workspaces/<hash>/sessions/<slug>/<id>/` by path (`- id (n msgs, status): goal`, the goal cut at 80 bytes), from each `.meta.json`; a folder that fails to load still counts against the limit; `RECURSIVE_SESSIONS_DIR` overrides the folder, and the workspace's `.recursive/sessions` is read when the user's folder cannot be created | the same lines in the same order (*tested*: byte-identical on a case with a malformed, a newer-schema and an unknown-status session); each `.meta.json` read through the user's `~/.recursive` root, at most 64 KiB, at most 4096 entries per folder looked at; no environment override and never the workspace's folder; a folder name or goal with a newline is folded onto one line (row 4) | a repository cannot plant past sessions through its own `.recursive/sessions`, and a session folder linked elsewhere cannot put another file into the prompt; a home with millions of folders cannot stall the session's start; assembly reads no environment variables, so the same inputs give the same prompt |
//! | 8 | the skill index is a per-turn `<system-reminder>` (`# Available skills`, a blank line, its line, then `- [mode] name: description (refs, params, …)` per skill, budgeted to 8000 bytes, and a blank line before `</system-reminder>`) | the same reminder, out of the system prompt (*tested*: no case's system prompt has it); each line is `- name: description (path of its SKILL.md)`, no mode tag or suffixes, within the standard index's limits; `</system-reminder>` right after the last line | this reproduction registers no `load_skill` tool, so the model opens a skill's SKILL.md itself and needs its path; recursive's `mode`, `refs` and `params` keys steer that tool, which is not here; the closing tag follows the last line because the framework's reminder block (one for every provider) trims the reminder, and a blank line tells the model nothing |
//! | 9 | `cli_run` appends, after a blank line, `=== Skill: NAME (auto-loaded) ===` blocks: a `mode: always` skill's body, a triggered skill's `hint` (or `name: description`), each followed by a blank line, 8192 bytes at most (`...` and `[truncated]` past it); skills in the file system's listing order; `triggers` split on commas only | the same blocks, hints and blank lines; a body fenced and cut with the standard marker (row 1), a skill past the cap named in a last line; skills in name order; `triggers` also as a YAML list | the listing order differs between machines and runs, so the same skills could give a different prompt each run and miss the cache; a YAML list (`[release, changelog]`) would otherwise match only a goal containing `[release`; a fenced body cannot pass for the agent's own text, and a cut says what it left out |
//! | 10 | no rule on how quoted text is read (it quotes nothing: row 1) | the prompt opens with the framework's rule on `<file>` quotes and a blank line, a layer of its own (`quoted_files`) that speaks whatever the base (*tested*) | the model is told what a quote is before it meets one; in the base, the rule would go with a caller's replacement base, which still gets the quoted project context in front of it; the rule is the same for every user, so it leads the cached prefix |
//!
//! # Channels
//!
//! [`cli_run`], [`cli_loop`], [`http`] and [`tui`] each fold their own base
//! (a [`BaseFold`]) and call the one entry, [`assemble`]. A replaced base drops
//! the persona and the memory sections (they belong to the base it replaces),
//! and still gets the project context in front of it. [`cli_run`] alone adds a
//! suffix after assembly: always-on skill bodies and the hints of the skills
//! its goal triggers ([`auto_loaded_skills`]).

mod channels;
mod facts;
mod layers;
mod notes;
mod scratchpad;
mod sessions;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use prompt_core::PromptLayer;
use prompt_core::prompt_pipeline;
use prompt_core::tools::{Tool, ToolSet, canonical_json};
use prompt_core::{
    AssembledPrompt, AssemblyPath, Context, Pipeline, PipelineError, PromptBuilder, PromptMode,
};
use prompt_layers::ToolSpec;
use prompt_layers::sources::{
    MemoryFile, MemoryLimits, ProjectDocs, ProjectDocsConfig, ProjectMemory, Root, SkillIndex,
    SkillLimits, UserPreferences,
};

/// At most this many bytes are read of each JSON-lines file: its tail.
pub const JSONL_READ_CAP: usize = 256 * 1024;

pub use channels::{
    ChannelError, ChannelPrompt, CliFlags, RUN_SKILLS_CAP, RunRequest, SYSTEM_PROMPT_FILE_CAP,
    auto_loaded_skills, cli_loop, cli_run, http, tui,
};
pub use facts::{Fact, FactStores};
pub use layers::{
    AGENT_TOOL, AGENT_TOOL_NOTE, AppendedInstructions, AppendedInstructionsLayer, COORDINATOR_TEXT,
    CallerBase, Coordinator, DOC_MARKER_TAIL, EPISODES_LINE, EpisodicRecall, FACTS_LINE,
    FactsSection, MemoryRule, MemorySection, NOTES_LINE, PERSONA, Persona, ProjectContextSection,
    ProjectMemorySection, QuotedFiles, RULE, SCRATCHPAD_LINE, SKILLS_LINE, ScratchpadSection,
    SkillsSection, SubAgentsEnabled, SystemPromptOverride, UserPreferencesSection, doc_marker,
    memory_marker, preview,
};
pub use notes::{HOOK_BYTES, LegacyNotes, NOTES_FILE_CAP, Note};
pub use scratchpad::{RecursiveScratchpad, SCRATCHPAD_FILE_CAP, workspace_hash};
pub use sessions::{
    META_FILE_CAP, RecentSessions, SESSION_LIST_CAP, SUPPORTED_SCHEMA_VERSION, SessionSummary,
};

use super::{AgentError, Layout, RenderRequest, Rendered, Scenario};

/// The pipeline's name: every recursive layer declares it.
pub const PIPELINE: &str = "recursive";

/// Recursive's pipeline: its own layers join it with `pipeline = Recursive`,
/// and [`Pipeline::of`](prompt_core::Pipeline::of) or
/// `Pipeline::named(PIPELINE)` collects it.
///
/// `separator = ""`: each layer writes the joint recursive writes before it
/// (see the layers module). `scope_order = Relaxed`: recursive's Layer 0 puts
/// the project context first and the user's preferences right after the
/// base, and the reproduction keeps that order; the contract check
/// `scope_sharing` reports what it costs in cross-user cache sharing.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full], scope_order = Relaxed, separator = "")]
pub struct Recursive;
/// recursive builds one flat prompt, also offered as a Cached prompt whose dynamic part is empty.
pub const PATHS: &[AssemblyPath] = &[AssemblyPath::Basic, AssemblyPath::Cached];
/// recursive has no modes: every layer speaks in Full only.
pub const MODES: &[PromptMode] = &[PromptMode::Full];

/// Cap of each memory file (`user.md`, `project.md`), in bytes.
pub const MEMORY_CAP: usize = 8 * 1024;

const MEMORY: MemoryLimits = MemoryLimits::DEFAULT.max_bytes(MEMORY_CAP);
/// Cap of each project doc (`AGENTS.md`, `CLAUDE.md`), in bytes.
pub const PROJECT_DOC_CAP: usize = 16 * 1024;
/// How many notes, facts and episodes the base lists by default.
pub const SUMMARY_LIMIT: usize = 5;
/// The fixture layout's name for its workspace's folder under
/// `~/.recursive/workspaces/` (see [`RecursiveConfig::workspace_dir`]).
pub const FIXTURE_WORKSPACE_DIR: &str = "fixture";

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
    /// The name of the workspace's per-user folder under
    /// `~/.recursive/workspaces/`; `None` (the default) is recursive's own,
    /// [`workspace_hash`] of the workspace. The fixture layout names it
    /// `fixture`: the hash is of the checkout's absolute path, which no
    /// checked-in folder can know.
    pub workspace_dir: Option<String>,
    /// For a fixture ([`RecursiveConfig::fixture`]): the roots of its
    /// folders, each derived from the fixture folder, so that none of them
    /// is read through a symlink out of it. `None`: `workspace` and `home`
    /// are folders the caller chose, taken as given.
    pub fixture: Option<FixtureRoots>,
}

/// The roots of a fixture's folders (`workspace/`, `home/.recursive`,
/// `home/.claude`), each derived from the fixture folder with
/// [`Root::within`]: a folder handed over with `--fixture` came with the
/// repository, and may not point its `home/` at the user's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureRoots {
    workspace: Root,
    recursive: Root,
    claude: Root,
}

impl FixtureRoots {
    /// The roots of the fixture at `dir`.
    ///
    /// # Errors
    /// [`ChannelError::Fixture`] naming the folder (relative to the fixture)
    /// that leads out of it, and the symlink it leads out through, never
    /// where it leads.
    fn derive(dir: &Path) -> Result<Self, ChannelError> {
        let fixture = Root::new(dir, "");
        let within = |path: &str, label: &str| {
            Root::within(&fixture, path, label).map_err(|e| ChannelError::fixture(path, e))
        };
        // `home/` first: a link there is named as itself, not as the
        // folder below it that the walk would reach through it.
        let workspace = within("workspace", "")?;
        within("home", "~")?;
        Ok(Self {
            workspace,
            recursive: within("home/.recursive", "~/.recursive")?,
            claude: within("home/.claude", "~/.claude")?,
        })
    }
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
            workspace_dir: None,
            fixture: None,
        }
    }

    /// The fixture's configuration: `<fixture>/workspace`, home `<fixture>/home`,
    /// sub-agents on. The fixture came with the folder it was handed, so
    /// its folders are derived from it ([`FixtureRoots`]): `workspace/`,
    /// `home/` and the home's `.recursive` and `.claude` may be symlinks
    /// inside the fixture, never out of it.
    ///
    /// # Errors
    /// [`ChannelError::Fixture`] for a folder that leads out of the fixture.
    pub fn fixture(root: &Path) -> Result<Self, ChannelError> {
        Ok(Self {
            workspace: root.join("workspace"),
            home: Some(root.join("home")),
            sub_agents: true,
            summary_limit: SUMMARY_LIMIT,
            home_is_users: false,
            workspace_dir: Some(FIXTURE_WORKSPACE_DIR.to_owned()),
            fixture: Some(FixtureRoots::derive(root)?),
        })
    }

    /// The configuration for `dir` read as `layout` says: a fixture root
    /// ([`RecursiveConfig::fixture`]), or the workspace itself with no home
    /// and sub-agents on. Never chosen by what `dir` holds.
    ///
    /// # Errors
    /// As [`RecursiveConfig::fixture`], for [`Layout::Fixture`].
    pub fn of(dir: &Path, layout: Layout) -> Result<Self, ChannelError> {
        match layout {
            Layout::Fixture => Self::fixture(dir),
            Layout::Workspace => Ok(Self {
                sub_agents: true,
                ..Self::new(dir)
            }),
        }
    }

    fn project_dir(&self) -> PathBuf {
        self.workspace.join(".recursive")
    }

    fn user_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(".recursive"))
    }

    /// recursive's scratchpad, `~/.recursive/workspaces/<hash>/scratchpad.json`;
    /// `None` without a home.
    pub fn scratchpad_file(&self) -> Option<PathBuf> {
        Some(self.workspace_folder()?.join("scratchpad.json"))
    }

    /// recursive's per-user folder of the workspace,
    /// `~/.recursive/workspaces/<hash>/` (sessions, scratchpad); `None`
    /// without a home.
    pub fn workspace_folder(&self) -> Option<PathBuf> {
        let workspaces = self.user_dir()?.join("workspaces");
        Some(match &self.workspace_dir {
            Some(name) => workspaces.join(name),
            None => workspaces.join(workspace_hash(&self.workspace)),
        })
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
            for app in [HomeApp::Recursive, HomeApp::Claude] {
                let root = self.home_root(home, app);
                roots.push((home.join(app.folder()).join("skills"), root));
            }
        }
        roots
    }

    /// The workspace, as the root its files must stay in: for a fixture,
    /// the one derived from it.
    pub fn workspace_root(&self) -> Root {
        match &self.fixture {
            Some(fixture) => fixture.workspace.clone(),
            None => Root::new(&self.workspace, ""),
        }
    }

    /// `~/.recursive`, as the root the user's files must stay in.
    fn user_root(&self) -> Option<Root> {
        let home = self.home.as_ref()?;
        Some(self.home_root(home, HomeApp::Recursive))
    }

    /// A folder of the home as a root: for a fixture, the one derived from
    /// it; else the folder as given, reading hard links only when the home
    /// is the user's own ([`RecursiveConfig::home_is_users`]).
    fn home_root(&self, home: &Path, app: HomeApp) -> Root {
        if let Some(fixture) = &self.fixture {
            return match app {
                HomeApp::Recursive => fixture.recursive.clone(),
                HomeApp::Claude => fixture.claude.clone(),
            };
        }
        let folder = app.folder();
        let root = Root::new(home.join(folder), format!("~/{folder}"));
        if self.home_is_users {
            root.allow_hard_links()
        } else {
            root
        }
    }
}

/// The folders of a home that recursive reads.
#[derive(Debug, Clone, Copy)]
enum HomeApp {
    /// `~/.recursive`: memory, facts, the scratchpad, sessions, skills.
    Recursive,
    /// `~/.claude`: skills.
    Claude,
}

impl HomeApp {
    fn folder(self) -> &'static str {
        match self {
            HomeApp::Recursive => ".recursive",
            HomeApp::Claude => ".claude",
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
    if let Some(append) = fold.append.as_deref() {
        session.insert(AppendedInstructions(append.to_owned()));
    }
    let docs_config = ProjectDocsConfig::default()
        .cap_per_file(PROJECT_DOC_CAP)
        .nested(false);
    session.insert(ProjectDocs::load(
        &config.workspace_root(),
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
        (Some(dir), Some(root)) => MemoryFile::load(&dir.join("memory/user.md"), &root, &MEMORY),
        _ => MemoryFile::new(PathBuf::from("~/.recursive/memory/user.md"), None),
    };
    session.insert(UserPreferences(user_md));
    let workspace = config.workspace_root();
    session.insert(ProjectMemory(MemoryFile::load(
        &project.join("memory/project.md"),
        &workspace,
        &MEMORY,
    )));
    session.insert(LegacyNotes::load(
        &project.join("memory.json"),
        &workspace,
        config.summary_limit,
    ));
    // Frozen at session start: a Stable section, read from the session
    // context. It lives under the user's folder, read through that root.
    if let (Some(file), Some(root)) = (config.scratchpad_file(), config.user_root()) {
        session.insert(RecursiveScratchpad::load(&file, &root));
    }

    let mut fact_files: Vec<(PathBuf, Root)> = user
        .iter()
        .zip(config.user_root())
        .map(|(dir, root)| (dir.join("memory/facts.jsonl"), root))
        .collect();
    fact_files.push((project.join("memory/facts.jsonl"), workspace.clone()));
    session.insert(FactStores::load(&fact_files, config.summary_limit));
    if let (Some(dir), Some(root)) = (config.workspace_folder(), config.user_root()) {
        session.insert(RecentSessions::load(
            &dir.join("sessions"),
            &root,
            config.summary_limit,
        ));
    }
}

/// The recursive pipeline, collected once.
///
/// # Errors
/// The [`PipelineError`] if the layers do not form a valid pipeline.
pub fn pipeline() -> Result<&'static Pipeline, PipelineError> {
    static PIPELINE_CELL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
    PIPELINE_CELL
        .get_or_init(|| Pipeline::named(PIPELINE)?.with_tools(declared_tools()))
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
    // The framework sends the `agent` tool exactly when the coordinator
    // section spoke: recursive's lockstep, declared rather than hand-kept.
    let tools = pipeline.tools().for_prompt(&prompt, &[], &[])?;
    Ok(Assembled {
        prompt,
        tools: tools
            .tools()
            .iter()
            .map(|tool| {
                ToolSpec::new(
                    tool.name(),
                    tool.description(),
                    canonical_json(tool.input_schema()),
                )
            })
            .collect(),
    })
}

/// The tools the recursive pipeline declares: the `agent` tool, documented
/// by the [`Coordinator`] section, so the framework sends it exactly when
/// that section speaks (and rejects the pipeline if the section is gone).
pub fn declared_tools() -> ToolSet {
    ToolSet::new().tool(Tool::from(layers::agent_tool()).documented_by(Coordinator::SPEC.name))
}

/// The tools a session registers: the `agent` tool when sub-agents are enabled.
///
/// Read from the same [`SubAgentsEnabled`] value as the coordinator section,
/// so the two appear together or not at all; [`assemble`] gets the same
/// from [`declared_tools`] and the rendered prompt.
pub fn tools(session: &Context) -> Vec<ToolSpec> {
    session
        .get::<SubAgentsEnabled>()
        .filter(|enabled| enabled.0)
        .map(|_| layers::agent_tool())
        .into_iter()
        .collect()
}

/// The scenarios of `config`: `default_base` (the TUI's fold) and
/// `replaced_base` (an HTTP caller's own system prompt plus nothing else),
/// which over the fixture ([`RecursiveConfig::fixture`]) wake every layer.
pub fn scenarios(config: &RecursiveConfig) -> Vec<Scenario> {
    let appended = BaseFold {
        replacement: None,
        append: Some("Answer in British English.".to_owned()),
    };
    let replaced = BaseFold {
        replacement: Some("You are a release engineer for this repository.".to_owned()),
        append: None,
    };
    vec![
        Scenario::new("default_base", session(config, &appended), Context::new()),
        Scenario::new("replaced_base", session(config, &replaced), Context::new()),
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
    let mut config = RecursiveConfig::of(&request.workspace, request.layout)?;
    config.sub_agents = sub_agents;
    Ok(Rendered::of(
        assemble(&config, &BaseFold::default(), request.path)?.prompt,
    ))
}
