//! Tests that kill the mutants cargo-mutants found surviving in
//! `prompt-layers`' sources (issue 11). Each test names the guarantee it
//! pins; README.md, "Mutation testing", has the recipe.
