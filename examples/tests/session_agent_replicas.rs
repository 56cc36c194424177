//! The `session_agent` example with `REPLICAS=3` and a shared ledger on a
//! `redis-server` of its own: every turn through replica turn mod 3, each
//! verdict printed and kept; then the store stopped mid-run, and the run
//! still ends well, its verdicts saying the previous request is unknown.
//! Without `redis-server` on `PATH` it says it did not run, with the line
//! that installs it (`.ci/run` installs it and fails on that line).

#[path = "../examples/session_agent/main.rs"]
// The example's `main` reads the environment; this binary never calls it.
#[allow(dead_code)]
mod example;

use prompt_tests::redis::{self, RedisServer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !redis::installed() {
        println!(
            "test session_agent_replicas ... ignored, needs redis-server on PATH: {}",
            redis::INSTALL
        );
        return Ok(());
    }
    const TURNS: usize = 6;
    let server = RedisServer::start();
    let replicas = example::Replicas {
        replicas: 3,
        url: server.url(),
    };
    let report = example::run_with(
        &example::Endpoint::Loopback,
        TURNS,
        Some(&replicas),
        &mut |_| {},
    )?;
    assert_eq!(report.verdicts.len(), 2 * TURNS);
    for (conversation, turn, replica, verdict) in &report.verdicts {
        assert_eq!(*replica, turn % 3);
        assert!(
            !verdict.previous_unknown,
            "[conversation {conversation} turn {turn}] {verdict}"
        );
        assert_eq!(
            verdict.seq, *turn as u64,
            "the store counted each conversation's turns"
        );
        if *turn == 1 {
            // Nothing before it: a cold start, or a read of what the other
            // conversation wrote of the shared system prompt.
            assert!(
                verdict
                    .cause
                    .as_ref()
                    .is_none_or(|c| c.name() == "cold_start"),
                "{verdict}"
            );
        } else {
            // Each turn compared with the previous one, another replica's.
            assert!(
                verdict.is_hit(),
                "[conversation {conversation} turn {turn}] {verdict}"
            );
        }
    }

    // The store goes away before turn 4: the run goes on and ends well.
    let mut server = server;
    let report = example::run_with(
        &example::Endpoint::Loopback,
        TURNS,
        Some(&example::Replicas {
            replicas: 3,
            url: server.url(),
        }),
        &mut |turn| {
            if turn == 4 {
                server.stop();
            }
        },
    )?;
    assert_eq!(report.verdicts.len(), 2 * TURNS);
    for (conversation, turn, _, verdict) in &report.verdicts {
        // A new run's conversations are new to the store only by their
        // keys' history: the first run's records are still there, so turn
        // 1 compares with the first run's last turn, which a change of
        // history explains. What matters here is from turn 4 on.
        if *turn >= 4 {
            assert!(
                verdict.previous_unknown,
                "[conversation {conversation} turn {turn}] {verdict}"
            );
        } else {
            assert!(
                !verdict.previous_unknown,
                "[conversation {conversation} turn {turn}] {verdict}"
            );
        }
    }
    println!("session_agent with 3 replicas over redis: ok");
    Ok(())
}
