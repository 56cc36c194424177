//! What Aleph's layers read: the workspace's config and files, the session's
//! state (session context) and the turn's state (turn context).

use serde::Deserialize;

/// How the agent is being used (upstream calls it the scenario); gates interface-specific guidance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    /// An interactive terminal session.
    #[default]
    Cli,
    /// A scheduled or triggered run with nobody watching.
    Background,
    /// A chat-app conversation.
    Messaging,
    /// The web panel, with rich rendering.
    WebRich,
}

impl Interface {
    /// The lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Interface::Cli => "cli",
            Interface::Background => "background",
            Interface::Messaging => "messaging",
            Interface::WebRich => "web_rich",
        }
    }
}

/// The user-facing usage mode of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionMode {
    /// A light conversation.
    Chat,
    /// General multi-step work.
    Work,
    /// Software development.
    Code,
}

/// An active strategy: its body, and the guardrails echoed near the read head.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Strategy {
    /// Objective, approach and guardrails, as written by the planner.
    pub body: String,
    /// The guardrails alone, one per entry.
    pub guardrails: Vec<String>,
}

/// What kind of sub-agent an [`AgentDef`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// Reads and reports; changes nothing.
    Explore,
    /// Writes code.
    Coder,
    /// Tries to break what another agent did.
    Verify,
}

/// The sub-agent this session runs as.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AgentDef {
    /// Its id, e.g. `verify`.
    pub id: String,
    /// Its kind.
    pub kind: AgentKind,
}

/// A member of a shared room.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RoomMember {
    /// Display name.
    pub name: String,
    /// Whether this member owns the room.
    #[serde(default)]
    pub owner: bool,
}

/// A detected runtime.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Runtime {
    /// e.g. `python 3.12`.
    pub name: String,
    /// Its executable's full path.
    pub path: String,
}

/// A sub-agent the main agent may delegate to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AgentCard {
    /// Its id.
    pub id: String,
    /// What it does.
    pub description: String,
    /// When to pick it.
    pub when: String,
}

/// Facts about the host that hold for the whole session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Platform {
    /// e.g. `linux`.
    pub os: Option<String>,
    /// e.g. `x86_64`.
    pub arch: Option<String>,
    /// e.g. `bash`.
    pub shell: Option<String>,
}

/// The session's state (`.aleph/session.json` in a fixture): session context.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionState {
    /// How the agent is used.
    pub interface: Interface,
    /// The host.
    pub platform: Platform,
    /// The model family, e.g. `anthropic`: selects `model_behaviors/<family>.md`.
    pub model_family: Option<String>,
    /// An active strategy.
    pub strategy: Option<Strategy>,
    /// The sub-agent this session runs as.
    pub agent: Option<AgentDef>,
    /// The members of a shared room.
    pub room: Vec<RoomMember>,
    /// Detected runtimes.
    pub runtimes: Vec<Runtime>,
    /// Sub-agents available for delegation.
    pub available_agents: Vec<AgentCard>,
    /// The sandbox posture, one line per fact.
    pub sandbox: Vec<String>,
}

impl prompt_core::SessionValue for SessionState {}

/// The delegation chain a sub-agent runs in.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Chain {
    /// This agent's depth (the main agent is 0).
    pub depth: u32,
    /// The deepest a chain may go.
    pub max_depth: u32,
    /// The chain's id.
    pub id: String,
}

/// A tool the health probe found unusable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ToolHealth {
    /// The tool.
    pub tool: String,
    /// What to do instead.
    pub hint: String,
}

/// A connected MCP server's instructions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct McpServer {
    /// The server.
    pub name: String,
    /// Its instructions.
    pub instructions: String,
}

/// One step of an execution plan.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PlanItem {
    /// What the step does.
    pub text: String,
    /// Whether it is done.
    #[serde(default)]
    pub done: bool,
}

/// The scratchpad plan the agent is working.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Plan {
    /// What the plan achieves.
    pub objective: String,
    /// Its steps.
    pub items: Vec<PlanItem>,
}

/// The turn's state (`.aleph/turn.json` in a fixture): turn context.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TurnState {
    /// The delegation chain, for a sub-agent.
    pub chain: Option<Chain>,
    /// Tools the health probe found unusable.
    pub tool_health: Vec<ToolHealth>,
    /// Connected MCP servers with instructions.
    pub mcp: Vec<McpServer>,
    /// Whether the reply is read aloud (`Some(true)`: and the input was transcribed speech).
    pub voice: Option<bool>,
    /// Whether a read-only `doctor` run left problems (shown in the web panel only).
    pub doctor_failing: bool,
    /// Iterations used so far in this run.
    pub iterations_used: u32,
    /// Whether memories were recalled into the conversation.
    pub recalled_memory: bool,
    /// Whether the history holds compaction summaries.
    pub session_summaries: bool,
    /// An active watch loop, summarised.
    pub timer_loop: Option<String>,
    /// The standing goal and its status.
    pub standing_goal: Option<String>,
    /// The execution plan.
    pub plan: Option<Plan>,
    /// The approval tier, e.g. `ask for writes`.
    pub approval_tier: Option<String>,
    /// The usage mode.
    pub session_mode: Option<SessionMode>,
    /// The run id.
    pub run_id: Option<String>,
}

impl prompt_core::TurnValue for TurnState {}

/// `aleph.toml`: the workspace's configuration (session context).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct AlephConfig {
    /// `[general]`.
    pub general: General,
    /// `[execution]`.
    pub execution: Execution,
    /// `[prompt]`.
    pub prompt: PromptSection,
}

impl prompt_core::SessionValue for AlephConfig {}

/// `[general]` of `aleph.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct General {
    /// The reply language, e.g. `zh-Hans`.
    pub language: Option<String>,
}

/// `[execution]` of `aleph.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Execution {
    /// `prompt_mode = "full" | "compact" | "minimal"`; default full.
    pub prompt_mode: prompt_core::PromptMode,
    /// How many iterations a run may take; 0 or absent: no cap.
    pub iteration_cap: Option<u32>,
}

/// `[prompt]` of `aleph.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct PromptSection {
    /// Workspace-relative files added to the prompt.
    pub extra_files: Vec<String>,
}

/// The workspace's identity and context files, read and capped (session context).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdentityFiles {
    /// `agents/main/SOUL.md`.
    pub soul: Option<String>,
    /// `agents/main/AGENTS.md`.
    pub profile: Option<String>,
    /// `agents/main/{IDENTITY,TOOLS,HEARTBEAT}.md` that have text, in that order.
    pub others: Vec<(String, String)>,
    /// `[prompt] extra_files`, in order.
    pub extra: Vec<(String, String)>,
    /// `MEMORY.md`: the curated memory envelope.
    pub curated_memory: Option<String>,
    /// `model_behaviors/<family>.md`.
    pub model_delta: Option<String>,
    /// Files that exist but could not be read, and cuts, for the trace.
    pub notes: Vec<String>,
}

impl prompt_core::SessionValue for IdentityFiles {}
