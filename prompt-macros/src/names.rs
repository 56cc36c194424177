//! Names: suggestions for misspelt keys, snake_case checks, derived names.

use heck::ToSnakeCase;
use syn::Ident;

/// The candidate closest to a misspelt `word`, when it is close.
pub(crate) fn suggest<'a, T>(
    word: &str,
    candidates: impl Iterator<Item = (&'a str, T)>,
) -> Option<T> {
    candidates
        .map(|(name, value)| (distance(word, name), name, value))
        .filter(|(d, name, _)| *d <= 2.max(name.len() / 3))
        .min_by_key(|(d, name, _)| (*d, *name))
        .map(|(_, _, value)| value)
}

/// Levenshtein distance, for [`suggest`].
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Whether `name` is snake_case: `[a-z][a-z0-9_]*`.
pub(crate) fn is_snake_case(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// A layer's default name: its type's name in snake_case, without a
/// trailing `Layer` (`HouseRulesLayer` is `house_rules`).
pub(crate) fn layer_name(ident: &Ident) -> String {
    let text = ident.to_string();
    let stem = text
        .strip_suffix("Layer")
        .filter(|stem| !stem.is_empty())
        .unwrap_or(&text);
    stem.to_snake_case()
}

/// A pipeline's name: its type's name in snake_case (`SubAgent` is `sub_agent`).
pub(crate) fn pipeline_name(ident: &Ident) -> String {
    ident.to_string().to_snake_case()
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    const KEYS: [&str; 4] = ["priority", "stability", "paths", "silent"];

    fn best(word: &str) -> Option<&'static str> {
        suggest(word, KEYS.iter().map(|k| (*k, *k)))
    }

    #[test]
    fn close_misspellings_get_a_suggestion() {
        assert_eq!(best("prority"), Some("priority"));
        assert_eq!(best("sielnt"), Some("silent"));
        assert_eq!(best("path"), Some("paths"));
        assert_eq!(best("stabilty"), Some("stability"));
    }

    #[test]
    fn far_words_get_none() {
        assert_eq!(best("colour"), None);
        assert_eq!(best("x"), None);
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn default_names_drop_a_trailing_layer() {
        let ident = |s| Ident::new(s, Span::call_site());
        assert_eq!(layer_name(&ident("HouseRulesLayer")), "house_rules");
        assert_eq!(layer_name(&ident("ProjectContext")), "project_context");
        assert_eq!(layer_name(&ident("Layer")), "layer");
        assert_eq!(pipeline_name(&ident("SubAgent")), "sub_agent");
    }

    #[test]
    fn snake_case_is_lowercase_ascii_starting_with_a_letter() {
        assert!(is_snake_case("project_docs2"));
        for bad in ["", "ProjectDocs", "2docs", "_x", "a-b", "é"] {
            assert!(!is_snake_case(bad), "{bad}");
        }
    }
}
