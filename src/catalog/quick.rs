//! The one-pass reading of a plain catalog: the text is parsed once, into yaml-rust2's events,
//! checked on the way as [`super::values`] checks a text, and typed straight from the tree they
//! build. The full reading parses every text twice (the value checks on yaml-rust2's events,
//! the typing with serde_yaml), which is most of a large catalog's load.
//!
//! It reads only a subset of YAML, on which it agrees with serde_yaml: no tags, anchors or
//! aliases, one document, scalar keys; a plain scalar is typed by serde_yaml's own rules,
//! ported below. Anything else, and anything the value checks or the typing would report,
//! gives `None`: the loader then reads the text the full way, which reports the problem with
//! serde_yaml's message, line and column. So a catalog reads the same either way (the tests
//! compare both on every catalog in the repository), and a broken one is reported exactly as
//! before.

use super::values::{number_problem, starts_like_number};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// Reads `text` as a `T` in one pass, or `None` when it is not plain (see the module). Nesting
/// deeper than `max_depth` is left to the full reading.
pub fn read<T: DeserializeOwned>(text: &str, max_depth: usize) -> Option<T> {
    T::deserialize(tree(text, max_depth)?).ok()
}

/// A node of a plain document.
enum Node {
    Scalar { value: String, plain: bool },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// A collection being built, and for a mapping the key whose value comes next.
enum Frame {
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>, Option<Node>),
}

/// Parses a plain document into its tree, checking what [`super::values::check_text`] checks:
/// no duplicate key in any mapping, no number JavaScript cannot hold, no deep nesting.
fn tree(text: &str, max_depth: usize) -> Option<Node> {
    let mut parser = Parser::new_from_str(text);
    let (mut stack, mut root, mut documents) = (Vec::<Frame>::new(), None, 0);
    loop {
        let (event, _) = parser.next_token().ok()?;
        let node = match event {
            Event::StreamEnd => return root,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
                continue;
            }
            Event::Alias(_) | Event::Nothing => return None,
            Event::Scalar(_, _, anchor, tag) | Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return None;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= max_depth {
                    return None;
                }
                stack.push(match event {
                    Event::SequenceStart(..) => Frame::Seq(Vec::new()),
                    _ => Frame::Map(Vec::new(), None),
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop()? {
                Frame::Seq(items) => Node::Seq(items),
                Frame::Map(entries, None) if unique_keys(&entries) => Node::Map(entries),
                Frame::Map(..) => return None,
            },
            Event::Scalar(value, style, ..) => {
                let plain = style == TScalarStyle::Plain;
                let is_key = matches!(stack.last(), Some(Frame::Map(_, None)));
                if plain && !is_key && starts_like_number(&value) && number_problem(&value).is_some() {
                    return None;
                }
                Node::Scalar { value, plain }
            }
            Event::StreamStart | Event::DocumentEnd => continue,
        };
        match stack.last_mut() {
            None if root.is_none() => root = Some(node),
            None => return None,
            Some(Frame::Seq(items)) => items.push(node),
            // Only a scalar key: a mapping or sequence as a key is left to the full reading.
            Some(Frame::Map(_, key @ None)) if matches!(node, Node::Scalar { .. }) => *key = Some(node),
            Some(Frame::Map(_, None)) => return None,
            Some(Frame::Map(entries, key)) => entries.push((key.take()?, node)),
        }
    }
}

fn key(node: &Node) -> &str {
    match node {
        Node::Scalar { value, .. } => value,
        _ => "",
    }
}

/// Whether every key of a mapping is different (keys are scalars, compared by their text).
fn unique_keys(entries: &[(Node, Node)]) -> bool {
    if entries.len() <= 16 {
        return entries
            .iter()
            .enumerate()
            .all(|(i, (k, _))| entries[..i].iter().all(|(other, _)| key(other) != key(k)));
    }
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    entries.iter().all(|(k, _)| seen.insert(key(k)))
}

// How serde_yaml 0.9 reads an untagged plain scalar (`serde_yaml::de`, MIT OR Apache-2.0),
// ported so that both readings agree: null, then a boolean, then an integer (decimal, `0x`,
// `0o`, `0b`, with a sign), then a finite float, else text. Only what a plain catalog can hold
// is ported: [`tree`] has already refused infinities, NaN and integers past ±2^53 (the value
// checks), so serde_yaml's `u128`/`i128` and `.inf`/`.nan` readings are never needed.

/// serde_yaml's null (`parse_null`, and the empty scalar).
fn is_null(v: &str) -> bool {
    matches!(v, "" | "~" | "null" | "Null" | "NULL")
}

/// serde_yaml's boolean (`parse_bool`).
fn plain_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Leading zeros followed by digits are text in YAML 1.2 (`digits_but_not_number`).
fn digits_but_not_number(scalar: &str) -> bool {
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar[1..].bytes().all(|b| b.is_ascii_digit())
}

/// `0x`, `0o` and `0b` digits: `Some(None)` when a sign follows the prefix (not a number),
/// `None` when there is no prefix or the digits do not parse.
fn radix_int<T>(s: &str, parse: fn(&str, u32) -> Result<T, std::num::ParseIntError>) -> Option<Option<T>> {
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = s.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return Some(None);
            }
            if let Ok(int) = parse(rest, radix) {
                return Some(Some(int));
            }
        }
    }
    None
}

/// `-0x`, `-0o` and `-0b` integers.
fn negative_radix_int(scalar: &str) -> Option<i64> {
    [("-0x", 16), ("-0o", 8), ("-0b", 2)]
        .into_iter()
        .find_map(|(prefix, radix)| {
            let rest = scalar.strip_prefix(prefix)?;
            i64::from_str_radix(&format!("-{rest}"), radix).ok()
        })
}

/// `parse_unsigned_int`.
fn unsigned_int(scalar: &str) -> Option<u64> {
    let unpositive = scalar.strip_prefix('+').unwrap_or(scalar);
    if let Some(found) = radix_int(unpositive, u64::from_str_radix) {
        return found;
    }
    if unpositive.starts_with(['+', '-']) || digits_but_not_number(scalar) {
        return None;
    }
    unpositive.parse().ok()
}

/// `parse_negative_int`.
fn negative_int(scalar: &str) -> Option<i64> {
    if let Some(int) = negative_radix_int(scalar) {
        return Some(int);
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    scalar.parse().ok()
}

/// The scalar without a leading `+`; `None` for a second sign after it.
fn without_plus(scalar: &str) -> Option<&str> {
    match scalar.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => None,
        Some(u) => Some(u),
        None => Some(scalar),
    }
}

/// `parse_signed_int`: `parse_negative_int` once a `0x`, `0o` or `0b` without a sign is ruled
/// out (Rust's own parsing takes the `+`).
fn signed_int(scalar: &str) -> Option<i64> {
    if let Some(found) = radix_int(without_plus(scalar)?, i64::from_str_radix) {
        return found;
    }
    negative_int(scalar)
}

/// `parse_f64`, for finite floats.
fn float(scalar: &str) -> Option<f64> {
    without_plus(scalar)?.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Why the one-pass reading gave up; never shown (the full reading reports instead).
#[derive(Debug)]
pub struct NotPlain;

impl std::fmt::Display for NotPlain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a plain catalog")
    }
}

impl std::error::Error for NotPlain {}

impl de::Error for NotPlain {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotPlain
    }
}

impl Node {
    fn empty_plain(&self) -> bool {
        matches!(self, Node::Scalar { value, plain: true } if value.is_empty())
    }

    /// A plain scalar read by `parse`, as serde_yaml reads booleans and numbers: only from a
    /// plain scalar.
    fn plain<T>(self, parse: impl FnOnce(&str) -> Option<T>) -> Result<T, NotPlain> {
        match self {
            Node::Scalar { value, plain: true } => parse(&value).ok_or(NotPlain),
            _ => Err(NotPlain),
        }
    }
}

/// Methods serde_yaml implements by another, narrower or wider (`deserialize_i8` parses an
/// `i64` and lets the visitor check its range).
macro_rules! forward {
    ($($($from:ident)+ => $to:ident),+ $(,)?) => {
        $($(
            fn $from<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
                self.$to(visitor)
            }
        )+)+
    };
}

/// Methods no catalog type uses: left to the full reading.
macro_rules! unsupported {
    ($($name:ident)+) => {
        $(
            fn $name<V: Visitor<'de>>(self, _: V) -> Result<V::Value, NotPlain> {
                Err(NotPlain)
            }
        )+
    };
}

/// Typing follows serde_yaml's `DeserializerFromEvents` for untagged nodes, method by method;
/// where serde_yaml would need more than the subset, the reading gives up.
impl<'de> de::Deserializer<'de> for Node {
    type Error = NotPlain;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self {
            Node::Scalar { value, plain: false } => visitor.visit_string(value),
            // `visit_untagged_scalar`.
            Node::Scalar { value, plain: true } => {
                let v = value.as_str();
                if is_null(v) {
                    visitor.visit_unit()
                } else if let Some(b) = plain_bool(v) {
                    visitor.visit_bool(b)
                } else if let Some(n) = unsigned_int(v) {
                    visitor.visit_u64(n)
                } else if let Some(n) = negative_int(v) {
                    visitor.visit_i64(n)
                } else if let Some(f) = float(v).filter(|_| !digits_but_not_number(v)) {
                    visitor.visit_f64(f)
                } else {
                    visitor.visit_string(value)
                }
            }
            Node::Seq(items) => visitor.visit_seq(de::value::SeqDeserializer::new(items.into_iter())),
            Node::Map(entries) => visitor.visit_map(de::value::MapDeserializer::new(entries.into_iter())),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_bool(self.plain(plain_bool)?)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_i64(self.plain(signed_int)?)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_u64(self.plain(unsigned_int)?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_f64(self.plain(float)?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self {
            Node::Scalar { value, .. } => visitor.visit_string(value),
            _ => Err(NotPlain),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match &self {
            Node::Scalar { value, plain: true } if is_null(value) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self {
            Node::Scalar { value, plain: true } if is_null(&value) => visitor.visit_unit(),
            _ => Err(NotPlain),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, NotPlain> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self {
            Node::Seq(items) => visitor.visit_seq(de::value::SeqDeserializer::new(items.into_iter())),
            n if n.empty_plain() => visitor.visit_seq(de::value::SeqDeserializer::new(std::iter::empty::<Node>())),
            _ => Err(NotPlain),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        match self {
            Node::Map(entries) => visitor.visit_map(de::value::MapDeserializer::new(entries.into_iter())),
            n if n.empty_plain() => {
                visitor.visit_map(de::value::MapDeserializer::new(std::iter::empty::<(Node, Node)>()))
            }
            _ => Err(NotPlain),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotPlain> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotPlain> {
        // Untagged, serde_yaml reads only a unit variant, from a scalar.
        match self {
            Node::Scalar { value, .. } => {
                visitor.visit_enum(de::value::StringDeserializer::<NotPlain>::new(value).into_deserializer())
            }
            _ => Err(NotPlain),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotPlain> {
        visitor.visit_unit()
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, NotPlain> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, NotPlain> {
        self.deserialize_seq(visitor)
    }

    unsupported! { deserialize_i128 deserialize_u128 deserialize_bytes deserialize_byte_buf }

    forward! {
        deserialize_i8 deserialize_i16 deserialize_i32 => deserialize_i64,
        deserialize_u8 deserialize_u16 deserialize_u32 => deserialize_u64,
        deserialize_f32 => deserialize_f64,
        deserialize_char deserialize_string deserialize_identifier => deserialize_str,
    }
}

impl<'de> IntoDeserializer<'de, NotPlain> for Node {
    type Deserializer = Node;
    fn into_deserializer(self) -> Node {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each snippet reads as serde_yaml reads it, or not at all; the plain ones are read.
    #[test]
    fn plain_scalars_are_typed_as_serde_yaml_types_them_and_the_rest_is_left_to_it() {
        let read = |t: &str| read::<serde_json::Value>(t, 64);
        let plain = [
            "a: 1",
            "a: -12",
            "a: 0",
            "a: '1'",
            "a: \"0x1F\"",
            "a: ~",
            "a:",
            "a: null",
            "a: NULL",
            "a: yes",
            "a: no",
            "a: True",
            "a: FALSE",
            "a: nan",
            "a: inf",
            "a: hello world",
            "a: |\n  two\n  lines\n",
            "a: >-\n  folded\n  text\n",
            "a: [1, x, {b: c}]",
            "a: {}\nb: []",
            "a: \"tab\\tand \\u00e9\"",
            "- 1\n- - 2\n  - 3\n",
            "a: 1.5",
            "a: -2.5e3",
            "a: 0x1F",
            "a: -0x1F",
            "a: 0o17",
            "a: 0b101",
            "a: 0x+1",
            "a: +1",
            "a: +-1",
            "a: 007",
            "a: -007",
            "a: -0",
            "a: 1e3",
            "a: 1.0.3",
            "a: --kind",
            "a: .ralph/store",
            "a: 9007199254740991",
        ];
        for t in plain {
            let full: serde_json::Value = serde_yaml::from_str(t).unwrap();
            assert_eq!(read(t).as_ref(), Some(&full), "{t:?}");
        }
        let full_way = [
            "a: .inf",
            "a: -.inf",
            "a: .nan",
            "a: 1e400",
            "a: 12345678901234567890",
            "a: !!str 1",
            "a: &x 1\nb: *x",
            "a: 1\na: 2",
            "a: 1\n---\nb: 2",
            "? [x]\n: 1",
            "a: [unclosed",
        ];
        for t in full_way {
            assert_eq!(read(t), None, "{t:?}");
        }
    }

    /// Typed fields take what serde_yaml gives them: any scalar as text, an integer only from a
    /// plain one, a unit variant from a scalar.
    #[test]
    fn typed_fields_read_as_serde_yaml_reads_them() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "snake_case")]
        enum Kind {
            One,
            Two,
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct T {
            text: String,
            n: Option<u32>,
            on: Option<bool>,
            kind: Kind,
            #[serde(default)]
            list: Vec<String>,
        }
        for t in [
            "text: 12\nn: 3\non: true\nkind: two\nlist: [a, 1, 'b']",
            "text: 'x'\nn: ~\nkind: one\nlist:",
            "text: yes\nkind: \"two\"",
        ] {
            let full: T = serde_yaml::from_str(t).unwrap();
            assert_eq!(read::<T>(t, 64), Some(full), "{t:?}");
        }
        // Signed integers and floats, where serde_yaml has rules of its own for signs.
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Signed {
            v: i64,
            f: f64,
        }
        for v in [
            "5", "+5", "-7", "0x1F", "-0x1F", "0o17", "-0b101", "+-1", "007", "-0", "+", "1.5",
        ] {
            let t = format!("v: {v}\nf: {v}");
            let full = serde_yaml::from_str::<Signed>(&t).ok();
            assert_eq!(read::<Signed>(&t, 64), full, "{t:?}");
        }
        for t in [
            "text: a\nn: '3'\nkind: one",
            "text: a\nkind: three",
            "text: a\nkind: one\nother: 1",
        ] {
            assert!(serde_yaml::from_str::<T>(t).is_err(), "{t:?}");
            assert_eq!(read::<T>(t, 64), None, "{t:?}");
        }
    }
}
