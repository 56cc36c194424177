//! One keep-alive owner across replicas: schedulers over `SharedLedger`s
//! sharing one Redis send each conversation's ping once, under the store's
//! lease; a replica that dies holding a lease hands the ping on when the
//! lease lapses; with the store down no replica pings.
//!
//! Each test starts a `redis-server` of its own (`prompt_tests::redis`);
//! where none is installed they are ignored, by name, with the line that
//! installs it, and `.ci/run` fails if any of them did not run.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use prompt_checks::diff::StablePrefix;
use prompt_core::spec::{AssemblyPath, PromptMode, Scope};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::keepalive::{KeepAlive, PingError, PingSent, Scheduler};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, GivenPrefix, Pricing, Provider, RedisStore, Sent, SharedLedger,
    SignedDuration, Timestamp,
};
use prompt_tests::redis::RedisServer;

fn prefix() -> GivenPrefix {
    GivenPrefix::new(&StablePrefix {
        pipeline: String::new(),
        path: AssemblyPath::Cached,
        mode: PromptMode::Full,
        layers: vec![("persona".into(), "You are a careful agent. ".repeat(4000))],
        scopes: vec![Some(Scope::Global)],
        separator: "\n\n".into(),
    })
}

fn t0() -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap()
}

fn replica(url: &str) -> Arc<SharedLedger> {
    let store = RedisStore::open(url).unwrap();
    Arc::new(SharedLedger::new(CacheLedger::new(), store))
}

/// Two turns 6 minutes apart, the first through `a`, the second through
/// `b`, on Claude Opus 5.5 at a 5-minute TTL: a 20,000-token prefix whose
/// one gap (6 minutes) ends within a ping's window, so the policy pings at
/// 4.5 minutes after the second turn.
async fn two_turns(a: &SharedLedger, b: &SharedLedger) {
    let pricing = Pricing::for_model(5.0, "claude-opus-5-5", CacheTtl::FiveMinutes).unwrap();
    let given = prefix();
    for (ledger, at, usage) in [
        (a, 0, CacheUsage::new(40, 0, 20_000)),
        (b, 360, CacheUsage::new(40, 20_000, 0)),
    ] {
        let sent = Sent::new(
            Provider::Anthropic,
            "claude-opus-5-5",
            t0() + SignedDuration::from_secs(at),
        )
        .conversation("c1")
        .ttl(Duration::from_secs(300))
        .pricing(pricing);
        let id = ledger.sent_given(&given, sent).await;
        ledger.received(&id, &usage).await.unwrap();
    }
}

/// When the ping is due: 270 s after the second turn.
fn ping_time() -> Timestamp {
    t0() + SignedDuration::from_secs(360 + 270)
}

fn counting(
    sends: &Arc<AtomicUsize>,
) -> impl Fn(Arc<str>) -> std::future::Ready<Result<CacheUsage, std::io::Error>> + use<> {
    let sends = Arc::clone(sends);
    move |_| {
        sends.fetch_add(1, Ordering::SeqCst);
        std::future::ready(Ok(CacheUsage::new(0, 20_000, 0)))
    }
}

fn leased<E>(sent: &[PingSent<E>]) -> bool {
    sent.iter()
        .any(|p| matches!(p.outcome, Err(PingError::Leased)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_two_replicas_racing_for_one_keep_alive_send_one_ping() {
    let server = RedisServer::start();
    let (a, b) = (replica(&server.url()), replica(&server.url()));
    two_turns(&a, &b).await;
    let sends = Arc::new(AtomicUsize::new(0));
    let policy = KeepAlive::new();
    let sa = Scheduler::shared(Arc::clone(&a), policy, counting(&sends)).origin(ping_time());
    let sb = Scheduler::shared(Arc::clone(&b), policy, counting(&sends)).origin(ping_time());
    let (ra, rb) = tokio::join!(sa.step(), sb.step());
    assert_eq!(sends.load(Ordering::SeqCst), 1, "{ra:?} {rb:?}");
    let sent: Vec<_> = ra.iter().chain(&rb).filter(|p| p.outcome.is_ok()).collect();
    assert_eq!(sent.len(), 1, "{ra:?} {rb:?}");
    assert_eq!(&*sent[0].due.conversation, "c1");
    // The loser either saw the lease held or, reading after the winner
    // counted its ping, no ping due in this window at all.
    assert!(leased(&ra) || leased(&rb) || ra.is_empty() || rb.is_empty());
    // Stepped again in the same window, neither sends a second one.
    let (ra, rb) = tokio::join!(
        tokio::time::timeout(Duration::from_millis(300), sa.step()),
        tokio::time::timeout(Duration::from_millis(300), sb.step()),
    );
    drop((ra, rb));
    assert_eq!(sends.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_a_replica_that_dies_holding_the_lease_hands_the_ping_on() {
    let server = RedisServer::start();
    let (a, b) = (replica(&server.url()), replica(&server.url()));
    two_turns(&a, &b).await;
    let policy = KeepAlive::new();
    let lease = Duration::from_millis(200);
    // A takes the lease, enters its sender, and dies there.
    let entered = Arc::new(tokio::sync::Notify::new());
    let signal = Arc::clone(&entered);
    let dying = Scheduler::shared(Arc::clone(&a), policy, move |_| {
        signal.notify_one();
        std::future::pending::<Result<CacheUsage, std::io::Error>>()
    })
    .origin(ping_time())
    .lease_lifetime(lease);
    tokio::select! {
        _ = dying.step() => panic!("a sender that never answers does not finish"),
        () = entered.notified() => {}
    }
    drop(dying);
    let sends = Arc::new(AtomicUsize::new(0));
    let heir = Scheduler::shared(Arc::clone(&b), policy, counting(&sends))
        .origin(ping_time())
        .lease_lifetime(lease);
    let first = heir.step().await;
    assert!(leased(&first), "A still holds the lease: {first:?}");
    assert_eq!(sends.load(Ordering::SeqCst), 0);
    // Each step waits out the lease it was refused, then tries again.
    let mut outcome = Vec::new();
    for _ in 0..50 {
        outcome = heir.step().await;
        if sends.load(Ordering::SeqCst) > 0 {
            break;
        }
    }
    assert_eq!(sends.load(Ordering::SeqCst), 1, "{outcome:?}");
    assert!(outcome.iter().any(|p| p.outcome.is_ok()), "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_with_the_store_down_no_replica_pings() {
    let mut server = RedisServer::start();
    let (a, b) = (replica(&server.url()), replica(&server.url()));
    two_turns(&a, &b).await;
    server.stop();
    let sends = Arc::new(AtomicUsize::new(0));
    let policy = KeepAlive::new();
    let sa = Scheduler::shared(Arc::clone(&a), policy, counting(&sends)).origin(ping_time());
    let sb = Scheduler::shared(Arc::clone(&b), policy, counting(&sends)).origin(ping_time());
    let (ra, rb) = tokio::join!(sa.step(), sb.step());
    assert!(ra.is_empty() && rb.is_empty(), "{ra:?} {rb:?}");
    assert_eq!(sends.load(Ordering::SeqCst), 0);
    // Each replica's own copy would ping: the store's silence is what
    // stops it.
    assert!(sa.next_ping().is_some() || sb.next_ping().is_some());
}
