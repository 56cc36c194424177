//! A user's layer library documents its layers and pipelines and nothing the
//! attributes generated: no exported macro, no duplicate-check item, even
//! with hidden items shown.

use std::path::Path;

#[test]
fn a_layer_crate_s_docs_hold_its_items_and_nothing_the_attributes_added() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = crate::artifacts();
    // `--document-hidden-items` is an unstable rustdoc option; a hidden
    // export is still public API, so it is what this test must see.
    let output = crate::cargo("rustdoc")
        .args(["--locked", "--lib", "--manifest-path"])
        .arg(root.join("external-docs/Cargo.toml"))
        .args(["--", "-Z", "unstable-options", "--document-hidden-items"])
        .env("RUSTC_BOOTSTRAP", "1")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "external-docs failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let docs = target.join("doc/external_layer_docs");
    let mut pages: Vec<String> = Vec::new();
    for dir in [docs.clone(), docs.join("review")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".html") && name != "index.html" && name != "all.html" {
                pages.push(name);
            }
        }
    }
    pages.sort();
    assert_eq!(
        pages,
        [
            "struct.FocusLayer.html",
            "struct.PersonaLayer.html",
            "struct.Reviewer.html",
            "struct.StyleLayer.html",
        ],
        "{}",
        docs.display()
    );
    let all = std::fs::read_to_string(docs.join("all.html")).unwrap();
    assert!(!all.contains("two_layers"), "{all}");
    assert!(!all.contains("two_pipelines"), "{all}");
}
