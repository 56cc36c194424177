//! The contract checks on every reference agent, over its own scenarios, with
//! byte ceilings committed in `examples/tests/ratchets.json`
//! (`PROMPT_RATCHET=update cargo test -p prompt-examples --test agents contract`
//! rewrites them).

use prompt_checks::contract::{Contract, Scenario, Volatile};
use prompt_examples::agents::{Agent, Layout};

#[test]
fn every_reference_agent_keeps_its_contract_and_its_ratchets() {
    for agent in Agent::ALL {
        let pipeline = agent.pipeline().unwrap();
        let scenarios: Vec<Scenario> = agent
            .scenarios(&agent.fixture(), Layout::Fixture)
            .unwrap()
            .into_iter()
            .map(|p| Scenario::new(p.name, p.session).turn(p.turn))
            .collect();
        assert!(
            scenarios.len() >= 2,
            "{agent}: a bare and a rich scenario at least"
        );
        let mut contract = Contract::new(&pipeline, &scenarios)
            .ratchet(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ratchets.json"));
        if pipeline.layer("episodic_recall").is_some() {
            // Episodes are dated; the file is read once per session, so the
            // dates are fixed for the session and do not bust its cache.
            contract = contract.allow(
                "episodic_recall",
                Volatile::Date,
                "session folder names carry their dates; the folders are listed once per session",
            );
        }
        let report = contract.run();
        assert!(report.is_ok(), "{agent}:\n{report}");
        // Every path and mode the agent serves was rendered in every scenario.
        let expected: usize = scenarios.len() * agent.paths().len() * agent.modes().len();
        assert!(
            report.assemblies() >= expected,
            "{agent}: {}",
            report.assemblies()
        );
    }
}
