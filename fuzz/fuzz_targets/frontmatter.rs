//! SKILL.md frontmatter and the bounded YAML parser under it: any text
//! parses or is refused, in bounded time and memory, without panicking; what
//! parses stays within the limits it was given (aliases expanded).
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::SkillLimits;
use prompt_layers::sources::__private::{SKILL_READ_CAP, parse_frontmatter, parse_skill};
use prompt_layers::sources::yaml::{YamlLimit, YamlLimits, parse_bounded};
use serde_yaml_ng::Value;

/// Values, text bytes (scalars, keys, tags) and collection depth of `value`,
/// counted the way the limits count them.
fn measure(value: &Value, depth: usize, out: &mut (usize, usize, usize)) {
    out.0 += 1;
    match value {
        Value::String(s) => out.1 += s.len(),
        Value::Sequence(items) => {
            out.2 = out.2.max(depth);
            for item in items {
                measure(item, depth + 1, out);
            }
        }
        Value::Mapping(map) => {
            out.2 = out.2.max(depth);
            for (key, value) in map {
                measure(key, depth + 1, out);
                measure(value, depth + 1, out);
            }
        }
        Value::Tagged(tagged) => {
            // The tag is charged as text, the tagged value as the value.
            out.0 -= 1;
            out.1 += tagged.tag.to_string().trim_start_matches('!').len();
            measure(&tagged.value, depth, out);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The YAML bound itself, with limits small enough that aliases reach them.
    let limits = YamlLimits::FRONTMATTER
        .max_bytes(16 * 1024)
        .max_depth(8)
        .max_nodes(512)
        .max_text(2048);
    match parse_bounded(text, &limits) {
        Ok(value) => {
            let mut seen = (0, 0, 0);
            measure(&value, 0, &mut seen);
            assert!(seen.0 <= limits.max_nodes, "{} values", seen.0);
            assert!(seen.1 <= limits.max_text, "{} bytes of text", seen.1);
            assert!(seen.2 <= limits.max_depth, "{} deep", seen.2);
        }
        Err(error) => {
            // One line, and a limit error always names its line (except size).
            let shown = error.to_string();
            assert!(!shown.contains('\n'), "{shown:?}");
            if error.limit.is_some_and(|l| l != YamlLimit::Bytes) {
                assert!(error.line.is_some(), "{shown}");
            }
        }
    }

    // What the source would see: at most the read cap.
    let text = prompt_layers::sources::__private::cut(text, SKILL_READ_CAP);
    let _ = parse_frontmatter(text);
    let limits = SkillLimits::default();
    if let Ok(skill) = parse_skill("x/SKILL.md".as_ref(), text, "x/SKILL.md".into(), &limits) {
        assert!(!skill.name.contains('\n') && !skill.description.contains('\n'));
        assert!(skill.name.chars().count() <= limits.max_name_chars);
        assert!(skill.description.chars().count() <= limits.max_description_chars);
        assert!(!skill.name.chars().any(|c| c.is_control()));
    }
});
