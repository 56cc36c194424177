//! Compile-time behaviour of `#[prompt_layer]`: every rejection in DESIGN.md,
//! and the forms that must be accepted.
//!
//! The `pass` cases make trybuild run `cargo build` rather than `cargo check`
//! for the whole set, so link-time symbol clashes (duplicate names and
//! priorities) are reported too.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/*.rs");
}
