//! The template subset, checked over minijinja's own parse tree: what a
//! prompt template may hold, refused with the line and what to change.

use minijinja::machinery::ast::{BinOpKind, CallArg, Expr, Stmt};
use minijinja::machinery::{Span, Token, parse, tokenize};

use super::filters::{FILTERS, TESTS};
use super::{syntax, whitespace};
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

/// A refusal: the 1-based line and what to change.
type Refusal = (usize, String);

/// Checks `source` against the bounded subset (see [`Templates`](super::Templates)) over the
/// tree minijinja itself parses, and returns its literal includes (name and
/// `ignore missing`) in order. Text in comments and `raw` blocks is not in
/// the tree, so it is never checked and never included.
pub(super) fn check_template(source: &str) -> Result<Vec<(String, bool)>, Refusal> {
    check_tokens(source)?;
    let tree = parse(source, "template", syntax(), whitespace())
        .map_err(|error| (error.line().unwrap_or(0), describe(&error)))?;
    let mut walk = Walk {
        source,
        includes: Vec::new(),
    };
    walk.stmt(&tree)?;
    Ok(walk.includes)
}

/// Refuses a tag of more than [`TAG_TOKEN_CAP`] tokens and a template of
/// more than [`ELIF_CAP`] `elif` tags, using minijinja's own tokenizer. A
/// lexing error is left to the parser, which reports it.
fn check_tokens(source: &str) -> Result<(), Refusal> {
    let mut in_tag: Option<(Span, usize)> = None;
    let mut elifs = 0usize;
    for token in tokenize(source, false, syntax(), whitespace()) {
        let Ok((token, span)) = token else {
            return Ok(());
        };
        match token {
            Token::VariableStart | Token::BlockStart => in_tag = Some((span, 0)),
            Token::VariableEnd | Token::BlockEnd => in_tag = None,
            _ => {
                let Some((start, count)) = &mut in_tag else {
                    continue;
                };
                *count += 1;
                if *count == 1 && matches!(token, Token::Ident("elif")) {
                    elifs += 1;
                    if elifs > ELIF_CAP {
                        return Err((
                            line_at(source, start.start_offset),
                            format!(
                                "more than {ELIF_CAP} `elif` tags are not supported in prompt templates"
                            ),
                        ));
                    }
                }
                if *count > TAG_TOKEN_CAP {
                    return Err((
                        line_at(source, start.start_offset),
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

/// The 1-based line of byte `offset` (exact past line 65,535, where
/// minijinja's own line numbers stop counting).
fn line_at(source: &str, offset: u32) -> usize {
    let end = usize::try_from(offset).map_or(source.len(), |o| o.min(source.len()));
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

/// Walks a parsed template, refusing what the subset leaves out and
/// collecting literal includes.
struct Walk<'s> {
    source: &'s str,
    includes: Vec<(String, bool)>,
}

impl Walk<'_> {
    fn refuse(&self, span: Span, message: impl Into<String>) -> Refusal {
        (line_at(self.source, span.start_offset), message.into())
    }

    fn tag(&self, span: Span, name: &str) -> Refusal {
        self.refuse(
            span,
            format!("the `{name}` tag is not supported in prompt templates (use {TAGS})"),
        )
    }

    fn body(&mut self, stmts: &[Stmt<'_>]) -> Result<(), Refusal> {
        stmts.iter().try_for_each(|stmt| self.stmt(stmt))
    }

    fn stmt(&mut self, stmt: &Stmt<'_>) -> Result<(), Refusal> {
        match stmt {
            Stmt::Template(template) => self.body(&template.children),
            Stmt::EmitRaw(_) => Ok(()),
            Stmt::EmitExpr(emit) => self.expr(&emit.expr),
            Stmt::IfCond(cond) => {
                self.expr(&cond.expr)?;
                self.body(&cond.true_body)?;
                self.body(&cond.false_body)
            }
            Stmt::ForLoop(for_loop) => {
                if for_loop.recursive {
                    return Err(self.refuse(
                        for_loop.span(),
                        "recursive loops are not supported in prompt templates",
                    ));
                }
                self.target(&for_loop.target, true)?;
                self.expr(&for_loop.iter)?;
                if let Some(filter) = &for_loop.filter_expr {
                    self.expr(filter)?;
                }
                self.body(&for_loop.body)?;
                self.body(&for_loop.else_body)
            }
            Stmt::Set(set) => {
                self.target(&set.target, false)?;
                self.expr(&set.expr)
            }
            Stmt::SetBlock(set) => Err(self.refuse(
                set.span(),
                "block `{% set %}` is not supported; write `{% set name = value %}`",
            )),
            Stmt::Include(include) => {
                self.expr(&include.name)?;
                if let Expr::Const(name) = &include.name
                    && let Some(name) = name.value.as_str()
                {
                    self.includes
                        .push((name.to_owned(), include.ignore_missing));
                }
                Ok(())
            }
            Stmt::WithBlock(s) => Err(self.tag(s.span(), "with")),
            Stmt::AutoEscape(s) => Err(self.tag(s.span(), "autoescape")),
            Stmt::FilterBlock(s) => Err(self.tag(s.span(), "filter")),
            Stmt::Block(s) => Err(self.tag(s.span(), "block")),
            Stmt::Import(s) => Err(self.tag(s.span(), "import")),
            Stmt::FromImport(s) => Err(self.tag(s.span(), "from")),
            Stmt::Extends(s) => Err(self.tag(s.span(), "extends")),
            Stmt::Do(s) => Err(self.tag(s.span(), "do")),
            // minijinja's optional features add statements (`macros`: `macro`
            // and `call`; `loop_controls`: `break` and `continue`), and Cargo
            // turns a feature on for every crate of a graph when one crate asks
            // for it. A statement this check does not know is refused, never
            // rendered: the subset fails closed.
            #[allow(unreachable_patterns)]
            other => Err(unknown_statement(other)),
        }
    }

    /// What `set` or `for` assigns to: a name (a `for` may unpack into names).
    fn target(&mut self, target: &Expr<'_>, unpack: bool) -> Result<(), Refusal> {
        match target {
            Expr::Var(_) => Ok(()),
            Expr::List(names) if unpack => {
                names.items.iter().try_for_each(|n| self.target(n, true))
            }
            Expr::List(names) => Err(self.refuse(
                names.span(),
                "tuples (`a, b`) are not supported outside `for` in prompt templates",
            )),
            other => Err(self.refuse(
                other.span(),
                "only a name can be assigned in prompt templates: `{% set name = value %}`",
            )),
        }
    }

    fn expr(&mut self, expr: &Expr<'_>) -> Result<(), Refusal> {
        match expr {
            Expr::Var(_) => Ok(()),
            Expr::Const(constant) => match constant.value.as_str() {
                Some(text) if text.len() > LITERAL_CAP => Err(self.refuse(
                    constant.span(),
                    format!(
                        "a string literal of {} is over the {} limit for literals in prompt templates (write long text outside tags)",
                        Size(text.len() as u64),
                        Size(LITERAL_CAP as u64)
                    ),
                )),
                _ => Ok(()),
            },
            Expr::UnaryOp(op) => self.expr(&op.expr),
            Expr::BinOp(op) => {
                let refused = match op.op {
                    BinOpKind::Concat => Some("~"),
                    BinOpKind::Add => Some("+"),
                    BinOpKind::Mul => Some("*"),
                    BinOpKind::Pow => Some("**"),
                    _ => None,
                };
                if let Some(name) = refused {
                    return Err(self.refuse(
                        op.span(),
                        format!("the `{name}` operator is not supported in prompt templates"),
                    ));
                }
                self.expr(&op.left)?;
                self.expr(&op.right)
            }
            Expr::Compare(compare) => {
                self.expr(&compare.expr)?;
                compare.ops.iter().try_for_each(|op| self.expr(&op.expr))
            }
            Expr::IfExpr(if_expr) => {
                self.expr(&if_expr.test_expr)?;
                self.expr(&if_expr.true_expr)?;
                if_expr
                    .false_expr
                    .as_ref()
                    .map_or(Ok(()), |e| self.expr(e))
            }
            Expr::Filter(filter) => {
                if !FILTERS.contains(&filter.name) {
                    return Err(self.refuse(
                        filter.span(),
                        format!(
                            "the `{}` filter is not supported in prompt templates (use {})",
                            filter.name,
                            FILTERS.join(", ")
                        ),
                    ));
                }
                if let Some(value) = &filter.expr {
                    self.expr(value)?;
                }
                self.args(&filter.args)
            }
            Expr::Test(test) => {
                if !TESTS.contains(&test.name) {
                    return Err(self.refuse(
                        test.span(),
                        format!(
                            "the `{}` test is not supported in prompt templates (use {})",
                            test.name,
                            TESTS.join(", ")
                        ),
                    ));
                }
                self.expr(&test.expr)?;
                self.args(&test.args)
            }
            Expr::GetAttr(attr) => self.expr(&attr.expr),
            Expr::GetItem(item) => Err(self.refuse(
                item.span(),
                "subscripts (`x[...]`) are not supported in prompt templates",
            )),
            Expr::Slice(slice) => Err(self.refuse(
                slice.span(),
                "slices (`x[a:b]`) are not supported in prompt templates",
            )),
            Expr::Call(call) => Err(self.refuse(
                call.span(),
                "calls (`f(...)`) are not supported in prompt templates; only filters take arguments: `x | default(\"y\")`",
            )),
            Expr::List(list) => Err(self.refuse(
                list.span(),
                "list and map literals and tuples (`[a, b]`, `(a, b)`, `a, b`) are not supported in prompt templates",
            )),
            Expr::Map(map) => Err(self.refuse(
                map.span(),
                "list and map literals (`{...}`) are not supported in prompt templates",
            )),
            // As for statements: an expression this check does not know is refused.
            #[allow(unreachable_patterns)]
            other => Err(self.refuse(
                other.span(),
                format!(
                    "{} is not supported in prompt templates",
                    other.description()
                ),
            )),
        }
    }

    fn args(&mut self, args: &[CallArg<'_>]) -> Result<(), Refusal> {
        for arg in args {
            match arg {
                CallArg::Pos(value) | CallArg::Kwarg(_, value) => self.expr(value)?,
                CallArg::PosSplat(value) | CallArg::KwargSplat(value) => {
                    return Err(self.refuse(
                        value.span(),
                        "argument splats (`*args`, `**kwargs`) are not supported in prompt templates",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The refusal of a statement this check does not know (one a minijinja
/// feature adds, such as `macro` or `break`). minijinja's statement type has
/// no span accessor, so the tag's name and line come from its debug form,
/// `Name { .. } @ line:col-line:col` (the outer span printed last); the
/// refusal stands even when that form cannot be read.
fn unknown_statement(stmt: &Stmt<'_>) -> Refusal {
    let debug = format!("{stmt:?}");
    let kind: String = debug
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    let tag = match kind.as_str() {
        "CallBlock" => "call".to_owned(),
        "" => "unknown".to_owned(),
        other => other.to_ascii_lowercase(),
    };
    let line = debug
        .rsplit_once(" @ ")
        .and_then(|(_, span)| span.split(':').next()?.parse().ok())
        .unwrap_or(0);
    (
        line,
        format!("the `{tag}` tag is not supported in prompt templates (use {TAGS})"),
    )
}

/// Refuses what the bounded subset leaves out (see [`Templates`](super::Templates)): returns the
/// 1-based line and what to change. The check runs over minijinja's own
/// parse tree, so comments and `raw` blocks are text to it exactly as they
/// are to the engine.
pub fn check_syntax(source: &str) -> Result<(), (usize, String)> {
    check_template(source).map(drop)
}

#[cfg(test)]
mod tests {
    use super::check_syntax;

    /// The subset over minijinja's own tree: prompts pass, builders are
    /// refused with what to change and the line.
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
}
