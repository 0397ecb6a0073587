//! The only code that quotes anything: TypeScript literals, comments, and values in messages.
//!
//! Templates never see catalog text directly. Every value they print is a [`Ts`] built here
//! (or an [`Ident`], a name already validated), so a template cannot print a raw string:
//! `Ts` has no constructor outside this module. JSON files are serialized by serde_json from
//! typed structs, and TOML by the toml crate, so neither needs quoting here.

use std::fmt;

/// A piece of TypeScript source that is safe to paste: a literal or an expression built from
/// literals. Only this module makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ts(String);

impl fmt::Display for Ts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Ts {
    /// The source text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `self` followed by a method call whose arguments are already-safe expressions:
    /// `.describe("…")`, `.min(1)`.
    pub fn call(self, method: &str, args: &[Ts]) -> Ts {
        debug_assert!(
            method
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        );
        let args: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        Ts(format!("{}.{method}({})", self.0, args.join(", ")))
    }

    /// A fixed expression written in Rust source (never catalog text).
    pub fn code(source: &'static str) -> Ts {
        Ts(source.to_string())
    }

    /// An array literal of safe expressions.
    pub fn array(items: &[Ts]) -> Ts {
        let items: Vec<&str> = items.iter().map(|a| a.0.as_str()).collect();
        Ts(format!("[{}]", items.join(", ")))
    }
}

/// A TypeScript string literal holding exactly `s`.
///
/// JSON string syntax is valid TypeScript; on top of it U+2028 and U+2029 are escaped (older
/// engines end a line there) and `</` becomes `<\/` so the text can never close a script
/// element if the file is ever inlined into HTML.
pub fn ts_str(s: &str) -> Ts {
    Ts(json_to_ts(
        serde_json::to_string(s).expect("a string always serializes"),
    ))
}

/// Any serializable value as a TypeScript expression (a JSON literal, escaped as [`ts_str`]).
pub fn ts_json<T: serde::Serialize + ?Sized>(value: &T) -> Ts {
    Ts(json_to_ts(
        serde_json::to_string(value).expect("model values always serialize"),
    ))
}

fn json_to_ts(json: String) -> String {
    // Nearly every string has none of these: return it without copying.
    if !json.contains(['\u{2028}', '\u{2029}']) && !json.contains("</") {
        return json;
    }
    json.replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
        .replace("</", "<\\/")
}

/// A number as a TypeScript literal (integers without a fraction).
pub fn ts_num(n: f64) -> Ts {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Ts(format!("{}", n as i64))
    } else {
        Ts(format!("{n}"))
    }
}

/// An integer literal.
pub fn ts_int(n: i64) -> Ts {
    Ts(n.to_string())
}

/// Text for the inside of a `//` comment: one line, nothing that could end the comment.
pub fn comment(s: &str) -> Ts {
    Ts(s.chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect::<String>()
        .replace("*/", "* /"))
}

/// A name that is already a valid identifier in every generated language (validated in the
/// catalog stage: `[a-z_][a-z0-9_]*` or `[A-Z_][A-Z0-9_]*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident(String);

impl Ident {
    /// Checks and wraps a name; `None` when it is not a plain identifier or is reserved.
    pub fn new(name: &str) -> Option<Ident> {
        let ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !TS_RESERVED.contains(&name);
        ok.then(|| Ident(name.to_string()))
    }

    /// An export name: any plain identifier, reserved words included, because
    /// `export { local as delete }` is valid where `const delete` is not.
    pub fn export_name(name: &str) -> Option<Ident> {
        let ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        ok.then(|| Ident(name.to_string()))
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Words a TypeScript binding cannot be named.
pub const TS_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "as",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "await",
    "enum",
];

/// A value shown in a message: quoted and with control characters escaped, so a newline or an
/// escape sequence in user input cannot forge output lines.
pub fn debug_quote(s: &str) -> String {
    format!("{s:?}")
}

/// A GitHub workflow command's message (`::error …::<message>`): `%`, CR and LF are encoded.
pub fn gh_message(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A GitHub workflow command's property value (`file=<value>`): as a message, plus `:` and `,`.
pub fn gh_property(s: &str) -> String {
    gh_message(s).replace(':', "%3A").replace(',', "%2C")
}

/// A value inside terminal text: in backticks, or quoted with escapes when it holds a control
/// character or a backtick, so a value can neither forge output lines nor end its own quote.
pub fn term_code(s: &str) -> String {
    if s.chars()
        .any(|c| c.is_control() || c == '`' || c == '\u{2028}' || c == '\u{2029}')
    {
        debug_quote(s)
    } else {
        format!("`{s}`")
    }
}

/// A Markdown code span holding `s` on one line: the fence is one backtick longer than the
/// longest run inside, and line breaks become spaces so the value cannot end a list item.
pub fn md_code(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    if one_line.trim().is_empty() {
        return format!("`{}`", debug_quote(s));
    }
    let mut longest = 0;
    let mut run = 0;
    for c in one_line.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // CommonMark strips one space from each end when both are there: pad whenever the value
    // starts or ends with a backtick or a space, so it survives exactly.
    let pad = one_line.starts_with(['`', ' ']) || one_line.ends_with(['`', ' ']);
    let sp = if pad { " " } else { "" };
    format!("{fence}{sp}{one_line}{sp}{fence}")
}

/// Plain Markdown text: the characters that open emphasis, code, links, HTML, headings, tables
/// or entities are backslash-escaped, and line breaks become spaces. (`(` and `!` only matter
/// next to a `[`, which is escaped.)
pub fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.push(' ');
        } else {
            if matches!(
                c,
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '&'
            ) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ts_strings_survive_hostile_text() {
        let cases = [
            ("plain", r#""plain""#),
            ("a\"b", r#""a\"b""#),
            ("back\\slash", r#""back\\slash""#),
            ("`${x}`", r#""`${x}`""#),
            ("*/ end", r#""*/ end""#),
            ("line\nbreak\r\t", r#""line\nbreak\r\t""#),
            ("\u{2028}\u{2029}", r#""\u2028\u2029""#),
            ("</script>", r#""<\/script>""#),
            ("emoji 🦀 é", "\"emoji 🦀 é\""),
            ("nul\u{0}", r#""nul\u0000""#),
        ];
        for (input, want) in cases {
            assert_eq!(ts_str(input).as_str(), want, "input {input:?}");
        }
    }

    #[test]
    fn comments_cannot_be_closed_or_broken() {
        assert_eq!(comment("a */ b\nc\u{2028}d").as_str(), "a * / b c d");
    }

    #[test]
    fn identifiers_reject_reserved_words_and_punctuation() {
        assert!(Ident::new("task_add").is_some());
        assert!(Ident::new("STORE_PATH").is_some());
        for bad in ["default", "delete", "a-b", "1a", "", "a b", "x$"] {
            assert!(Ident::new(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn github_annotations_cannot_be_forged() {
        assert_eq!(gh_property("a,b:c%d\ne"), "a%2Cb%3Ac%25d%0Ae");
        assert_eq!(gh_message("x: y,\r\n::error::z"), "x: y,%0D%0A::error::z");
    }

    #[test]
    fn markdown_values_stay_one_literal_span() {
        assert_eq!(md_code("a-b"), "`a-b`");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x`"), "`` `x` ``");
        assert_eq!(md_code("line\n- item"), "`line - item`");
        assert_eq!(md_code(""), "`\"\"`");
        assert_eq!(
            md_text("*a* [b](c) <d>\n# e & 1.0"),
            "\\*a\\* \\[b\\](c) \\<d\\> \\# e \\& 1.0"
        );
        assert_eq!(term_code("ok"), "`ok`");
        assert_eq!(term_code("a\nb"), "\"a\\nb\"");
    }

    #[test]
    fn numbers_print_as_ts_literals() {
        assert_eq!(ts_num(30.0).as_str(), "30");
        assert_eq!(ts_num(0.5).as_str(), "0.5");
        assert_eq!(ts_num(-2.0).as_str(), "-2");
    }
}
