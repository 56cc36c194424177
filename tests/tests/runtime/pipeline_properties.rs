//! Ordering and joining invariants, over generated pipelines.

use std::collections::BTreeSet;

use prompt_core::pipeline::LayerEntry;
use prompt_core::pipeline::Problem;
use prompt_core::{Context, Pipeline, PromptBuilder, Stability};
use prompt_tests::{Fixed, TEST, spec};
use proptest::prelude::*;

/// A layer as generated: name index, priority, stability, output.
type Gen = (u8, u32, bool, String);

fn layer() -> impl Strategy<Value = Gen> {
    (
        0u8..12,
        0u32..10_000,
        any::<bool>(),
        prop_oneof![Just(String::new()), "[a-zé語 ]{1,12}"],
    )
}

fn stability(dynamic: bool) -> Stability {
    if dynamic {
        Stability::Dynamic
    } else {
        Stability::Stable
    }
}

/// Layer names: specs keep `'static` names, so generated layers take theirs from a table.
const NAMES: [&str; 24] = [
    "layer_0", "layer_1", "layer_2", "layer_3", "layer_4", "layer_5", "layer_6", "layer_7",
    "layer_8", "layer_9", "layer_10", "layer_11", "layer_12", "layer_13", "layer_14", "layer_15",
    "layer_16", "layer_17", "layer_18", "layer_19", "layer_20", "layer_21", "layer_22", "layer_23",
];

/// `offset` puts a Dynamic layer's priority into its band.
fn entries(layers: &[Gen]) -> Vec<LayerEntry> {
    layers
        .iter()
        .map(|(name, offset, dynamic, text)| {
            let priority = if *dynamic { 10_000 + offset } else { *offset };
            LayerEntry::new(
                spec(NAMES[usize::from(*name)], priority, stability(*dynamic)),
                Fixed(text.clone()),
            )
        })
        .collect()
}

proptest! {
    #[test]
    fn valid_pipelines_are_sorted_and_stable_first(layers in prop::collection::vec(layer(), 0..24)) {
        // Make names and priorities unique so the pipeline is valid.
        let mut seen = BTreeSet::new();
        let layers: Vec<Gen> = layers
            .into_iter()
            .enumerate()
            .filter(|(_, (_, p, d, _))| seen.insert((*d, *p)))
            .map(|(i, (_, p, d, t))| (i as u8, p, d, t))
            .collect();
        let pipeline = Pipeline::from_layers(TEST, entries(&layers)).unwrap();
        let specs: Vec<_> = pipeline.specs().collect();
        prop_assert_eq!(specs.len(), layers.len());
        prop_assert!(specs.windows(2).all(|w| w[0].priority < w[1].priority));
        let first_dynamic = specs.iter().position(|s| s.stability == Stability::Dynamic).unwrap_or(specs.len());
        prop_assert!(specs[first_dynamic..].iter().all(|s| s.stability == Stability::Dynamic));
        prop_assert!(specs[..first_dynamic].iter().all(|s| s.stability == Stability::Stable));
    }

    #[test]
    fn duplicates_are_reported_exactly_when_present(layers in prop::collection::vec((0u8..6, 0u32..8, any::<bool>(), Just(String::new())), 1..10)) {
        let priorities: Vec<(bool, u32)> = layers.iter().map(|(_, p, d, _)| (*d, *p)).collect();
        let names: Vec<u8> = layers.iter().map(|(n, ..)| *n).collect();
        let dup_priority = priorities.iter().collect::<BTreeSet<_>>().len() < priorities.len();
        let dup_name = names.iter().collect::<BTreeSet<_>>().len() < names.len();
        match Pipeline::from_layers(TEST, entries(&layers)) {
            Ok(_) => prop_assert!(!dup_priority && !dup_name),
            Err(error) => {
                let has = |f: fn(&Problem) -> bool| error.problems.iter().any(f);
                prop_assert_eq!(has(|p| matches!(p, Problem::DuplicatePriority { .. })), dup_priority);
                prop_assert_eq!(has(|p| matches!(p, Problem::DuplicateName { .. })), dup_name);
            }
        }
    }

    #[test]
    fn joining_skips_silent_layers_and_paths_agree(
        texts in prop::collection::vec(prop_oneof![Just(String::new()), "[a-z語]{1,6}"], 0..10),
        split in 0usize..10,
        separator in prop_oneof![Just("\n\n".to_owned()), Just("|".to_owned())],
    ) {
        let layers: Vec<Gen> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u8, i as u32, i >= split, t.clone()))
            .collect();
        let pipeline = Pipeline::from_layers(TEST, entries(&layers)).unwrap();
        let builder = PromptBuilder::new(&pipeline).separator(separator.clone());
        let (s, t) = (Context::new(), Context::new());
        let cached = builder.build_cached(&s, &t).unwrap();
        let basic = builder.build_basic(&s, &t).unwrap();

        let expected = texts.iter().filter(|t| !t.is_empty()).cloned().collect::<Vec<_>>().join(&separator);
        prop_assert_eq!(cached.text(), expected.clone());
        prop_assert_eq!(basic.text(), expected);
        let silent: Vec<String> = layers.iter().filter(|l| l.3.is_empty()).map(|l| format!("layer_{}", l.0)).collect();
        prop_assert_eq!(cached.trace().silent().map(str::to_owned).collect::<Vec<_>>(), silent);
        let stable_expected = texts.iter().take(split).filter(|t| !t.is_empty()).cloned().collect::<Vec<_>>().join(&separator);
        prop_assert_eq!(cached.stable(), stable_expected.as_str());
    }
}
