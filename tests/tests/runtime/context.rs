//! The contexts and the notes sink: how many values a context holds, what
//! its `Debug` shows, and notes kept in order.

use prompt_core::context::Notes;

/// A session value for the context tests.
struct Count(u32);

impl prompt_core::SessionValue for Count {}

/// Another session value for the context tests.
struct Label(String);

impl prompt_core::SessionValue for Label {}

/// `len` counts the types stored and `is_empty` says whether there are none.
#[test]
fn a_context_counts_its_values_one_per_type() {
    let mut ctx = prompt_core::context::SessionContext::new();
    assert_eq!(ctx.len(), 0);
    assert!(ctx.is_empty());
    ctx.insert(Count(1));
    ctx.insert(Label(String::from("a")));
    ctx.insert(Count(2));
    assert_eq!(ctx.len(), 2);
    assert!(!ctx.is_empty());
    assert_eq!(ctx.get::<Count>().map(|c| c.0), Some(2));
    assert_eq!(ctx.get::<Label>().map(|l| l.0.as_str()), Some("a"));
}

/// `{:?}` of a context lists the types it holds, sorted by name (not the values,
/// which need not be `Debug`).
#[test]
fn a_context_debug_lists_its_type_names_in_order() {
    let ctx = prompt_core::context::SessionContext::new()
        .with(Label(String::from("secret")))
        .with(Count(7));
    assert_eq!(
        format!("{ctx:?}"),
        r#"Context { types: ["runtime::context::Count", "runtime::context::Label"] }"#
    );
    assert_eq!(
        format!("{:?}", prompt_core::TurnContext::new()),
        "Context { types: [] }"
    );
}

/// A notes sink counts what it was given and hands it back in order.
#[test]
fn notes_count_and_keep_their_order() {
    let notes = Notes::new();
    assert_eq!(notes.len(), 0);
    assert!(notes.is_empty());
    notes.push("first");
    notes.push(String::from("second"));
    assert_eq!(notes.len(), 2);
    assert!(!notes.is_empty());
    assert_eq!(notes.into_vec(), ["first", "second"]);
}
