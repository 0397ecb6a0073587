//! Placeholder templates: `"ralph.{session}.task"` → text and variable parts.
//!
//! Parsed once, by the lowering pass (`crate::model`), so that every reference is checked against the declared
//! parameters and context variables and the generated code never parses a template again.
//! This module only parses; it knows nothing about which names exist.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One piece of a template. In a spec, literal text is a plain JSON string and a variable is
/// `{"var": name}`, the shortest form a reviewer can still read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// The value of a parameter or context variable, or a path into a step's JSON result
    /// (`locate.resolvedTarget.name`).
    Var(String),
    /// A value passed through one of the fixed formats: `{name|code}`.
    Fmt(String, Fmt),
}

/// The formats a placeholder may name after `|`. Deliberately few: the renderer has no
/// expressions, only these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fmt {
    /// An inline code span that no backtick in the value can close.
    Code,
    /// Upper case: `high` → `HIGH`.
    Upper,
    /// The number of elements of an array (0 when unset).
    Count,
    /// The sum of the numbers of an array (`{impacts.summary.directDependents|sum}`).
    Sum,
}

impl Fmt {
    /// Every format, by the name a template writes after `|`.
    const NAMED: [(&'static str, Fmt); 4] = [
        ("code", Fmt::Code),
        ("upper", Fmt::Upper),
        ("count", Fmt::Count),
        ("sum", Fmt::Sum),
    ];

    fn parse(name: &str) -> Option<Fmt> {
        Self::NAMED.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The name a template writes after `|` (`upper`).
    pub fn name(self) -> &'static str {
        Self::NAMED.iter().find(|(_, f)| *f == self).map_or("", |(n, _)| n)
    }
}

impl Serialize for Part {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Part::Text(t) => s.serialize_str(t),
            Part::Var(v) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("var", v)?;
                m.end()
            }
            Part::Fmt(v, f) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("var", v)?;
                m.serialize_entry("fmt", f)?;
                m.end()
            }
        }
    }
}

/// The schema of [`Part`]'s serialized form.
// (Also how a runtime reads a part back: a plain comment, as a doc comment would change the schema.)
#[derive(JsonSchema, Deserialize)]
#[serde(untagged)]
enum PartForm {
    /// Literal text.
    Text(String),
    /// The value of a parameter or context variable, or a path into a step's result.
    Var {
        var: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        fmt: Option<Fmt>,
    },
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match PartForm::deserialize(d)? {
            PartForm::Text(t) => Part::Text(t),
            PartForm::Var { var, fmt: None } => Part::Var(var),
            PartForm::Var { var, fmt: Some(f) } => Part::Fmt(var, f),
        })
    }
}

impl JsonSchema for Part {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Part".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        PartForm::json_schema(generator)
    }
}

/// A parsed template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Template(pub Vec<Part>);

/// Why a template does not parse; `offset` is a byte offset into the template text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub offset: usize,
    pub message: String,
}

impl Template {
    /// Parses `{name}` references; `{{` and `}}` stand for literal braces.
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        // Most templates are plain words (`--limit`, `callers`): no braces, one part.
        if !text.contains(['{', '}']) {
            return Ok(Template(if text.is_empty() {
                Vec::new()
            } else {
                vec![Part::Text(text.to_string())]
            }));
        }
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if matches!(chars.peek(), Some((_, '{'))) => {
                    chars.next();
                    literal.push('{');
                }
                '}' if matches!(chars.peek(), Some((_, '}'))) => {
                    chars.next();
                    literal.push('}');
                }
                '{' => {
                    let rest = &text[i + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(TemplateError {
                            offset: i,
                            message: "unclosed `{` in template (write `{{` for a literal brace)".into(),
                        });
                    };
                    let name = &rest[..end];
                    let (path, fmt) = match name.split_once('|') {
                        Some((p, f)) => (p, Some(f)),
                        None => (name, None),
                    };
                    if !is_path(path) {
                        return Err(TemplateError {
                            offset: i,
                            message: format!(
                                "`{{{name}}}` is not a placeholder: names are [a-z_][a-z0-9_]*, optionally followed by `.field`s (write `{{{{` for a literal brace)"
                            ),
                        });
                    }
                    let fmt = match fmt.map(|f| (f, Fmt::parse(f))) {
                        None => None,
                        Some((_, Some(f))) => Some(f),
                        Some((f, None)) => {
                            return Err(TemplateError {
                                offset: i,
                                message: format!("`|{f}` is not a format: use `|code`, `|upper`, `|count` or `|sum`"),
                            });
                        }
                    };
                    if !literal.is_empty() {
                        let mut text = std::mem::take(&mut literal);
                        text.shrink_to_fit();
                        parts.push(Part::Text(text));
                    }
                    parts.push(match fmt {
                        Some(f) => Part::Fmt(path.to_string(), f),
                        None => Part::Var(path.to_string()),
                    });
                    for _ in 0..=name.chars().count() {
                        chars.next();
                    }
                }
                '}' => {
                    return Err(TemplateError {
                        offset: i,
                        message: "stray `}` in template (write `}}` for a literal brace)".into(),
                    });
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            literal.shrink_to_fit();
            parts.push(Part::Text(literal));
        }
        // Most templates are one or two parts, and a large catalog's model keeps tens of
        // thousands of them: without this each would hold room for four.
        parts.shrink_to_fit();
        Ok(Template(parts))
    }

    /// The variables the template refers to, in order.
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Var(v) | Part::Fmt(v, _) => Some(v.as_str()),
            Part::Text(_) => None,
        })
    }

    /// The variable when the template is exactly one `{name}` and nothing else.
    pub fn single_var(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Part::Var(v)] => Some(v),
            _ => None,
        }
    }
}

/// A variable with optional fields: `name(.field)*`, where a field is `[A-Za-z0-9_]+` (JSON
/// field names are often camelCase; a number indexes an array).
pub fn is_path(text: &str) -> bool {
    let mut segs = text.split('.');
    // The first segment may also be a field of a list row, so camelCase is allowed there too.
    segs.next().is_some_and(|root| {
        root.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && root.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    }) && segs.all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// `[a-z_][a-z0-9_]*`: parameter, context and step names.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z' | '_')) && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_vars_and_escaped_braces() {
        let t = Template::parse("ralph.{session}.task {{x}}").unwrap();
        assert_eq!(
            t.0,
            vec![
                Part::Text("ralph.".into()),
                Part::Var("session".into()),
                Part::Text(".task {x}".into())
            ]
        );
        assert_eq!(Template::parse("{limit}").unwrap().single_var(), Some("limit"));
        assert_eq!(Template::parse("ü{a}é").unwrap().vars().collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn rejects_malformed_templates_with_offsets() {
        assert_eq!(Template::parse("ab{cd").unwrap_err().offset, 2);
        assert_eq!(Template::parse("a}b").unwrap_err().offset, 1);
        assert!(Template::parse("{}").is_err());
        assert!(Template::parse("{Not-ok}").is_err());
        assert!(Template::parse("{a..b}").is_err());
        assert!(Template::parse("{a.b|nope}").is_err());
    }

    #[test]
    fn parses_paths_and_formats() {
        let t = Template::parse("{locate.resolvedTarget.name|code} {n}").unwrap();
        assert_eq!(
            t.0,
            vec![
                Part::Fmt("locate.resolvedTarget.name".into(), Fmt::Code),
                Part::Text(" ".into()),
                Part::Var("n".into())
            ]
        );
    }
}
