//! Sharding counted in a Redis the replicas share (`RedisRateTracker`):
//! three replicas' `Sharder`s over one store count one key's rate
//! together, so they shard it at the same request and agree on every
//! conversation's shard, where each alone would have seen a third of the
//! rate; a store that stops answering leaves each replica its own count.
//!
//! Each test starts a `redis-server` of its own (`prompt_tests::redis`):
//! where none is installed they are ignored, by name, with the line that
//! installs it; `.ci/run` installs it and fails if any of them was ignored.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use prompt_core::{Context, Pipeline, PromptBuilder, prompt_layer, prompt_pipeline};
use prompt_providers::affinity::{
    AffinityKey, KeyedProvider, RateTracker, RedisRateTracker, ShardPolicy, Sharder, shard_of,
};
use prompt_tests::redis::RedisServer;

#[prompt_pipeline(paths = [Basic, Cached])]
struct RateShared;

#[prompt_layer(priority = 1, stability = Stable, scope = Project, paths = [Cached], text = "Run make check before a commit.", pipeline = RateShared)]
struct Agents;

fn key() -> AffinityKey {
    let pipeline = Pipeline::of::<RateShared>().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    AffinityKey::of(&prompt)
}

/// Minute `m`, second `s` after a fixed start (a simulated clock: the
/// windows are the minutes of the `now` each call is given).
fn at(minute: i64, second: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(minute * 60 + second)
}

/// A replica's sharder over `url`'s store. The timeout is generous: this
/// test asserts counts, not speed, on a loaded machine.
fn replica(url: &str) -> Sharder<RedisRateTracker> {
    let tracker = RedisRateTracker::open(url)
        .unwrap()
        .timeout(Duration::from_secs(5));
    Sharder::shared(ShardPolicy::for_provider(KeyedProvider::OpenAi), tracker)
}

#[test]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
fn redis_three_replicas_share_one_rate() {
    let mut server = RedisServer::start();
    let url = server.url();
    let key = key();
    let replicas = [replica(&url), replica(&url), replica(&url)];
    let conversations: Vec<String> = (0..48).map(|n| format!("conversation-{n}")).collect();

    // 48 requests in one minute, round the replicas: each sees 16 (about
    // one shard's worth alone), the store counts 48 (four shards at 15 a
    // minute). Every request reads the count with itself included.
    let mut sent = Vec::new();
    for (n, conversation) in conversations.iter().enumerate() {
        let k = replicas[n % 3].key(&key, conversation, at(0, n as i64));
        sent.push(k);
    }
    let counts: Vec<u32> = sent.iter().map(AffinityKey::shard_count).collect();
    let expected: Vec<u32> = (1..=48u32).map(|n| n.div_ceil(15)).collect();
    assert_eq!(counts, expected, "the shard count follows the shared count");
    assert_eq!(sent[14].as_str(), key.as_str(), "15 a minute: one key");
    assert_eq!(sent[15].shard_count(), 2, "the 16th, on replica 0, shards");

    // The same conversation on each replica, in the next minute: the busy
    // minute is remembered, so all three give it the same shard of four.
    for conversation in &conversations[..6] {
        let keys: Vec<AffinityKey> = replicas
            .iter()
            .enumerate()
            .map(|(r, replica)| replica.key(&key, conversation, at(1, r as i64)))
            .collect();
        for k in &keys {
            assert_eq!(k.shard_count(), 4);
            assert_eq!(k.shard_index(), shard_of(conversation, 4));
            assert_eq!(k, &keys[0]);
        }
    }
    // The store holds what they counted: 48 in minute 0, 18 in minute 1
    // (19 with this read, which counts one more).
    let rate = replicas[0].tracker().record(key.base(), at(1, 59)).unwrap();
    assert_eq!(rate.counts[..2], [19, 48]);

    // The store stops answering: each replica shards by its own count (16
    // of minute 0 for replica 0, 6 of minute 1, now 7), not by nothing.
    server.stop();
    let alone = replicas[0].key(&key, "conversation-0", at(1, 59));
    assert_eq!(alone.shard_count(), 2, "replica 0 counted 16 in minute 0");
    let error = replicas[0]
        .tracker()
        .record(key.base(), at(1, 59))
        .unwrap_err();
    assert!(error.to_string().contains(key.base()), "{error}");
}
