//! A crate outside the workspace, depending only on `prompt-core` by path,
//! declares layers with the attribute and assembles them.

use crate::cargo_run;

#[test]
fn a_crate_depending_only_on_prompt_core_declares_and_assembles_layers() {
    assert_eq!(
        cargo_run("external/Cargo.toml", &[]),
        "[cache=true] \"You review pull requests.\\n\\nRepository: acme/widgets\"\n\
         [cache=false] \"Pull request: #42\"\n"
    );
}
