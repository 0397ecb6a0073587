//! JavaScript's value semantics, as far as the TypeScript runtime relies on them: how a number
//! prints, `JSON.stringify`, `String(x)`, `Number(x)`, `trim`, string lengths in UTF-16 units.
//! The Rust runtime must answer byte for byte what the TypeScript one does, so these are
//! imitated here in one place instead of approximated at each use.

use serde_json::Value;

/// The deepest nesting of arrays and objects read from a program's or a route's JSON, in both
/// runtimes (`__ixgenParseJson`): the runtimes walk values recursively, and serde_json refuses
/// 128 levels where `JSON.parse` accepts thousands, so one limit below both holds everywhere.
pub const MAX_JSON_DEPTH: usize = 100;

/// Why text is not a JSON value the runtimes read.
#[derive(Debug, PartialEq)]
pub enum JsonFail {
    Invalid,
    /// Nested deeper than [`MAX_JSON_DEPTH`].
    TooDeep,
}

/// `JSON.parse(text)`, refusing text nested deeper than [`MAX_JSON_DEPTH`] before it is parsed
/// (the nesting is counted outside strings, without recursion, so any depth is safe to refuse).
pub fn parse_json(text: &str) -> Result<Value, JsonFail> {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(JsonFail::TooDeep);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    serde_json::from_str(text)
        .or_else(|e| serde_json::from_str(&js_readable(text).ok_or(e)?))
        .map_err(|_| JsonFail::Invalid)
}

/// What `JSON.parse` reads in `text` and serde_json refuses, written as serde_json reads it;
/// `None` when there is none:
/// - a `\u` escape of half a surrogate pair with no other half (what `JSON.stringify` writes of
///   a string cut inside an emoji) is `\ufffd`, as a JavaScript string holding it prints;
/// - a number past a double's range (`1e400`, Infinity to JavaScript) is `null`, as
///   `JSON.stringify` writes Infinity.
fn js_readable(text: &str) -> Option<String> {
    let unit = |at: usize| {
        let hex = text.get(at..at + 6)?.strip_prefix("\\u")?;
        u16::from_str_radix(hex, 16).ok()
    };
    let (mut out, mut from, mut i, mut in_str) = (String::new(), 0, 0, false);
    let b = text.as_bytes();
    let mut put = |at: usize, end: usize, with: &str, from: &mut usize| {
        out.push_str(&text[*from..at]);
        out.push_str(with);
        *from = end;
    };
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'\\' if in_str => match unit(i) {
                Some(0xd800..=0xdbff) if unit(i + 6).is_some_and(|u| (0xdc00..=0xdfff).contains(&u)) => i += 11,
                Some(0xd800..=0xdfff) => {
                    put(i, i + 6, "\\ufffd", &mut from);
                    i += 5;
                }
                _ => i += 1,
            },
            b'-' | b'0'..=b'9' if !in_str => {
                let end = (i..b.len()).find(|&j| !matches!(b[j], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'));
                let end = end.unwrap_or(b.len());
                if text[i..end].parse::<f64>().is_ok_and(f64::is_infinite) {
                    put(i, end, "null", &mut from);
                }
                i = end - 1;
            }
            _ => {}
        }
        i += 1;
    }
    (from > 0).then(|| out + &text[from..])
}

/// JavaScript's `\s` (and what `String.prototype.trim` removes).
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s.trimStart()`.
pub fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_space)
}

/// `s.length`: UTF-16 code units.
pub fn len16(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.slice(0, n)` in UTF-16 units (a surrogate pair is never split: the cut moves before it).
pub fn head16(s: &str, n: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > n {
            return &s[..i];
        }
    }
    s
}

/// `s.slice(-n)` in UTF-16 units.
pub fn tail16(s: &str, n: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices().rev() {
        units += c.len_utf16();
        if units > n {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// `String(n)` for a number.
pub fn num(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let a = n.abs();
    if (1e-6..1e21).contains(&a) {
        // Rust's `Display` is the shortest round-trip digits without an exponent, as JavaScript's.
        format!("{n}")
    } else {
        // JavaScript writes `1e+21` and `1e-7`; Rust writes `1e21` and `1e-7`.
        let s = format!("{n:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    }
}

/// A JSON number as JavaScript holds it (a double).
pub fn f64_of(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// A number value from a double, `None` when JSON cannot hold it (NaN, infinities).
pub fn number(n: f64) -> Option<Value> {
    // A whole number stays an integer in the JSON value, so it prints without `.0` anywhere.
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        return Some(Value::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

/// `JSON.stringify(v)`.
pub fn stringify(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, None, 0, &mut out);
    out
}

/// `JSON.stringify(v, null, 2)`.
pub fn stringify_pretty(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, Some(2), 0, &mut out);
    out
}

fn write_json(v: &Value, indent: Option<usize>, depth: usize, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(n) = indent {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', n * depth));
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let f = f64_of(n);
            out.push_str(&if f.is_finite() { num(f) } else { "null".into() })
        }
        Value::String(s) => quote(s, out),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_json(x, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, x)) in own_keys(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                quote(k, out);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(x, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

/// An object's entries in JavaScript's order (`OrdinaryOwnPropertyKeys`): the keys that are array
/// indices (`0` to `4294967294`, written without leading zeros) first, in ascending order, then
/// the others in the order they were added. `JSON.parse` builds objects so, and the TypeScript
/// runtime cannot keep a program's order without a parser of its own.
fn own_keys(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let index = |k: &str| -> Option<u32> {
        let n: u32 = k.parse().ok()?;
        (n != u32::MAX && n.to_string() == k).then_some(n)
    };
    let mut indices: Vec<(u32, (&String, &Value))> =
        map.iter().filter_map(|(k, v)| index(k).map(|n| (n, (k, v)))).collect();
    indices.sort_by_key(|(n, _)| *n);
    let others = map.iter().filter(|(k, _)| index(k).is_none());
    indices.into_iter().map(|(_, e)| e).chain(others).collect()
}

/// A JSON string literal as `JSON.stringify` writes it.
pub fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `JSON.stringify` of a string.
pub fn quoted(s: &str) -> String {
    let mut out = String::new();
    quote(s, &mut out);
    out
}

/// `String(v)` (what a template literal or `String.prototype.includes` makes of a value).
pub fn string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => num(f64_of(n)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|x| if x.is_null() { String::new() } else { string(x) })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// `Number(v)`.
pub fn to_number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => f64_of(n),
        Value::String(s) => {
            let t = trim(s);
            if t.is_empty() {
                0.0
            } else if t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) {
                t.parse().unwrap_or(f64::NAN)
            } else {
                f64::NAN
            }
        }
        Value::Array(items) => match items.as_slice() {
            [] => 0.0,
            [x] => to_number(&Value::String(string(x))),
            _ => f64::NAN,
        },
        Value::Object(_) => f64::NAN,
    }
}

/// `a === b` where `a` may be `undefined` (`None`); objects and arrays are never equal (they
/// are distinct references in JavaScript), numbers compare as doubles.
pub fn strict_eq(a: Option<&Value>, b: &Value) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Value::Number(y)) => f64_of(x) == f64_of(y),
        (Some(Value::String(x)), Value::String(y)) => x == y,
        (Some(Value::Bool(x)), Value::Bool(y)) => x == y,
        (Some(Value::Null), Value::Null) => true,
        _ => false,
    }
}

/// `typeof v === "number"` and finite: the number.
pub fn as_number(v: Option<&Value>) -> Option<f64> {
    match v {
        Some(Value::Number(n)) => Some(f64_of(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_in_javascript() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1e21), "1e+21");
        assert_eq!(num(1e-7), "1e-7");
        assert_eq!(num(123456789012345680000.0), "123456789012345680000");
        assert_eq!(
            stringify(&serde_json::json!({"a": [1.0, "x\n", null], "b": {}})),
            r#"{"a":[1,"x\n",null],"b":{}}"#
        );
        assert_eq!(
            stringify_pretty(&serde_json::json!({"a": [1], "b": []})),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": []\n}"
        );
    }

    #[test]
    fn lengths_count_utf16_units() {
        assert_eq!(len16("a😀"), 3);
        assert_eq!(head16("a😀b", 2), "a");
        assert_eq!(tail16("a😀b", 3), "😀b");
    }

    #[test]
    fn objects_print_their_index_keys_first_as_javascript_does() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"10":2,"2":3,"01":4,"-1":5,"4294967295":6,"4294967294":7}"#).unwrap();
        assert_eq!(
            stringify(&v),
            r#"{"2":3,"10":2,"4294967294":7,"b":1,"01":4,"-1":5,"4294967295":6}"#
        );
    }

    #[test]
    fn json_deeper_than_the_limit_is_refused_before_it_is_parsed() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_json(&deep(MAX_JSON_DEPTH)).is_ok());
        assert_eq!(parse_json(&deep(MAX_JSON_DEPTH + 1)), Err(JsonFail::TooDeep));
        // Far beyond any stack: refused without recursion.
        assert_eq!(parse_json(&"[".repeat(1_000_000)), Err(JsonFail::TooDeep));
        // Brackets inside strings, escaped quotes among them, are not nesting.
        let text = format!(
            "[{}]",
            serde_json::to_string(&format!("\"{}", "[".repeat(500))).unwrap()
        );
        assert!(parse_json(&text).is_ok());
        assert_eq!(parse_json("[1,"), Err(JsonFail::Invalid));
    }
}
