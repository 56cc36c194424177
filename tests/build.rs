//! Whether this toolchain is the one the UI tests' `.stderr` files were
//! recorded with: `cfg(ui_toolchain)` when it is (`tests/ui.rs` runs them),
//! and the recorded version for the messages either way.

use std::process::Command;

/// The `rustc` the `tests/ui/**/*.stderr` files were recorded with. `.ci/run`
/// reads this line: on this toolchain the UI tests must run, never be ignored.
const RECORDED_WITH: &str = "rustc 1.95.0";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(ui_toolchain)");
    // The shared ledger's tests start a `redis-server` of their own: where
    // none is installed they are ignored, by name, with the line that
    // installs it (`.ci/run` installs it and fails if any was ignored).
    println!("cargo::rustc-check-cfg=cfg(redis_server)");
    println!("cargo::rerun-if-env-changed=PATH");
    let redis = Command::new("redis-server")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if redis {
        println!("cargo::rustc-cfg=redis_server");
    }
    println!("cargo::rustc-env=UI_RECORDED_WITH={RECORDED_WITH}");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("cargo::rustc-env=UI_BUILT_WITH={version}");
    if version.starts_with(&format!("{RECORDED_WITH} ")) {
        println!("cargo::rustc-cfg=ui_toolchain");
    }
}
