//! Cache affinity (`prompt_providers::affinity`): the key is the same on
//! every replica and for every session of one repository, differs between
//! repositories, ignores what no other caller shares; keys shard past the
//! provider's per-key rate with each conversation keeping its shard; the
//! gateway header carries what the body carries, and a sharded OpenAI body is
//! snapshotted (and validated by `tests/sdk/validate.py`).

use std::sync::{Arc, LazyLock};

use jiff::{SignedDuration, Timestamp};
use prompt_core::assembly::PrefixCache;
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::Scope;
use prompt_core::tools::{RequestTools, Tool, ToolTier};
use prompt_core::{
    AssembledPrompt, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render,
    SessionValue, Stability, Stable, TurnValue,
};
use prompt_providers::Message;
use prompt_providers::affinity::{
    AFFINITY_HEADER, AffinityKey, KeyedProvider, LocalRateTracker, MAX_KEY_LEN, MAX_SHARDS,
    RateError, RateTracker, RecentRate, ShardPolicy, Sharder, shard_of,
};
use prompt_providers::openai::{ChatRequest, ResponsesRequest, prompt_cache_key};
use prompt_tests::{Fixed, TEST, spec};
use proptest::prelude::*;
use serde_json::json;

struct Repo(&'static str);
impl SessionValue for Repo {}

struct User(&'static str);
impl SessionValue for User {}

struct SessionId(String);
impl SessionValue for SessionId {}

struct TurnNo(u32);
impl TurnValue for TurnNo {}

/// The repository's instructions (Project): long enough to cache.
struct RepoLayer;
impl Render<Stable> for RepoLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Repo(repo)) = input.get::<Repo>() {
            out.push_str(&format!("In {repo}, run make check before a commit. ").repeat(60));
        }
    }
}

/// The user's preferences (User).
struct UserLayer;
impl Render<Stable> for UserLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(User(user)) = input.get::<User>() {
            out.push_str(&format!("{user} prefers British spelling."));
        }
    }
}

/// The session's own line (Session).
struct SessionLayer;
impl Render<Stable> for SessionLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(SessionId(id)) = input.get::<SessionId>() {
            out.push_str(&format!("Session {id}."));
        }
    }
}

/// This turn's number (Dynamic).
struct TurnLayer;
impl Render for TurnLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(TurnNo(n)) = input.get::<TurnNo>() {
            out.push_str(&format!("Turn {n}."));
        }
    }
}

/// The agent's pipeline, built afresh by each caller (a replica of its own).
fn pipeline() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("house", 100, Stability::Stable).scope(Scope::Global),
                Fixed("Answer in short sentences. ".repeat(170)),
            ),
            LayerEntry::new(
                spec("repository", 1_000, Stability::Stable).scope(Scope::Project),
                RepoLayer,
            ),
            LayerEntry::new(
                spec("preferences", 5_000, Stability::Stable).scope(Scope::User),
                UserLayer,
            ),
            LayerEntry::new(
                spec("session", 8_000, Stability::Stable).scope(Scope::Session),
                SessionLayer,
            ),
            LayerEntry::new(spec("turn", 10_000, Stability::Dynamic), TurnLayer),
        ],
    )
    .unwrap()
}

/// One replica's prompt for a conversation: its own pipeline, builder,
/// prefix cache and session, as another process would build them.
fn replica_prompt(
    repo: &'static str,
    user: &'static str,
    session: &str,
    turn: u32,
) -> AssembledPrompt {
    let pipeline = pipeline();
    let prefixes = PrefixCache::new();
    let context = Context::new()
        .with(Repo(repo))
        .with(User(user))
        .with(SessionId(session.to_owned()));
    PromptBuilder::new(&pipeline)
        .prefix_cache(&prefixes)
        .session(context)
        .build_cached(&Context::new().with(TurnNo(turn)))
        .unwrap()
}

fn tool(name: &str, tier: ToolTier) -> Tool {
    Tool::new(
        name.to_owned(),
        format!("The {name} tool."),
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )
    .tier_of(tier)
}

#[test]
fn every_replica_and_teammate_on_one_repository_sends_one_key() {
    let ada = replica_prompt("api", "Ada", "s-1", 1);
    let grace = replica_prompt("api", "Grace", "s-2", 7);
    // What no one else shares differs...
    assert_ne!(ada.stable(), grace.stable());
    assert_ne!(ada.dynamic(), grace.dynamic());
    // ...and the key does not see it.
    let key = AffinityKey::of(&ada);
    assert_eq!(key, AffinityKey::of(&grace));
    assert_eq!(key.covers(), Some(Scope::Project));
    // The same in every process: no seed, no map order. Pinned, so a change
    // of derivation (which moves every deployment's routing) is deliberate:
    // the first 16 hex digits of the SHA-256 of the Global and Project text
    // joined by the separator, as Python's hashlib gives them.
    assert_eq!(key.as_str(), "test-921f5da02c49a1c9");
    assert!(key.as_str().len() <= MAX_KEY_LEN);
}

#[test]
fn another_repository_gets_another_key_and_the_widest_key_does_not() {
    let api = replica_prompt("api", "Ada", "s-1", 1);
    let web = replica_prompt("web", "Ada", "s-1", 1);
    assert_ne!(AffinityKey::of(&api), AffinityKey::of(&web));
    // The widest scope alone (`prompt_cache_key`, the builders' default): one
    // key for the agent, unmoved by the Project part.
    assert_eq!(AffinityKey::widest(&api), AffinityKey::widest(&web));
    assert_eq!(AffinityKey::widest(&api).covers(), Some(Scope::Global));
    assert_eq!(prompt_cache_key(&api), AffinityKey::widest(&api).as_str());
    // Covering the User scope splits teammates apart.
    let grace = replica_prompt("api", "Grace", "s-1", 1);
    assert_ne!(
        AffinityKey::new(&api, Scope::User, None),
        AffinityKey::new(&grace, Scope::User, None)
    );
    assert_eq!(
        AffinityKey::new(&api, Scope::Project, None),
        AffinityKey::new(&grace, Scope::Project, None)
    );
}

#[test]
fn stable_tools_enter_the_key_and_a_turns_tools_do_not() {
    let prompt = replica_prompt("api", "Ada", "s-1", 1);
    let read = tool("read_file", ToolTier::Stable);
    let plain = AffinityKey::of(&prompt);
    let with_tools = RequestTools::new([read.clone()]).unwrap();
    let keyed = AffinityKey::new(&prompt, Scope::Project, Some(&with_tools));
    assert_ne!(keyed, plain);
    // A session's or a turn's tool is as narrow as the Session scope.
    let with_turn_tool = RequestTools::new([
        read.clone(),
        tool("ask", ToolTier::Turn),
        tool("agents", ToolTier::Session),
    ])
    .unwrap();
    assert_eq!(
        AffinityKey::new(&prompt, Scope::Project, Some(&with_turn_tool)),
        keyed
    );
    // A changed stable tool is a changed prefix.
    let other = RequestTools::new([tool("read_files", ToolTier::Stable)]).unwrap();
    assert_ne!(
        AffinityKey::new(&prompt, Scope::Project, Some(&other)),
        keyed
    );
    // Only turn tools: as if none.
    let only_turn = RequestTools::new([tool("ask", ToolTier::Turn)]).unwrap();
    assert_eq!(
        AffinityKey::new(&prompt, Scope::Project, Some(&only_turn)),
        plain
    );
}

#[test]
fn a_prompt_sharing_nothing_is_keyed_by_its_whole_stable_prefix() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("session", 8_000, Stability::Stable).scope(Scope::Session),
            SessionLayer,
        )],
    )
    .unwrap();
    let build = |id: &str| {
        PromptBuilder::new(&pipeline)
            .build_cached(&Context::new().with(SessionId(id.into())), &Context::new())
            .unwrap()
    };
    let (one, two) = (build("a"), build("b"));
    assert_eq!(AffinityKey::of(&one).covers(), None);
    assert_ne!(AffinityKey::of(&one), AffinityKey::of(&two));
    assert_eq!(AffinityKey::of(&one), AffinityKey::of(&build("a")));
}

/// A clock for the tests: minute `m`, second `s` after a fixed start.
fn at(minute: i64, second: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(minute * 60 + second)
}

#[test]
fn keys_shard_past_the_rate_and_replicas_sharing_a_count_agree() {
    let prompt = replica_prompt("api", "Ada", "s-1", 1);
    let key = AffinityKey::of(&prompt);
    let store = Arc::new(LocalRateTracker::new());
    let policy = ShardPolicy::for_provider(KeyedProvider::OpenAi);
    let replicas: Vec<_> = (0..3)
        .map(|_| Sharder::shared(policy, Arc::clone(&store)))
        .collect();
    let conversations: Vec<String> = (0..40).map(|n| format!("conversation-{n}")).collect();

    // Minute 0: 15 requests over three replicas, within OpenAI's rate.
    for (n, conversation) in conversations.iter().take(15).enumerate() {
        let sent = replicas[n % 3].key(&key, conversation, at(0, n as i64));
        assert_eq!(sent, key, "a quiet key is never changed");
    }
    // Minute 1: 45 requests (15 conversations, 3 turns each, round the
    // replicas): the count grows within the minute and ends at 3 shards.
    let mut sent = Vec::new();
    for turn in 0..3 {
        for (n, conversation) in conversations.iter().take(15).enumerate() {
            let replica = &replicas[(n + turn) % 3];
            sent.push(replica.key(&key, conversation, at(1, (turn * 15 + n) as i64)));
        }
    }
    assert_eq!(sent.last().unwrap().shard_count(), 3);
    assert!(sent.iter().any(|k| k.shard_index() > 0));
    for k in &sent {
        assert_eq!(k.base(), key.as_str());
        assert!(k.shard_index() < k.shard_count());
        match k.shard_index() {
            0 => assert_eq!(k.as_str(), key.as_str()),
            n => assert_eq!(k.as_str(), format!("{key}-s{n}")),
        }
    }
    // While the count holds, each conversation keeps its shard on every
    // replica (the busy minute is remembered for RATE_WINDOWS minutes).
    for minute in 2..10 {
        for (r, replica) in replicas.iter().enumerate() {
            let conversation = &conversations[minute as usize];
            let k = replica.key(&key, conversation, at(minute, r as i64));
            assert_eq!(k.shard_count(), 3, "minute {minute}");
            assert_eq!(k.shard_index(), shard_of(conversation, 3));
        }
    }
    // Ten minutes after the busy one, the count falls back: one key again.
    let k = replicas[0].key(&key, &conversations[0], at(11, 0));
    assert_eq!((k.shard_count(), k.as_str()), (1, key.as_str()));
}

#[test]
fn a_provider_with_no_published_rate_is_never_sharded() {
    let key = AffinityKey::of(&replica_prompt("api", "Ada", "s-1", 1));
    let sharder = Sharder::new(ShardPolicy::for_provider(KeyedProvider::Mistral));
    for n in 0..500 {
        assert_eq!(sharder.key(&key, &format!("c-{n}"), at(0, 0)), key);
    }
    assert!(sharder.tracker().is_empty(), "nothing counted");
}

/// A shared store that is down.
struct Down;
impl RateTracker for Down {
    fn record(&self, key: &str, _now: Timestamp) -> Result<RecentRate, RateError> {
        Err(RateError::unavailable(key, "connection refused"))
    }
}

#[test]
fn a_store_that_does_not_answer_leaves_the_replicas_own_count() {
    let key = AffinityKey::of(&replica_prompt("api", "Ada", "s-1", 1));
    let sharder = Sharder::shared(ShardPolicy::new(Some(15)), Down);
    let sent: Vec<_> = (0..31)
        .map(|n| sharder.key(&key, &format!("c-{n}"), at(0, n)))
        .collect();
    assert_eq!(sent[14].shard_count(), 1);
    assert_eq!(sent[30].shard_count(), 3, "31 requests counted here");
    let error = Down.record("k", at(0, 0)).unwrap_err().to_string();
    assert!(
        error.contains("`k`") && error.contains("connection refused"),
        "{error}"
    );
}

#[test]
fn the_gateway_header_carries_the_bodys_key() {
    let prompt = replica_prompt("api", "Ada", "s-1", 1);
    let key = AffinityKey::of(&prompt).shard("conversation-7", 5);
    let (name, value) = key.header();
    assert_eq!(name, AFFINITY_HEADER);
    let responses = ResponsesRequest::new(&prompt, "gpt-5.6")
        .affinity(&key)
        .message(Message::user("Hi"));
    let chat = ChatRequest::new(&prompt, "gpt-5")
        .affinity(&key)
        .message(Message::user("Hi"));
    for body in [
        serde_json::to_value(&responses).unwrap(),
        serde_json::to_value(&chat).unwrap(),
    ] {
        assert_eq!(body["prompt_cache_key"], value);
    }
    // Without it, the builders send the widest key, as before.
    let plain = ResponsesRequest::new(&prompt, "gpt-5");
    assert_eq!(plain.prompt_cache_key, prompt_cache_key(&prompt));
}

#[test]
fn openai_responses_with_a_sharded_affinity_key() {
    let prompt = replica_prompt("api", "Ada", "s-1", 1);
    // The first conversation on shard 2 of 3, so the suffix shows.
    let conversation = (0..)
        .map(|n| format!("conversation-{n}"))
        .find(|c| shard_of(c, 3) == 2)
        .unwrap();
    let key = AffinityKey::of(&prompt).shard(&conversation, 3);
    assert_eq!(key.as_str(), format!("{}-s2", key.base()));
    let request = ResponsesRequest::new(&prompt, "gpt-5.6")
        .affinity(&key)
        .max_output_tokens(1024)
        .message(Message::user("Why does the login test fail?"));
    insta::assert_snapshot!(serde_json::to_string_pretty(&request).unwrap());
}

/// The key the properties shard.
static BASE: LazyLock<AffinityKey> =
    LazyLock::new(|| AffinityKey::of(&replica_prompt("api", "Ada", "s-1", 1)));

proptest! {
    #[test]
    fn a_conversation_keeps_its_shard_while_the_count_holds(
        conversation in ".{0,40}",
        shards in 1u32..=MAX_SHARDS,
    ) {
        let shard = shard_of(&conversation, shards);
        prop_assert!(shard < shards);
        prop_assert_eq!(shard_of(&conversation, shards), shard);
        // One more shard: it stays, or moves to the new one.
        let grown = shard_of(&conversation, shards.saturating_add(1));
        prop_assert!(grown == shard || grown == shards);
    }

    #[test]
    fn a_sharded_key_is_its_base_and_suffix_within_the_limit(
        conversation in "[a-z0-9-]{1,36}",
        shards in 0u32..200,
    ) {
        let base = &*BASE;
        let key = base.shard(&conversation, shards);
        prop_assert!(key.shard_count() >= 1 && key.shard_count() <= MAX_SHARDS);
        prop_assert!(key.shard_index() < key.shard_count());
        prop_assert!(key.as_str().len() <= MAX_KEY_LEN);
        prop_assert_eq!(key.base(), base.as_str());
        prop_assert_eq!(&key.shard(&conversation, shards), &key);
        let suffix = &key.as_str()[key.base().len()..];
        if key.shard_index() == 0 {
            prop_assert_eq!(suffix, "");
        } else {
            prop_assert_eq!(suffix, format!("-s{}", key.shard_index()));
        }
    }
}
