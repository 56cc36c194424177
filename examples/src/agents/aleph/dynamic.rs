//! Aleph's dynamic side: what may change from one call to the next
//! (priorities 10 000 and up). Each Dynamic layer yields to the token budget.

use super::Aleph;
use std::fmt::Write as _;

use prompt_core::{LayerInput, LayerWriter, Render, prompt_layer};

use super::state::{AlephConfig, Interface, SessionState, TurnState};
use super::welds::{escape_xml, session_mode_line};

fn turn<'a>(input: &LayerInput<'a>) -> Option<&'a TurnState> {
    input.get::<TurnState>()
}

/// `## Delegation chain`: depth and what is left of it.
#[prompt_layer(priority = 10_702, stability = Dynamic, paths = [Basic, Cached], modes = [Full],
    pipeline = Aleph, silent = "a delegation chain of depth 1 or more")]
pub struct ChainContext;

impl Render for ChainContext {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(chain) = turn(input)
            .and_then(|t| t.chain.as_ref())
            .filter(|c| c.depth > 0)
        else {
            return;
        };
        let _ = write!(
            out,
            "## Delegation chain\n\nYou run at depth {} of chain `{}`. ",
            chain.depth, chain.id
        );
        match chain.max_depth.saturating_sub(chain.depth) {
            0 => out.push_str("The depth budget is spent: do not spawn sub-agents."),
            left => {
                let _ = write!(out, "You may nest {left} more level(s) of sub-agents.");
            }
        }
    }
}

/// `<tool_runtime_state>`: tools the health probe found unusable.
#[prompt_layer(priority = 10_703, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "a tool-health probe that found an unusable tool")]
pub struct ToolRuntimeState;

impl Render for ToolRuntimeState {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(tools) = turn(input)
            .map(|t| &t.tool_health)
            .filter(|t| !t.is_empty())
        else {
            return;
        };
        out.push_str("<tool_runtime_state>");
        for tool in tools {
            let _ = write!(
                out,
                "\n<tool name=\"{}\" status=\"unavailable\"><hint>{}</hint></tool>",
                escape_xml(&tool.tool),
                escape_xml(&tool.hint)
            );
        }
        out.push_str("\n</tool_runtime_state>");
    }
}

/// `## MCP servers`: instructions of the connected servers.
#[prompt_layer(priority = 10_705, stability = Dynamic, paths = [Basic, Cached], modes = [Full],
    pipeline = Aleph, yields = Truncate, silent = "a connected MCP server with instructions")]
pub struct McpInstructions;

impl Render for McpInstructions {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(servers) = turn(input).map(|t| &t.mcp).filter(|m| !m.is_empty()) else {
            return;
        };
        out.push_str("## MCP servers\n\nThese connected servers describe how to use their tools:");
        for server in servers {
            let _ = write!(
                out,
                "\n\n### {}\n{}",
                server.name,
                server.instructions.trim()
            );
        }
    }
}

/// `## Voice`: the reply is spoken.
#[prompt_layer(priority = 10_710, stability = Dynamic, paths = [Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "a voice turn")]
pub struct VoiceMode;

impl Render for VoiceMode {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(transcribed) = turn(input).and_then(|t| t.voice) else {
            return;
        };
        out.push_str("## Voice\n\nYour reply is read aloud: keep it short and speakable, without markdown or code.");
        if transcribed {
            out.push_str(" The message was transcribed from speech; read through misheard words.");
        }
    }
}

/// `## Self-repair`: the web panel's fix button, after a failing doctor run.
#[prompt_layer(priority = 10_715, stability = Dynamic, paths = [Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "the web-rich scenario with a failing doctor check")]
pub struct DoctorRepairHint;

impl Render for DoctorRepairHint {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let web = input
            .get::<SessionState>()
            .is_some_and(|s| s.interface == Interface::WebRich);
        if web && turn(input).is_some_and(|t| t.doctor_failing) {
            out.push_str("## Self-repair\n\nThe last `doctor` run left problems. Tell the user they can press `f` in the panel to let you repair them.");
        }
    }
}

/// The turn's runtime facts (cwd, date, model, ...), through the standard layer; not an `include`, whose priority (10_000) would put it before the MCP and voice sections.
#[prompt_layer(priority = 10_720, stability = Dynamic, paths = [Basic, Cached], modes = [Full],
    pipeline = Aleph, silent = "RuntimeFacts in the turn context")]
pub struct RuntimeContext;

impl Render for RuntimeContext {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        prompt_layers::RuntimeContextLayer.render(out, input);
    }
}

/// `## Session budget`: the iteration cap and what is used of it.
#[prompt_layer(priority = 10_730, stability = Dynamic, paths = [Basic, Cached], modes = [Full],
    pipeline = Aleph, silent = "[execution] iteration_cap in aleph.toml")]
pub struct SessionBudget;

impl Render for SessionBudget {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(cap) = input
            .get::<AlephConfig>()
            .and_then(|c| c.execution.iteration_cap)
            .filter(|&cap| cap > 0)
        else {
            return;
        };
        let used = turn(input).map_or(0, |t| t.iterations_used);
        let _ = write!(
            out,
            "## Session budget\n\n- Iterations: {used} of {cap} used; the run is wrapped up at the cap.\n- Spend them on the steps that decide the outcome."
        );
    }
}

/// `## Memory window`: what memory is already in view.
#[prompt_layer(priority = 10_745, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "a curated MEMORY.md, or memories recalled into the conversation")]
pub struct MemoryWindow;

impl Render for MemoryWindow {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let curated = input
            .get::<super::state::IdentityFiles>()
            .is_some_and(|f| f.curated_memory.is_some());
        let recalled = turn(input).is_some_and(|t| t.recalled_memory);
        let what = match (curated, recalled) {
            (true, true) => {
                "Your curated memory is above and recalled memories are in the conversation"
            }
            (true, false) => "Your curated memory is above",
            (false, true) => "Recalled memories are in the conversation",
            (false, false) => return,
        };
        let _ = write!(
            out,
            "## Memory window\n\n{what}: do not search for what you can already read."
        );
    }
}

/// `## Session summaries`: how to read compaction summaries.
#[prompt_layer(priority = 10_750, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "a history holding <session_context> compaction summaries")]
pub struct SessionSummaries;

impl Render for SessionSummaries {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if turn(input).is_some_and(|t| t.session_summaries) {
            out.push_str("## Session summaries\n\nMessages in `<session_context>` summarise earlier turns. For a detail they leave out, search the session; do not guess.");
        }
    }
}

fn tagged(out: &mut LayerWriter<'_>, tag: &str, body: &str) {
    let _ = write!(out, "<{tag}>\n{}\n</{tag}>", escape_xml(body.trim()));
}

/// `<timer_loop>`: an active watch loop.
#[prompt_layer(priority = 10_753, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "an active watch loop")]
pub struct TimerLoop;

impl Render for TimerLoop {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(summary) = turn(input).and_then(|t| t.timer_loop.as_deref()) {
            tagged(out, "timer_loop", summary);
        }
    }
}

/// `<standing_goal>`: the objective that outlives this turn.
#[prompt_layer(priority = 10_755, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "an active standing goal")]
pub struct StandingGoal;

impl Render for StandingGoal {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(goal) = turn(input).and_then(|t| t.standing_goal.as_deref()) {
            tagged(out, "standing_goal", goal);
        }
    }
}

/// `<execution_plan>`: the plan being worked, step by step.
#[prompt_layer(priority = 10_756, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact],
    pipeline = Aleph, yields = Truncate, silent = "a scratchpad plan with at least one item")]
pub struct ExecutionPlan;

impl Render for ExecutionPlan {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(plan) = turn(input)
            .and_then(|t| t.plan.as_ref())
            .filter(|p| !p.items.is_empty())
        else {
            return;
        };
        let done = plan.items.iter().filter(|i| i.done).count();
        let mut body = format!("Objective: {}\n", plan.objective.trim());
        for item in &plan.items {
            let _ = writeln!(
                body,
                "- [{}] {}",
                if item.done { "x" } else { " " },
                item.text.trim()
            );
        }
        let _ = write!(
            body,
            "Progress: {done}/{}. Work the next open step, and update the plan with the `scratchpad` tool.",
            plan.items.len()
        );
        tagged(out, "execution_plan", &body);
    }
}

/// `<strategy_reminder>`: the active strategy's guardrails, near the read head.
#[prompt_layer(priority = 10_757, stability = Dynamic, paths = [Cached], modes = [Full, Compact],
    pipeline = Aleph, silent = "an active strategy with guardrails")]
pub struct StrategyPointer;

impl Render for StrategyPointer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(strategy) = input
            .get::<SessionState>()
            .and_then(|s| s.strategy.as_ref())
            .filter(|s| !s.guardrails.is_empty())
        else {
            return;
        };
        let guardrails: Vec<String> = strategy
            .guardrails
            .iter()
            .map(|g| format!("- {}", g.trim()))
            .collect();
        tagged(out, "strategy_reminder", &guardrails.join("\n"));
    }
}

/// `## Operating envelope`: approval, usage mode, run id.
#[prompt_layer(priority = 10_758, stability = Dynamic, paths = [Cached], pipeline = Aleph, yields = Keep,
    silent = "an approval tier, a usage mode or a run id in the turn")]
pub struct OperatingEnvelope;

impl Render for OperatingEnvelope {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(turn) = turn(input) else { return };
        let mut lines = Vec::new();
        if let Some(tier) = &turn.approval_tier {
            lines.push(format!("Approval: {tier}."));
        }
        if let Some(mode) = turn.session_mode {
            lines.push(session_mode_line(mode));
        }
        if let Some(run) = &turn.run_id {
            lines.push(format!("Run id: `{run}`"));
        }
        if !lines.is_empty() {
            out.push_str("## Operating envelope\n\n");
            out.push_str(&lines.join("\n"));
        }
    }
}
