//! Include names: whatever the name, a resolved include lies inside the shared folder.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::__private::resolve_shared;
use prompt_layers::sources::Root;

struct Fixture {
    _dir: tempfile::TempDir,
    shared: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let shared = root.join("shared");
        std::fs::create_dir_all(shared.join("sub")).unwrap();
        std::fs::write(shared.join("a.md"), "a").unwrap();
        std::fs::write(shared.join("sub/b.md"), "b").unwrap();
        std::fs::write(root.join("secret.md"), "secret").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("secret.md"), shared.join("out.md")).unwrap();
            std::os::unix::fs::symlink(&root, shared.join("up")).unwrap();
            std::os::unix::fs::symlink(shared.join("sub"), shared.join("in")).unwrap();
        }
        Fixture { _dir: dir, shared }
    })
}

fuzz_target!(|name: &str| {
    let fixture = fixture();
    let root = Root::new(&fixture.shared, "@shared");
    if let Ok(path) = resolve_shared(Some(&root), name, "base.md".as_ref()) {
        assert!(path.starts_with(&fixture.shared), "{name:?} -> {path:?}");
        if let Ok(real) = path.canonicalize() {
            assert!(real.starts_with(&fixture.shared), "{name:?} -> {real:?}");
        }
    }
});
