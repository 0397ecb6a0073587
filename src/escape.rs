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

/// Whether a character must not reach a terminal or CI log raw: control characters (a
/// newline could start a `::error` line, ESC a terminal sequence, BEL a beep) and the invisible
/// ones that make text read as other text (line separators, bidirectional overrides, BOM).
fn is_unprintable(c: char) -> bool {
    crate::paths::is_forbidden_char(c)
}

/// One line of text from the catalog or the disk, safe to print: every unprintable character
/// (newlines included) is written as a Rust escape (`\n`, `\u{1b}`). Text without any is
/// returned as it is.
pub fn terminal(s: &str) -> String {
    escape_except(s, &[])
}

/// Many lines of text, safe to print: as [`terminal`], but newlines and tabs stay.
pub fn terminal_lines(s: &str) -> String {
    escape_except(s, &['\n', '\t'])
}

fn escape_except(s: &str, keep: &[char]) -> String {
    if !s.chars().any(|c| is_unprintable(c) && !keep.contains(&c)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unprintable(c) && !keep.contains(&c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A filesystem path (from the command line or the tree), safe to print.
pub fn display_path(p: &std::path::Path) -> String {
    terminal(&p.to_string_lossy())
}

/// Catalog text shown beside a diagnostic, with every unprintable character replaced by one of
/// the same UTF-8 length (`?`, `¿`, `�`, or `�` padded), so that byte offsets into the text — the
/// diagnostic's span — still point where they did. Newlines and tabs stay.
pub fn source_text(s: &str) -> String {
    if !s.chars().any(|c| is_unprintable(c) && c != '\n' && c != '\t') {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if !is_unprintable(c) || c == '\n' || c == '\t' {
                return c.to_string();
            }
            match c.len_utf8() {
                1 => "?".to_string(),
                2 => "¿".to_string(),
                3 => "\u{FFFD}".to_string(),
                _ => "\u{FFFD}?".to_string(),
            }
        })
        .collect()
}

/// A GitHub workflow command's message (`::error …::<message>`): `%`, CR and LF are encoded.
pub fn gh_message(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A GitHub workflow command's property value (`file=<value>`): as a message, plus `:` and `,`.
pub fn gh_property(s: &str) -> String {
    gh_message(s).replace(':', "%3A").replace(',', "%2C")
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
    fn terminal_text_cannot_forge_lines_or_sequences() {
        assert_eq!(terminal("a\n::error::x"), "a\\n::error::x");
        assert_eq!(terminal("\u{1b}[2J\u{7}"), "\\u{1b}[2J\\u{7}");
        assert_eq!(terminal("plain é"), "plain é");
        assert_eq!(terminal_lines("a\n\tb\r\n"), "a\n\tb\\r\n");
        let src = "a\u{1b}b\u{85}c\u{2028}d\n";
        let clean = source_text(src);
        assert_eq!(clean.len(), src.len(), "offsets are kept");
        assert!(!clean.chars().any(|c| c.is_control() && c != '\n'));
    }

    #[test]
    fn numbers_print_as_ts_literals() {
        assert_eq!(ts_num(30.0).as_str(), "30");
        assert_eq!(ts_num(0.5).as_str(), "0.5");
        assert_eq!(ts_num(-2.0).as_str(), "-2");
    }
}
