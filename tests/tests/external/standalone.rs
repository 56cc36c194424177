//! A crate outside the workspace, depending only on `prompt-core` by path,
//! declares layers with the attribute and assembles them.

use std::path::Path;
use std::process::Command;

#[test]
fn a_crate_depending_only_on_prompt_core_declares_and_assembles_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("external/Cargo.toml");
    let target = root.join("../target/external");
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--locked", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "external crate failed:\n{stderr}");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "[cache=true] \"You review pull requests.\\n\\nRepository: acme/widgets\"\n\
         [cache=false] \"Pull request: #42\"\n"
    );
}
