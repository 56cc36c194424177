//! One shared `Pipeline` and session, assembled from 16 threads 10,000 times
//! each: every result is byte-identical to the first.

use crate::common;

use common::full_config;
use prompt_core::{Context, Pipeline, PromptBuilder};
use prompt_layers::{RuntimeFacts, SubAgent, SubAgents, load_session};
use prompt_tests::FixtureWorkspace;

const THREADS: usize = 16;
const ASSEMBLIES: usize = 10_000;

#[test]
fn sixteen_threads_assemble_byte_identical_prompts_from_one_session() {
    let ws = FixtureWorkspace::new();
    let config = full_config(&ws);
    let session = load_session(&config)
        .unwrap()
        .with(SubAgents(vec![SubAgent::new("tester", "Runs the tests.")]));
    let turn = Context::new()
        .with(
            RuntimeFacts::default()
                .date("2026-11-29")
                .model("opus")
                .git_branch("main"),
        )
        .with(config.load_scratchpad().unwrap());
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let shared = PromptBuilder::new(&pipeline).session(session);
    let expected = shared.build_cached(&turn).unwrap();
    assert!(!expected.stable().is_empty() && !expected.dynamic().is_empty());

    let differing = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                scope.spawn(|| {
                    (0..ASSEMBLIES)
                        .filter(|_| {
                            let prompt = shared.build_cached(&turn).unwrap();
                            prompt.parts() != expected.parts()
                                || prompt.trace().stable_fingerprint()
                                    != expected.trace().stable_fingerprint()
                        })
                        .count()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(differing, 0, "of {} assemblies", THREADS * ASSEMBLIES);
}
