//! Catalog diagnostics: what is wrong, where, and how to fix it.
//!
//! Validation produces [`Diagnostic`]s that point at a catalog path; the loader resolves the
//! path to a line and column. Rendering (with miette, for people; as JSON, for tools) is the
//! only other thing done here.

use crate::escape;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use serde::Serialize;
use std::sync::Arc;

/// The report of a check that failed: an error `code` at `path`, with what to do about it.
pub trait Report: Extend<Diagnostic> {
    fn err(
        &mut self,
        code: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.extend([Diagnostic::error(code, path, message).help(help)]);
    }

    /// [`Report::err`] pointed at the key rather than its value.
    fn err_at_key(
        &mut self,
        code: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.extend([Diagnostic::error(code, path, message).at_key().help(help)]);
    }
}

impl Report for Vec<Diagnostic> {}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Where in its node a diagnostic points before it is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Value,
    Key,
    /// A place inside a string value (an expression's syntax error): its 1-based line and column
    /// within the string, found in the file from where the value is written.
    Inside {
        line: usize,
        col: usize,
    },
}

/// One finding.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable kebab-case identifier, e.g. `unknown-key`.
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    /// The node of the catalog it is about, by dotted path.
    pub path: String,
    pub place: Place,
    /// Resolved position (1-based line, column) once the loader has located it.
    pub pos: Option<(usize, usize)>,
}

impl Diagnostic {
    /// An error at a catalog path's value.
    pub fn error(code: &'static str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            help: None,
            path: path.into(),
            place: Place::Value,
            pos: None,
        }
    }

    /// A warning at a catalog path's value.
    pub fn warning(code: &'static str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, path, message)
        }
    }

    /// Adds a hint.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// An error at a place inside a catalog path's string value (1-based line and column of the
    /// string's text).
    pub fn inside(
        code: &'static str,
        path: impl Into<String>,
        line: usize,
        col: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            place: Place::Inside { line, col },
            ..Diagnostic::error(code, path, message)
        }
    }

    /// Points at the key rather than the value.
    pub fn at_key(mut self) -> Self {
        self.place = Place::Key;
        self
    }
}

/// The catalog text a diagnostic refers to.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// How the file is named in messages.
    pub name: String,
    pub text: Arc<String>,
}

/// Where each line of a text starts, found once for every diagnostic rendered against it: a
/// large catalog's thousands of warnings each looked for their line from the start.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let after_feeds = text.match_indices('\n').map(|(i, _)| i + 1);
        Lines {
            text,
            starts: std::iter::once(0).chain(after_feeds).collect(),
        }
    }

    /// The start and text (without its line feed) of a 1-based line, if the text has it.
    fn line(&self, line: usize) -> Option<(usize, &'a str)> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self.starts.get(line).map_or(self.text.len(), |next| next - 1);
        Some((start, &self.text[start..end]))
    }

    /// Byte offset of a 1-based line and column (columns count characters); the end of the
    /// line past its last character, the end of the text past its last line.
    fn offset(&self, line: usize, col: usize) -> usize {
        self.line(line).map_or(self.text.len(), |(start, l)| {
            start + l.char_indices().nth(col.saturating_sub(1)).map_or(l.len(), |(b, _)| b)
        })
    }

    /// The span of the token at a position: to `:` for a key; a quoted value to its closing
    /// quote; a plain value inside a flow collection (`{a: 1, b: 2}`) to the `,`, `}` or `]`
    /// after it; anything else to the end of the line.
    fn token_span(&self, line: usize, col: usize, key: bool) -> SourceSpan {
        let offset = self.offset(line, col);
        let line_rest = self.text[offset..].split('\n').next().unwrap_or("");
        let rest = line_rest.trim_end();
        let before = &self.text[self.offset(line, 1)..offset];
        // Whether a `{` or `[` before it on its line is still open (quotes not considered: a
        // span that ends early is still at the right place).
        let opened = before.chars().fold(0i32, |n, c| match c {
            '{' | '[' => n + 1,
            '}' | ']' => n - 1,
            _ => n,
        }) > 0;
        let len = match rest.chars().next() {
            _ if key => rest.find(':').unwrap_or(rest.len()),
            Some(q @ ('"' | '\'')) => {
                let mut escaped = false;
                let close = rest[1..].char_indices().find(|&(_, c)| {
                    let closes = c == q && !escaped;
                    escaped = q == '"' && c == '\\' && !escaped;
                    closes
                });
                close.map_or(rest.len(), |(i, _)| i + 2)
            }
            Some('{' | '[') => rest.len(),
            _ if opened => rest
                .find([',', '}', ']'])
                .map_or(rest.len(), |i| rest[..i].trim_end().len()),
            _ => rest.len(),
        };
        SourceSpan::new(offset.into(), len.max(1).min(line_rest.len().max(1)))
    }
}

/// Longest source line drawn beside a diagnostic, in characters. miette pads its underline to
/// the span's column with a formatting width, which panics past 65,535; a line this long is
/// unreadable in a terminal anyway, so such a diagnostic is printed as plain text instead.
const MAX_DRAWN_LINE: usize = 1000;

/// The word that opens an error message: bold red on a terminal (`color`).
pub fn error_label(color: bool) -> &'static str {
    if color { "\x1b[31m\x1b[1merror\x1b[0m" } else { "error" }
}

/// Renders diagnostics for a terminal (`color`) or a log. Everything printed that comes from
/// the catalog (its name, messages quoting it, the source lines) is escaped first, so catalog
/// text cannot forge CI log commands or send terminal sequences.
pub fn render(diags: &[Diagnostic], file: &SourceFile, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let name = escape::terminal(&file.name);
    let lines = Lines::new(&file.text);
    let mut out = String::new();
    for diag in diags {
        // Each diagnostic opens with `file:line:col` so editors and CI logs can jump to it.
        let at = diag.pos.map_or(String::new(), |(line, col)| format!(":{line}:{col}"));
        out.push_str(&format!("{name}{at}\n"));
        let drawable = diag.pos.is_some_and(|(line, _)| {
            (lines.line(line.max(1))).is_some_and(|(_, l)| l.chars().count() <= MAX_DRAWN_LINE)
        });
        let excerpt = diag.pos.filter(|_| drawable).map(|(line, col)| {
            // Errors about a key (unknown, duplicate) underline the key, not the rest of the line.
            let key = diag.place == Place::Key || matches!(diag.code, "unknown-key" | "duplicate-key");
            Excerpt::around(&lines, line, col, key)
        });
        let shown = miette::MietteDiagnostic {
            message: escape::terminal(&diag.message),
            code: Some(diag.code.to_string()),
            severity: Some(match diag.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
            }),
            help: diag.help.as_deref().map(escape::terminal),
            url: None,
            labels: excerpt
                .as_ref()
                .map(|e| vec![LabeledSpan::new_primary_with_span(Some("here".into()), e.span)]),
        };
        let mut report = miette::Report::new(shown);
        if let Some(e) = excerpt {
            report = report.with_source_code(NamedSource::new(name.clone(), e));
        }
        if handler.render_report(&mut out, report.as_ref()).is_err() {
            out.push_str(&escape::terminal(&diag.message));
        }
        out.push('\n');
    }
    out
}

/// The lines around a diagnostic's position, as miette's source: miette reads a source from
/// its start to find a line, and a large catalog's few warnings each scanned (and copied) all
/// of it. Lines are numbered as in the file.
struct Excerpt {
    /// The lines, escaped ([`escape::source_text`] keeps byte lengths, so spans still fit).
    text: String,
    /// The file's line index (0-based) of the excerpt's first line.
    first_line: usize,
    /// The token at the position, in the excerpt.
    span: SourceSpan,
}

impl Excerpt {
    /// Lines around the position: more than the handler's one line of context each side.
    const AROUND: usize = 3;

    fn around(lines: &Lines, line: usize, col: usize, key: bool) -> Excerpt {
        let first_line = line.saturating_sub(1 + Self::AROUND);
        let start = lines.offset(first_line + 1, 1);
        let end = lines.offset(line + Self::AROUND + 1, 1);
        let token = lines.token_span(line, col, key);
        Excerpt {
            text: escape::source_text(&lines.text[start..end]),
            first_line,
            span: SourceSpan::new((token.offset() - start).into(), token.len()),
        }
    }
}

impl miette::SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let c = self.text.read_span(span, before, after)?;
        // In characters, as the `file:line:col` above counts it (miette counts bytes).
        let at = span.offset().min(self.text.len());
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        Ok(Box::new(miette::MietteSpanContents::new(
            c.data(),
            *c.span(),
            c.line() + self.first_line,
            self.text[line_start..at].chars().count(),
            c.line_count(),
        )))
    }
}

/// A failed command's JSON (`--format json`), on stdout: a script that parses the command's
/// output gets an object that says why, not an empty output. The text still goes to stderr.
#[derive(Debug, Serialize)]
pub struct JsonFailure<'a> {
    pub error: String,
    pub help: Option<String>,
    pub exit_code: i32,
    /// An invalid catalog's problems, as `validate --format json` gives them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<JsonDiagnostic<'a>>,
}

impl JsonFailure<'_> {
    pub fn print(&self) {
        println!("{}", serde_json::to_string_pretty(self).expect("serializes"));
    }
}

/// `validate --format json`: the catalog's diagnostics and, when it fails, what every command's
/// JSON failure says ([`JsonFailure`]).
#[derive(Debug, Serialize)]
pub struct JsonValidated<'a> {
    pub file: &'a str,
    pub valid: bool,
    pub diagnostics: Vec<JsonDiagnostic<'a>>,
    /// The failure's fields (its `diagnostics` empty: the report's own are above).
    #[serde(flatten)]
    pub failure: Option<JsonFailure<'a>>,
}

/// The JSON form of a diagnostic (`--format json`).
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub message: &'a str,
    pub help: Option<&'a str>,
    pub file: &'a str,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl<'a> JsonDiagnostic<'a> {
    pub fn new(diag: &'a Diagnostic, file: &'a SourceFile) -> Self {
        JsonDiagnostic {
            severity: diag.severity,
            code: diag.code,
            message: &diag.message,
            help: diag.help.as_deref(),
            file: &file.name,
            line: diag.pos.map(|p| p.0),
            column: diag.pos.map(|p| p.1),
        }
    }
}

/// "did you mean" the closest of `known`, or `otherwise`.
pub fn hint_for<S: AsRef<str>>(found: &str, known: &[S], otherwise: impl Into<String>) -> String {
    did_you_mean(found, known).map_or_else(|| otherwise.into(), |m| format!("did you mean `{m}`?"))
}

/// The closest candidate, when it is close enough to be a typo.
pub fn did_you_mean<'a>(found: &str, candidates: &'a [impl AsRef<str>]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(found, c.as_ref()), c.as_ref()))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_find_offsets_and_tokens() {
        let lines = Lines::new("a: 1\r\nkey: é value\n\nlast");
        assert_eq!(lines.line(2), Some((6, "key: é value")));
        assert_eq!(
            lines.line(1),
            Some((0, "a: 1\r")),
            "a CR stays: only the line feed ends a line"
        );
        assert_eq!((lines.line(0), lines.line(5)), (None, None));
        // Columns count characters: `v` is the 8th, after the two bytes of `é`.
        assert_eq!(lines.offset(2, 8), 6 + 8);
        assert_eq!(lines.offset(2, 99), 6 + "key: é value".len(), "past the line: its end");
        assert_eq!(lines.offset(9, 1), lines.text.len(), "past the text: its end");
        assert_eq!(lines.token_span(2, 1, true), SourceSpan::new(6.into(), 3));
        assert_eq!(lines.token_span(2, 8, false), SourceSpan::new(14.into(), 5));
        assert_eq!(
            lines.token_span(3, 1, false),
            SourceSpan::new(20.into(), 1),
            "an empty line: one column"
        );
        // A value in a flow mapping ends before the next entry; a quoted one at its quote.
        let flow = Lines::new("p: {name: demo, version: 2.0, d: \"a, \\\"b\" }\n- [x, 'y, z']");
        assert_eq!(flow.token_span(1, 26, false), SourceSpan::new(25.into(), 3), "2.0");
        assert_eq!(
            flow.token_span(1, 34, false),
            SourceSpan::new(33.into(), 8),
            "the quoted text"
        );
        assert_eq!(flow.token_span(2, 4, false), SourceSpan::new(47.into(), 1), "x");
        assert_eq!(flow.token_span(2, 7, false), SourceSpan::new(50.into(), 6), "'y, z'");
        // A text that ends with a line feed has an empty last line.
        assert_eq!(Lines::new("a\n").line(2), Some((2, "")));
    }

    /// The drawn excerpt names the column the `file:line:col` line names: in characters, after
    /// text of several bytes a character.
    #[test]
    fn the_excerpt_counts_columns_in_characters() {
        let file = SourceFile {
            name: "c.yaml".into(),
            text: Arc::new("a: 1\nb: \"日本語😀é\", bogus: 1\n".into()),
        };
        let mut d = Diagnostic::error("unknown-key", "b", "no");
        d.pos = Some((2, 15));
        let out = render(&[d], &file, false);
        assert!(out.starts_with("c.yaml:2:15\n"), "{out}");
        assert!(out.contains("[c.yaml:2:15]"), "{out}");
    }
}
