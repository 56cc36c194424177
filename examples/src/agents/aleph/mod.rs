//! Aleph: a 38-layer pipeline over both bands, three modes and two paths.
//!
//! # Layers
//!
//! The seed's table (`002_4dd823e13494dd63`): names, priorities, bands,
//! paths and modes, in prompt order. Aleph's public code is an older tag
//! than the seed, so the seed is the reference; the test
//! `aleph::the_module_table_is_the_pipeline` holds this table and the
//! pipeline to each other.
//!
//! | layer | priority | band | paths | modes |
//! |---|---|---|---|---|
//! | `soul` | 50 | Stable | cached | full, compact, minimal |
//! | `agent_role` | 55 | Stable | basic, cached | full, compact |
//! | `curated_memory` | 60 | Stable | basic, cached | full, compact, minimal |
//! | `strategy` | 70 | Stable | cached | full, compact |
//! | `profile` | 75 | Stable | cached | full, compact |
//! | `identity_files` | 80 | Stable | basic, cached | full, compact |
//! | `extra_files` | 90 | Stable | basic, cached | full, compact |
//! | `role` | 100 | Stable | basic, cached | full, compact |
//! | `room_roster` | 105 | Stable | basic, cached | full, compact |
//! | `environment` | 300 | Stable | basic, cached | full |
//! | `runtime_capabilities` | 400 | Stable | basic, cached | full |
//! | `tools_policy` | 500 | Stable | basic, cached | full, compact |
//! | `security` | 600 | Stable | basic, cached | full, compact |
//! | `protocol_tokens` | 700 | Stable | basic, cached | full |
//! | `operational_guidelines` | 800 | Stable | basic, cached | full |
//! | `multi_step_conduct` | 805 | Stable | basic, cached | full |
//! | `provider_guidance` | 810 | Stable | basic, cached | full |
//! | `citation_standards` | 900 | Stable | cached | full |
//! | `skill_instructions` | 1050 | Stable | basic, cached | full |
//! | `agent_catalog` | 1060 | Stable | basic, cached | full |
//! | `special_actions` | 1100 | Stable | basic, cached | full |
//! | `memory_protocol` | 1105 | Stable | basic, cached | full, compact |
//! | `guidelines` | 1300 | Stable | basic, cached | full |
//! | `language` | 1600 | Stable | basic, cached | full, compact, minimal |
//! | `chain_context` | 10702 | Dynamic | basic, cached | full |
//! | `tool_runtime_state` | 10703 | Dynamic | basic, cached | full, compact |
//! | `mcp_instructions` | 10705 | Dynamic | basic, cached | full |
//! | `voice_mode` | 10710 | Dynamic | cached | full, compact |
//! | `doctor_repair_hint` | 10715 | Dynamic | cached | full, compact |
//! | `runtime_context` | 10720 | Dynamic | basic, cached | full |
//! | `session_budget` | 10730 | Dynamic | basic, cached | full |
//! | `memory_window` | 10745 | Dynamic | basic, cached | full, compact |
//! | `session_summaries` | 10750 | Dynamic | basic, cached | full, compact |
//! | `timer_loop` | 10753 | Dynamic | basic, cached | full, compact |
//! | `standing_goal` | 10755 | Dynamic | basic, cached | full, compact |
//! | `execution_plan` | 10756 | Dynamic | basic, cached | full, compact |
//! | `strategy_pointer` | 10757 | Dynamic | cached | full, compact |
//! | `operating_envelope` | 10758 | Dynamic | cached | full, compact, minimal |
//!
//! Compact drops the heavy guidance (environment, runtimes, protocol tokens,
//! system awareness, multi-step conduct, provider guidance, citations, skills,
//! agent catalogue, finishing, guidelines, MCP instructions, delegation chain,
//! runtime context, session budget). Minimal keeps the soul, the curated
//! memory, the reply language and the operating envelope. In every mode the
//! Stable layers form the cached prefix and the Dynamic ones the suffix.
//!
//! # Paths
//!
//! - [`main_prompt`] (Cached): the main loop. The strategy body sits on the
//!   stable side (`strategy`), its guardrails echo on the dynamic side
//!   (`strategy_pointer`). A [`TokenBudget`] trims only the dynamic suffix and
//!   leaves a notice.
//! - [`spawn_prompt`] (Basic): a sub-agent's flat prompt, then two welds, the
//!   strategy block and the session-mode line, rendered by the same functions
//!   as their layer forms ([`strategy_block`], [`session_mode_line`]), so the
//!   bytes match.
//!
//! `aleph.toml` in the workspace configures the session: `[execution]
//! prompt_mode = "full" | "compact" | "minimal"` picks the mode,
//! `iteration_cap` the session budget, `[general] language` the reply
//! language, `[prompt] extra_files` more context files.
//!
//! # Divergences from Aleph
//!
//! Against the seed's description; where Aleph's older public code differs
//! from the seed as well, that is said.
//!
//! | # | Aleph | here | why |
//! |---|---|---|---|
//! | 1 | `session_budget` is Stable and states the cap only | Dynamic: the cap and the iterations used so far | the count changes every turn: in the cached prefix it would bust the cache each turn, and without it the model cannot pace itself |
//! | 2 | the sub-agent weld has its own shorter session-mode line, and does not XML-escape the strategy body | the weld is the same line as the operating envelope's, and both welds escape the strategy body like the layer does | a strategy body holding `</strategy>` cannot close the block and add instructions; one sentence per fact, worded once |
//! | 3 | the sub-agent (Basic) entry ignores the prompt mode | it honours it | a user who chose Compact or Minimal gets it for sub-agents too (their token bill) |
//! | 4 | Minimal has no Dynamic layer | Minimal keeps `operating_envelope` (approval and usage mode) | the approval mode says what the agent may do without asking: a safety fact no mode may drop |
//! | 5 | Aleph's public code (`v0.2.4`) has a `tools` layer at 500 that lists the tools, and no layer of tool rules | `tools_policy` (500) is a layer of its own with the tool rules | the issue that specified this reproduction names it as a layer, and one place states the tool rules. (An earlier version of this row said Aleph also has a `graph_topology` layer left out here: neither the seed's table this module holds nor any source or document file in the 4149 commits of `rootazero/Aleph`'s public history names one, so there is nothing to reproduce.) |
//! | 6 | OS, architecture and shell are stated with each turn's runtime facts | they are session facts in `environment` (Stable); the turn states only per-call facts | they cannot change within a session: stated per turn they cost cache and are stated twice |
//! | 7 | budgets counted in characters | counted by the framework's token estimate | the budget bounds what the provider bills, which is tokens |

mod dynamic;
mod stable;
mod state;
mod welds;

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use prompt_core::budget::TokenBudget;
use prompt_core::prompt_pipeline;
use prompt_core::{
    AssembledPrompt, AssemblyError, AssemblyPath, Context, Pipeline, PipelineError, PromptBuilder,
    PromptMode, TurnContext,
};
use prompt_layers::RuntimeFacts;
use prompt_layers::sources::{
    CappedText, MemoryFile, MemoryLimits, Root, Skill, SkillIndex, SkillLimits, SourceError, parsed,
};

pub use dynamic::*;
pub use stable::*;
pub use state::{
    AgentCard, AgentDef, AgentKind, AlephConfig, Chain, Execution, General, IdentityFiles,
    Interface, McpServer, Plan, PlanItem, Platform, PromptSection, RoomMember, Runtime,
    SessionMode, SessionState, Strategy, ToolHealth, TurnState,
};
pub use welds::{escape_xml, session_mode_line, strategy_block};

use super::{AgentError, RenderRequest, Rendered, Scenario};

/// The pipeline's name: every Aleph layer declares it.
pub const PIPELINE: &str = "aleph";

/// Aleph's pipeline: its layers join it with `pipeline = Aleph`, and
/// [`Pipeline::of`](prompt_core::Pipeline::of) or `Pipeline::named(PIPELINE)` collects it.
///
/// `scope_order = Relaxed`: the seed fixes the order (the agent's soul and
/// memory first, the standing rules after), so Global text follows Project
/// and User text; the reproduction keeps it, and the contract check
/// `scope_sharing` reports what it costs in cross-user cache sharing.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full, Compact, Minimal], scope_order = Relaxed)]
pub struct Aleph;
/// Aleph's two entry points.
pub const PATHS: &[AssemblyPath] = &[AssemblyPath::Basic, AssemblyPath::Cached];
/// Aleph's three modes.
pub const MODES: &[PromptMode] = PromptMode::ALL;
/// Cap of each identity or extra file, in bytes.
pub const IDENTITY_FILE_CAP: usize = 20_000;
/// The largest `aleph.toml` or state file read, in bytes.
pub const CONFIG_CAP: usize = 64 * 1024;

/// The session's skills (session context), read by `skill_instructions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillList(pub Vec<Skill>);

impl prompt_core::SessionValue for SkillList {}

/// A workspace could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AlephError {
    /// A config or state file that does not parse.
    #[error("{}: {message}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// A file that could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The pipeline is invalid (a bug in its declarations).
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// Assembly failed: a budget the stable prefix alone exceeds, or a panicking layer.
    #[error(transparent)]
    Assembly(#[from] AssemblyError),
}

/// Everything read from an Aleph workspace, before assembly.
#[derive(Debug, Clone, Default)]
pub struct AlephWorkspace {
    /// `aleph.toml`.
    pub config: AlephConfig,
    /// Identity, memory and extra files.
    pub files: IdentityFiles,
    /// Skills under `skills/`.
    pub skills: Vec<Skill>,
    /// `.aleph/session.json`.
    pub session: SessionState,
    /// `.aleph/turn.json`.
    pub turn: TurnState,
}

impl AlephWorkspace {
    /// Reads `workspace`: `aleph.toml`, `agents/main/*.md`, `MEMORY.md`,
    /// `model_behaviors/<family>.md`, `skills/`, and the fixture state files
    /// `.aleph/session.json` and `.aleph/turn.json`. Absent files are defaults.
    ///
    /// # Errors
    /// [`AlephError::Config`] naming a file that does not parse, or an
    /// `extra_files` entry that leaves the workspace.
    pub fn load(workspace: &Path) -> Result<Self, AlephError> {
        // One root for every file: none of them may lead out of the workspace.
        let root = Root::new(workspace, "");
        let config: AlephConfig = read_toml(&workspace.join("aleph.toml"), &root)?;
        let session: SessionState = read_json(&workspace.join(".aleph/session.json"), &root)?;
        let turn: TurnState = read_json(&workspace.join(".aleph/turn.json"), &root)?;
        let files = read_files(workspace, &root, &config, session.model_family.as_deref())?;
        let index = SkillIndex::load(
            &[(workspace.join("skills"), root.clone())],
            &SkillLimits::default(),
        );
        Ok(Self {
            config,
            files,
            skills: index.skills,
            session,
            turn,
        })
    }

    /// The mode `aleph.toml` selects.
    pub fn mode(&self) -> PromptMode {
        self.config.execution.prompt_mode
    }

    /// The session context.
    pub fn session_context(&self) -> Context {
        Context::new()
            .with(self.config.clone())
            .with(self.files.clone())
            .with(SkillList(self.skills.clone()))
            .with(self.session.clone())
    }

    /// The turn context: the turn state and `facts` (without OS and shell,
    /// which `environment` states for the session).
    pub fn turn_context(&self, mut facts: RuntimeFacts) -> TurnContext {
        facts.os = None;
        facts.shell = None;
        Context::new().with(self.turn.clone()).with(facts)
    }
}

fn read_text(path: &Path, root: &Root) -> Result<Option<String>, AlephError> {
    match CappedText::read(path, root, CONFIG_CAP) {
        Ok(text) if text.is_truncated() => Err(AlephError::Config {
            path: PathBuf::from(&text.name),
            message: format!("larger than the {CONFIG_CAP}-byte limit"),
        }),
        Ok(text) => Ok(Some(text.text)),
        Err(error) if error.is_not_found() => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// Parses `aleph.toml`, which must lie in `root` (the workspace); an absent
/// file is the default configuration.
///
/// # Errors
/// [`AlephError::Config`] naming the file (as `root` shows it), the line,
/// and the key at fault; [`AlephError::Source`] for a file that may not be
/// read (outside `root`, not a regular file).
pub fn read_toml(path: &Path, root: &Root) -> Result<AlephConfig, AlephError> {
    let Some(text) = read_text(path, root)? else {
        return Ok(AlephConfig::default());
    };
    let config_error = |message: String| AlephError::Config {
        path: PathBuf::from(root.show(path)),
        message,
    };
    // Values come out of the parser cleaned, one line each (the language,
    // the `extra_files` names): `parsed` is where every reader cleans them.
    // The typed parse names the line of a value that does not fit.
    let value: serde_json::Value =
        toml::from_str(&text).map_err(|e| config_error(toml_problem(&text, &e)))?;
    parsed::from_value(value, STATE_LINES).map_err(|e| {
        config_error(match toml::from_str::<AlephConfig>(&text) {
            Err(typed) => toml_problem(&text, &typed),
            Ok(_) => unplaced(&e.to_string()),
        })
    })
}

/// An error with no place in the file: a nesting past a parser's recursion
/// limit is said as such.
fn unplaced(message: &str) -> String {
    if message.contains("recursion limit") {
        "tables or arrays nested too deeply (recursion limit); a configuration needs only \
         `[section]` headers and `key = value` lines"
            .to_owned()
    } else {
        message.to_owned()
    }
}

/// What is wrong at a TOML error: its line and column and the parser's
/// message, without the parser's quote of the line (a line may be the whole
/// 256 KiB file); the modes are named only when the error is at the
/// `prompt_mode` key.
fn toml_problem(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim_end();
    let Some(span) = error.span() else {
        return unplaced(message);
    };
    let start = text.floor_char_boundary(span.start.min(text.len()));
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = text[line_start..start].chars().count() + 1;
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let hint = if line_text.trim_start().starts_with("prompt_mode") {
        "; e.g. `[execution] prompt_mode = \"compact\"` (full, compact or minimal)"
    } else {
        ""
    };
    format!("line {line}, column {column}: {message}{hint}")
}

/// The keys of Aleph's state and config files whose values may span lines:
/// the strategy's body and an MCP server's instructions. Every other value is
/// one line.
const STATE_LINES: parsed::Multiline = parsed::Multiline(&["body", "instructions"]);

fn read_json<T: serde::de::DeserializeOwned + Default>(
    path: &Path,
    root: &Root,
) -> Result<T, AlephError> {
    let Some(text) = read_text(path, root)? else {
        return Ok(T::default());
    };
    parsed::json(&text, STATE_LINES).map_err(|e| AlephError::Config {
        path: PathBuf::from(root.show(path)),
        message: format!("line {}: {e}", e.line()),
    })
}

fn read_files(
    workspace: &Path,
    root: &Root,
    config: &AlephConfig,
    family: Option<&str>,
) -> Result<IdentityFiles, AlephError> {
    let mut files = IdentityFiles::default();
    let read = |path: PathBuf, _name: &str, notes: &mut Vec<String>| {
        let file = MemoryFile::load(
            &path,
            root,
            &MemoryLimits::DEFAULT.max_bytes(IDENTITY_FILE_CAP),
        );
        if let Some(problem) = &file.problem {
            notes.push(problem.to_string());
        }
        if let Some(note) = file.text.as_ref().and_then(|t| t.note()) {
            notes.push(note);
        }
        file.rendered()
    };
    let agent = workspace.join("agents/main");
    let mut notes = Vec::new();
    files.soul = read(agent.join("SOUL.md"), "SOUL.md", &mut notes);
    files.profile = read(agent.join("AGENTS.md"), "AGENTS.md", &mut notes);
    for name in ["IDENTITY.md", "TOOLS.md", "HEARTBEAT.md"] {
        if let Some(text) = read(agent.join(name), name, &mut notes) {
            files.others.push((name.to_owned(), text));
        }
    }
    for (index, name) in config.prompt.extra_files.iter().enumerate() {
        let relative = Path::new(name);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(AlephError::Config {
                path: PathBuf::from("aleph.toml"),
                message: format!(
                    "[prompt] extra_files[{index}] = \"{name}\" leaves the workspace; name a file inside it"
                ),
            });
        }
        if let Some(text) = read(workspace.join(relative), name, &mut notes) {
            files.extra.push((name.clone(), text));
        }
    }
    files.curated_memory = read(workspace.join("MEMORY.md"), "MEMORY.md", &mut notes);
    if let Some(family) =
        family.filter(|f| f.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    {
        let name = format!("{family}.md");
        files.model_delta = read(
            workspace.join("model_behaviors").join(&name),
            &name,
            &mut notes,
        );
    }
    files.notes = notes;
    Ok(files)
}

/// The Aleph pipeline, collected once.
///
/// # Errors
/// The [`PipelineError`] if the layers do not form a valid pipeline.
pub fn pipeline() -> Result<&'static Pipeline, PipelineError> {
    static CELL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
    CELL.get_or_init(|| Pipeline::named(PIPELINE))
        .as_ref()
        .map_err(Clone::clone)
}

/// The main loop's prompt (Cached): stable prefix, dynamic suffix, and the
/// budget, when given, trimming only the suffix.
///
/// # Errors
/// [`AlephError::Assembly`] when the stable prefix alone is over the budget.
pub fn main_prompt(
    session: &Context,
    turn: &TurnContext,
    mode: PromptMode,
    budget: Option<TokenBudget>,
) -> Result<AssembledPrompt, AlephError> {
    let mut builder = PromptBuilder::new(pipeline()?).mode(mode);
    if let Some(budget) = budget {
        builder = builder.budget(budget);
    }
    Ok(builder.build_cached(session, turn)?)
}

/// What a spawning agent hands its sub-agent besides the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpawnRequest {
    /// The strategy the sub-agent works under.
    pub strategy: Option<String>,
    /// The usage mode it runs in.
    pub session_mode: Option<SessionMode>,
}

impl SpawnRequest {
    /// The welds, in order: the strategy block, then the session-mode line.
    pub fn welds(&self) -> Vec<String> {
        let strategy = self.strategy.as_deref().filter(|s| !s.trim().is_empty());
        strategy
            .map(strategy_block)
            .into_iter()
            .chain(self.session_mode.map(session_mode_line))
            .collect()
    }
}

/// A sub-agent's prompt: the Basic assembly, then the welds.
#[derive(Debug, Clone)]
pub struct SpawnedPrompt {
    /// The assembled part, before the welds.
    pub prompt: AssembledPrompt,
    /// The whole flat prompt: the assembly, then each weld after a blank line.
    pub text: String,
}

/// The sub-agent path (Basic): a flat prompt with the request's welds appended.
///
/// The session should not carry the strategy itself: it arrives through the
/// request, so it is stated once.
///
/// # Errors
/// As [`main_prompt`].
pub fn spawn_prompt(
    session: &Context,
    turn: &TurnContext,
    mode: PromptMode,
    request: &SpawnRequest,
) -> Result<SpawnedPrompt, AlephError> {
    let prompt = PromptBuilder::new(pipeline()?)
        .mode(mode)
        .build_basic(session, turn)?;
    let mut text = prompt.text();
    for weld in request.welds() {
        if !text.is_empty() {
            text.push_str(prompt_core::spec::DEFAULT_SEPARATOR);
        }
        text.push_str(&weld);
    }
    Ok(SpawnedPrompt { prompt, text })
}

/// The fixture's runtime facts for a turn.
pub fn fixture_facts() -> RuntimeFacts {
    RuntimeFacts::default()
        .date("2026-11-29")
        .time_zone("Asia/Shanghai")
        .cwd("/home/lin/aleph")
        .model("claude-sonnet")
        .git_branch("main")
}

/// The scenarios over a workspace: `cli` (the workspace as it is),
/// `background`, `web_rich` (a failing doctor check), and `sub_agent` (the
/// session of a spawned `verify` agent at depth 1, without the strategy,
/// which its spawn request welds on instead).
///
/// # Errors
/// As [`AlephWorkspace::load`].
pub fn scenarios(workspace: &Path) -> Result<Vec<Scenario>, AlephError> {
    let base = AlephWorkspace::load(workspace)?;
    let facts = fixture_facts();
    let variant = |name: &str, edit: &dyn Fn(&mut AlephWorkspace)| {
        let mut ws = base.clone();
        edit(&mut ws);
        Scenario::new(name, ws.session_context(), ws.turn_context(facts.clone()))
    };
    Ok(vec![
        variant("cli", &|_| {}),
        variant("background", &|ws| {
            ws.session.interface = state::Interface::Background
        }),
        variant("web_rich", &|ws| {
            ws.session.interface = state::Interface::WebRich;
            ws.turn.doctor_failing = true;
        }),
        variant("sub_agent", &sub_agent),
    ])
}

/// Turns a workspace's session into a spawned `verify` sub-agent's.
pub fn sub_agent(ws: &mut AlephWorkspace) {
    ws.session.strategy = None;
    ws.session.agent = Some(AgentDef {
        id: "verify".to_owned(),
        kind: AgentKind::Verify,
    });
    ws.turn.chain = Some(Chain {
        depth: 1,
        max_depth: 2,
        id: "ch-7f3a".to_owned(),
    });
}

/// `prompt render --agent aleph`: the main loop (Cached) or a `verify`
/// sub-agent spawned with the session's strategy and usage mode (Basic).
pub(crate) fn render(request: &RenderRequest) -> Result<Rendered, AgentError> {
    let ws = AlephWorkspace::load(&request.workspace)?;
    let mode = request.mode.unwrap_or_else(|| ws.mode());
    let mut facts = RuntimeFacts::default().cwd(request.workspace.display().to_string());
    facts.date = request.date.clone();
    facts.model = request.model.clone();
    match request.path {
        AssemblyPath::Cached => {
            let prompt = main_prompt(&ws.session_context(), &ws.turn_context(facts), mode, None)?;
            Ok(Rendered::of(prompt))
        }
        AssemblyPath::Basic => {
            let spawn = SpawnRequest {
                strategy: ws.session.strategy.as_ref().map(|s| s.body.clone()),
                session_mode: ws.turn.session_mode,
            };
            let mut child = ws.clone();
            sub_agent(&mut child);
            let spawned = spawn_prompt(
                &child.session_context(),
                &child.turn_context(facts),
                mode,
                &spawn,
            )?;
            Ok(Rendered::new(spawned.prompt, spawned.text))
        }
    }
}
