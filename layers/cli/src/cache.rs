//! `prompt cache`: what a provider's prompt cache (Anthropic's, or OpenAI's
//! for its GPT-5 line) saves over a session of N calls, from the
//! workspace's own prompt.
//!
//! Each turn is a real render on the Cached path: the stable prefix once
//! (checked byte-identical on every turn), the dynamic suffix per turn with
//! that turn's facts. The token counts go to [`CacheSimulation`], which
//! prices them.
//!
//! With `--gaps`/`--idle`, the idle time between turns is priced too: what
//! the cache entry's lapses cost without keep-alive, and with the
//! library's keep-alive policy (`prompt_providers::keepalive`) deciding
//! each ping from the gaps seen so far.

use std::process::ExitCode;
use std::time::Duration;

use prompt_core::tokens::{CountStats, Memoized, TokenCounter};
use prompt_core::{AssembledPrompt, AssemblyPath, Stability};
use prompt_providers::anthropic::CacheMinimums;
use prompt_providers::cost::{ModelPrices, Multipliers};
use prompt_providers::simulation::{CacheReport, CacheSimulation, SimulationError};
use serde::Serialize;

use super::formats::{DEFAULT_ANTHROPIC_MODEL, Tokenizer, Ttl};
use super::outcome::{CliError, Outcome};
use super::print;
use super::workspace::WorkspaceArgs;

/// Arguments of `prompt cache`.
///
/// Turn K re-renders the Dynamic layers with the date fact set to `--date`
/// (default today) at 09:00 plus K-1 minutes, as an agent stating the time
/// of each call would: calls a minute apart, inside either TTL, so the
/// cache never expires between them. The stable prefix is rendered the same
/// on every turn; `--bust-at K` simulates a changed Stable layer at turn K.
#[derive(clap::Args)]
pub(crate) struct CacheArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// How many calls the session makes. Turn K states the time 09:00 + K-1
    /// minutes on --date, so each turn's dynamic suffix differs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=10_000), required_unless_present = "users")]
    turns: Option<u16>,
    /// Simulate a team instead: N teammates over this workspace, each with
    /// its own one-line `~/.<app>/memory/user.md`, and what each one's first
    /// call writes and reads with and without breakpoints at scope boundaries.
    /// With `--pipeline` only, not `--agent`: a plugged agent loads its own
    /// memory (or none) and may render in its own way, so the one line the
    /// simulation varies would not reach the prompt it sends.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1_000), conflicts_with_all = ["turns", "bust_at"])]
    users: Option<u16>,
    /// The input price for --users and for the keep-alive comparison of
    /// --gaps/--idle, in USD per million tokens (a finite number, 0 or
    /// more). The cache's multipliers are the model's own.
    #[arg(long, value_name = "USD", default_value_t = prompt_providers::cost::DEFAULT_USD_PER_MTOK, value_parser = price, allow_negative_numbers = true)]
    usd_per_mtok: f64,
    /// The idle time between turns, comma-separated, one per gap from the
    /// first (e.g. `2m,6m,30s,6m`; units h, m, s; at most 30 days each):
    /// the report adds the session with and without keep-alive (the
    /// library's policy: what lapses cost, the pings it sends and declines
    /// and why, and the net). Gaps not listed take --idle.
    #[arg(long, value_name = "LIST", value_parser = super::args::GapsParser, allow_hyphen_values = true, conflicts_with = "users")]
    gaps: Option<super::args::Gaps>,
    /// The idle time of every gap --gaps does not list (e.g. `6m`).
    #[arg(long, value_name = "TIME", value_parser = super::args::IdleParser, allow_hyphen_values = true, conflicts_with = "users")]
    idle: Option<std::time::Duration>,
    /// Anthropic's cache TTL: a write costs 1.25x input for 5m, 2x for 1h; a
    /// read 0.1x [default: 5m]. An OpenAI model takes none: from GPT-5.6 on
    /// its cache keeps 30m and a write costs 1.25x, before it writes at the
    /// input price.
    #[arg(long, value_enum)]
    ttl: Option<Ttl>,
    /// Simulate a change to the first Stable layer at turn K (1-based): the
    /// prefix is written to the cache again there.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(1..))]
    bust_at: Option<u16>,
    /// Tokens of each turn's reply, appended to the history the next turn
    /// sends: the report adds what the cache reads of a growing history,
    /// kept as sent with a breakpoint at its frontier, against what could be
    /// read at best (all but each turn's new part), beside the stable
    /// prefix's figures. 0 with --tool-result-tokens 0 leaves it out.
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = 400,
        conflicts_with = "users"
    )]
    reply_tokens: usize,
    /// Tokens of tool results each turn appends to the history.
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = 0,
        conflicts_with = "users"
    )]
    tool_result_tokens: usize,
    /// How tokens are counted [default: approx].
    #[arg(long, value_parser = Tokenizer::parser())]
    tokenizer: Option<Tokenizer>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// `--usd-per-mtok`: a number, then a price (`NaN`, `inf` and negatives are
/// numbers to Rust, and would print as `USD NaN`).
fn price(value: &str) -> Result<f64, CliError> {
    let usd: f64 = value.trim().parse().map_err(|_| {
        CliError::usage("not a number: give the price in US dollars, such as 3 or 0.25")
    })?;
    prompt_providers::cost::usd_per_mtok(usd).map_err(CliError::from_error)
}

/// The report `--json` prints: the simulation's, with what was measured.
#[derive(Serialize)]
struct Output<'a> {
    pipeline: &'a str,
    tokenizer: &'static str,
    /// The Stable layer `--bust-at` stands for.
    bust_layer: Option<&'static str>,
    #[serde(flatten)]
    report: &'a CacheReport,
    /// What counting cost, and what of it was estimated.
    counting: CountStats,
}

/// The line a report ends with when the counter's budget ran out: which
/// counts are estimates and how they were made. Nothing when none is.
pub(crate) fn estimate_note<C: TokenCounter>(counter: &Memoized<C>) -> String {
    let counting = counter.stats();
    if counting.estimated_bytes == 0 {
        return String::new();
    }
    format!(
        "note: {} counted {} bytes of distinct text exactly, its budget for one run ({} KiB); \
         the {} bytes of new text after them are estimated (the approximate count, scaled \
         to the exact ones), and so are the token figures that include them\n",
        counter.name(),
        counting.counted_bytes,
        counter.budget() / 1024,
        counting.estimated_bytes,
    )
}

pub(crate) fn run(args: CacheArgs) -> Outcome {
    let openai_model = args
        .workspace
        .model
        .as_deref()
        .filter(|model| Multipliers::openai(model).is_some());
    if let (Some(_), Some(model)) = (args.ttl, openai_model) {
        return Err(CliError::usage(format!(
            "--ttl is Anthropic's cache TTL, and {} is an OpenAI model, whose cache keeps a \
             prefix as long as the model sets (30m from GPT-5.6 on): leave --ttl out",
            super::escape(model)
        )));
    }
    if let Some(users) = args.users {
        if let Some(agent) = args.workspace.agent_name() {
            return Err(CliError::usage(format!(
                "--users simulates teammates who differ in the standard `~/.<app>/memory/user.md`, \
                 which agent `{}` does not read through the standard loading: run it with \
                 --pipeline {} (the agent's pipeline, loaded the standard way), or without --users",
                super::escape(agent),
                super::escape(&args.workspace.agent_pipeline().unwrap_or_default()),
            )));
        }
        let counter = args.tokenizer.unwrap_or(Tokenizer::Approx).counter();
        let text = super::team::run(
            args.workspace,
            usize::from(users),
            args.ttl.map(Into::into),
            args.usd_per_mtok,
            &*counter,
            args.json,
        )?;
        print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let turns = usize::from(args.turns.unwrap_or(1));
    let bust_at = args.bust_at.map(usize::from);
    if let Some(bust) = bust_at.filter(|&k| k > turns) {
        return Err(CliError::usage(format!(
            "--bust-at {bust} is after the last turn: pick K from 1 to --turns ({turns})"
        )));
    }
    let gaps = session_gaps(args.gaps.as_ref(), args.idle, turns)?;
    let counter = args.tokenizer.unwrap_or(Tokenizer::Approx).counter();
    let Simulated {
        report,
        pipeline,
        base_date,
        first,
        counting,
        note,
    } = simulate_with(
        &args.workspace,
        turns,
        args.ttl,
        bust_at,
        (args.reply_tokens, args.tool_result_tokens),
        gaps.map(|gaps| (gaps, args.usd_per_mtok)),
        &*counter,
    )?;
    let first = &first;
    let bust_layer = bust_at.and(first_stable_layer(first));

    let text = if args.json {
        let output = Output {
            pipeline: &pipeline,
            tokenizer: counter.name(),
            bust_layer,
            report: &report,
            counting,
        };
        super::escape::json(&output).map_err(CliError::from_error)?
    } else {
        let mut text = format!(
            "pipeline `{pipeline}`, {turns} turn{}, tokens counted with {}; turn K states the \
             time 09:00 + K-1 minutes on {base_date}\n",
            if turns == 1 { "" } else { "s" },
            counter.name()
        );
        if let (Some(bust), Some(layer)) = (bust_at, bust_layer) {
            text.push_str(&format!(
                "turn {bust}: Stable layer `{layer}` changed (simulated): the prefix is written again\n"
            ));
        }
        text + &report.to_string() + "\n" + &note
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A simulated session: the report, the pipeline's name, the date turn 1
/// states, turn 1's prompt, what counting cost and the report's note on
/// estimates (see [`estimate_note`]).
pub(crate) struct Simulated {
    pub(crate) report: CacheReport,
    pub(crate) pipeline: String,
    pub(crate) base_date: String,
    pub(crate) first: AssembledPrompt,
    pub(crate) counting: CountStats,
    pub(crate) note: String,
}

/// Renders `turns` turns of the workspace's pipeline and prices them on
/// `--model` (default claude-sonnet-4-5): what `prompt cache` prints and
/// `prompt size --html` charts. `ttl` is Anthropic's (5 minutes when `None`).
pub(crate) fn simulate(
    workspace: &WorkspaceArgs,
    turns: usize,
    ttl: Option<Ttl>,
    bust_at: Option<usize>,
    counter: &dyn TokenCounter,
) -> Result<Simulated, CliError> {
    simulate_with(workspace, turns, ttl, bust_at, (0, 0), None, counter)
}

/// The gaps of a session of `turns` turns: `--gaps` in order, then
/// `--idle` for the rest; `None` when neither is given.
fn session_gaps(
    gaps: Option<&super::args::Gaps>,
    idle: Option<Duration>,
    turns: usize,
) -> Result<Option<Vec<Duration>>, CliError> {
    if gaps.is_none() && idle.is_none() {
        return Ok(None);
    }
    let needed = turns - 1;
    if needed == 0 {
        return Err(CliError::usage(format!(
            "--{}: a session of one turn has no gap between turns: give --turns 2 or more",
            if gaps.is_some() { "gaps" } else { "idle" }
        )));
    }
    let mut out = gaps.map(|g| g.0.clone()).unwrap_or_default();
    if out.len() > needed {
        return Err(CliError::usage(format!(
            "--gaps lists {} gaps, and --turns {turns} has {needed} (one between each two \
             turns): list {needed} or fewer, or raise --turns",
            out.len()
        )));
    }
    match idle {
        Some(idle) => out.resize(needed, idle),
        None if out.len() < needed => {
            return Err(CliError::usage(format!(
                "--gaps lists {} gaps, and --turns {turns} has {needed} (one between each two \
                 turns): list them all, or give --idle for the rest",
                out.len()
            )));
        }
        None => {}
    }
    Ok(Some(out))
}

/// [`simulate`], with each turn appending a reply and tool results of
/// `(reply, tool results)` tokens to the history (none when both are 0),
/// and with `keep_alive`'s gaps between turns priced at its USD per
/// million input tokens, with and without keep-alive.
pub(crate) fn simulate_with(
    workspace: &WorkspaceArgs,
    turns: usize,
    ttl: Option<Ttl>,
    bust_at: Option<usize>,
    (reply_tokens, tool_result_tokens): (usize, usize),
    keep_alive: Option<(Vec<Duration>, f64)>,
    counter: &dyn TokenCounter,
) -> Result<Simulated, CliError> {
    let model = workspace
        .model
        .clone()
        .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned());
    check_model(&model)?;
    let base_date = workspace
        .date
        .clone()
        .unwrap_or_else(|| jiff::ZonedDateTime::now().date().to_string());

    let mut prompts = render_turns(workspace, &base_date, turns)?;
    let pipeline = prompts[0].trace().pipeline.to_owned();
    if let Some((turn, _)) = prompts
        .iter()
        .enumerate()
        .find(|(_, p)| p.stable() != prompts[0].stable())
    {
        return Err(CliError::failed(format!(
            "the stable prefix of `{pipeline}` changed at turn {}: a Stable layer reads a per-call \
             value; compare `render --format json` outputs with `prompt diff` to find it",
            turn + 1
        )));
    }
    // The turns share all but a line or two: each distinct piece is counted once.
    let counter = Memoized::new(counter);
    let stable_tokens = counter.count(prompts[0].stable());
    let dynamic: Vec<usize> = prompts
        .iter()
        .map(|p| dynamic_tokens(p, &counter))
        .collect();

    let mut simulation = CacheSimulation::new(model, stable_tokens, dynamic);
    if let Some(ttl) = ttl {
        simulation = simulation.ttl(ttl.into());
    }
    if let Some(bust) = bust_at {
        simulation = simulation.bust_at(bust);
    }
    if reply_tokens > 0 || tool_result_tokens > 0 {
        simulation = simulation.history(reply_tokens, tool_result_tokens);
    }
    if let Some((gaps, usd)) = keep_alive {
        simulation = simulation.gaps(gaps).usd_per_mtok(usd);
    }
    let report = simulation
        .run()
        .map_err(|e: SimulationError| CliError::from_error(e))?;
    Ok(Simulated {
        report,
        pipeline,
        base_date,
        first: prompts.swap_remove(0),
        counting: counter.stats(),
        note: estimate_note(&counter),
    })
}

/// `prompt cache` prices Anthropic's cache and OpenAI's for its GPT-5 line:
/// another model (or an unknown one) is refused, never simulated with
/// another provider's prices.
fn check_model(model: &str) -> Result<(), CliError> {
    let minimums = CacheMinimums::anthropic();
    // A model with prices of its own (Opus 5.5) but no minimum of its own
    // is simulated with the most conservative minimum, which the report names.
    let priced = ModelPrices::anthropic_for(model)
        .ids
        .iter()
        .all(|id| id != "claude*");
    if minimums.lookup(model).family.is_some() || priced || Multipliers::openai(model).is_some() {
        return Ok(());
    }
    Err(CliError::usage(format!(
        "--model {}: `prompt cache` simulates Anthropic's prompt cache and OpenAI's for its \
             GPT-5 line (their prices and minimum cacheable lengths), and this is not a model it \
             knows; pass a Claude model such as {DEFAULT_ANTHROPIC_MODEL} (known families: {}) \
             or an OpenAI one such as gpt-5.6",
        super::escape(model),
        minimums
            .families()
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Each turn's prompt on the Cached path, with the turn's time in the date fact.
fn render_turns(
    workspace: &WorkspaceArgs,
    base_date: &str,
    turns: usize,
) -> Result<Vec<AssembledPrompt>, CliError> {
    let dates = (1..=turns).map(|turn| turn_date(base_date, turn));
    let chosen = workspace.choose(AssemblyPath::Cached, None, None)?;
    chosen.render_turns(dates)
}

/// `2026-11-29 09:00` for turn 1 of `2026-11-29`, a minute later per turn;
/// a `--date` that is not a date gets `(turn K)` appended instead.
fn turn_date(base: &str, turn: usize) -> String {
    let minutes = i64::try_from(turn - 1).unwrap_or(0);
    base.parse::<jiff::civil::Date>()
        .ok()
        .and_then(|date| {
            date.at(9, 0, 0, 0)
                .checked_add(jiff::Span::new().minutes(minutes))
                .ok()
        })
        .map(|time| time.strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|| format!("{base} (turn {turn})"))
}

/// The uncached input a turn adds to the system prompt: the dynamic suffix
/// and any reminder text.
fn dynamic_tokens(prompt: &AssembledPrompt, counter: &dyn TokenCounter) -> usize {
    counter.count(prompt.dynamic()) + prompt.reminder().map_or(0, |r| counter.count(r))
}

/// The first Stable layer that spoke: the one `--bust-at` names.
fn first_stable_layer(prompt: &AssembledPrompt) -> Option<&'static str> {
    prompt
        .trace()
        .layers
        .iter()
        .find(|l| l.stability == Stability::Stable && !l.silent)
        .map(|l| l.name)
}

#[cfg(test)]
mod tests {
    use prompt_core::tokens::{ApproxCounter, Memoized, TokenCounter};

    /// A report whose counts are all exact says nothing more; one with
    /// counts past the budget says which counter, how much was exact and
    /// how much was estimated.
    #[test]
    fn the_note_says_when_counts_are_estimates() {
        let counter = Memoized::with_budget(ApproxCounter, 64);
        counter.count("Run the tests.\n");
        assert_eq!(super::estimate_note(&counter), "");
        counter.count(&"Then push the branch.\n".repeat(4));
        let note = super::estimate_note(&counter);
        assert!(
            note.starts_with("note: approx counted 15 bytes of distinct text exactly"),
            "{note}"
        );
        assert!(
            note.contains("the 88 bytes of new text after them are estimated"),
            "{note}"
        );
    }
}
