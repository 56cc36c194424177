//! The message builder of the compile-time checks: text, numbers and names written into a buffer a `const` panic can print.

use crate::spec::{AssemblyPath, PromptMode};

/// A message built at compile time, for the generated `const` checks: a
/// `const` panic can only print a `&str`, so numbers and names are written
/// into this buffer first. Empty means "no problem".
pub struct Msg {
    buf: [u8; 1024],
    len: usize,
}

impl Msg {
    /// No problem.
    pub const NONE: Msg = Msg {
        buf: [0; 1024],
        len: 0,
    };

    /// Whether there is a problem to report.
    pub const fn is_some(&self) -> bool {
        self.len > 0
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "prompt_layer: a layer's attribute check failed (message not printable)",
        }
    }

    pub(crate) const fn s(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// `n` as a Rust literal would write it: `10_000`.
    pub(crate) const fn n(mut self, n: u32) -> Self {
        let mut digits = [0u8; 10];
        let (mut count, mut rest) = (0, n);
        loop {
            digits[count] = b'0' + (rest % 10) as u8;
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        while count > 0 && self.len < self.buf.len() {
            count -= 1;
            self.buf[self.len] = digits[count];
            self.len += 1;
            if n >= 10_000 && count > 0 && count % 3 == 0 && self.len < self.buf.len() {
                self.buf[self.len] = b'_';
                self.len += 1;
            }
        }
        self
    }

    pub(crate) const fn names(mut self, names: &[&str]) -> Self {
        let mut i = 0;
        while i < names.len() {
            if i > 0 {
                self = self.s(", ");
            }
            self = self.s("`").s(names[i]).s("`");
            i += 1;
        }
        self
    }
}

pub(crate) const fn path_ident(path: AssemblyPath) -> &'static str {
    match path {
        AssemblyPath::Basic => "Basic",
        AssemblyPath::Cached => "Cached",
    }
}

pub(crate) const fn mode_ident(mode: PromptMode) -> &'static str {
    match mode {
        PromptMode::Full => "Full",
        PromptMode::Compact => "Compact",
        PromptMode::Minimal => "Minimal",
    }
}

pub(crate) const fn paths_text(mut msg: Msg, paths: &[AssemblyPath]) -> Msg {
    let mut i = 0;
    while i < paths.len() {
        if i > 0 {
            msg = msg.s(", ");
        }
        msg = msg.s(path_ident(paths[i]));
        i += 1;
    }
    msg
}

pub(crate) const fn modes_text(mut msg: Msg, modes: &[PromptMode]) -> Msg {
    let mut i = 0;
    while i < modes.len() {
        if i > 0 {
            msg = msg.s(", ");
        }
        msg = msg.s(mode_ident(modes[i]));
        i += 1;
    }
    msg
}
