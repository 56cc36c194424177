//! What template filters may cost: the filters and tests a template may use,
//! each charging one render's byte budget before it runs.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::value::{Rest, StringInput};
use minijinja::{Environment, ErrorKind, State, Value};

use crate::sources::SourceError;
use crate::sources::capped::Size;

/// The filters a template may use, each a wrapper that charges the render's
/// filter budget (see [`FilterBudget`]).
pub(super) const FILTERS: [&str; 10] = [
    "upper",
    "lower",
    "title",
    "capitalize",
    "trim",
    "default",
    "d",
    "length",
    "first",
    "last",
];

/// The tests a template may use (`x is defined`): each is constant time.
pub(super) const TESTS: [&str; 6] = ["defined", "undefined", "none", "true", "false", "string"];

/// The bytes filters may read in one render, summed over every call. Fuel
/// counts instructions, and one filter call is one instruction whatever
/// its input: without this, a loop of `x|title` over a long `x` runs for
/// minutes inside the fuel.
const FILTER_BUDGET: u64 = 1024 * 1024;

/// What the filters of one render have read, and the call that went over.
#[derive(Debug, Default)]
pub(super) struct FilterBudget {
    spent: AtomicU64,
    over: Mutex<Option<(&'static str, u64)>>,
}

impl FilterBudget {
    /// Charges `cost` bytes to the budget for a call of `filter`; over the
    /// budget, the call fails and is remembered for the error.
    fn charge(&self, filter: &'static str, cost: u64) -> Result<(), minijinja::Error> {
        let spent = self
            .spent
            .fetch_add(cost, Ordering::Relaxed)
            .saturating_add(cost);
        if spent > FILTER_BUDGET {
            self.over
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert((filter, cost));
            return Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("filters read over {} in one render", Size(FILTER_BUDGET)),
            ));
        }
        Ok(())
    }

    /// The error for a render that went over, if it did.
    pub(super) fn over(&self, path: &Path) -> Option<SourceError> {
        let (filter, cost) = (*self.over.lock().unwrap_or_else(PoisonError::into_inner))?;
        Some(SourceError::TemplateLimit {
            path: path.to_owned(),
            limit: format!(
                "filters read over {} in one render (the `{filter}` filter was given {})",
                Size(FILTER_BUDGET),
                Size(cost)
            ),
        })
    }
}

/// What reading `value` costs a filter: its length in bytes if a string,
/// a small constant otherwise (numbers, booleans, none and the loop object
/// print short).
fn cost(value: &Value) -> u64 {
    value.as_str().map_or(16, |text| text.len() as u64).max(1)
}

/// The allowed filters, each charging the budget before it runs: the cost
/// of every filter is at most linear in what it is charged.
pub(super) fn add_filters(env: &mut Environment<'_>, budget: &Arc<FilterBudget>) {
    use minijinja::{filters, tests};
    let b = Arc::clone(budget);
    env.add_filter("upper", move |state: &State, value: Value| {
        b.charge("upper", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::upper(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter("lower", move |state: &State, value: Value| {
        b.charge("lower", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::lower(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter("title", move |state: &State, value: Value| {
        b.charge("title", cost(&value))?;
        let text = StringInput::new(state, &value)?;
        Ok::<_, minijinja::Error>(filters::title(text.as_str().into()))
    });
    let b = Arc::clone(budget);
    env.add_filter("capitalize", move |state: &State, value: Value| {
        b.charge("capitalize", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::capitalize(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter(
        "trim",
        move |state: &State, value: Value, chars: Option<String>| {
            // Trimming a set of characters compares each character with
            // every one in the set.
            let set = chars
                .as_ref()
                .map_or(1, |c| c.chars().count().max(1) as u64);
            b.charge("trim", cost(&value).saturating_mul(set))?;
            Ok::<_, minijinja::Error>(filters::trim(
                StringInput::new(state, &value)?,
                chars.map(Into::into),
            ))
        },
    );
    for name in ["default", "d"] {
        let b = Arc::clone(budget);
        env.add_filter(
            name,
            move |state: &State, value: Value, args: Rest<Value>| {
                b.charge(name, cost(&value))?;
                filters::default(state, &value, args)
            },
        );
    }
    let b = Arc::clone(budget);
    env.add_filter("length", move |value: Value| {
        b.charge("length", cost(&value))?;
        filters::length(&value)
    });
    let b = Arc::clone(budget);
    env.add_filter("first", move |value: Value| {
        b.charge("first", cost(&value))?;
        filters::first(&value)
    });
    let b = Arc::clone(budget);
    env.add_filter("last", move |value: Value| {
        b.charge("last", cost(&value))?;
        filters::last(value)
    });
    env.add_test("defined", tests::is_defined);
    env.add_test("undefined", tests::is_undefined);
    env.add_test("none", tests::is_none);
    env.add_test("true", tests::is_true);
    env.add_test("false", tests::is_false);
    env.add_test("string", tests::is_string);
}
