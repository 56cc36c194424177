//! Template rendering under limits: any template renders or fails with an
//! error, within the fuel and the output limit, without panicking.
#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::{TemplateLimits, Templates};

struct Fixture {
    _dir: tempfile::TempDir,
    shared: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().canonicalize().unwrap().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(
            shared.join("a.md"),
            "A {{ app }} {% include \"@shared/b.md\" %}",
        )
        .unwrap();
        std::fs::write(
            shared.join("b.md"),
            "B {% for c in app %}{{ c }}{% endfor %}",
        )
        .unwrap();
        std::fs::write(shared.join("loop.md"), "{% include \"@shared/loop.md\" %}").unwrap();
        Fixture { _dir: dir, shared }
    })
}

const LIMITS: TemplateLimits = TemplateLimits {
    fuel: 20_000,
    max_output: 16 * 1024,
    max_include_depth: 8,
};

fuzz_target!(|source: &str| {
    let fixture = fixture();
    let templates = Templates::new(Some(fixture.shared.clone())).with_limits(LIMITS);
    let vars = BTreeMap::from([
        ("app".to_owned(), "agent".to_owned()),
        ("workspace".to_owned(), "repo".to_owned()),
    ]);
    if let Ok(text) = templates.render_str("base.md".as_ref(), source, &vars) {
        assert!(text.len() <= LIMITS.max_output);
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }
});
