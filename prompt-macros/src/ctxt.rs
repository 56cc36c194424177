//! The error context of one attribute: every error, each at its own span.
//!
//! As serde_derive's `Ctxt`: it must be consumed with [`Ctxt::check`], and
//! dropping it unchecked panics, so a pass that finds a problem but returns
//! without recording it (or records one and is ignored) is caught in this
//! crate's own tests rather than by a user.

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Errors found so far. Shared by reference; passes record through `&self`.
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Self {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records `message` at `tokens`' span.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records `message` at `span`.
    pub(crate) fn error_at<M: Display>(&self, span: Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error `syn` produced.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.push(error);
    }

    /// Whether any error was recorded.
    pub(crate) fn has_errors(&self) -> bool {
        self.errors.borrow().as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Consumes the context: `Err` with every error as `compile_error!`s.
    pub(crate) fn check(self) -> Result<(), TokenStream> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.into_iter().map(|e| e.to_compile_error()).collect())
        }
    }

    fn push(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("prompt-macros bug: an error context was dropped without `check`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_context_reports_its_errors() {
        let cx = Ctxt::new();
        assert!(!cx.has_errors());
        cx.error_at(Span::call_site(), "first");
        cx.error_at(Span::call_site(), "second");
        assert!(cx.has_errors());
        let errors = cx.check().unwrap_err().to_string();
        assert!(
            errors.contains("first") && errors.contains("second"),
            "{errors}"
        );
    }

    #[test]
    fn an_empty_context_checks_ok() {
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without `check`")]
    fn an_unchecked_context_panics_on_drop() {
        let _cx = Ctxt::new();
    }
}
