//! The template subset: what a prompt template may hold, refused with the
//! line and what to change.
//!
//! Three passes, each linear in the source: the tags are bounded first
//! (tokens per tag, `elif`s per template), so nothing after recurses deeper
//! than a tag is long; minijinja then parses the template through its
//! public API, which reports every syntax error in its own words; last,
//! each tag is read again ([`lex`](super::lex)) against the subset's
//! grammar, which knows minijinja's expressions and only the statements the
//! subset allows. The subset does not depend on minijinja's features: a
//! statement a feature adds (`macro`, `break`, ...) is a tag the grammar
//! does not allow, and a construct it cannot read is refused.

use minijinja::Environment;

use super::filters::{FILTERS, TESTS};
use super::lex::{Kind, Lexer, Tok, Token};
use crate::sources::capped::Size;

/// The tags a template may use, for error messages.
const TAGS: &str = "if, elif, else, for, set, include, raw";

/// The longest string literal a template may hold. Every string a template
/// can reach is a literal, a variable or a filter's result, so this bounds
/// what one comparison or `in` of the template's own making costs.
const LITERAL_CAP: usize = 4 * 1024;

/// The most tokens one `{{ }}` or `{% %}` tag may hold. Chains such as
/// `a.b.b.b…`, `x|trim|trim…` or `a - a - a…` parse into a tree as deep as
/// they are long, and minijinja (and dropping the tree) recurse over it: a
/// bound on tokens per tag is a bound on that depth.
const TAG_TOKEN_CAP: usize = 256;

/// The most `elif` tags a template may hold. minijinja parses an `elif`
/// chain by recursing once per `elif`, outside its own recursion guard: a
/// thousand of them overflow the stack.
const ELIF_CAP: usize = 256;

/// The names that are values, not variables.
const CONSTANTS: [&str; 6] = ["true", "True", "false", "False", "none", "None"];

/// A refusal: the 1-based line and what to change.
type Refusal = (usize, String);

/// Checks `source` against the bounded subset (see [`Templates`](super::Templates))
/// and returns its literal includes (name and `ignore missing`) in order.
/// Text in comments and `raw` blocks is not in a tag, so it is never
/// checked and never included.
pub(super) fn check_template(source: &str) -> Result<Vec<(String, bool)>, Refusal> {
    check_tokens(source)?;
    parse(source)?;
    subset(source)
}

/// Refuses a tag of more than [`TAG_TOKEN_CAP`] tokens and a template of
/// more than [`ELIF_CAP`] `elif` tags. A lexing error is left to the
/// parser, which reports it: the engine reads nothing after it either.
fn check_tokens(source: &str) -> Result<(), Refusal> {
    let mut in_tag: Option<(usize, usize)> = None;
    let mut elifs = 0usize;
    for token in Lexer::new(source) {
        let Ok(Token { tok, at }) = token else {
            return Ok(());
        };
        match tok {
            Tok::Start(_) => in_tag = Some((at, 0)),
            Tok::End => in_tag = None,
            _ => {
                let Some((start, count)) = &mut in_tag else {
                    continue;
                };
                *count += 1;
                if *count == 1 && tok == Tok::Ident("elif") {
                    elifs += 1;
                    if elifs > ELIF_CAP {
                        return Err((
                            line_at(source, *start),
                            format!(
                                "more than {ELIF_CAP} `elif` tags are not supported in prompt templates"
                            ),
                        ));
                    }
                }
                if *count > TAG_TOKEN_CAP {
                    return Err((
                        line_at(source, *start),
                        format!(
                            "a tag of more than {TAG_TOKEN_CAP} tokens is not supported in prompt templates (split it up)"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// minijinja's own syntax errors, from its public parser, under the
/// settings the engine renders with.
fn parse(source: &str) -> Result<(), Refusal> {
    let mut env = Environment::empty();
    env.set_keep_trailing_newline(true);
    env.template_from_str(source)
        .map(drop)
        .map_err(|error| (error.line().unwrap_or(0), describe(&error)))
}

/// The 1-based line of byte `offset`.
fn line_at(source: &str, offset: usize) -> usize {
    let end = offset.min(source.len());
    source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A parse error as one line: its kind and detail. An unknown tag says
/// which tags there are.
fn describe(error: &minijinja::Error) -> String {
    match error.detail() {
        Some(detail) if detail.starts_with("unknown statement") => format!(
            "the `{}` tag is not supported in prompt templates (use {TAGS})",
            detail.trim_start_matches("unknown statement").trim()
        ),
        Some(detail) => format!("{}: {detail}", error.kind()),
        None => error.kind().to_string(),
    }
}

/// Reads every tag against the subset's grammar; the literal includes.
fn subset(source: &str) -> Result<Vec<(String, bool)>, Refusal> {
    let mut includes = Vec::new();
    let mut tag: Vec<Token<'_>> = Vec::new();
    let mut start: Option<(Kind, usize)> = None;
    for token in Lexer::new(source) {
        let token = token.map_err(|error| {
            (
                line_at(source, error.0),
                "this template could not be read (unclosed string, comment or `raw` block, or a character no tag may hold)".to_owned(),
            )
        })?;
        match (token.tok, start) {
            (Tok::Start(kind), _) => {
                start = Some((kind, token.at));
                tag.clear();
            }
            (Tok::End, Some((kind, at))) => {
                let mut reader = Reader {
                    source,
                    tokens: &tag,
                    next: 0,
                    start: at,
                    first: None,
                    depth: 0,
                };
                if let Some(include) = reader.tag(kind)? {
                    includes.push(include);
                }
                start = None;
            }
            _ => tag.push(token),
        }
    }
    match start {
        Some((_, at)) => Err((line_at(source, at), "this tag is not closed".to_owned())),
        None => Ok(includes),
    }
}

/// What an expression is, as far as the subset cares.
enum Shape {
    /// A variable: a keyword argument's name, `x = ..`.
    Name,
    /// A string constant (an include's literal name), decoded.
    Text(String),
    /// Anything else.
    Other,
}

/// What `set` or `for` assigns to.
enum Target {
    Name,
    Dotted,
    Tuple,
}

/// Reads one tag's tokens against the subset's grammar, which is
/// minijinja's for expressions (its precedence, its postfix and filter
/// forms, its argument lists). A refused construct is noted and reading
/// goes on, so the first refusal in the tag is the one reported; a token
/// the grammar does not expect ends the reading with a refusal (the check
/// fails closed).
struct Reader<'t, 's> {
    source: &'s str,
    tokens: &'t [Token<'s>],
    next: usize,
    /// Where the tag starts, for a refusal in an empty tag.
    start: usize,
    first: Option<Refusal>,
    depth: usize,
}

type Read<T> = Result<T, Refusal>;

impl<'s> Reader<'_, 's> {
    fn peek(&self) -> Option<Tok<'s>> {
        self.tokens.get(self.next).map(|t| t.tok)
    }

    fn peek_at(&self, ahead: usize) -> Option<Tok<'s>> {
        self.tokens.get(self.next + ahead).map(|t| t.tok)
    }

    /// Where the next token starts (past the last one: where that one starts).
    fn here(&self) -> usize {
        self.tokens
            .get(self.next)
            .or(self.tokens.last())
            .map_or(self.start, |t| t.at)
    }

    fn bump(&mut self) -> Option<Token<'s>> {
        let token = self.tokens.get(self.next).copied();
        self.next += usize::from(token.is_some());
        token
    }

    fn eat(&mut self, tok: Tok<'_>) -> bool {
        let matched = self.peek() == Some(tok);
        self.next += usize::from(matched);
        matched
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let matched = matches!(self.peek(), Some(Tok::Op(found)) if found == op);
        self.next += usize::from(matched);
        matched
    }

    fn eat_ident(&mut self, name: &str) -> bool {
        self.eat(Tok::Ident(name))
    }

    fn line(&self, at: usize) -> usize {
        line_at(self.source, at)
    }

    /// Notes a refusal at `at`; the first one noted is reported.
    fn refuse(&mut self, at: usize, message: impl Into<String>) {
        if self.first.is_none() {
            self.first = Some((self.line(at), message.into()));
        }
    }

    /// The refusal of a token the grammar does not expect here.
    fn unexpected(&self) -> Refusal {
        let at = self.here();
        let what = match self.peek() {
            Some(Tok::Ident(name)) => format!("`{name}`"),
            Some(Tok::Op(op)) => format!("`{op}`"),
            Some(Tok::Str(_)) => "a string".to_owned(),
            Some(Tok::Int | Tok::Float) => "a number".to_owned(),
            Some(Tok::Start(_) | Tok::End) | None => "the end of the tag".to_owned(),
        };
        (
            self.line(at),
            format!("{what} is not supported here in prompt templates"),
        )
    }

    fn expect(&mut self, tok: Tok<'_>) -> Read<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn expect_ident(&mut self) -> Read<&'s str> {
        match self.peek() {
            Some(Tok::Ident(name)) => {
                self.next += 1;
                Ok(name)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// The tag is read to its end: what it noted, or its include.
    fn finish(&mut self, include: Option<(String, bool)>) -> Read<Option<(String, bool)>> {
        if self.peek().is_some() {
            return Err(self.unexpected());
        }
        match self.first.take() {
            Some(refusal) => Err(refusal),
            None => Ok(include),
        }
    }

    /// One tag: a `{{ expression }}` or a statement the subset allows.
    fn tag(&mut self, kind: Kind) -> Read<Option<(String, bool)>> {
        if kind == Kind::Variable {
            self.expr()?;
            return self.finish(None);
        }
        let at = self.here();
        let name = self.expect_ident()?;
        match name {
            "if" | "elif" => {
                self.or()?;
            }
            "else" | "endif" | "endfor" => {}
            "for" => {
                self.target(false)?;
                self.expect(Tok::Ident("in"))?;
                self.or()?;
                if self.eat_ident("if") {
                    self.expr()?;
                }
                if self.eat_ident("recursive") {
                    // The statement's own refusal comes before its parts'.
                    self.first = None;
                    self.refuse(at, "recursive loops are not supported in prompt templates");
                }
            }
            "set" => return self.set(at),
            "include" => return self.include(),
            other => {
                return Err((
                    self.line(at),
                    format!("the `{other}` tag is not supported in prompt templates (use {TAGS})"),
                ));
            }
        }
        self.finish(None)
    }

    /// `set name = value`; never the block form, a tuple or an attribute.
    fn set(&mut self, at: usize) -> Read<Option<(String, bool)>> {
        let target_at = self.here();
        let target = self.target(true)?;
        if matches!(self.peek(), None | Some(Tok::Op("|"))) {
            return Err((
                self.line(at),
                "block `{% set %}` is not supported; write `{% set name = value %}`".to_owned(),
            ));
        }
        match target {
            Target::Name => {}
            Target::Tuple => self.refuse(
                target_at,
                "tuples (`a, b`) are not supported outside `for` in prompt templates",
            ),
            Target::Dotted => self.refuse(
                target_at,
                "only a name can be assigned in prompt templates: `{% set name = value %}`",
            ),
        }
        self.expect(Tok::Op("="))?;
        self.expr()?;
        if self.peek() == Some(Tok::Op(",")) {
            self.refuse(self.here(), list_message());
            self.bump();
            while self.peek().is_some() {
                self.expr()?;
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        self.finish(None)
    }

    /// `include name [with|without context] [ignore missing]`; a name that
    /// is a string constant is a literal include.
    fn include(&mut self) -> Read<Option<(String, bool)>> {
        let name = self.expr()?;
        let context = self.context_marker()?;
        let ignore_missing = self.eat_ident("ignore");
        if ignore_missing {
            self.expect(Tok::Ident("missing"))?;
            if !context {
                self.context_marker()?;
            }
        }
        let include = match name {
            Shape::Text(name) => Some((name, ignore_missing)),
            Shape::Name | Shape::Other => None,
        };
        self.finish(include)
    }

    fn context_marker(&mut self) -> Read<bool> {
        if self.eat_ident("with") || self.eat_ident("without") {
            self.expect(Tok::Ident("context"))?;
            return Ok(true);
        }
        Ok(false)
    }

    /// An assignment target, as minijinja reads one: names, `(..)` groups
    /// and commas; with `dotted`, `a.b` too.
    fn target(&mut self, dotted: bool) -> Read<Target> {
        self.deeper()?;
        let mut items = Vec::new();
        let mut tuple = false;
        loop {
            if !items.is_empty() {
                self.expect(Tok::Op(","))?;
            }
            if matches!(self.peek(), None | Some(Tok::Op(")") | Tok::Ident("in"))) {
                break;
            }
            let item = if self.eat_op("(") {
                let inner = self.target(dotted)?;
                self.expect(Tok::Op(")"))?;
                inner
            } else {
                self.expect_ident()?;
                let mut item = Target::Name;
                while dotted && self.eat_op(".") {
                    self.expect_ident()?;
                    item = Target::Dotted;
                }
                item
            };
            items.push(item);
            if self.peek() == Some(Tok::Op(",")) {
                tuple = true;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(match (tuple, items.pop()) {
            (false, Some(item)) if items.is_empty() => item,
            _ => Target::Tuple,
        })
    }

    /// One level deeper: bounded, so a reading never recurses further than
    /// a tag is long.
    fn deeper(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth > TAG_TOKEN_CAP {
            return Err((
                self.line(self.here()),
                "this tag nests too deeply".to_owned(),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Read<Shape> {
        self.deeper()?;
        let mut shape = self.or()?;
        while self.eat_ident("if") {
            self.or()?;
            if self.eat_ident("else") {
                self.expr()?;
            }
            shape = Shape::Other;
        }
        self.depth -= 1;
        Ok(shape)
    }

    fn or(&mut self) -> Read<Shape> {
        let mut shape = self.and()?;
        while self.eat_ident("or") {
            self.and()?;
            shape = Shape::Other;
        }
        Ok(shape)
    }

    fn and(&mut self) -> Read<Shape> {
        let mut shape = self.not()?;
        while self.eat_ident("and") {
            self.not()?;
            shape = Shape::Other;
        }
        Ok(shape)
    }

    fn not(&mut self) -> Read<Shape> {
        if self.eat_ident("not") {
            self.deeper()?;
            self.not()?;
            self.depth -= 1;
            return Ok(Shape::Other);
        }
        self.compare()
    }

    fn compare(&mut self) -> Read<Shape> {
        let mut shape = self.binary(0)?;
        loop {
            match self.peek() {
                Some(Tok::Op("==" | "!=" | "<" | "<=" | ">" | ">=") | Tok::Ident("in")) => {
                    self.bump();
                }
                Some(Tok::Ident("not")) if self.peek_at(1) == Some(Tok::Ident("in")) => {
                    self.next += 2;
                }
                _ => break,
            }
            self.binary(0)?;
            shape = Shape::Other;
        }
        Ok(shape)
    }

    /// The arithmetic levels, loosest first (minijinja's `+ -`, then `~`,
    /// then `* / // %`, then `**`); the operators that build strings are
    /// refused.
    fn binary(&mut self, level: usize) -> Read<Shape> {
        const LEVELS: [&[&str]; 4] = [&["+", "-"], &["~"], &["*", "/", "//", "%"], &["**"]];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut shape = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self
            .peek()
            .filter(|tok| matches!(tok, Tok::Op(op) if ops.contains(op)))
        {
            if matches!(op, "+" | "~" | "*" | "**") {
                self.refuse(
                    self.here(),
                    format!("the `{op}` operator is not supported in prompt templates"),
                );
            }
            self.bump();
            self.binary(level + 1)?;
            shape = Shape::Other;
        }
        Ok(shape)
    }

    fn unary(&mut self) -> Read<Shape> {
        let start = self.here();
        let shape = self.negation()?;
        let shape = self.postfix(shape, start)?;
        self.filters(shape)
    }

    fn negation(&mut self) -> Read<Shape> {
        if self.eat_op("-") {
            self.deeper()?;
            self.negation()?;
            self.depth -= 1;
            return Ok(Shape::Other);
        }
        self.primary()
    }

    /// Attributes (allowed), subscripts, slices and calls (refused). A
    /// refusal is placed where minijinja's node starts: at `start` (the
    /// operand) for the first, at the previous operator after it.
    fn postfix(&mut self, mut shape: Shape, start: usize) -> Read<Shape> {
        let mut at = start;
        loop {
            let op = self.here();
            match self.peek() {
                Some(Tok::Op(".")) => {
                    self.bump();
                    match self.peek() {
                        Some(Tok::Ident(_)) => {}
                        Some(Tok::Int) => self.refuse(
                            at,
                            "subscripts (`x[...]`) are not supported in prompt templates",
                        ),
                        _ => return Err(self.unexpected()),
                    }
                    self.bump();
                }
                Some(Tok::Op("[")) => {
                    self.bump();
                    if self.group_holds(":") {
                        self.refuse(
                            at,
                            "slices (`x[a:b]`) are not supported in prompt templates",
                        );
                    } else {
                        self.refuse(
                            at,
                            "subscripts (`x[...]`) are not supported in prompt templates",
                        );
                    }
                    if self.peek() != Some(Tok::Op(":")) {
                        self.expr()?;
                    }
                    if self.eat_op(":") {
                        if !matches!(self.peek(), Some(Tok::Op("]" | ":"))) {
                            self.expr()?;
                        }
                        if self.eat_op(":") && self.peek() != Some(Tok::Op("]")) {
                            self.expr()?;
                        }
                    }
                    self.expect(Tok::Op("]"))?;
                }
                Some(Tok::Op("(")) => {
                    self.refuse(
                        at,
                        "calls (`f(...)`) are not supported in prompt templates; only filters take arguments: `x | default(\"y\")`",
                    );
                    self.args()?;
                }
                _ => return Ok(shape),
            }
            shape = Shape::Other;
            at = op;
        }
    }

    /// Filters (`x | name(args)`) and tests (`x is [not] name [arg]`),
    /// each checked against the subset's list.
    fn filters(&mut self, mut shape: Shape) -> Read<Shape> {
        loop {
            if self.eat_op("|") {
                let (at, name) = self.filter_name()?;
                if !FILTERS.contains(&name) {
                    self.refuse(
                        at,
                        format!(
                            "the `{name}` filter is not supported in prompt templates (use {})",
                            FILTERS.join(", ")
                        ),
                    );
                }
                if self.peek() == Some(Tok::Op("(")) {
                    self.args()?;
                }
            } else if self.eat_ident("is") {
                self.eat_ident("not");
                let (at, name) = self.filter_name()?;
                if !TESTS.contains(&name) {
                    self.refuse(
                        at,
                        format!(
                            "the `{name}` test is not supported in prompt templates (use {})",
                            TESTS.join(", ")
                        ),
                    );
                }
                match self.peek() {
                    Some(Tok::Op("(")) => self.args()?,
                    Some(Tok::Ident("and" | "or" | "else" | "is")) => {}
                    Some(
                        Tok::Ident(_)
                        | Tok::Str(_)
                        | Tok::Int
                        | Tok::Float
                        | Tok::Op("+" | "-" | "[" | "{"),
                    ) => {
                        let start = self.here();
                        let arg = self.negation()?;
                        self.postfix(arg, start)?;
                    }
                    _ => {}
                }
            } else {
                return Ok(shape);
            }
            shape = Shape::Other;
        }
    }

    /// A filter's or test's name, dotted names included (none is allowed).
    fn filter_name(&mut self) -> Read<(usize, &'s str)> {
        let at = self.here();
        let first = self.next;
        self.expect_ident()?;
        let mut end = self.next;
        while self.eat_op(".") {
            self.expect_ident()?;
            end = self.next;
        }
        if end == first + 1 {
            return Ok((at, self.ident_at(first)));
        }
        let last = self.tokens[end - 1];
        let stop = last.at + self.ident_at(end - 1).len();
        Ok((at, &self.source[at..stop]))
    }

    fn ident_at(&self, index: usize) -> &'s str {
        match self.tokens.get(index).map(|t| t.tok) {
            Some(Tok::Ident(name)) => name,
            _ => "",
        }
    }

    /// `( [*|**]expr [= expr], ... )`: splats refused.
    fn args(&mut self) -> Read<()> {
        self.deeper()?;
        self.expect(Tok::Op("("))?;
        let mut count = 0usize;
        loop {
            if self.eat_op(")") {
                break;
            }
            if count > 0 {
                self.expect(Tok::Op(","))?;
                if self.eat_op(")") {
                    break;
                }
            }
            let splat = matches!(self.peek(), Some(Tok::Op("*" | "**")));
            if splat {
                self.refuse(
                    self.here(),
                    "argument splats (`*args`, `**kwargs`) are not supported in prompt templates",
                );
                self.bump();
            }
            let shape = self.expr()?;
            if !splat && matches!(shape, Shape::Name) && self.eat_op("=") {
                self.expr()?;
            }
            count += 1;
        }
        self.depth -= 1;
        Ok(())
    }

    fn primary(&mut self) -> Read<Shape> {
        let at = self.here();
        let Some(token) = self.bump() else {
            return Err(self.unexpected());
        };
        match token.tok {
            Tok::Ident(name) if CONSTANTS.contains(&name) => Ok(Shape::Other),
            Tok::Ident(_) => Ok(Shape::Name),
            Tok::Int | Tok::Float => Ok(Shape::Other),
            Tok::Str(raw) => self.string(at, raw),
            Tok::Op("(") => self.group(at),
            Tok::Op("[") => {
                self.refuse(at, list_message());
                self.items("]", false)?;
                Ok(Shape::Other)
            }
            Tok::Op("{") => {
                self.refuse(
                    at,
                    "list and map literals (`{...}`) are not supported in prompt templates",
                );
                self.items("}", true)?;
                Ok(Shape::Other)
            }
            _ => {
                self.next -= 1;
                Err(self.unexpected())
            }
        }
    }

    /// A string constant: adjacent literals are one (`"a" "b"` is `"ab"`),
    /// its decoded length at most [`LITERAL_CAP`].
    fn string(&mut self, at: usize, raw: &str) -> Read<Shape> {
        let mut text = unescape(raw).ok_or_else(|| self.bad_escape(at))?;
        while let Some(Tok::Str(more)) = self.peek() {
            let here = self.here();
            text.push_str(&unescape(more).ok_or_else(|| self.bad_escape(here))?);
            self.bump();
        }
        if text.len() > LITERAL_CAP {
            self.refuse(
                at,
                format!(
                    "a string literal of {} is over the {} limit for literals in prompt templates (write long text outside tags)",
                    Size(text.len() as u64),
                    Size(LITERAL_CAP as u64)
                ),
            );
        }
        Ok(Shape::Text(text))
    }

    fn bad_escape(&self, at: usize) -> Refusal {
        (
            self.line(at),
            "a string literal holds an escape that is not supported in prompt templates".to_owned(),
        )
    }

    /// `( )`, `(expr)` or a tuple `(a, b)`, which is refused.
    fn group(&mut self, at: usize) -> Read<Shape> {
        if self.peek() == Some(Tok::Op(")")) || self.group_holds(",") {
            self.refuse(at, list_message());
        }
        if self.eat_op(")") {
            return Ok(Shape::Other);
        }
        let shape = self.expr()?;
        if self.eat_op(")") {
            return Ok(shape);
        }
        self.items(")", false)?;
        Ok(Shape::Other)
    }

    /// The rest of a bracketed list up to `close`: `a, b,` or, with `map`,
    /// `k: v, ...`.
    fn items(&mut self, close: &'static str, map: bool) -> Read<()> {
        self.deeper()?;
        let mut count = usize::from(close == ")");
        loop {
            if self.eat_op(close) {
                break;
            }
            if count > 0 {
                self.expect(Tok::Op(","))?;
                if self.eat_op(close) {
                    break;
                }
            }
            self.expr()?;
            if map {
                self.expect(Tok::Op(":"))?;
                self.expr()?;
            }
            count += 1;
        }
        self.depth -= 1;
        Ok(())
    }

    /// Whether the bracket just opened holds `op` outside nested brackets,
    /// before the one that closes it.
    fn group_holds(&self, op: &str) -> bool {
        let mut depth = 0usize;
        for token in &self.tokens[self.next..] {
            match token.tok {
                Tok::Op("(" | "[" | "{") => depth += 1,
                Tok::Op(")" | "]" | "}") if depth == 0 => return false,
                Tok::Op(")" | "]" | "}") => depth -= 1,
                Tok::Op(found) if depth == 0 && found == op => return true,
                _ => {}
            }
        }
        false
    }
}

fn list_message() -> &'static str {
    "list and map literals and tuples (`[a, b]`, `(a, b)`, `a, b`) are not supported in prompt templates"
}

/// A string literal's text with its escapes decoded as minijinja decodes
/// them (`\n`, `\"`, `\u00e9`, surrogate pairs, `\x41`, octal `\101`; an
/// unknown escape stays as written); `None` for one the engine refuses.
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    let mut pending: Option<u16> = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            if pending.is_some() {
                return None;
            }
            out.push(c);
            continue;
        }
        let escaped = chars.next()?;
        if escaped == 'u' {
            let hex: String = chars
                .by_ref()
                .chain(std::iter::repeat('\0'))
                .take(4)
                .collect();
            let unit = u16::from_str_radix(&hex, 16).ok()?;
            match (pending.take(), (0xD800..=0xDFFF).contains(&unit)) {
                (None, false) => out.push(char::from_u32(u32::from(unit))?),
                (None, true) => pending = Some(unit),
                (Some(high), true) => {
                    out.push(char::decode_utf16([high, unit]).next()?.ok()?);
                }
                (Some(_), false) => return None,
            }
            continue;
        }
        if pending.is_some() {
            return None;
        }
        match escaped {
            '"' | '\\' | '/' | '\'' => out.push(escaped),
            'b' => out.push('\x08'),
            'f' => out.push('\x0C'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                if hex.len() != 2 {
                    return None;
                }
                out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
            }
            '0'..='7' => {
                let mut octal = String::from(escaped);
                while octal.len() < 3
                    && chars
                        .as_str()
                        .starts_with(|d: char| ('0'..='7').contains(&d))
                {
                    octal.extend(chars.next());
                }
                out.push(char::from(u8::from_str_radix(&octal, 8).ok()?));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    pending.is_none().then_some(out)
}

/// Refuses what the bounded subset leaves out (see [`Templates`](super::Templates)): returns the
/// 1-based line and what to change. Comments and `raw` blocks are text to
/// the check exactly as they are to the engine.
#[cfg_attr(not(prompt_unstable), allow(dead_code))]
pub fn check_syntax(source: &str) -> Result<(), (usize, String)> {
    check_template(source).map(drop)
}
#[cfg(test)]
mod tests {
    use super::{check_syntax, subset};

    /// The subset: prompts pass, builders are refused with what to change
    /// and the line.
    #[test]
    fn the_subset_admits_prompts_and_refuses_builders() {
        for ok in [
            "Hi {{ user }}. {% if app == \"x\" %}a{% elif app != 'y' %}b{% else %}c{% endif %}",
            "{% for c in user %}{{ loop.index }}{{ c|upper }}{% endfor %}",
            "{% for a, b in pairs if a %}{{ a }}{% else %}none{% endfor %}",
            "{% set x = user|default(\"anon\") %}{{ x }} {# a ~ comment * #}",
            "{% raw %}{{ a ~ b }}{% macro %}{% endraw %}{{ \"~*+[\" }}",
            "{%- include \"@shared/x.md\" ignore missing -%}",
            "{{ n - 1 }}{{ n / 2 }}{{ n // 2 }}{{ n % 2 }}{{ not a and b or c }}",
            "{{ a if b is defined else c|trim(\"-\") }}",
        ] {
            assert_eq!(check_syntax(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("{{ a ~ a }}", "`~` operator"),
            ("\n{{ \"x\" * 9 }}", "`*` operator"),
            ("{{ a + a }}", "`+` operator"),
            ("{{ 2 ** 9 }}", "`**` operator"),
            ("{% set l = [a, a] %}", "list and map literals"),
            ("{% set m = {\"a\": 1} %}", "list and map literals"),
            ("{% set t = (a, a) %}", "tuples"),
            ("{% if a in (b, c) %}{% endif %}", "tuples"),
            ("{% set l = a, a %}", "tuples"),
            (
                "{% set a, b = c %}",
                "tuples (`a, b`) are not supported outside `for`",
            ),
            ("{% set a.b = c %}", "only a name can be assigned"),
            ("{% macro m() %}{% endmacro %}", "`macro` tag"),
            ("{% call m() %}{% endcall %}", "`call` tag"),
            // Known to minijinja only with `loop_controls`: refused either way.
            ("{% for x in y %}{% break %}{% endfor %}", "`break` tag"),
            (
                "{% for x in y %}{% continue %}{% endfor %}",
                "`continue` tag",
            ),
            ("{% filter upper %}x{% endfilter %}", "`filter` tag"),
            ("{% with a = 1 %}{% endwith %}", "`with` tag"),
            ("{% block b %}{% endblock %}", "`block` tag"),
            ("{% extends \"@shared/x\" %}", "`extends` tag"),
            ("{% import \"@shared/x\" as x %}", "`import` tag"),
            ("{% from \"@shared/x\" import y %}", "`from` tag"),
            (
                "{% autoescape true %}{% endautoescape %}",
                "`autoescape` tag",
            ),
            ("{% set x %}y{% endset %}", "block `{% set %}`"),
            ("{% for x in y recursive %}{% endfor %}", "recursive"),
            ("{{ x[0] }}", "subscripts"),
            ("{{ x[1:] }}", "slices"),
            ("{{ range(9) }}", "calls"),
            ("{{ loop.cycle(1) }}", "calls"),
            ("{{ x|replace(\"a\", \"b\") }}", "the `replace` filter"),
            ("{{ x is even }}", "the `even` test"),
            ("{{ x|default(*y) }}", "argument splats"),
            ("{{ a ", "unexpected end of input"),
        ] {
            let error = check_syntax(bad).unwrap_err();
            assert!(error.1.contains(why), "{bad}: {error:?}");
        }
        assert_eq!(check_syntax("\n{{ \"x\" * 9 }}").unwrap_err().0, 2);
        // A statement a minijinja feature adds (`macros`, on by default in
        // minijinja and so in many graphs) is refused at its line, whether
        // the parser knows it or not.
        assert_eq!(
            check_syntax("a\n\n{% macro m() %}x{% endmacro %}")
                .unwrap_err()
                .0,
            3
        );
        assert_eq!(
            check_syntax("a\nb\n{% if x %}\n{{ [1] }}{% endif %}")
                .unwrap_err()
                .0,
            4
        );
        // Found by fuzzing the old scanner: a multi-byte character inside a tag.
        assert!(check_syntax("{{ workspace\u{682}\u{7c2}repo.\n").is_err());
        assert_eq!(check_syntax("{{ \"\u{682}\" }}"), Ok(()));
    }

    /// The statements minijinja's optional features add (`macros`,
    /// `loop_controls`), read as a graph with those features parses them:
    /// the subset's own reader refuses each at its line, as it does every
    /// tag it does not allow.
    #[test]
    fn the_reader_refuses_statements_a_feature_adds() {
        for (source, tag) in [
            ("a\n{% macro m() %}x{% endmacro %}", "macro"),
            ("a\n{% call m() %}{% endcall %}", "call"),
            ("a\n{% break %}", "break"),
            ("a\n{% continue %}", "continue"),
            ("a\n{% do f() %}", "do"),
            ("a\n{% endset %}", "endset"),
        ] {
            assert_eq!(
                subset(source),
                Err((
                    2,
                    format!(
                        "the `{tag}` tag is not supported in prompt templates (use if, elif, else, for, set, include, raw)"
                    )
                )),
                "{source}"
            );
        }
    }

    /// Literal includes are string constants, however written (grouped,
    /// adjacent literals joined, escapes decoded); a computed name is not
    /// one, and `ignore missing` is read with or without a context marker.
    #[test]
    fn literal_includes_are_the_string_constants() {
        let includes = subset(
            "{% include \"@shared/a.md\" %}{% include (\"@shared/\" 'b.md') ignore missing %}\
             {% include \"@shared/\\u0063.md\" without context ignore missing %}\
             {% include name %}{% include \"x\" if a else \"y\" %}{# {% include \"z\" %} #}",
        )
        .unwrap();
        assert_eq!(
            includes,
            [
                ("@shared/a.md".to_owned(), false),
                ("@shared/b.md".to_owned(), true),
                ("@shared/c.md".to_owned(), true),
            ]
        );
    }

    /// Adjacent literals are one constant to the engine: their sum is what
    /// the literal limit bounds.
    #[test]
    fn adjacent_literals_count_together_against_the_limit() {
        let half = "a".repeat(2048);
        assert_eq!(
            check_syntax(&format!("{{{{ \"{half}\" \"{half}\" }}}}")),
            Ok(())
        );
        let error = check_syntax(&format!("{{{{ \"{half}\" \"{half}\" \"a\" }}}}")).unwrap_err();
        assert!(
            error.1.contains("a string literal of 4 KiB + 1 B"),
            "{error:?}"
        );
        // Escapes count as what they decode to.
        let escaped = "\\n".repeat(4096);
        assert_eq!(check_syntax(&format!("{{{{ \"{escaped}\" }}}}")), Ok(()));
    }

    /// The refusal comes from the construct, wherever it stands: a keyword
    /// argument is allowed, a call or a subscript inside one is not, and
    /// `recursive` as a variable is not a recursive loop.
    #[test]
    fn constructs_are_refused_wherever_they_stand() {
        for ok in [
            "{{ x|default(boolean=true) }}{{ x|default((a)) }}",
            "{% for x in recursive %}{% endfor %}{% for x in y if recursive %}{% endfor %}",
            "{% for (a, b), c in y %}{% endfor %}{% set (x) = 1 %}",
            "{{ x is defined and y is not none }}{{ -x.y - 1 }}{{ a not in b }}",
            "{{ 1.b }}",
        ] {
            assert_eq!(check_syntax(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("{{ x|default(f(1)) }}", "calls"),
            ("{{ x|trim(y[0]) }}", "subscripts"),
            ("{{ x.0 }}", "subscripts"),
            ("{{ x|default(**y) }}", "argument splats"),
            ("{{ a if b else [c] }}", "list and map literals"),
            ("{{ x is string [1] }}", "list and map literals"),
            ("{{ x|a.b }}", "the `a.b` filter"),
            ("{% set x = 1, %}", "tuples"),
            ("{% set (a, b) = c %}", "outside `for`"),
            ("{% set x | upper %}y{% endset %}", "block `{% set %}`"),
            (
                "{% for x in y recursive %}{{ [x] }}{% endfor %}",
                "recursive loops",
            ),
            ("{{ () }}", "tuples"),
        ] {
            let error = check_syntax(bad).unwrap_err();
            assert!(error.1.contains(why), "{bad}: {error:?}");
        }
    }
}
