//! A hostile repository loaded as a whole session: every case of the threat
//! model (docs/RELIABILITY.md), fenced file text, and properties over generated
//! hostile input.

#[path = "../common/mod.rs"]
mod common;

mod fence;
mod properties;
mod repository;
