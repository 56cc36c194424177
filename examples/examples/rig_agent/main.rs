//! An agent server on tokio that sends through rig-core's Anthropic client:
//! several conversations, one `PrefixCache`, one `CacheLedger`, and each
//! response's cache verdict printed.
//!
//! ```sh
//! cargo run -p prompt-examples --example rig_agent
//! ```
//!
//! `cargo test` runs it too, always against its loopback
//! (`examples/tests/rig_agent.rs`).
//!
//! With `ANTHROPIC_BASE_URL` unset it starts a loopback server on 127.0.0.1
//! that answers as Anthropic would (cache reads and writes from the
//! breakpoints it sees), checks the verdicts, and exits non-zero when one
//! is wrong. With `ANTHROPIC_BASE_URL=https://api.anthropic.com` and
//! `ANTHROPIC_API_KEY` set, rig reads both and it talks to Anthropic.
//! `AGENT_TURNS` sets how many rounds of turns each conversation has
//! (default 2); on the loopback it ends with the share of the readable
//! input that was read from the cache.
//!
//! The recipe, for your own server:
//!
//! 1. Declare the pipeline (`#[prompt_pipeline]`) and hold it as
//!    `Pipeline::global_of::<Agent>()?`: a `&'static Pipeline`, so each
//!    conversation keeps a `PromptSession<'static>` and nothing is leaked.
//! 2. Give every session's builder the server's `PrefixCache`: sessions over
//!    one repository share one copy of their stable prefix.
//! 3. Wrap rig's model in `prompt_clients::rig::cache_prefix(model, ttl)`:
//!    without it rig sends no `cache_control` at all, and says nothing.
//! 4. Per turn: `session.build_cached(&turn)`, then
//!    `prompt_clients::rig::completion_request(&prompt, history)`. It puts
//!    the stable prefix in rig's one system block (the one rig marks) and
//!    the per-turn suffix and reminder at the head of the latest user turn,
//!    after the breakpoint. Keep the history as sent: the latest user turn
//!    goes back into the history with its block, so the next request's
//!    messages begin with this one's, byte for byte, and the history can be
//!    read from the cache.
//! 5. Tell the ledger before sending (`ledger.sent(&prompt, placed.sent(..))`)
//!    and give it rig's response after (`prompt_clients::rig::cache_usage_of`):
//!    the verdict says whether the prefix was read, and why not. The call
//!    and the verdict run in one `prompt_clients::rig::request_span`, which
//!    rig's own telemetry and the ledger both record into: one GenAI span
//!    per call for an OpenTelemetry backend.
//! 6. Check the prompt once against the model's minimum
//!    (`check_cache_minimum`): below it Anthropic caches nothing, silently.
//!
//! rig marks one system block, so the breakpoint at the end of the
//! team-shared part (the Global and Project layers) that prompt-core's own
//! Anthropic request sets is lost through rig (docs/delivery.md, "From
//! Rust").

use std::collections::BTreeMap;
use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::Instrument;

use prompt_clients::loopback::{Loopback, ReadShare};
use prompt_clients::rig::{cache_prefix, cache_usage_of, completion_request, request_span};
use prompt_core::assembly::PrefixCache;
use prompt_core::tokens::ApproxCounter;
use prompt_core::{
    Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, PromptSession, Render, SessionValue,
    Stable, TurnContext, TurnValue, prompt_layer, prompt_pipeline,
};
use prompt_providers::anthropic::{CacheMinimums, check_cache_minimum};
use prompt_providers::observe::{CacheLedger, CacheVerdict, MissCause};
use rig_core::Model;
use rig_core::message::Message;
use rig_core::providers::anthropic::completion::CacheTtl;
use rig_core::providers::anthropic::{Anthropic, AnthropicConfig, Messages};

/// The model the server talks to.
const MODEL: &str = "claude-sonnet-4-5";

/// The server's agent.
#[prompt_pipeline(paths = [Cached])]
pub struct Agent;

/// Who the agent is: the same for everyone.
#[prompt_layer(priority = 100, stability = Stable, scope = Global, paths = [Cached],
               file = "examples/rig_agent/agent.md", pipeline = Agent)]
pub struct PersonaLayer;

/// A repository's rules, read when its conversation opens.
struct RepoRules(String);
impl SessionValue for RepoRules {}

/// The repository's rules: shared by everyone on it.
#[prompt_layer(priority = 200, stability = Stable, scope = Project, paths = [Cached], pipeline = Agent)]
pub struct RepoRulesLayer;

impl Render<Stable> for RepoRulesLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(RepoRules(rules)) = input.get::<RepoRules>() {
            out.push_str(rules);
        }
    }
}

/// Who the conversation is with.
struct User(&'static str);
impl SessionValue for User {}

/// The user's name: this user's sessions only.
#[prompt_layer(priority = 300, stability = Stable, scope = User, paths = [Cached], pipeline = Agent)]
pub struct UserLayer;

impl Render<Stable> for UserLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(User(name)) = input.get::<User>() {
            out.push_str("You are working with ");
            out.push_str(name);
            out.push('.');
        }
    }
}

/// This turn's facts.
struct Facts {
    time: String,
    branch: &'static str,
}
impl TurnValue for Facts {}

/// The time of the turn: the dynamic suffix.
#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], pipeline = Agent)]
pub struct TimeLayer;

impl Render for TimeLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(facts) = input.get::<Facts>() {
            out.push_str("Current time: ");
            out.push_str(&facts.time);
        }
    }
}

/// The branch of the turn, as a reminder in the latest user message.
#[prompt_layer(priority = 10_100, stability = Dynamic, channel = Reminder, paths = [Cached], pipeline = Agent)]
pub struct BranchLayer;

impl Render for BranchLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(facts) = input.get::<Facts>() {
            out.push_str("The user is on branch ");
            out.push_str(facts.branch);
            out.push('.');
        }
    }
}

/// The rules of repository `name`, as its `AGENTS.md` would hold them.
fn rules_of(name: &str) -> String {
    let mut rules = format!("# Rules of the `{name}` repository\n\n");
    for (n, rule) in [
        "Build with `cargo build --locked`; a change that needs a new dependency says why in its commit.",
        "Test with `cargo test --workspace`; a bug fix comes with the test that failed before it.",
        "Format with `cargo fmt --all` and lint with `cargo clippy --all-targets -- -D warnings`.",
        "Errors are returned, never unwrapped, in library code; a panic is a bug.",
        "Public items have documentation comments with an example that compiles.",
        "Commit messages say why, in the present tense, in one line of at most 72 characters.",
        "Never commit generated files, secrets, or files larger than 1 MB.",
        "Migrations are append-only: a released migration is never edited.",
        "Configuration is read once at start-up, validated, and passed down; nothing reads the environment later.",
        "Logs are structured (key=value), at `info` for what an operator acts on and `debug` for the rest.",
        "A pull request changes one thing; a refactor and a feature are two pull requests.",
        "Benchmarks live in `benches/` and report their machine; a performance claim cites one.",
        "Feature flags are named for what they turn on, default off, and each is built in CI.",
        "A public API change comes with a changelog line under `Unreleased`, in the words a user searches for.",
        "Time comes from the injected clock, never from the system in business logic, so tests can fix it.",
        "Every network call has a timeout and a retry budget, and logs the request id it was given.",
    ]
    .iter()
    .enumerate()
    {
        rules.push_str(&format!("{}. {rule}\n", n + 1));
    }
    rules
}

/// One conversation: its session (stable prefix rendered once) and history.
struct Conversation {
    session: PromptSession<'static>,
    history: Vec<Message>,
}

/// The server: one model, one prefix cache, one ledger, many conversations.
struct Server {
    model: Model<Messages>,
    pipeline: &'static Pipeline,
    prefixes: PrefixCache,
    ledger: Mutex<CacheLedger>,
    conversations: Mutex<BTreeMap<String, Conversation>>,
}

impl Server {
    fn new(model: Model<Messages>) -> Result<Self, Box<dyn Error>> {
        Ok(Self {
            model: cache_prefix(model, CacheTtl::FiveMinutes),
            pipeline: Pipeline::global_of::<Agent>()?,
            prefixes: PrefixCache::new(),
            ledger: Mutex::new(CacheLedger::new()),
            conversations: Mutex::new(BTreeMap::new()),
        })
    }

    /// Opens conversation `id` of `user` on repository `repo`, and warns
    /// when its stable prefix is too short for the model to cache.
    fn open(&self, id: &str, user: &'static str, repo: &str) -> Result<(), Box<dyn Error>> {
        let session = PromptBuilder::new(self.pipeline)
            .prefix_cache(&self.prefixes)
            .session(
                Context::new()
                    .with(RepoRules(rules_of(repo)))
                    .with(User(user)),
            );
        let prompt = session.build_cached(&TurnContext::new())?;
        if let Some(below) =
            check_cache_minimum(&prompt, MODEL, &ApproxCounter, &CacheMinimums::anthropic())
        {
            eprintln!("warning: {id}: {below}");
        }
        let conversation = Conversation {
            session,
            history: Vec::new(),
        };
        lock(&self.conversations).insert(id.to_owned(), conversation);
        Ok(())
    }

    /// One turn of conversation `id`: the user's `words` with this turn's
    /// `facts`; the model's answer and the ledger's verdict on its cache.
    async fn turn(
        &self,
        id: &str,
        words: &str,
        facts: Facts,
    ) -> Result<(String, CacheVerdict), Box<dyn Error + Send + Sync>> {
        let turn = TurnContext::new().with(facts);
        let (prompt, history) = {
            let mut conversations = lock(&self.conversations);
            let conversation = conversations.get_mut(id).ok_or("no such conversation")?;
            conversation.history.push(Message::user(words));
            (
                conversation.session.build_cached(&turn)?,
                conversation.history.clone(),
            )
        };
        let placed = completion_request(&prompt, history)?;
        // The history as sent: the user's turn with the block it went out with.
        if let (Some(conversation), Some(sent)) = (
            lock(&self.conversations).get_mut(id),
            placed.request.chat_history.last(),
        ) && let Some(turn) = conversation.history.last_mut()
        {
            *turn = sent.clone();
        }
        let sent = lock(&self.ledger).sent(
            &prompt,
            placed
                .sent(MODEL, prompt_providers::observe::Timestamp::now())
                .conversation(id),
        );
        let span = request_span(MODEL);
        let response = self
            .model
            .call(placed.request)
            .instrument(span.clone())
            .await?;
        let usage = cache_usage_of(&response)?;
        let verdict = span.in_scope(|| lock(&self.ledger).received(sent, &usage))?;
        let answer = response.text();
        if let Some(conversation) = lock(&self.conversations).get_mut(id) {
            conversation
                .history
                .push(Message::assistant(answer.clone()));
        }
        Ok((answer, verdict))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The conversations: two of one person on one repository (their stable
/// prefixes are the same bytes, held once), one of another on another.
const CONVERSATIONS: [(&str, &str, &str); 3] = [
    ("ada@api/1", "Ada", "api"),
    ("ada@api/2", "Ada", "api"),
    ("alan@web/1", "Alan", "web"),
];

/// What each user says, turn by turn, and the branch they are on.
const TURNS: [[(&str, &str); 3]; 2] = [
    [
        ("Why does `cargo test` fail on main?", "main"),
        ("Add a test for the login timeout.", "login-timeout"),
        ("Where is the router configured?", "main"),
    ],
    [
        ("Fix it, then run the tests again.", "fix/tests"),
        ("Now make it pass.", "login-timeout"),
        ("Move the health check route next to it.", "routes"),
    ],
];

/// Where the server sends its requests.
pub enum Endpoint {
    /// Anthropic, or whatever `ANTHROPIC_BASE_URL` names: rig reads it and
    /// `ANTHROPIC_API_KEY`.
    FromEnv,
    /// A loopback server on 127.0.0.1 that answers as Anthropic would; the
    /// verdicts are then checked.
    Loopback,
}

fn main() -> Result<(), Box<dyn Error>> {
    let endpoint = match std::env::var_os("ANTHROPIC_BASE_URL") {
        Some(_) => Endpoint::FromEnv,
        None => Endpoint::Loopback,
    };
    let rounds = match std::env::var("AGENT_TURNS") {
        Ok(rounds) => rounds.parse()?,
        Err(_) => TURNS.len(),
    };
    serve_rounds(endpoint, rounds).map(drop)
}

/// Serves [`CONVERSATIONS`] for two rounds of [`TURNS`] through
/// `endpoint`; on the loopback, fails when a verdict is wrong.
pub fn serve(endpoint: Endpoint) -> Result<(), Box<dyn Error>> {
    serve_rounds(endpoint, TURNS.len()).map(drop)
}

/// Serves [`CONVERSATIONS`] for `rounds` rounds, [`TURNS`] over and over;
/// on the loopback, fails when a verdict is wrong and returns the share of
/// the readable input that was read.
#[tokio::main]
pub async fn serve_rounds(
    endpoint: Endpoint,
    rounds: usize,
) -> Result<Option<ReadShare>, Box<dyn Error>> {
    let loopback = match endpoint {
        Endpoint::FromEnv => None,
        Endpoint::Loopback => Some(Loopback::start()?),
    };
    let model = match &loopback {
        // rig reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL.
        None => Anthropic::from_env()?.completion(MODEL),
        Some(server) => {
            println!(
                "ANTHROPIC_BASE_URL is unset: sending to a loopback server at {} (set it and \
                 ANTHROPIC_API_KEY to send to Anthropic)",
                server.base_url()
            );
            AnthropicConfig::new("sk-ant-loopback")
                .with_base_url(server.base_url())
                .client()
                .completion(MODEL)
        }
    };
    let server = Arc::new(Server::new(model)?);
    for (id, user, repo) in CONVERSATIONS {
        server.open(id, user, repo)?;
    }
    let mut verdicts = Vec::new();
    for (n, turn) in TURNS.iter().cycle().take(rounds).enumerate() {
        // The conversations of one round are served concurrently.
        let mut tasks = Vec::new();
        for ((id, _, _), (words, branch)) in CONVERSATIONS.iter().zip(turn) {
            let server = Arc::clone(&server);
            let facts = Facts {
                time: jiff::Timestamp::now().to_string(),
                branch,
            };
            tasks.push(tokio::spawn(
                async move { server.turn(id, words, facts).await },
            ));
        }
        for ((id, _, _), task) in CONVERSATIONS.iter().zip(tasks) {
            let (answer, verdict) = task.await?.map_err(|e| e.to_string())?;
            println!("[{id} turn {}] {verdict}", n + 1);
            println!(
                "    read {} written {} uncached {}: {}",
                verdict.read,
                verdict.written,
                verdict.uncached,
                answer.trim()
            );
            verdicts.push((n, verdict));
        }
    }
    println!(
        "{} sessions hold {} stable prefixes (PrefixCache)",
        CONVERSATIONS.len(),
        server.prefixes.len()
    );
    if let Some(server) = &loopback {
        // Measured as the session_agent example is: the history here keeps
        // the user's own words only, so little of it is read back.
        let measured = server.read_share();
        println!("loopback: {measured}");
        check(&verdicts)?;
        return Ok(Some(measured));
    }
    Ok(None)
}

/// On the loopback: every first turn writes or reads the prefix, every
/// second turn reads it.
fn check(verdicts: &[(usize, CacheVerdict)]) -> Result<(), Box<dyn Error>> {
    for (n, verdict) in verdicts {
        let fine = match n {
            0 => verdict.is_hit() || matches!(verdict.cause, Some(MissCause::ColdStart { .. })),
            _ => verdict.is_hit() && verdict.read > 0,
        };
        if !fine {
            return Err(format!("turn {} of {}: {verdict}", n + 1, verdict.conversation).into());
        }
    }
    println!("loopback: every second turn read the stable prefix from the cache");
    Ok(())
}
