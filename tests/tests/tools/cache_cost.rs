//! The cache-cost simulation, with exact expected numbers.

use prompt_providers::anthropic::{CacheMinimums, CacheTtl};
use prompt_providers::cost::Multipliers;
use prompt_providers::simulation::{CacheSimulation, SimulationError, TurnCost};

fn turn(
    turn: usize,
    cache_write: usize,
    cache_read: usize,
    uncached: usize,
    cost: f64,
) -> TurnCost {
    TurnCost::new(turn, cache_write, cache_read, uncached, cost)
}

#[test]
fn the_first_turn_writes_the_prefix_and_later_turns_read_it() {
    let report = CacheSimulation::new("claude-sonnet-4-5", 10_000, [500, 600, 700])
        .run()
        .unwrap();
    assert_eq!(
        report.turns,
        [
            turn(1, 10_000, 0, 500, 13_000.0), // 10,000 x 1.25 + 500
            turn(2, 0, 10_000, 600, 1_600.0),  // 10,000 x 0.1 + 600
            turn(3, 0, 10_000, 700, 1_700.0),
        ]
    );
    assert_eq!(report.total, turn(0, 10_000, 20_000, 1_800, 16_300.0));
    assert_eq!(report.uncached_cost, 31_800);
    assert_eq!(report.relative_cost, 16_300.0 / 31_800.0);
    assert!(report.cached);
    assert_eq!(report.minimum_tokens, 1024);
    assert_eq!(
        report.multipliers,
        Multipliers::anthropic(CacheTtl::FiveMinutes)
    );
}

#[test]
fn a_one_hour_ttl_doubles_the_write() {
    let report = CacheSimulation::new("claude-sonnet-4-5", 10_000, [500, 600, 700])
        .ttl(CacheTtl::OneHour)
        .run()
        .unwrap();
    assert_eq!(report.turns[0], turn(1, 10_000, 0, 500, 20_500.0));
    assert_eq!(report.total.cost, 23_800.0);
    assert_eq!(report.ttl, "1h");
    assert_eq!(report.multipliers.cache_write(), 2.0);
}

#[test]
fn a_bust_writes_the_prefix_again_at_its_turn() {
    let report = CacheSimulation::new("claude-sonnet-4-5", 10_000, [500, 600, 700])
        .bust_at(3)
        .run()
        .unwrap();
    assert_eq!(report.turns[2], turn(3, 10_000, 0, 700, 13_200.0));
    assert_eq!(report.total, turn(0, 20_000, 10_000, 1_800, 27_800.0));
    assert_eq!(report.bust_at, Some(3));
}

#[test]
fn a_prefix_below_the_minimum_caches_nothing() {
    let report = CacheSimulation::new("claude-sonnet-4-5", 1_000, [100, 100])
        .run()
        .unwrap();
    assert!(!report.cached);
    assert_eq!(
        report.turns,
        [turn(1, 0, 0, 1_100, 1_100.0), turn(2, 0, 0, 1_100, 1_100.0)]
    );
    assert_eq!(report.relative_cost, 1.0);
    assert!(report.to_string().contains("nothing is cached"));

    // An unknown model gets the most conservative minimum.
    let unknown = CacheSimulation::new("claude-mystery-9", 2_000, [100])
        .run()
        .unwrap();
    assert_eq!((unknown.minimum_tokens, unknown.cached), (4096, false));
    assert_eq!(unknown.family, None);
    // Unless the caller knows better.
    let known = CacheSimulation::new("claude-mystery-9", 2_000, [100])
        .minimums(CacheMinimums::anthropic().set("claude-mystery-9", 1024))
        .run()
        .unwrap();
    assert!(known.cached);
}

#[test]
fn other_multipliers_can_be_given() {
    // A provider that reads at half price and charges nothing extra to write.
    let report = CacheSimulation::new("claude-sonnet-4-5", 2_000, [0, 0])
        .multipliers(Multipliers::new(5_000, 10_000))
        .run()
        .unwrap();
    assert_eq!(report.total.cost, 3_000.0);
    assert_eq!(report.relative_cost, 0.75);
}

#[test]
fn an_empty_session_or_a_bust_outside_it_is_an_error() {
    assert_eq!(
        CacheSimulation::new("claude-sonnet-4-5", 10_000, []).run(),
        Err(SimulationError::NoTurns)
    );
    for bust in [0, 4] {
        let error = CacheSimulation::new("claude-sonnet-4-5", 10_000, [1, 2, 3])
            .bust_at(bust)
            .run()
            .unwrap_err();
        assert_eq!(error, SimulationError::BustOutOfRange { bust, turns: 3 });
        assert!(error.to_string().contains("turns 1 to 3"), "{error}");
    }
}

#[test]
fn the_report_serializes_and_prints_as_a_table() {
    let report = CacheSimulation::new("claude-opus-4-5", 8_000, [300, 400, 500, 600])
        .ttl(CacheTtl::OneHour)
        .bust_at(3)
        .run()
        .unwrap();
    insta::assert_snapshot!("report_table", report.to_string());
    insta::assert_snapshot!(
        "report_json",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

/// A dollar price is a finite number at or above zero: `NaN`, the
/// infinities and negatives are refused, by the check and by a team
/// simulation given one, with a message saying what to give instead.
#[test]
fn a_price_must_be_finite_and_not_negative() {
    use prompt_core::tokens::ApproxCounter;
    use prompt_providers::cost::{PriceError, usd_per_mtok};
    use prompt_providers::simulation::TeamSimulation;

    assert_eq!(usd_per_mtok(0.0), Ok(0.0));
    assert_eq!(usd_per_mtok(3.0), Ok(3.0));
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let error = usd_per_mtok(bad).unwrap_err();
        assert!(matches!(error, PriceError::NotFinite { .. }), "{bad}");
        assert!(error.to_string().contains("is not a number"), "{error}");
    }
    let negative = usd_per_mtok(-0.5).unwrap_err();
    assert_eq!(negative, PriceError::Negative { usd: -0.5 });
    assert_eq!(
        negative.to_string(),
        "the input price -0.5 USD per million tokens is negative: give 0 or more"
    );
    let team = TeamSimulation::new("claude-sonnet-4-5").usd_per_mtok(f64::NAN);
    let error = team.run(&[], &ApproxCounter).unwrap_err();
    assert!(
        matches!(error, SimulationError::Price(PriceError::NotFinite { .. })),
        "{error:?}"
    );
}

/// OpenAI from GPT-5.6 on: a write costs 1.25x input, a read 0.1x, with
/// OpenAI's minimum and its 30-minute cache; the earlier GPT-5 models write
/// at the input price.
#[test]
fn openai_models_are_priced_as_openai_bills_them() {
    let report = CacheSimulation::new("gpt-5.6", 10_000, [500, 600, 700])
        .run()
        .unwrap();
    assert_eq!(report.multipliers, Multipliers::openai("gpt-5.6").unwrap());
    assert_eq!(report.multipliers.cache_write(), 1.25);
    assert_eq!(report.multipliers.cache_read(), 0.1);
    assert_eq!(report.turns[0], turn(1, 10_000, 0, 500, 13_000.0)); // 10,000 x 1.25 + 500
    assert_eq!(report.total, turn(0, 10_000, 20_000, 1_800, 16_300.0));
    assert_eq!((report.ttl, report.minimum_tokens), ("30m", 1024));
    assert_eq!(report.family.as_deref(), Some("OpenAI GPT-4o and later"));

    // Before GPT-5.6 the first call's prefix costs what plain input does.
    let older = CacheSimulation::new("gpt-5.5", 10_000, [500, 600, 700])
        .run()
        .unwrap();
    assert_eq!(older.multipliers.cache_write(), 1.0);
    assert_eq!(older.turns[0], turn(1, 10_000, 0, 500, 10_500.0));
    assert_eq!(older.total.cost, 13_800.0);
    assert_eq!(older.ttl, "24h");

    // 2,000 tokens reach OpenAI's minimum of 1,024 (Anthropic's table gave
    // an unknown model 4,096, which they do not); 1,000 do not.
    assert!(
        CacheSimulation::new("gpt-5.6", 2_000, [100])
            .run()
            .unwrap()
            .cached
    );
    assert!(
        !CacheSimulation::new("gpt-5.6", 1_000, [100])
            .run()
            .unwrap()
            .cached
    );
    // No multipliers for another OpenAI family or a Claude model.
    assert_eq!(Multipliers::openai("gpt-4o"), None);
    assert_eq!(Multipliers::openai("claude-sonnet-4-5"), None);
    assert_eq!(
        Multipliers::for_model("claude-sonnet-4-5", CacheTtl::OneHour),
        Multipliers::anthropic(CacheTtl::OneHour)
    );
}

/// Anthropic's TTL given with an OpenAI model is refused, never ignored.
#[test]
fn an_anthropic_ttl_with_an_openai_model_is_refused() {
    let error = CacheSimulation::new("gpt-5.6", 10_000, [1])
        .ttl(CacheTtl::FiveMinutes)
        .run()
        .unwrap_err();
    assert_eq!(
        error,
        SimulationError::TtlNotTaken {
            model: "gpt-5.6".into(),
            ttl: "30m"
        }
    );
    assert!(error.to_string().contains("leave the TTL out"), "{error}");
}

/// A team on GPT-5.6 pays OpenAI's write price and breaks where the
/// Anthropic request would, with OpenAI's minimum.
#[test]
fn a_team_on_gpt_5_6_is_priced_at_openai_s_write_price() {
    use prompt_core::tokens::ApproxCounter;
    use prompt_providers::simulation::TeamSimulation;

    let simulation = TeamSimulation::new("gpt-5.6");
    let prompt = prompt_tests::fixed(&[(
        "persona",
        100,
        prompt_core::Stability::Stable,
        &"word ".repeat(1000),
    )]);
    let prompt = prompt_core::PromptBuilder::new(&prompt)
        .build_cached(&prompt_core::Context::new(), &prompt_core::Context::new())
        .unwrap();
    let team = [simulation.prefix("ada", &prompt, &ApproxCounter)];
    let report = simulation.run(&team, &ApproxCounter).unwrap();
    assert_eq!(report.multipliers.cache_write(), 1.25);
    assert_eq!((report.ttl, report.minimum_tokens), ("30m", 1024));
    assert_eq!(report.users[0].scoped.tokens_written, 1250);
    assert_eq!(report.users[0].scoped.cost, 1562.5);
    assert!(matches!(
        TeamSimulation::new("gpt-5.6")
            .ttl(CacheTtl::OneHour)
            .run(&team, &ApproxCounter),
        Err(SimulationError::TtlNotTaken { .. })
    ));
}

/// Fable 5.1 reads at 0.025x its input price and Opus 5.5 at 0.05x
/// (Anthropic's pricing page, 2026-12-01); writes stay 1.25x and 2x.
#[test]
fn fable_and_opus_5_5_reads_are_priced_at_their_own_multipliers() {
    let fable = CacheSimulation::new("claude-fable-5-1", 10_000, [500, 600])
        .run()
        .unwrap();
    assert_eq!(
        fable.turns,
        [
            turn(1, 10_000, 0, 500, 13_000.0), // 10,000 x 1.25 + 500
            turn(2, 0, 10_000, 600, 850.0),    // 10,000 x 0.025 + 600
        ]
    );
    assert_eq!(fable.multipliers.cache_read_ten_thousandths, 250);
    assert_eq!(fable.minimum_tokens, 512);
    let opus = Multipliers::for_model("claude-opus-5-5", CacheTtl::OneHour);
    assert_eq!((opus.cache_read(), opus.cache_write()), (0.05, 2.0));
    // A model without a row of its own keeps 0.1x.
    assert_eq!(
        Multipliers::for_model("claude-opus-4-8", CacheTtl::FiveMinutes).cache_read(),
        0.1
    );
}
