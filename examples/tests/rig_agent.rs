//! The rig agent server example (`examples/rig_agent`), run by `cargo test`
//! against its own loopback server whatever `ANTHROPIC_BASE_URL` says: it
//! fails when a second turn does not read the stable prefix. It builds with
//! the tests' features, so nothing is built again to run it.

#[path = "../examples/rig_agent/main.rs"]
// The example's `main` reads the environment; this binary never calls it.
#[allow(dead_code)]
mod example;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    example::serve(example::Endpoint::Loopback)?;
    // Ten rounds, measured as `session_agent` is (examples/tests/session_agent.rs):
    // rig marks the system block only and the history keeps the user's own
    // words, so the history is never read back. The figure, not a bar.
    let measured =
        example::serve_rounds(example::Endpoint::Loopback, 10)?.ok_or("the loopback ran")?;
    assert_eq!(measured.requests, 30);
    println!("rig_agent, 10 rounds, on the loopback: {measured}");
    Ok(())
}
