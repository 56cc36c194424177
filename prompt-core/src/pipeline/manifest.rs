//! The manifest: a Markdown table of a pipeline, for review and snapshots.

use std::fmt::Write as _;

use super::Pipeline;
use crate::spec::Stability;

impl Pipeline {
    /// A Markdown table of every layer: position, name, priority, stability,
    /// scope (Stable layers only), paths, modes, what wakes a conditionally silent layer, and where it is
    /// defined (as `package: file:line`, the file relative to the package,
    /// so the table is the same on every machine).
    ///
    /// Snapshot it in a test: a layer crate the binary stopped naming, a
    /// re-prioritised or moved layer all show up in review.
    pub fn manifest(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Pipeline `{}`: {} layer{}\n",
            self.name(),
            self.len(),
            if self.len() == 1 { "" } else { "s" }
        );
        out.push_str(
            "| # | name | priority | stability | scope | paths | modes | silent unless | source |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for (i, spec) in self.specs().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                i + 1,
                spec.name,
                spec.priority,
                spec.stability,
                match spec.stability {
                    Stability::Stable => spec.scope.as_str(),
                    Stability::Dynamic => "",
                },
                join(spec.paths.iter().map(|p| p.as_str())),
                join(spec.modes.iter().map(|m| m.as_str())),
                escape_cell(spec.silent.unwrap_or("")),
                spec.location(),
            );
        }
        out
    }
}

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// A table cell never contains a raw `|` or a line break.
fn escape_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}
