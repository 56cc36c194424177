//! Every layer speaks somewhere, or says what wakes it.

use super::renders::{Renders, describe};
use super::report::{Check, Finding};

/// Failures: layers that wrote nothing in every assembly and do not declare
/// `silent`. Notes: declared-silent layers no scenario woke.
pub(crate) fn check(renders: &Renders<'_>) -> (Vec<Finding>, Vec<Finding>) {
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let scenarios = scenario_names(renders);
    for spec in renders.pipeline.specs() {
        let spoke = renders.items.iter().any(|r| {
            r.prompt
                .trace()
                .layer(spec.name)
                .is_some_and(|layer| !layer.silent)
        });
        if spoke {
            continue;
        }
        match spec.silent {
            None => failures.push(Finding {
                check: Check::Reachable,
                subject: describe(spec),
                problem: format!(
                    "wrote nothing in any assembly (scenarios {scenarios}; every path and mode it lists)"
                ),
                fix: "give a scenario the session or turn content this layer reads, or declare \
                      `silent = \"what wakes it\"` in its #[prompt_layer] if it is silent by design"
                    .to_owned(),
            }),
            Some(wakes) => notes.push(Finding {
                check: Check::Reachable,
                subject: describe(spec),
                problem: format!(
                    "declared silent unless {wakes}, and no scenario woke it (scenarios {scenarios}), so its text goes unchecked"
                ),
                fix: format!("add a scenario where {wakes}"),
            }),
        }
    }
    (failures, notes)
}

fn scenario_names(renders: &Renders<'_>) -> String {
    let mut names: Vec<String> = Vec::new();
    for item in &renders.items {
        let name = format!("`{}`", item.scenario.name());
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.join(", ")
}
