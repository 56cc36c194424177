//! An agent that sends prompt-core's own Anthropic request over plain HTTP
//! (no client crate): two conversations, each kept exactly as it was sent,
//! with a cache breakpoint at its frontier, so each turn reads the whole
//! history before it from the cache.
//!
//! ```sh
//! cargo run -p prompt-examples --example session_agent
//! AGENT_TURNS=4 ANTHROPIC_BASE_URL=https://api.anthropic.com ANTHROPIC_API_KEY=sk-ant-... \
//!     cargo run -p prompt-examples --example session_agent
//! ```
//!
//! `cargo test` runs it against its loopback (`examples/tests/session_agent.rs`).
//! With `ANTHROPIC_BASE_URL` unset it starts a loopback server on 127.0.0.1
//! that emulates Anthropic's documented cache (tools -> system -> messages,
//! breakpoints, the 20-block lookback, the model's minimum, TTLs).
//! `AGENT_TURNS` sets the turns of each conversation (default 10).
//!
//! With `PROMPT_LEDGER_URL=redis://host:port/` it also judges every response
//! with a cache ledger shared through that Redis: `REPLICAS=N` (default 1)
//! ledgers, each with its own process-local state, as N replicas of an agent
//! server would have, and each conversation's turn k sent through replica
//! k mod N. Each verdict is printed on a line of its own,
//! `[conversation C turn N] verdict: ...`. When the store goes away mid-run
//! the agent goes on: the verdicts say the previous request is unknown.
//!
//! ```sh
//! REPLICAS=3 PROMPT_LEDGER_URL=redis://127.0.0.1:6379/ \
//!     cargo run -p prompt-examples --example session_agent
//! ```
//!
//! The recipe:
//!
//! 1. The system prompt holds the Stable layers only: each turn's per-turn
//!    context (the dynamic suffix and the reminder) travels at the head of
//!    that turn's user message ([`History::user_turn`]), never in a `system`
//!    block that would sit before the history and move it out of the cache
//!    on every turn.
//! 2. The history keeps every message as it went out ([`History`]), the
//!    per-turn block included: each request's messages begin with the
//!    previous request's, byte for byte (`cache_control` aside, which moves
//!    to the frontier and is not part of what the cache compares).
//! 3. One cache plan ([`MessagesRequest::history`]) places the breakpoints:
//!    the tools, the stable end and the conversation's frontier, so the next
//!    turn reads everything up to it and writes only its own new part.
//! 4. The tools are declared on the pipeline ([`declared_tools`]) and sent
//!    in one canonical order; the conditional one (`run_tests`) is sent
//!    exactly when the layer that documents it speaks.

use std::error::Error;

use prompt_clients::loopback::{Captured, Loopback, ReadShare};
use prompt_core::tokens::ApproxCounter;
use prompt_core::tools::{Tool, ToolSet};
use prompt_core::{
    Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, PromptLayer, Render, SessionValue,
    Stable, TurnContext, TurnValue, prompt_layer, prompt_pipeline,
};
use prompt_providers::History;
use prompt_providers::anthropic::{CacheMinimums, MessagesRequest, check_cache_minimum};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, CacheVerdict, Provider, RedisStore, Sent, SharedLedger, Timestamp,
};
use serde_json::{Value, json};

/// The model the agent talks to.
const MODEL: &str = "claude-sonnet-4-5";
/// The most tokens a reply may take.
const MAX_TOKENS: u32 = 1024;
/// Turns per conversation without `AGENT_TURNS`.
const DEFAULT_TURNS: usize = 10;

/// The agent.
#[prompt_pipeline(paths = [Cached])]
pub struct SessionAgent;

/// Who the agent is: the same for everyone.
#[prompt_layer(priority = 100, stability = Stable, scope = Global, paths = [Cached],
               file = "examples/rig_agent/agent.md", pipeline = SessionAgent)]
pub struct PersonaLayer;

/// The repository the conversations work in, read when they open.
struct Repo {
    rules: String,
    /// How its tests run, when it has tests: wakes [`TestingLayer`] and
    /// the `run_tests` tool.
    test_command: Option<&'static str>,
}
impl SessionValue for Repo {}

/// The repository's rules.
#[prompt_layer(priority = 200, stability = Stable, scope = Project, paths = [Cached],
               pipeline = SessionAgent)]
pub struct RulesLayer;

impl Render<Stable> for RulesLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(repo) = input.get::<Repo>() {
            out.push_str(&repo.rules);
        }
    }
}

/// How to use `run_tests`: silent, with the tool left out, when the
/// repository has no test command.
#[prompt_layer(priority = 300, stability = Stable, scope = Project, paths = [Cached],
               pipeline = SessionAgent)]
pub struct TestingLayer;

impl Render<Stable> for TestingLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(command) = input.get::<Repo>().and_then(|r| r.test_command) {
            out.push_str("# Running the tests\n\nCall `run_tests` after every change; it runs `");
            out.push_str(command);
            out.push_str(
                "` and returns the failures only. Quote the first failure when you report one.",
            );
        }
    }
}

/// This turn's facts.
struct Facts {
    turn: usize,
    branch: &'static str,
}
impl TurnValue for Facts {}

/// The turn's facts, in the newest user message (never in `system`).
#[prompt_layer(priority = 10_000, stability = Dynamic, channel = Reminder, paths = [Cached],
               pipeline = SessionAgent)]
pub struct FactsLayer;

impl Render for FactsLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(facts) = input.get::<Facts>() {
            out.push_str(&format!(
                "Turn {} of this conversation; the user is on branch {}.",
                facts.turn, facts.branch
            ));
        }
    }
}

/// The repository's rules, as its `AGENTS.md` would hold them.
fn rules() -> String {
    let mut rules = String::from("# Rules of this repository\n\n");
    for (n, rule) in [
        "Build with `cargo build --locked`; a change that needs a new dependency says why in its commit.",
        "Format with `cargo fmt --all` and lint with `cargo clippy --all-targets -- -D warnings`.",
        "Errors are returned, never unwrapped, in library code; a panic is a bug.",
        "Public items have documentation comments with an example that compiles.",
        "Commit messages say why, in the present tense, in one line of at most 72 characters.",
        "Never commit generated files, secrets, or files larger than 1 MB.",
        "Migrations are append-only: a released migration is never edited.",
        "Configuration is read once at start-up, validated, and passed down.",
        "Logs are structured (key=value), at `info` for what an operator acts on and `debug` for the rest.",
        "A pull request changes one thing; a refactor and a feature are two pull requests.",
        "Feature flags are named for what they turn on, default off, and each is built in CI.",
        "Time comes from the injected clock, never from the system in business logic.",
        "Every network call has a timeout and a retry budget, and logs the request id it was given.",
    ]
    .iter()
    .enumerate()
    {
        rules.push_str(&format!("{}. {rule}\n", n + 1));
    }
    rules
}

/// The agent's tools, declared on its pipeline: `read_file` and `search`
/// always, `run_tests` only on a call where [`TestingLayer`], which
/// documents it, speaks (the pipeline refuses a tool whose layer it lacks).
/// Each call's tools come out in one order and one key order, whatever the
/// order written here, so every request sends the same bytes.
fn declared_tools() -> ToolSet {
    ToolSet::new()
        .tool(Tool::new(
            "read_file",
            "Read a file of the repository, whole or a range of its lines.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path from the repository root."},
                    "start_line": {"type": "integer"},
                    "end_line": {"type": "integer"}
                },
                "required": ["path"]
            }),
        ))
        .tool(Tool::new(
            "search",
            "Search the repository's files for a regular expression.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "description": "A folder to search under."}
                },
                "required": ["pattern"]
            }),
        ))
        .tool(
            Tool::new(
                "run_tests",
                "Run the repository's tests and return the failures.",
                json!({
                    "type": "object",
                    "properties": {"filter": {"type": "string", "description": "Only tests whose name contains it."}}
                }),
            )
            .documented_by(TestingLayer::SPEC.name),
        )
}

/// What the API reported for one request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    /// Read from the cache.
    pub read: u64,
    /// Written to it.
    pub written: u64,
    /// Neither.
    pub uncached: u64,
}

impl Usage {
    fn of(response: &Value) -> Self {
        let field = |name: &str| response["usage"][name].as_u64().unwrap_or(0);
        Self {
            read: field("cache_read_input_tokens"),
            written: field("cache_creation_input_tokens"),
            uncached: field("input_tokens"),
        }
    }

    fn input(self) -> u64 {
        self.read
            .saturating_add(self.written)
            .saturating_add(self.uncached)
    }
}

/// What a run sent and what it read.
#[derive(Debug, Default)]
pub struct Report {
    /// Each request's usage, in the order sent.
    pub usages: Vec<Usage>,
    /// Tokens read, over the requests whose readable part the usage shows.
    pub read: u64,
    /// Tokens those requests could have read: each one's input but its new
    /// part (the previous request's whole input, as the history is kept as
    /// sent).
    pub readable: u64,
    /// On the loopback: every request on the wire, and its own measure.
    pub loopback: Option<(Vec<Captured>, ReadShare)>,
    /// With a shared ledger: each response's verdict, with its
    /// conversation (from 1), its turn (from 1) and the replica that sent it.
    pub verdicts: Vec<(usize, usize, usize, CacheVerdict)>,
}

/// A ledger shared through a store: `replicas` ledgers, one store address.
pub struct Replicas {
    /// How many.
    pub replicas: usize,
    /// The store, `redis://...`.
    pub url: String,
}

/// Where the agent sends its requests.
pub enum Endpoint {
    /// `ANTHROPIC_BASE_URL`, with `ANTHROPIC_API_KEY`.
    FromEnv,
    /// A loopback server on 127.0.0.1 that emulates Anthropic's cache.
    Loopback,
}

/// The two conversations: each opens with its own question, then goes on.
const OPENINGS: [&str; 2] = [
    "Why does `cargo test` fail on main since yesterday?",
    "Add a timeout to the login request and a test for it.",
];

/// The user's words on turn `n` (from 1) of a conversation.
fn words(opening: &str, n: usize) -> String {
    const NEXT: [&str; 4] = [
        "Show me where that happens.",
        "Fix it, then run the tests again.",
        "Now explain the change in two sentences.",
        "Is anything else affected?",
    ];
    if n == 1 {
        opening.to_owned()
    } else {
        format!("{} ({n})", NEXT[n % NEXT.len()])
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let endpoint = match std::env::var_os("ANTHROPIC_BASE_URL") {
        Some(_) => Endpoint::FromEnv,
        None => Endpoint::Loopback,
    };
    let turns = match std::env::var("AGENT_TURNS") {
        Ok(turns) => turns.parse()?,
        Err(_) => DEFAULT_TURNS,
    };
    let replicas = match std::env::var("PROMPT_LEDGER_URL") {
        Ok(url) => Some(Replicas {
            replicas: match std::env::var("REPLICAS") {
                Ok(n) => n.parse()?,
                Err(_) => 1,
            },
            url,
        }),
        Err(_) => None,
    };
    run_with(&endpoint, turns, replicas.as_ref(), &mut |_| {}).map(drop)
}

/// Runs [`OPENINGS`]' conversations for `turns` turns each, alternating,
/// through `endpoint`; prints each request's usage and the share read.
pub fn run(endpoint: &Endpoint, turns: usize) -> Result<Report, Box<dyn Error>> {
    run_with(endpoint, turns, None, &mut |_| {})
}

/// [`run`], with a shared ledger when `replicas` says one, calling
/// `before_turn` with each turn's number before it is sent.
#[tokio::main]
pub async fn run_with(
    endpoint: &Endpoint,
    turns: usize,
    replicas: Option<&Replicas>,
    before_turn: &mut dyn FnMut(usize),
) -> Result<Report, Box<dyn Error>> {
    let ledgers: Vec<SharedLedger> = match replicas {
        Some(r) => (0..r.replicas.max(1))
            .map(|_| {
                RedisStore::open(&r.url).map(|store| SharedLedger::new(CacheLedger::new(), store))
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let loopback = match endpoint {
        Endpoint::FromEnv => None,
        Endpoint::Loopback => Some(Loopback::start()?),
    };
    let (base, key) = match &loopback {
        Some(server) => {
            println!(
                "ANTHROPIC_BASE_URL is unset: sending to a loopback emulator at {}",
                server.base_url()
            );
            (server.base_url(), "sk-ant-loopback".to_owned())
        }
        None => (
            std::env::var("ANTHROPIC_BASE_URL")?,
            std::env::var("ANTHROPIC_API_KEY")?,
        ),
    };
    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    let http = reqwest::Client::new();

    let pipeline = Pipeline::of::<SessionAgent>()?.with_tools(declared_tools())?;
    // One repository, so both conversations send the same tools and system.
    let session = PromptBuilder::new(&pipeline).session(Context::new().with(Repo {
        rules: rules(),
        test_command: Some("cargo test --workspace"),
    }));
    let opened = session.build_cached(&TurnContext::new())?;
    if let Some(below) =
        check_cache_minimum(&opened, MODEL, &ApproxCounter, &CacheMinimums::anthropic())
    {
        eprintln!("warning: {below}");
    }

    let mut histories: Vec<History> = OPENINGS.iter().map(|_| History::new()).collect();
    let mut previous: Vec<Option<u64>> = vec![None; OPENINGS.len()];
    let mut report = Report::default();
    for n in 1..=turns {
        before_turn(n);
        for (c, opening) in OPENINGS.iter().enumerate() {
            let prompt = session.build_cached(&TurnContext::new().with(Facts {
                turn: n,
                branch: if c == 0 { "main" } else { "login-timeout" },
            }))?;
            // This turn's words, its per-turn block at their head; every
            // earlier message stays as it was sent.
            histories[c].user_turn(&prompt, &words(opening, n));
            let request = MessagesRequest::new(&prompt, MODEL, MAX_TOKENS)
                .declared_tools(&pipeline.tools().for_prompt(&prompt, &[], &[])?)
                .history(&histories[c])?;
            request.check_breakpoints()?;
            let body = serde_json::to_value(&request)?;
            // Turn n through replica n mod N, which records it as sent.
            let shared = match ledgers.len() {
                0 => None,
                count => {
                    let replica = n % count;
                    let conversation = format!("conversation-{}", c + 1);
                    let sent = Sent::new(Provider::Anthropic, MODEL, Timestamp::now())
                        .conversation(&conversation)
                        .tools(&body["tools"])
                        .history(&body);
                    Some((replica, ledgers[replica].sent(&prompt, sent).await))
                }
            };
            let response = http
                .post(&url)
                .header("x-api-key", &key)
                .header("anthropic-version", "2023-06-01")
                .header("content-type", "application/json")
                .body(serde_json::to_vec(&body)?)
                .send()
                .await?;
            let status = response.status();
            let text = response.text().await?;
            if !status.is_success() {
                return Err(format!("conversation {} turn {n}: {status}: {text}", c + 1).into());
            }
            let response: Value = serde_json::from_str(&text)?;
            let reply: String = response["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
                .collect();
            histories[c].reply(reply);
            let usage = Usage::of(&response);
            println!(
                "[conversation {} turn {n}] read {} written {} uncached {}",
                c + 1,
                usage.read,
                usage.written,
                usage.uncached
            );
            if let Some((replica, id)) = shared {
                let cache = CacheUsage::from_response(Provider::Anthropic, &response)?;
                let verdict = ledgers[replica].received(&id, &cache).await?;
                println!(
                    "[conversation {} turn {n}] verdict (replica {replica}): {verdict}",
                    c + 1
                );
                report.verdicts.push((c + 1, n, replica, verdict));
            }
            // All but this turn's new part (the reply before it and the
            // user's turn) is the previous request, sent as it is here.
            if let Some(readable) = previous[c] {
                report.read += usage.read;
                report.readable += readable;
            }
            previous[c] = Some(usage.input());
            report.usages.push(usage);
        }
    }
    println!(
        "read from the cache: {} of the {} input tokens that could be read ({:.1}%), \
         after each conversation's first turn",
        report.read,
        report.readable,
        share(report.read, report.readable) * 100.0
    );
    if let Some(server) = loopback {
        let measured = server.read_share();
        println!("loopback: {measured}");
        report.loopback = Some((server.requests(), measured));
    }
    Ok(report)
}

/// `read / readable`, 1 when nothing was readable.
pub fn share(read: u64, readable: u64) -> f64 {
    if readable == 0 {
        return 1.0;
    }
    // Token counts are far below 2^52: exact as f64.
    #[allow(clippy::cast_precision_loss)]
    let share = read as f64 / readable as f64;
    share
}
