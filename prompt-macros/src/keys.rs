//! The words the attributes' values may be: one list per vocabulary. The keys
//! themselves are declared once, with their slots, in `parse.rs`.

use proc_macro2::Span;
use syn::Ident;

/// A word of a key's vocabulary: the variants of one `prompt_core` enum.
///
/// The names here must be exactly `prompt_core`'s variants: generated code
/// writes `prompt_core::__private_v1::<Enum>::<Variant>`, so a name that
/// `prompt_core` lacks fails to compile in every test that uses it.
pub(crate) trait Word: Sized + Copy + PartialEq + 'static {
    /// What the key is called in messages.
    const WHAT: &'static str;
    /// Every variant, with its name.
    const ALL: &'static [(Self, &'static str)];

    fn from_ident(ident: &Ident) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| ident == n).map(|(w, _)| *w)
    }

    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(w, _)| *w == self)
            .map_or("?", |(_, n)| n)
    }

    /// `` `A`, `B`, `C` ``.
    fn listed() -> String {
        Self::ALL
            .iter()
            .map(|(_, n)| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `` `key = A` or `key = B` ``.
    fn alternatives(key: &str) -> String {
        let all: Vec<String> = Self::ALL
            .iter()
            .map(|(_, n)| format!("`{key} = {n}`"))
            .collect();
        match all.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => all.join(""),
        }
    }
}

macro_rules! words {
    ($(#[$meta:meta])* enum $name:ident as $what:literal { $($variant:ident,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $name {
            $($variant,)+
        }

        impl Word for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [(Self, &'static str)] = &[$(($name::$variant, stringify!($variant)),)+];
        }
    };
}

words! {
    /// `prompt_core::Stability`.
    enum Stability as "stability" { Stable, Dynamic, }
}

words! {
    /// `prompt_core::AssemblyPath`.
    enum AssemblyPath as "path" { Basic, Cached, }
}

words! {
    /// `prompt_core::PromptMode`.
    enum PromptMode as "mode" { Full, Compact, Minimal, }
}

words! {
    /// `prompt_core::spec::Yields`.
    enum Yields as "yields" { Shed, Truncate, Keep, }
}

words! {
    /// `prompt_core::spec::Channel`.
    enum Channel as "channel" { System, Reminder, }
}

words! {
    /// `prompt_core::spec::Scope`.
    enum Scope as "scope" { Global, Project, User, Session, }
}

words! {
    /// `prompt_core::ScopeOrder`.
    enum ScopeOrder as "scope order" { Strict, Relaxed, }
}

/// A value and where it was written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

impl<T: Word> Spanned<T> {
    /// The variant as an identifier at the user's span, for generated paths.
    pub(crate) fn ident(&self) -> Ident {
        Ident::new(self.value.name(), self.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_only_their_variants() {
        let ident = |s: &str| Ident::new(s, Span::call_site());
        assert_eq!(
            Stability::from_ident(&ident("Dynamic")),
            Some(Stability::Dynamic)
        );
        assert_eq!(Stability::from_ident(&ident("dynamic")), None);
        assert_eq!(Yields::from_ident(&ident("Keep")), Some(Yields::Keep));
        assert_eq!(
            Stability::alternatives("stability"),
            "`stability = Stable` or `stability = Dynamic`"
        );
        assert_eq!(PromptMode::listed(), "`Full`, `Compact`, `Minimal`");
    }
}
