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

/// Any serializable value as a TypeScript expression, laid out for a reviewer: a value that
/// fits in [`PRETTY_WIDTH`] columns stays on one line, a larger one gets one entry per line.
/// (serde_json's pretty printer puts every scalar on its own line, which triples a spec.)
pub fn ts_json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> Ts {
    let value = serde_json::to_value(value).expect("model values always serialize");
    let mut out = String::new();
    pretty(&value, 0, &mut out);
    Ts(json_to_ts(out))
}

/// The widest line [`ts_json_pretty`] writes when it can help it.
pub const PRETTY_WIDTH: usize = 100;

fn pretty(v: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let flat = spaced(v);
    let entries: Vec<(Option<&String>, &Value)> = match v {
        _ if indent + flat.chars().count() <= PRETTY_WIDTH => Vec::new(),
        Value::Object(m) => m.iter().map(|(k, x)| (Some(k), x)).collect(),
        Value::Array(a) => a.iter().map(|x| (None, x)).collect(),
        _ => Vec::new(),
    };
    if entries.is_empty() {
        out.push_str(&flat);
        return;
    }
    let (open, close) = if v.is_object() { ('{', '}') } else { ('[', ']') };
    out.push(open);
    let pad = " ".repeat(indent + 2);
    for (i, (key, x)) in entries.iter().enumerate() {
        out.push('\n');
        out.push_str(&pad);
        if let Some(k) = key {
            out.push_str(&serde_json::to_string(k).expect("a string always serializes"));
            out.push_str(": ");
        }
        pretty(x, indent + 2, out);
        if i + 1 < entries.len() {
            out.push(',');
        }
    }
    out.push('\n');
    out.push_str(&" ".repeat(indent));
    out.push(close);
}

/// One-line JSON with a space after `,` and `:` between entries (never inside strings).
fn spaced(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("{}: {}", serde_json::to_string(k).expect("serializes"), spaced(x)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(spaced).collect::<Vec<_>>().join(", ")),
        scalar => serde_json::to_string(scalar).expect("a JSON value always serializes"),
    }
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
    fn numbers_print_as_ts_literals() {
        assert_eq!(ts_num(30.0).as_str(), "30");
        assert_eq!(ts_num(0.5).as_str(), "0.5");
        assert_eq!(ts_num(-2.0).as_str(), "-2");
    }
}
