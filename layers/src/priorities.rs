//! Where the standard layers sit, with gaps for a user's own.
//!
//! Stable layers lie in `0..10_000`, Dynamic ones in `10_000..20_000`.
//! Standard layers use multiples of 1000 so a user layer can go anywhere in
//! between, e.g. `priority = priorities::PROJECT_CONTEXT + 10`.
//!
//! Order: within the Stable band, by how widely each layer's text is shared
//! (its [`Scope`](prompt_core::spec::Scope)): the base prompt (Global), then the
//! project's memory, docs and skills (Project), then the user's preferences,
//! facts and episodes (User), then what one session declares (Session). A
//! provider cache scoped to an organization then serves the Global and
//! Project part to everyone on the repository: a teammate's first call reads
//! it and writes only its own part. (Until cache scopes, the user's
//! preferences came second, at 2000, and two users of one repository shared
//! only the base prompt.) A user layer keeps the order by taking a priority
//! inside its scope's stretch, e.g. a Project layer between
//! [`PROJECT_MEMORY`] and [`USER_PREFERENCES`].
//!
//! Each constant is named after its layer's name (`project_context` is
//! [`PROJECT_CONTEXT`]). What a user does with them: place a layer of their
//! own relative to the standard ones, in the same scope stretch.
//!
//! ```
//! use prompt_core::{prompt_layer, PromptLayer};
//! use prompt_layers::priorities;
//!
//! /// The team's review rules, right after the project's own docs.
//! #[prompt_layer(priority = priorities::PROJECT_CONTEXT + 10, stability = Stable, scope = Project,
//!                paths = [Basic, Cached], text = "Review every change twice.")]
//! pub struct ReviewRulesLayer;
//!
//! assert_eq!(ReviewRulesLayer::SPEC.priority, 3_010);
//! assert_eq!(prompt_layers::ProjectContextLayer::SPEC.priority, priorities::PROJECT_CONTEXT);
//! ```

/// The base prompt / persona. Global.
pub const BASE_PROMPT: u32 = 1_000;
/// The rule on how quoted files (`<file path="…">`) are weighed, right after
/// the base prompt, so that a replaced base keeps it. Global. Not a multiple
/// of 1000: it belongs to the base, and the room after it stays the user's.
pub const QUOTED_FILES: u32 = BASE_PROMPT + 1;
/// `# Project memory`: `<workspace>/.<app>/memory/project.md`. Project.
pub const PROJECT_MEMORY: u32 = 2_000;
/// `# Project context`: AGENTS.md, CLAUDE.md. Project.
pub const PROJECT_CONTEXT: u32 = 3_000;
/// `# Available skills`: the skill index. Project.
pub const SKILLS_INDEX: u32 = 4_000;
/// `# User preferences`: `~/.<app>/memory/user.md`. User.
pub const USER_PREFERENCES: u32 = 5_000;
/// `# Facts`: remembered facts, newest first. User.
pub const FACTS: u32 = 6_000;
/// `# Episodic recall`: recent session summaries. User.
pub const EPISODIC_RECALL: u32 = 7_000;
/// `# Sub-agents`: the coordinator workflow, when the session has sub-agents. Session.
pub const COORDINATOR: u32 = 8_000;
/// `# Runtime context`: date, cwd, model, ...: the first Dynamic layer.
pub const RUNTIME_CONTEXT: u32 = 10_000;
/// `# Scratchpad`: the agent's notes, which change every turn.
pub const SCRATCHPAD: u32 = 11_000;
