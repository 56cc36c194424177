//! How long loading and assembling the standard prompt takes.
//!
//! `cargo bench -p prompt-tests`: the figures go in the closing notes.

#[path = "../tests/common/mod.rs"]
mod common;

use common::full_config;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use prompt_core::{Context, Pipeline, PromptBuilder, TurnContext};
use prompt_layers::sources::__private::read_capped;
use prompt_layers::sources::Root;
use prompt_layers::{RuntimeFacts, load_session};
use prompt_tests::{FixtureWorkspace, real_fixture};

fn turn() -> TurnContext {
    Context::new().with(
        RuntimeFacts::default()
            .date("2026-11-29")
            .model("opus")
            .cwd("/repo"),
    )
}

fn benches(c: &mut Criterion) {
    let ws = FixtureWorkspace::new();
    let config = full_config(&ws);
    let pipeline =
        Pipeline::of::<prompt_layers::StandardPipeline>().expect("the standard pipeline is valid");

    c.bench_function("load_session (fixture workspace, every source)", |b| {
        b.iter(|| load_session(black_box(&config)).unwrap())
    });

    let session = load_session(&config).unwrap();
    let turn = turn();
    c.bench_function("build_cached (standard pipeline, one-off)", |b| {
        let builder = PromptBuilder::new(&pipeline);
        b.iter(|| {
            builder
                .build_cached(black_box(&session), black_box(&turn))
                .unwrap()
        })
    });

    let prompt_session = PromptBuilder::new(&pipeline).session(load_session(&config).unwrap());
    c.bench_function("PromptSession::build_cached (stable prefix reused)", |b| {
        b.iter(|| prompt_session.build_cached(black_box(&turn)).unwrap())
    });

    let next_js = real_fixture("agents/vercel__next.js__AGENTS.md");
    let fixtures = Root::new(next_js.parent().unwrap(), "");
    c.bench_function("read_capped (20.8 KiB AGENTS.md, 16 KiB cap)", |b| {
        b.iter(|| read_capped(black_box(&next_js), &fixtures, 16 * 1024))
    });
}

criterion_group!(assembly, benches);
criterion_main!(assembly);
