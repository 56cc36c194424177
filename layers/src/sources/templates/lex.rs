//! A scanner of template source under minijinja's default syntax: where
//! tags, comments and `raw` blocks begin and end, and the tokens of a tag.
//!
//! It follows minijinja 2's lexer rule for rule, so a tag, a comment or a
//! `raw` block ends here where it ends in the engine: `{{`, `{%` and `{#`
//! open (a `-` or `+` after them is whitespace control), a comment runs to
//! its first `#}`, a `raw` block to its first `{% endraw %}`, and inside a
//! tag a closing `}}` or `%}` counts only outside brackets (the engine keeps
//! one bracket balance for the whole template). Strings end at the first
//! unescaped quote. An identifier takes any non-ASCII character that is not
//! whitespace, so a graph where minijinja reads Unicode identifiers splits
//! a tag into no fewer tokens than it does.
//!
//! One pass, one token of state: linear in the source.

/// Which tag a start token opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `{{ .. }}`.
    Variable,
    /// `{% .. %}`.
    Block,
}

/// A token of a tag, or a tag's start or end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Tok<'s> {
    /// `{{` or `{%` (with its whitespace control).
    Start(Kind),
    /// `}}` or `%}` (with its whitespace control).
    End,
    /// A name (keywords included).
    Ident(&'s str),
    /// A string literal: the text between its quotes, escapes undecoded.
    Str(&'s str),
    /// An integer literal.
    Int,
    /// A float literal.
    Float,
    /// An operator or bracket: `+`, `//`, `(`, ...
    Op(&'static str),
}

/// A token and the byte offset where it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Token<'s> {
    pub(super) tok: Tok<'s>,
    pub(super) at: usize,
}

/// Where the scanner stopped on text the engine cannot read either (an
/// unclosed comment, `raw` block or string, a character no token starts
/// with): the byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LexError(pub(super) usize);

/// The tokens of a template's tags, in order. Text, comments and `raw`
/// blocks yield nothing. After an error it yields nothing more.
pub(super) struct Lexer<'s> {
    source: &'s str,
    pos: usize,
    tag: Option<Kind>,
    /// Open minus closed brackets, over the whole template, as the engine counts.
    balance: isize,
    done: bool,
}

const TWO_CHAR: [&str; 6] = ["//", "**", "==", "!=", ">=", "<="];

impl<'s> Lexer<'s> {
    pub(super) fn new(source: &'s str) -> Self {
        Self {
            source,
            pos: 0,
            tag: None,
            balance: 0,
            done: false,
        }
    }

    fn fail(&mut self, at: usize) -> Option<Result<Token<'s>, LexError>> {
        self.done = true;
        Some(Err(LexError(at)))
    }

    /// Text up to the next tag: skips comments and `raw` blocks whole.
    fn text(&mut self) -> Option<Result<Token<'s>, LexError>> {
        let bytes = self.source.as_bytes();
        loop {
            let at = start_marker(bytes, self.pos)?;
            let marker = bytes[at + 1];
            let control = usize::from(matches!(bytes.get(at + 2), Some(b'-' | b'+')));
            let body = at + 2 + control;
            match marker {
                b'#' => match find(&bytes[body..], b"#}") {
                    Some(end) => self.pos = body + end + 2,
                    None => return self.fail(at),
                },
                b'{' => {
                    self.pos = body;
                    self.tag = Some(Kind::Variable);
                    return Some(Ok(Token {
                        tok: Tok::Start(Kind::Variable),
                        at,
                    }));
                }
                _ => {
                    let Some(open) = basic_tag(&self.source[body..], "raw", false) else {
                        self.pos = body;
                        self.tag = Some(Kind::Block);
                        return Some(Ok(Token {
                            tok: Tok::Start(Kind::Block),
                            at,
                        }));
                    };
                    match raw_end(self.source, body + open) {
                        Some(end) => self.pos = end,
                        None => return self.fail(at),
                    }
                }
            }
        }
    }

    /// The next token inside a tag of `kind`.
    fn in_tag(&mut self, kind: Kind) -> Option<Result<Token<'s>, LexError>> {
        let bytes = self.source.as_bytes();
        while bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
        let at = self.pos;
        let rest = &self.source[at..];
        if rest.is_empty() {
            return None;
        }
        let token = |tok| Some(Ok(Token { tok, at }));
        if self.balance == 0 {
            let end = match kind {
                Kind::Variable => "}}",
                Kind::Block => "%}",
            };
            let control = usize::from(rest.starts_with(['-', '+']));
            if rest[control..].starts_with(end) {
                self.pos += control + 2;
                self.tag = None;
                return token(Tok::End);
            }
        }
        if let Some(op) = TWO_CHAR.iter().find(|op| rest.starts_with(**op)) {
            self.pos += 2;
            return token(Tok::Op(op));
        }
        let first = bytes[at];
        let op = match first {
            b'+' => "+",
            b'-' => "-",
            b'*' => "*",
            b'/' => "/",
            b'%' => "%",
            b'.' => ".",
            b',' => ",",
            b':' => ":",
            b'~' => "~",
            b'|' => "|",
            b'=' => "=",
            b'>' => ">",
            b'<' => "<",
            b'(' => "(",
            b')' => ")",
            b'[' => "[",
            b']' => "]",
            b'{' => "{",
            b'}' => "}",
            b'"' | b'\'' => {
                let Some(len) = string_len(&bytes[at + 1..], first) else {
                    return self.fail(at);
                };
                self.pos += len + 2;
                return token(Tok::Str(&self.source[at + 1..at + 1 + len]));
            }
            b'0'..=b'9' => {
                let (len, float) = number_len(self.source, at);
                self.pos += len;
                return token(if float { Tok::Float } else { Tok::Int });
            }
            _ => {
                let len = ident_len(rest);
                if len == 0 {
                    return self.fail(at);
                }
                self.pos += len;
                return token(Tok::Ident(&rest[..len]));
            }
        };
        match op {
            "(" | "[" | "{" => self.balance += 1,
            ")" | "]" | "}" => self.balance -= 1,
            _ => {}
        }
        self.pos += 1;
        token(Tok::Op(op))
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<Token<'s>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = match self.tag {
            None => self.text(),
            Some(kind) => self.in_tag(kind),
        };
        if next.is_none() {
            self.done = true;
        }
        next
    }
}

/// The offset of the next `{{`, `{%` or `{#` at or after `from`.
fn start_marker(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let brace = at + bytes.get(at..)?.iter().position(|&b| b == b'{')?;
        if matches!(bytes.get(brace + 1), Some(b'{' | b'%' | b'#')) {
            return Some(brace);
        }
        at = brace + 1;
    }
}

/// The offset of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The length of a tag `name` that `rest` (just after `{%` and its control
/// character) holds up to and with its `%}`, spaces and a closing `-` or
/// `+` allowed; with `control`, one opening `-` or `+` too.
fn basic_tag(rest: &str, name: &str, control: bool) -> Option<usize> {
    let mut tail = rest;
    if control {
        tail = tail.strip_prefix(['-', '+']).unwrap_or(tail);
    }
    tail = tail.trim_start_matches(|c: char| c.is_ascii_whitespace());
    tail = tail.strip_prefix(name)?;
    tail = tail.trim_start_matches(|c: char| c.is_ascii_whitespace());
    tail = tail.strip_prefix(['-', '+']).unwrap_or(tail);
    tail = tail.strip_prefix("%}")?;
    Some(rest.len() - tail.len())
}

/// The offset just past the `{% endraw %}` that closes a `raw` block whose
/// text starts at `from`.
fn raw_end(source: &str, from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        at += find(&source.as_bytes()[at..], b"{%")? + 2;
        if let Some(len) = basic_tag(&source[at..], "endraw", true) {
            return Some(at + len);
        }
    }
}

/// The length of a string's text up to its closing `quote` (a backslash
/// escapes the next byte), or `None` when it is not closed.
fn string_len(bytes: &[u8], quote: u8) -> Option<usize> {
    let mut escaped = false;
    for (at, &b) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if b == quote {
            return Some(at);
        }
    }
    None
}

/// The length of an identifier at the start of `rest` (0 when none starts
/// there): a letter or `_`, then letters, digits and `_`; any non-ASCII
/// character that is not whitespace counts as a letter.
pub(super) fn ident_len(rest: &str) -> usize {
    let wide = |c: char| !c.is_ascii() && !c.is_whitespace();
    let mut chars = rest.char_indices();
    match chars.next() {
        Some((_, c)) if c == '_' || c.is_ascii_alphabetic() || wide(c) => {}
        _ => return 0,
    }
    chars
        .find(|&(_, c)| !(c == '_' || c.is_ascii_alphanumeric() || wide(c)))
        .map_or(rest.len(), |(at, _)| at)
}

/// The length of the number at `at` and whether it is a float, read as the
/// engine reads one: a radix prefix, digits, `_`, a fraction (not before a
/// name: `1.b` is an attribute) and an exponent. A malformed number is the
/// engine's error to report; its length is all that matters here.
fn number_len(source: &str, at: usize) -> (usize, bool) {
    #[derive(Clone, Copy)]
    enum State {
        Radix,
        Integer,
        Fraction,
        Exponent,
        ExponentSign,
    }
    let bytes = &source.as_bytes()[at..];
    let (radix, prefix) = match bytes.get(..2) {
        Some(b"0b" | b"0B") => (2, 2),
        Some(b"0o" | b"0O") => (8, 2),
        Some(b"0x" | b"0X") => (16, 2),
        _ => (10, 0),
    };
    let mut state = if radix == 10 {
        State::Integer
    } else {
        State::Radix
    };
    let digits = &bytes[prefix..];
    let mut len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    while let Some(&b) = digits.get(len) {
        state = match (b, state) {
            (b'.', State::Integer) => {
                let exponent = matches!(digits.get(len + 1), Some(b'e' | b'E'))
                    && matches!(digits.get(len + 2), Some(b'+' | b'-' | b'0'..=b'9'));
                if !exponent && ident_len(&source[at + prefix + len + 1..]) > 0 {
                    break;
                }
                State::Fraction
            }
            (b'e' | b'E', State::Integer | State::Fraction) => State::Exponent,
            (b'+' | b'-', State::Exponent) => State::ExponentSign,
            (b'0'..=b'9', State::Exponent) => State::ExponentSign,
            (b'0'..=b'9', state) => state,
            (b'a'..=b'f' | b'A'..=b'F', State::Radix) if radix == 16 => state,
            (b'_', state) => state,
            _ => break,
        };
        len += 1;
    }
    let float = !matches!(state, State::Integer | State::Radix);
    (prefix + len, float)
}

#[cfg(test)]
mod tests {
    use super::{Kind, LexError, Lexer, Tok};

    fn toks(source: &str) -> Vec<Result<Tok<'_>, LexError>> {
        Lexer::new(source).map(|t| t.map(|t| t.tok)).collect()
    }

    /// Tags, comments and raw blocks end where the engine ends them.
    #[test]
    fn tags_comments_and_raw_blocks_end_where_the_engine_ends_them() {
        use Tok::{End, Ident, Op, Start, Str};
        let ok = |source| {
            toks(source)
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        assert_eq!(
            ok("a {{- x ~ 'y}}' -}} {# {{ z #} {% raw -%}{{ w {%- endraw %}"),
            [Start(Kind::Variable), Ident("x"), Op("~"), Str("y}}"), End]
        );
        // `}}` inside brackets is two braces; after the tag, `%}` is text.
        assert_eq!(
            ok("{{ {a: {b: 1}}}} %}{% if %}"),
            [
                Start(Kind::Variable),
                Op("{"),
                Ident("a"),
                Op(":"),
                Op("{"),
                Ident("b"),
                Op(":"),
                Tok::Int,
                Op("}"),
                Op("}"),
                End,
                Start(Kind::Block),
                Ident("if"),
                End
            ]
        );
        assert_eq!(
            ok("{{ 1.b + 1.5 ** 0x1f }}")[1..6],
            [Tok::Int, Op("."), Ident("b"), Op("+"), Tok::Float]
        );
        // `{#}` opens a comment that `}` does not close.
        assert_eq!(toks("{#} x"), [Err(LexError(0))]);
        assert_eq!(toks("{% raw %}{% endraw"), [Err(LexError(0))]);
        assert_eq!(
            toks("{{ \"a\\\" }}"),
            [Ok(Start(Kind::Variable)), Err(LexError(3))]
        );
        assert_eq!(toks("{{ $ }}")[1], Err(LexError(3)));
        assert_eq!(ok("{{ é·x }}")[1], Ident("é·x"));
        assert_eq!(ok("{%+ raw +%}{{%+endraw-%}x{{y}}").len(), 3);
    }
}
