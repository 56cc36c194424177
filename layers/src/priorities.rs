//! Where the standard layers sit, with gaps for a user's own.
//!
//! Stable layers lie in `0..10_000`, Dynamic ones in `10_000..20_000`.
//! Standard layers use multiples of 1000 so a user layer can go anywhere in
//! between, e.g. `priority = priorities::PROJECT_CONTEXT + 10`. Order: the
//! most stable text first, so the cached prefix changes as rarely as possible.

/// The base prompt / persona.
pub const BASE: u32 = 1_000;
/// `# User preferences`: `~/.<app>/memory/user.md`.
pub const USER_PREFERENCES: u32 = 2_000;
/// `# Project memory`: `<workspace>/.<app>/memory/project.md`.
pub const PROJECT_MEMORY: u32 = 3_000;
/// `# Project context`: AGENTS.md, CLAUDE.md.
pub const PROJECT_CONTEXT: u32 = 4_000;
/// `# Available skills`: the skill index.
pub const SKILLS: u32 = 5_000;
/// `# Facts`: remembered facts, newest first.
pub const FACTS: u32 = 6_000;
/// `# Episodic recall`: recent session summaries.
pub const EPISODIC: u32 = 7_000;
/// `# Sub-agents`: the coordinator workflow, when the session has sub-agents.
pub const COORDINATOR: u32 = 8_000;
/// `# Runtime context`: date, cwd, model, ...: the first Dynamic layer.
pub const RUNTIME: u32 = 10_000;
/// `# Scratchpad`: the agent's notes, which change every turn.
pub const SCRATCHPAD: u32 = 11_000;
