//! The attributes' keys and the words their values may be: one constant
//! (an enum variant) per key, one list per vocabulary.
//!
//! Every key is an enum variant, and the parser dispatches with an
//! exhaustive `match`: a key added here without being handled does not compile.

use proc_macro2::Span;
use syn::Ident;

macro_rules! keys {
    ($(#[$meta:meta])* enum $name:ident { $($variant:ident => $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        pub(crate) enum $name {
            $($variant,)+
        }

        impl $name {
            /// Every key, in the order the docs list them.
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The key as written.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The key written `text`.
            pub(crate) fn from_str(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|k| k.as_str() == text)
            }

            /// `a, b, c`: for "the keys are: ..." messages.
            pub(crate) fn list() -> String {
                Self::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
            }
        }
    };
}

keys! {
    /// The keys of `#[prompt_layer(..)]`.
    enum LayerKey {
        Priority => "priority",
        Stability => "stability",
        Paths => "paths",
        Modes => "modes",
        Name => "name",
        Pipeline => "pipeline",
        After => "after",
        Before => "before",
        Silent => "silent",
        Text => "text",
        File => "file",
        Yields => "yields",
        Channel => "channel",
        Crate => "crate",
    }
}

keys! {
    /// The keys of `#[prompt_pipeline(..)]`.
    enum PipelineKey {
        Paths => "paths",
        Modes => "modes",
        Separator => "separator",
        Crate => "crate",
    }
}

impl LayerKey {
    /// Keys without which the attribute is an error.
    pub(crate) const REQUIRED: &'static [LayerKey] =
        &[LayerKey::Priority, LayerKey::Stability, LayerKey::Paths];
}

impl PipelineKey {
    /// Keys without which the attribute is an error.
    pub(crate) const REQUIRED: &'static [PipelineKey] = &[PipelineKey::Paths];
}

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
    /// `prompt_core::Yields`.
    enum Yields as "yields" { Shed, Truncate, Keep, }
}

words! {
    /// `prompt_core::Channel`.
    enum Channel as "channel" { System, Reminder, }
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
    fn every_key_round_trips_and_is_listed_once() {
        for key in LayerKey::ALL {
            assert_eq!(LayerKey::from_str(key.as_str()), Some(*key));
        }
        let mut sorted = LayerKey::ALL.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), LayerKey::ALL.len());
        for key in PipelineKey::ALL {
            assert_eq!(PipelineKey::from_str(key.as_str()), Some(*key));
        }
    }

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
