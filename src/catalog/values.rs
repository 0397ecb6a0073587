//! Checks on the catalog's raw values that no typed field can make: run on the YAML text
//! before serde sees it, and on regular expressions the generated code will run.
//!
//! Done on the event stream, not on the typed catalog, because by then the evidence is gone:
//! serde keeps the last of two equal keys in a map, turns `.inf` into `null` inside a JSON
//! template, and rounds integers past 2^53 the way JavaScript will. One pass sees every
//! mapping and every scalar, with its position, and stops at the first sign of hostile
//! nesting, so that nothing quadratic ever runs on it.

use crate::diagnostic::{Diagnostic, Target};
use std::collections::HashSet;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Largest catalog read, in bytes. The largest real catalogs (10,000 tools) are a few MB;
/// past this, every later stage would cost seconds and memory for nothing.
pub const MAX_CATALOG_BYTES: usize = 32 << 20;
/// Deepest nesting of mappings and sequences. A catalog needs about a dozen levels (a tool's
/// step's condition's `all`'s `any`…); serde_yaml itself stops at 128.
pub const MAX_DEPTH: usize = 64;
/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;
/// Longest regular expression accepted, in characters, and its deepest group nesting: the
/// expression parser recurses, and a real pattern is a line, not a page.
const MAX_REGEX_LEN: usize = 4096;
const MAX_REGEX_GROUPS: usize = 256;

fn at(code: &'static str, mark: Marker, message: String, help: &str) -> Diagnostic {
    let (line, col) = (mark.line(), mark.col() + 1);
    Diagnostic {
        pos: Some((line, col)),
        target: Target::Pos { line, col },
        ..Diagnostic::error(code, "", message).help(help)
    }
}

/// Checks the catalog text: its size, its nesting depth, duplicate keys in every mapping,
/// numbers that are not finite, and integers JavaScript would round. Syntax errors are left
/// to the loader (which reports them with serde's message); the pass just stops.
pub fn check_text(text: &str) -> Vec<Diagnostic> {
    check_text_plain(text).0
}

/// [`check_text`], and whether the text is plain: it parses to its end and has no alias
/// (`*name`) anywhere. A plain document can be read piece by piece, because no node in it
/// depends on text outside the node.
pub fn check_text_plain(text: &str) -> (Vec<Diagnostic>, bool) {
    if text.len() > MAX_CATALOG_BYTES {
        return (
            vec![Diagnostic {
                pos: Some((1, 1)),
                target: Target::Pos { line: 1, col: 1 },
                ..Diagnostic::error(
                    "too-large",
                    "",
                    format!(
                        "the catalog is larger than the limit of {} MiB",
                        MAX_CATALOG_BYTES >> 20
                    ),
                )
                .help("split the product's tools into several catalogs")
            }],
            false,
        );
    }
    enum Frame {
        Map { keys: HashSet<String>, want_key: bool },
        Seq,
    }
    let mut diags = Vec::new();
    let (mut aliases, mut ended) = (false, false);
    let mut stack: Vec<Frame> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = match parser.next_token() {
            Ok(e) => e,
            // The event parser has a nesting limit of its own; report it as ours, because the
            // loader's YAML parser must not be handed this text at all.
            Err(e) if e.info().contains("recursion limit") => {
                diags.push(at(
                    "too-deep",
                    *e.marker(),
                    format!("the catalog nests deeper than {MAX_DEPTH} levels here"),
                    "flatten the structure; no catalog key needs this depth",
                ));
                break;
            }
            // Other syntax errors are the loader's to report, with serde_yaml's message, unless
            // the text past the error nests deep enough to make that parser quadratic: then this
            // parser's message is reported instead, and the loader never parses the text.
            Err(e) => {
                if rough_depth(text) > 4 * MAX_DEPTH {
                    diags.push(at(
                        "yaml-syntax",
                        *e.marker(),
                        e.info().to_string(),
                        "fix the YAML syntax at this position (indentation, a missing `:` or an unclosed quote or bracket)",
                    ));
                }
                break;
            }
        };
        // Whether this node is a mapping's key: keys and values alternate.
        let starts_node = matches!(
            event,
            Event::Scalar(..) | Event::Alias(..) | Event::MappingStart(..) | Event::SequenceStart(..)
        );
        let mut is_key = false;
        if starts_node && let Some(Frame::Map { want_key, .. }) = stack.last_mut() {
            is_key = *want_key;
            *want_key = !*want_key;
        }
        match event {
            Event::StreamEnd => {
                ended = true;
                break;
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    diags.push(at(
                        "too-deep",
                        mark,
                        format!("the catalog nests deeper than {MAX_DEPTH} levels here"),
                        "flatten the structure; no catalog key needs this depth",
                    ));
                    // Stop: reading further is exactly the work a hostile file wants done.
                    break;
                }
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Map {
                        keys: HashSet::new(),
                        want_key: true,
                    }
                } else {
                    Frame::Seq
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
            }
            Event::Scalar(value, style, _, tag) => {
                if is_key {
                    if let Some(Frame::Map { keys, .. }) = stack.last_mut() {
                        if keys.contains(&value) {
                            diags.push(at(
                                "duplicate-key",
                                mark,
                                format!("duplicate key `{value}`: the mapping already has one"),
                                "a key may appear once in a mapping: remove or rename one",
                            ));
                        } else {
                            keys.insert(value);
                        }
                    }
                } else if style == TScalarStyle::Plain
                    && tag.is_none()
                    && starts_like_number(&value)
                    && let Some((code, message, help)) = number_problem(&value)
                {
                    diags.push(at(code, mark, message, help));
                }
            }
            Event::Alias(_) => aliases = true,
            _ => {}
        }
    }
    (diags, ended && !aliases)
}

/// Whether a text is small and shallow enough (by [`rough_depth`], an over-estimate) to hand
/// to the loader's YAML parser before this module's pass has finished.
pub fn shallow_enough(text: &str) -> bool {
    text.len() <= MAX_CATALOG_BYTES && rough_depth(text) <= MAX_DEPTH
}

/// An upper bound on the nesting a YAML parser could build from `text`: open brackets (quoted
/// or not) and compact `- ` sequence entries on one line. Linear, and only used to decide
/// whether a text with a syntax error is safe to hand to the loader's parser.
fn rough_depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for line in text.lines() {
        let dashes = line
            .trim_start()
            .split("- ")
            .take_while(|p| p.trim().is_empty())
            .count();
        max = max.max(depth + dashes);
        for b in line.bytes() {
            match b {
                b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    max
}

/// Whether a plain scalar starts like a number: only such a scalar can be read as one.
pub(crate) fn starts_like_number(value: &str) -> bool {
    value
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
}

/// What is wrong with a plain scalar that YAML reads as a number, if anything: its
/// diagnostic's code, message and help.
pub(crate) fn number_problem(s: &str) -> Option<(&'static str, String, &'static str)> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let non_finite = matches!(lower.as_str(), ".inf" | "+.inf" | "-.inf" | ".nan")
        || (looks_float(t) && t.parse::<f64>().is_ok_and(|f| !f.is_finite()));
    if non_finite {
        return Some((
            "not-finite",
            format!("`{t}` is not a finite number"),
            "use a finite number; JSON and TypeScript have no infinity or NaN literal (quote it if you mean the text)",
        ));
    }
    if let Some(too_big) = integer_outside_safe_range(t)
        && too_big
    {
        return Some((
            "unsafe-integer",
            format!("`{t}` is outside JavaScript's safe integer range (±{MAX_SAFE_INTEGER})"),
            "use a smaller integer; the generated code would round it (quote it if you mean the text)",
        ));
    }
    None
}

/// A decimal number with a fraction or exponent, as YAML 1.2's core schema reads one.
fn looks_float(t: &str) -> bool {
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+' | '_'))
}

/// For an integer scalar (decimal, `0x`, `0o`, `0b`): whether it is outside the safe range.
/// `None` when it is not an integer.
fn integer_outside_safe_range(t: &str) -> Option<bool> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(o) = body.strip_prefix("0o") {
        (o, 8)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else {
        (body, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Too long for an i128 is certainly too large.
    Some(match i128::from_str_radix(digits, radix) {
        Ok(n) => (if neg { -n } else { n }).abs() > MAX_SAFE_INTEGER,
        Err(_) => true,
    })
}

/// Checks a regular expression as JavaScript's `RegExp` will read it, with `flags`. Hosts
/// differ on the `u` flag for schema `pattern`s (Ajv sets it, zod does not), so a pattern must
/// be valid both ways (`both_unicode`).
pub fn check_regex(re: &str, flags: &str, both_unicode: bool) -> Result<(), String> {
    // A catalog repeats its patterns (a `matches` in every tool): each is compiled once per
    // thread. Only valid ones are kept; an invalid one is reported where it is.
    thread_local! {
        static VALID: std::cell::RefCell<HashSet<(String, String, bool)>> = Default::default();
    }
    let key = (re.to_string(), flags.to_string(), both_unicode);
    if VALID.with(|v| v.borrow().contains(&key)) {
        return Ok(());
    }
    compile_regex(re, flags, both_unicode)?;
    VALID.with(|v| v.borrow_mut().insert(key));
    Ok(())
}

fn compile_regex(re: &str, flags: &str, both_unicode: bool) -> Result<(), String> {
    if re.chars().count() > MAX_REGEX_LEN {
        return Err(format!("it is longer than {MAX_REGEX_LEN} characters"));
    }
    if re.matches('(').count() > MAX_REGEX_GROUPS {
        return Err(format!("it has more than {MAX_REGEX_GROUPS} groups"));
    }
    check_flags(flags)?;
    regress::Regex::with_flags(re, flags).map_err(|e| e.to_string())?;
    if both_unicode && !flags.contains('u') {
        let with_u = format!("{flags}u");
        regress::Regex::with_flags(re, with_u.as_str())
            .map_err(|e| format!("{e} (with the `u` flag, which JSON Schema validators use)"))?;
    }
    Ok(())
}

/// The flags ixgen passes to `RegExp`: each of `i`, `m`, `s`, `u` at most once.
pub fn check_flags(flags: &str) -> Result<(), String> {
    let mut seen = HashSet::new();
    for f in flags.chars() {
        if !"imsu".contains(f) {
            return Err(format!("`{f}` is not a regular expression flag ixgen supports"));
        }
        if !seen.insert(f) {
            return Err(format!("the flag `{f}` is given twice"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<(&'static str, Option<(usize, usize)>)> {
        check_text(text).into_iter().map(|d| (d.code, d.pos)).collect()
    }

    #[test]
    fn duplicate_keys_are_found_in_every_mapping() {
        assert_eq!(codes("a: 1\nb:\n  x: 1\n  x: 2\n"), [("duplicate-key", Some((4, 3)))]);
        assert_eq!(codes("a: [{k: 1, k: 2}]\n"), [("duplicate-key", Some((1, 12)))]);
        assert!(
            codes("a: {x: 1}\nb: {x: 1}\n").is_empty(),
            "the same key in two mappings is fine"
        );
    }

    #[test]
    fn numbers_must_be_finite_and_safe() {
        for bad in ["max: .inf", "max: -.inf", "max: .NaN", "max: 1e400", "d: {x: [.inf]}"] {
            assert_eq!(codes(bad).first().map(|c| c.0), Some("not-finite"), "{bad}");
        }
        for bad in [
            "n: 9007199254740992",
            "n: -9007199254740993",
            "n: 0xffffffffffffffffff",
            "n: 99999999999999999999999999999999999999999",
        ] {
            assert_eq!(codes(bad).first().map(|c| c.0), Some("unsafe-integer"), "{bad}");
        }
        for ok in [
            "n: 9007199254740991",
            "n: 1.5e10",
            "s: '.inf'",
            "s: \"9007199254740992\"",
            "s: infinity",
            "v: 1.0.0",
        ] {
            assert!(codes(ok).is_empty(), "{ok}");
        }
    }

    #[test]
    fn deep_nesting_stops_early_and_fast() {
        let n = 100_000;
        let text = format!("x: {}{}\n", "[".repeat(n), "]".repeat(n));
        let t = std::time::Instant::now();
        assert_eq!(codes(&text).first().map(|c| c.0), Some("too-deep"));
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        let block = format!("{}1\n", "- ".repeat(n));
        assert_eq!(codes(&block).first().map(|c| c.0), Some("too-deep"));
    }

    #[test]
    fn a_syntax_error_before_deep_nesting_is_reported_here() {
        let n = 100_000;
        let text = format!("a: [1\nb: 'x\n{}{}\n", "[".repeat(n), "]".repeat(n));
        assert_eq!(codes(&text).first().map(|c| c.0), Some("yaml-syntax"));
        // A shallow text with a syntax error is left to the loader's parser and its message.
        assert!(codes("a: [1\nb: 2\n").is_empty());
    }

    #[test]
    fn regular_expressions_are_ecmascript() {
        for ok in [r"^[0-9A-Za-z]+$", r"\b(medium|high)\b", r"(?<n>a)\k<n>", r"a+?"] {
            assert_eq!(check_regex(ok, "", true), Ok(()), "{ok}");
        }
        for bad in [r"(?i)abc", r"(?P<n>a)", r"a++", r"[", r"\p{Foo}"] {
            assert!(check_regex(bad, "", true).is_err(), "{bad}");
        }
        assert!(check_regex("a", "ii", false).is_err());
        assert!(check_regex("a", "g", false).is_err());
        assert!(check_regex("a", "iu", false).is_ok());
        // Valid without `u`, not with it: a schema pattern must work for both kinds of host.
        assert!(check_regex(r"\-", "", false).is_ok());
        assert!(check_regex(r"\-", "", true).is_err());
    }
}
