//! Helpers the template tests of this binary share.

use std::collections::BTreeMap;
use std::path::Path;

use prompt_layers::sources::{SourceError, Templates};

/// Renders `source` as `base.md` with the variables `vars`.
pub fn render_with(
    templates: &Templates,
    source: &str,
    vars: &[(&str, &str)],
) -> Result<String, SourceError> {
    let vars: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    templates.render_str(Path::new("base.md"), source, &vars)
}

/// A shared folder holding `files`.
pub fn shared(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}
