//! Frontmatter: how deep it may nest and how large it may be.

/// Frontmatter may nest `[` / `{` exactly 16 deep; 17 is refused unparsed.
/// Depth is nesting, not count: many lists side by side are fine.
#[test]
fn frontmatter_nests_exactly_sixteen_deep_and_siblings_do_not_add_up() {
    use prompt_layers::sources::__private::parse_frontmatter;
    let nested = |n: usize| {
        format!(
            "---\nname: x\ndeep: {}{}\n---\n",
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(parse_frontmatter(&nested(16)).is_ok());
    let error = parse_frontmatter(&nested(17)).unwrap_err();
    assert_eq!(error, "line 3: `[` / `{` nest deeper than 16");
    let siblings: String = (0..20).map(|i| format!("k{i}: [{i}]\n")).collect();
    let map = parse_frontmatter(&format!("---\n{siblings}---\n")).unwrap();
    assert_eq!(map.len(), 20);
}

/// A frontmatter of exactly 16 KiB between its `---` lines parses; one byte
/// more is refused unparsed.
#[test]
fn frontmatter_of_exactly_the_cap_parses_and_one_byte_more_is_refused() {
    use prompt_layers::sources::__private::{FRONTMATTER_CAP, parse_frontmatter};
    let frontmatter = |len: usize| {
        let head = "name: x\nd: ";
        let yaml = format!("{head}{}\n", "a".repeat(len - head.len() - 1));
        assert_eq!(yaml.len(), len);
        format!("---\n{yaml}---\n")
    };
    assert!(parse_frontmatter(&frontmatter(FRONTMATTER_CAP)).is_ok());
    let error = parse_frontmatter(&frontmatter(FRONTMATTER_CAP + 1)).unwrap_err();
    assert!(
        error.starts_with("the frontmatter is larger than 16 KiB"),
        "{error}"
    );
}
