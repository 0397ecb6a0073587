//! The one YAML reader: text → a tree with a position on every node → typed values.
//!
//! yaml-rust2's marked events build the tree ([`parse`]); a serde `Deserializer` over the tree
//! types it in one pass ([`from_node`]); when that fails, `serde_path_to_error` names the path
//! of what is wrong (`tools[0].params.limit`) and the node's own position says where. The catalog loader
//! (`super::load`), the run's context flags, the locating of later diagnostics ([`Located`])
//! and `build.rs` all read YAML through this module and nothing else.
//!
//! What this module must not do: hand any text to anything before its own checks ran. The
//! size limit comes first; control characters are refused before the parser sees them (the
//! parser takes a NUL for the end of the text); the depth and node-count limits and the
//! duplicate-key and number checks run while the tree is built, event by event, so a hostile
//! text stops at its first sign and nothing quadratic ever runs on it. It knows nothing of the
//! catalog's types or of diagnostics (`build.rs` compiles it alone), and it writes nothing.
//!
//! Typing follows the YAML 1.2 core schema as serde_yaml 0.9 applied it, which catalogs rely
//! on: `~`, `null` and an empty value are null; `true`/`false` (also capitalised or upper
//! case) are booleans; decimal, `0x`, `0o` and `0b` integers and finite floats are numbers,
//! except digits with a leading zero (`007`), which stay text; a quoted scalar is always text.

use serde::de::{self, Deserializer, IntoDeserializer, Visitor};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Largest text read, in bytes. The largest real catalogs (10,000 tools) are a few MB; past
/// this, every later stage would cost seconds and memory for nothing.
pub const MAX_BYTES: usize = 32 << 20;
/// Deepest nesting of mappings and sequences. A catalog needs about a dozen levels (a tool's
/// step's condition's `all`'s `any`…).
pub const MAX_DEPTH: usize = 64;
/// Most nodes (scalars, sequences, mappings) in a document, aliases counted as the nodes they
/// copy: a few aliases can otherwise stand for billions of nodes. A catalog of 10,000 tools
/// has about 900,000, so one at the size limit about 4 million.
pub const MAX_NODES: usize = 1 << 23;
/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

/// A 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    pub line: u32,
    pub col: u32,
}

impl Mark {
    fn of(m: &Marker) -> Mark {
        Mark {
            line: m.line() as u32,
            col: m.col() as u32 + 1,
        }
    }

    /// Where the character after `before` (the text up to it) is.
    pub fn after(before: &str) -> Mark {
        Mark {
            line: before.matches('\n').count() as u32 + 1,
            col: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1,
        }
    }
}

/// A node of the document and where it starts.
#[derive(Debug, Clone)]
pub struct Node {
    pub mark: Mark,
    pub value: Value,
}

#[derive(Debug, Clone)]
pub enum Value {
    /// A scalar's text, and whether it is plain (unquoted and untagged, or tagged with a core
    /// type other than `str`): only a plain scalar can be null, a boolean or a number.
    Scalar {
        text: String,
        plain: bool,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
    /// An alias of a collection (of anything, in a tree read only to locate paths): the
    /// anchored node, held once however many aliases name it. A catalog written by a program
    /// can hold tens of thousands of aliases of a few shared blocks; copied at each, they were
    /// most of a large catalog's tree. Typing copies the node out where an alias is read, one
    /// at a time (the last alias takes it whole).
    Alias(Arc<Node>),
}

impl Node {
    /// The null of nothing at all, at `mark`.
    fn null(mark: Mark) -> Node {
        Node {
            mark,
            value: Value::Scalar {
                text: String::new(),
                plain: true,
            },
        }
    }

    /// Whether this is the null scalar (`~`, `null`, or nothing at all).
    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true } if is_null(text))
    }
}

/// Why a text could not be read or typed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// A diagnostic code; `yaml` for an error from the typing, whose message is serde's.
    pub code: &'static str,
    pub message: String,
    /// How to fix it (empty for a typing error: its message decides).
    pub help: &'static str,
    pub mark: Mark,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Mark { line, col } = self.mark;
        write!(f, "{} at line {line} column {col}", self.message)
    }
}

impl std::error::Error for Error {}

fn error(code: &'static str, mark: Mark, message: impl Into<String>, help: &'static str) -> Error {
    Error {
        code,
        message: message.into(),
        help,
        mark,
    }
}

pub const SYNTAX_HELP: &str =
    "fix the YAML syntax at this position (indentation, a missing `:` or an unclosed quote or bracket)";

/// Reads a whole text as a `T`: [`parse`], then [`from_node`].
pub fn from_str<T: de::DeserializeOwned>(text: &str) -> Result<T, Error> {
    from_node(parse(text)?, || parse(text))
}

/// Reads a reader into memory (into a buffer of `capacity` bytes to start with), but never more
/// than [`MAX_BYTES`] + 1 bytes: a longer input (`/dev/zero`) is cut there, and [`parse`]
/// refuses it by its length.
pub fn read_bounded(r: impl std::io::Read, capacity: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(capacity);
    std::io::Read::read_to_end(&mut std::io::Read::take(r, MAX_BYTES as u64 + 1), &mut bytes)?;
    Ok(bytes)
}

/// [`read_bounded`] of the file at `path`, into a buffer of the file's size: grown by doubling,
/// a 2.7 MB catalog took 4 MB, held for the whole run (its text locates diagnostics).
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata().map_or(0, |m| m.len()).min(MAX_BYTES as u64 + 1);
    read_bounded(file, len as usize)
}

/// Parses a text into its tree (a leading byte order mark is skipped). An empty text is the
/// null scalar.
pub fn parse(text: &str) -> Result<Node, Error> {
    Builder::default().read(text)
}

/// Parses a text, and stops as soon as the top-level mapping's `key` has been read: the tree
/// is then that mapping with that entry alone. For a value the command line needs before
/// anything else (its flags), without the cost of a large catalog's tree: the other top-level
/// values are scanned, not built (a null stands for each).
pub fn parse_key(text: &str, key: &str) -> Result<Node, Error> {
    Builder {
        stop_after: Some(&[key]),
        ..Default::default()
    }
    .read(text)
}

/// Refuses a character YAML does not allow in a document (C0 and C1 controls but tab, line
/// feed, carriage return and next line; DEL; U+FFFE and U+FFFF), at its position. The parser
/// would read a NUL as the end of the text, and the others as part of a value.
fn check_characters(text: &str) -> Result<(), Error> {
    let bytes = text.as_bytes();
    // Only these bytes can start a refused character: ASCII controls, DEL, and the lead bytes
    // of U+0080–U+009F (0xC2) and U+FFFE–U+FFFF (0xEF).
    let suspect = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f || b == 0xc2 || b == 0xef;
    let mut from = 0;
    while let Some(at) = bytes[from..].iter().position(|&b| suspect(b)).map(|i| from + i) {
        from = at + 1;
        let c = text[at..].chars().next().expect("a character starts at a lead byte");
        // Every suspect ASCII byte is refused; of the rest, C1 controls but U+0085 and the
        // two non-characters.
        let refused = c.is_ascii() || matches!(c, '\u{80}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}');
        if refused {
            return Err(error(
                "control-char",
                Mark::after(&text[..at]),
                format!("the catalog has a control character (U+{:04X}) here", c as u32),
                "remove it; in a double-quoted string it can be written as an escape (`\\u0001`)",
            ));
        }
    }
    Ok(())
}

/// A collection being built: its node holds the items or entries read so far.
struct Frame {
    node: Node,
    anchor: usize,
    first_node: usize,
    /// A mapping's key, until its value is read.
    key: Option<Node>,
    /// A mapping's keys so far, once it is too large to compare them one by one.
    seen: Option<HashSet<String>>,
}

#[derive(Default)]
struct Builder<'k> {
    stack: Vec<Frame>,
    /// Building a tree to locate paths in ([`Located`]): an alias is one node, even of a
    /// scalar, and values' text is dropped.
    locating: bool,
    /// Each anchored node and how many nodes it holds, for aliases to share.
    anchors: HashMap<usize, (Arc<Node>, usize)>,
    nodes: usize,
    /// The top-level keys wanted ([`parse_key`], [`Located::for_paths`]): the reader stops once
    /// it has read them all.
    stop_after: Option<&'k [&'k str]>,
    /// How deep inside a top-level value not wanted the reader is (0: not in one).
    skipping: usize,
}

/// Where an event stands when only some top-level keys are wanted: in a value it builds,
/// inside one it skips, or at the end of one it skipped (a null then stands for the value).
enum Skip {
    No,
    Inside,
    Ended,
}

impl<'k> Builder<'k> {
    /// Checks the text's size and characters, then builds its tree.
    fn read(&mut self, text: &str) -> Result<Node, Error> {
        if text.len() > MAX_BYTES {
            return Err(error(
                "too-large",
                Mark { line: 1, col: 1 },
                format!("the catalog is larger than the limit of {} MiB", MAX_BYTES >> 20),
                "split the product's tools into several catalogs",
            ));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        check_characters(text)?;
        let mut parser = Parser::new_from_str(text);
        let mut root = None;
        loop {
            let (event, marker) = parser.next_token().map_err(|e| {
                // The scanner reads ahead, and stops at a nesting limit of its own (above this
                // reader's) before this reader sees the events: that is the same fault.
                if e.info().contains("recursion limit") {
                    too_deep(Mark::of(e.marker()))
                } else {
                    error("yaml-syntax", Mark::of(e.marker()), e.info(), SYNTAX_HELP)
                }
            })?;
            let mark = Mark::of(&marker);
            // The depth of a collection skipped counts as much as that of one built.
            let starts = matches!(event, Event::SequenceStart(..) | Event::MappingStart(..));
            if starts && self.stack.len() + self.skipping >= MAX_DEPTH {
                return Err(too_deep(mark));
            }
            let node = match self.skip(&event, starts) {
                Skip::Inside => continue,
                Skip::Ended => Node::null(mark),
                Skip::No => match event {
                    Event::StreamEnd => break,
                    // The first document's root is read (an empty one is a null): another follows.
                    Event::DocumentStart if root.is_some() => {
                        return Err(error(
                            "yaml-syntax",
                            mark,
                            "the catalog has more than one YAML document",
                            "keep one document: remove what follows its end (a `---` or `...` line)",
                        ));
                    }
                    Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => continue,
                    Event::Alias(id) => {
                        let (anchored, count) = self.anchors.get(&id).cloned().ok_or_else(|| {
                            error("yaml-syntax", mark, "an alias names no anchor before it", SYNTAX_HELP)
                        })?;
                        // Counted as what typing copies: the count is what stops an alias bomb.
                        self.count(if self.locating { 1 } else { count }, mark)?;
                        // A scalar is copied (a key must be one to be compared with the others).
                        let value = match &anchored.value {
                            Value::Scalar { .. } if !self.locating => anchored.value.clone(),
                            _ => Value::Alias(anchored),
                        };
                        Node { mark, value }
                    }
                    Event::Scalar(text, style, anchor, tag) => {
                        self.count(1, mark)?;
                        let plain = match tag {
                            None => style == TScalarStyle::Plain,
                            // A core type's tag: typed as a plain scalar, or text (`!!str`).
                            Some(t) => match t.suffix.as_str() {
                                "str" => false,
                                "null" | "bool" | "int" | "float" => true,
                                _ => {
                                    return Err(error(
                                        "yaml-syntax",
                                        mark,
                                        format!("the tag `{}{}` is not supported", t.handle, t.suffix),
                                        "remove the tag; a catalog's values need none",
                                    ));
                                }
                            },
                        };
                        let is_key = (self.stack.last())
                            .is_some_and(|f| f.key.is_none() && matches!(f.node.value, Value::Map(_)));
                        if plain && !is_key {
                            number_problem(&text, mark)?;
                        }
                        // A tree read to locate paths walks keys only: a value's text (most of a
                        // catalog's bytes: descriptions, templates) is not kept.
                        let mut text = if self.locating && !is_key { String::new() } else { text };
                        text.shrink_to_fit();
                        let node = Node {
                            mark,
                            value: Value::Scalar { text, plain },
                        };
                        if anchor != 0 {
                            self.anchors.insert(anchor, (Arc::new(node.clone()), 1));
                        }
                        node
                    }
                    Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                        self.count(1, mark)?;
                        let value = match event {
                            Event::SequenceStart(..) => Value::Seq(Vec::new()),
                            _ => Value::Map(Vec::new()),
                        };
                        self.stack.push(Frame {
                            node: Node { mark, value },
                            anchor,
                            first_node: self.nodes,
                            key: None,
                            seen: None,
                        });
                        continue;
                    }
                    Event::SequenceEnd | Event::MappingEnd => {
                        let Frame {
                            mut node,
                            anchor,
                            first_node,
                            ..
                        } = self.stack.pop().expect("the parser balances its events");
                        // Without its spare capacity: a large catalog's tree is most of a load's
                        // memory, and a list (or a scalar's text) grown by doubling holds up to
                        // twice what it uses.
                        match &mut node.value {
                            Value::Seq(items) => items.shrink_to_fit(),
                            Value::Map(entries) => entries.shrink_to_fit(),
                            Value::Scalar { .. } | Value::Alias(_) => {}
                        }
                        if anchor != 0 {
                            let count = self.nodes - first_node + 1;
                            self.anchors.insert(anchor, (Arc::new(node.clone()), count));
                        }
                        node
                    }
                },
            };
            if let Some(done) = self.add(node)? {
                if self.stack.is_empty() {
                    root = Some(done);
                } else {
                    // Stopped early: the top mapping holds only the wanted entries.
                    return Ok(done);
                }
            }
        }
        Ok(root.unwrap_or_else(|| Node::null(Mark { line: 1, col: 1 })))
    }

    /// Skips the collections that are top-level values of keys not wanted ([`parse_key`],
    /// [`Located::for_paths`]): the command line's flags and a few warnings' positions should
    /// not cost a large catalog's whole tree. Their nesting is still held to the limit; their
    /// scalars are only scanned.
    fn skip(&mut self, event: &Event, starts: bool) -> Skip {
        if self.skipping == 0 {
            let unwanted = matches!(
                (self.stop_after, self.stack.as_slice()),
                (Some(want), [Frame { key: Some(k), .. }]) if key_text(k).is_none_or(|k| !want.contains(&k.as_str()))
            );
            if !(starts && unwanted) {
                return Skip::No;
            }
        }
        match event {
            _ if starts => self.skipping += 1,
            Event::SequenceEnd | Event::MappingEnd => self.skipping -= 1,
            _ => {}
        }
        if self.skipping == 0 { Skip::Ended } else { Skip::Inside }
    }

    fn count(&mut self, n: usize, mark: Mark) -> Result<(), Error> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(error(
                "too-many-nodes",
                mark,
                format!("the catalog has more than {MAX_NODES} values here (aliases count as what they copy)"),
                "split the product's tools into several catalogs, or use fewer aliases",
            ));
        }
        Ok(())
    }

    /// Adds a finished node to its parent; returns the root when it is one, or the top mapping
    /// with the wanted entries alone once it has read the last of them.
    fn add(&mut self, node: Node) -> Result<Option<Node>, Error> {
        let depth = self.stack.len();
        let Some(Frame {
            node: map, key, seen, ..
        }) = self.stack.last_mut()
        else {
            return Ok(Some(node));
        };
        match (&mut map.value, key.take()) {
            (Value::Seq(items), _) => items.push(node),
            (Value::Map(entries), None) => {
                // The parser marks a block mapping where its first key ends; it starts there.
                if entries.is_empty() {
                    map.mark = map.mark.min(node.mark);
                }
                if let Value::Scalar { text, plain } = &node.value {
                    // YAML 1.1's merge key: yaml-rust2 (YAML 1.2) reads it as an ordinary key,
                    // which no catalog mapping has, so it would be an unknown key that does not
                    // say why (an editor's YAML 1.1 reader merges it and shows no fault).
                    if *plain && text == "<<" {
                        return Err(error(
                            "merge-key",
                            node.mark,
                            "`<<` (a YAML 1.1 merge key) is not read: ixgen reads YAML 1.2, which has none",
                            "write the keys out; a parameter many tools share goes under the top-level `params:`, named in each tool's `use_params`",
                        ));
                    }
                    let repeated = match seen {
                        Some(seen) => !seen.insert(text.clone()),
                        None => entries.iter().any(|(k, _)| key_text(k) == Some(text)),
                    };
                    if repeated {
                        return Err(error(
                            "duplicate-key",
                            node.mark,
                            format!("duplicate key `{text}`: the mapping already has one"),
                            "a key may appear once in a mapping: remove or rename one",
                        ));
                    }
                    if seen.is_none() && entries.len() >= 16 {
                        let all = entries.iter().filter_map(|(k, _)| key_text(k)).chain([text]);
                        *seen = Some(all.cloned().collect());
                    }
                }
                *key = Some(node);
            }
            (Value::Map(entries), Some(k)) => {
                let want = self.stop_after.filter(|_| depth == 1).unwrap_or_default();
                let wanted = |k: &Node| key_text(k).is_some_and(|k| want.contains(&k.as_str()));
                entries.push((k, node));
                // A key is read once (a second is a duplicate-key error), so all are read when
                // as many entries are wanted as there are wanted keys.
                if !want.is_empty() && entries.iter().filter(|(k, _)| wanted(k)).count() == want.len() {
                    let value = Value::Map(entries.drain(..).filter(|(k, _)| wanted(k)).collect());
                    return Ok(Some(Node { mark: map.mark, value }));
                }
            }
            (Value::Scalar { .. } | Value::Alias(_), _) => unreachable!("a frame holds a collection"),
        }
        Ok(None)
    }
}

fn too_deep(mark: Mark) -> Error {
    error(
        "too-deep",
        mark,
        format!("the catalog nests deeper than {MAX_DEPTH} levels here"),
        "flatten the structure; no catalog key needs this depth",
    )
}

fn key_text(node: &Node) -> Option<&String> {
    match &node.value {
        Value::Scalar { text, .. } => Some(text),
        _ => None,
    }
}

/// Refuses a plain scalar YAML reads as a number that JSON and TypeScript cannot hold: not
/// finite, or an integer JavaScript would round. Checked on every value, typed or not, because
/// a template or a default can carry it into generated code.
fn number_problem(s: &str, mark: Mark) -> Result<(), Error> {
    let t = s.trim();
    // Only a scalar that starts like a number can be read as one.
    if !t.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '+')) {
        return Ok(());
    }
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    // A decimal number with a fraction or exponent, as YAML 1.2's core schema reads one.
    let float = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+' | '_'));
    let non_finite = matches!(t.to_ascii_lowercase().as_str(), ".inf" | "+.inf" | "-.inf" | ".nan")
        || (float && t.parse::<f64>().is_ok_and(|f| !f.is_finite()));
    if non_finite {
        return Err(error(
            "not-finite",
            mark,
            format!("`{t}` is not a finite number"),
            "use a finite number; JSON and TypeScript have no infinity or NaN literal (quote it if you mean the text)",
        ));
    }
    // An integer (decimal, `0x`, `0o`, `0b`) outside the safe range; too long for an i128 is
    // certainly too large.
    let (digits, radix) = radix(body).unwrap_or((body, 10));
    if !digits.is_empty()
        && digits.chars().all(|c| c.is_digit(radix))
        && i128::from_str_radix(digits, radix).map_or(true, |n| n > MAX_SAFE_INTEGER)
    {
        return Err(error(
            "unsafe-integer",
            mark,
            format!("`{t}` is outside JavaScript's safe integer range (±{MAX_SAFE_INTEGER})"),
            "use a smaller integer; the generated code would round it (quote it if you mean the text)",
        ));
    }
    Ok(())
}

fn radix(s: &str) -> Option<(&str, u32)> {
    [("0x", 16), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find_map(|(prefix, r)| Some((s.strip_prefix(prefix)?, r)))
}

// The typing of a plain scalar (see the module).

fn is_null(v: &str) -> bool {
    matches!(v, "" | "~" | "null" | "Null" | "NULL")
}

/// What a plain scalar is.
enum Typed {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Text,
}

fn typed(v: &str) -> Typed {
    match v {
        _ if is_null(v) => return Typed::Null,
        "true" | "True" | "TRUE" => return Typed::Bool(true),
        "false" | "False" | "FALSE" => return Typed::Bool(false),
        _ => {}
    }
    let (neg, unsigned) = (v.starts_with('-'), v.strip_prefix(['-', '+']).unwrap_or(v));
    // One sign at most, and none after a radix prefix (`0x+1` is text).
    if unsigned.starts_with(['+', '-']) {
        return Typed::Text;
    }
    // Leading zeros followed by digits are text in YAML 1.2 (`007`), not an octal or decimal.
    if unsigned.len() > 1 && unsigned.starts_with('0') && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return Typed::Text;
    }
    let int = match radix(unsigned) {
        Some((digits, _)) if digits.starts_with(['+', '-']) => return Typed::Text,
        Some((digits, r)) => u64::from_str_radix(digits, r).ok(),
        None => unsigned.parse::<u64>().ok(),
    };
    match (int, neg) {
        (Some(n), false) => return Typed::U64(n),
        (Some(n), true) if n <= i64::MIN.unsigned_abs() => return Typed::I64((n as i64).wrapping_neg()),
        _ => {}
    }
    match v.strip_prefix('+').unwrap_or(v).parse::<f64>() {
        Ok(f) if f.is_finite() => Typed::F64(f),
        _ => Typed::Text,
    }
}

/// Types a tree as a `T`. An error names the path of the value (`tools[0].params.limit: …`),
/// as serde_yaml did, and the position of the node it is about. Only an error needs the path,
/// and tracking it costs a third of the typing (17 of 60 ms for 10,000 tools): the tree is
/// typed untracked first, and after an error `again` builds it anew to be typed tracked, which
/// fails the same way and names the path.
pub fn from_node<T: de::DeserializeOwned>(node: Node, again: impl FnOnce() -> Result<Node, Error>) -> Result<T, Error> {
    let root = node.mark;
    if let Ok(typed) = T::deserialize(node) {
        return Ok(typed);
    }
    use serde_path_to_error::Segment;
    serde_path_to_error::deserialize(again()?).map_err(|e| {
        // As serde_path_to_error writes it (`.` for none), but an unknown key's path ends before
        // that key and its dot: the fault is in the mapping around it.
        let mut path = e.path().to_string();
        match e.path().iter().next_back() {
            None => path.clear(),
            Some(Segment::Map { key }) if e.inner().message.starts_with(&format!("unknown field `{key}`")) => {
                path.truncate((path.len() - key.len()).saturating_sub(1));
            }
            _ => {}
        }
        let mut inner = e.into_inner().claimed(root);
        if !path.is_empty() {
            inner.message = format!("{path}: {}", inner.message);
        }
        inner
    })
}

/// An error while typing: serde's message, at no line (0) until a node claims it.
impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        error("yaml", Mark::default(), msg.to_string(), "")
    }
}

impl Error {
    /// This error, at `mark` unless a node claimed it already.
    fn claimed(mut self, mark: Mark) -> Error {
        if self.mark == Mark::default() {
            self.mark = mark;
        }
        self
    }
}

impl Node {
    /// Types this node by the visitor's call, and claims an error no node below claimed: the
    /// innermost node an error comes from is where it is reported.
    fn visit<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        f: impl FnOnce(Value, V) -> Result<V::Value, Error>,
    ) -> Result<V::Value, Error> {
        let mark = self.mark;
        f(self.value, visitor).map_err(|e| e.claimed(mark))
    }

    /// Types this node as `empty` (an empty sequence or mapping) when it is an empty value
    /// (`tools:` with nothing after it), and as itself otherwise.
    fn or_empty<'de, V: Visitor<'de>>(self, empty: Value, visitor: V) -> Result<V::Value, Error> {
        match &self.value {
            Value::Scalar { text, plain: true } if text.is_empty() => any(empty, visitor),
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }
}

fn any<'de, V: Visitor<'de>>(value: Value, visitor: V) -> Result<V::Value, Error> {
    match value {
        Value::Scalar { text, plain: false } => visitor.visit_string(text),
        Value::Scalar { text, plain: true } => match typed(&text) {
            Typed::Null => visitor.visit_unit(),
            Typed::Bool(b) => visitor.visit_bool(b),
            Typed::U64(n) => visitor.visit_u64(n),
            Typed::I64(n) => visitor.visit_i64(n),
            Typed::F64(f) => visitor.visit_f64(f),
            Typed::Text => visitor.visit_string(text),
        },
        // Each visits its items, then refuses any the visitor left (`end`).
        Value::Seq(items) => de::value::SeqDeserializer::new(items.into_iter()).deserialize_any(visitor),
        Value::Map(entries) => de::value::MapDeserializer::new(entries.into_iter()).deserialize_any(visitor),
        // The anchored node's copy, or the node itself for the last alias that reads it.
        Value::Alias(anchored) => any(Arc::unwrap_or_clone(anchored).value, visitor),
    }
}

/// Methods that read a node the way another does, whatever else they are given (the `[types]`
/// of their arguments before the visitor).
macro_rules! forward {
    ($($($from:ident $([$($arg:ty),+])?)+ => $to:ident),+ $(,)?) => {
        $($(
            fn $from<V: Visitor<'de>>(self, $($(_: $arg,)+)? visitor: V) -> Result<V::Value, Error> {
                self.$to(visitor)
            }
        )+)+
    };
}

impl<'de> de::Deserializer<'de> for Node {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.visit(visitor, any)
    }

    /// Any scalar is text where text is wanted, whatever it would otherwise be typed as; a
    /// null (`~`, `null`) is no text, as nothing at all is.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.visit(visitor, |value, visitor| match value {
            Value::Scalar { plain: true, text } if is_null(&text) => visitor.visit_string(String::new()),
            Value::Scalar { text, .. } => visitor.visit_string(text),
            other => any(other, visitor),
        })
    }

    /// A struct is read from a mapping only: serde's derived visitor would also fill its
    /// fields in order from a sequence (`author: [Demo]`).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.value {
            Value::Seq(_) => self.visit(visitor, |_, v| Err(de::Error::invalid_type(de::Unexpected::Seq, &v))),
            _ => self.deserialize_map(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.or_empty(Value::Seq(Vec::new()), visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.or_empty(Value::Map(Vec::new()), visitor)
    }

    /// A unit variant, from a scalar: the only enum form a catalog uses.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.visit(visitor, |value, visitor| match value {
            Value::Scalar { text, .. } => visitor.visit_enum(text.into_deserializer()),
            other => any(other, visitor),
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A whole number where one is wanted, also written as a whole float (`4000.0`), as JSON
    /// Schema and JavaScript read it: the catalog's schema lets an editor pass it. Where any
    /// number is wanted (a `number` parameter's default), `10.0` stays as written.
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.visit(visitor, |value, visitor| match value {
            Value::Scalar { text, plain: true } => match typed(&text) {
                Typed::F64(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                    if f < 0.0 {
                        visitor.visit_i64(f as i64)
                    } else {
                        visitor.visit_u64(f as u64)
                    }
                }
                _ => any(Value::Scalar { text, plain: true }, visitor),
            },
            other => any(other, visitor),
        })
    }

    forward! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128 => deserialize_i64,
        deserialize_bool deserialize_f32 deserialize_f64 deserialize_unit deserialize_bytes deserialize_byte_buf
        deserialize_unit_struct[&'static str] deserialize_ignored_any => deserialize_any,
        deserialize_char deserialize_string deserialize_identifier => deserialize_str,
        deserialize_tuple[usize] deserialize_tuple_struct[&'static str, usize] => deserialize_seq,
    }
}

impl<'de> IntoDeserializer<'de, Error> for Node {
    type Deserializer = Node;
    fn into_deserializer(self) -> Node {
        self
    }
}

/// A parsed document kept to locate paths in it: a diagnostic found on the typed catalog names
/// a path (`tools[3].params.limit`), and this turns it back into a position. Its aliases are
/// not copied: a path through one goes on in the anchored node, as a copy's would.
#[derive(Default)]
pub struct Located {
    root: Option<Node>,
}

/// Where a node is: its value, and its key when it sits in a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeLoc {
    pub key: Option<Mark>,
    pub value: Mark,
}

impl Located {
    /// Parses `text` (with the limits of [`parse`], an alias counted as one node); a text that
    /// does not parse locates nothing.
    pub fn new(text: &str) -> Located {
        Self::read(text, None).unwrap_or_default()
    }

    /// Parses `text` as far as `paths` need: the top-level values they go through, read until
    /// the last of them (a large catalog's warnings are about its toolsets, which come long
    /// before its tools). `None` when there is no path.
    pub fn for_paths<'p>(text: &str, paths: impl IntoIterator<Item = &'p str>) -> Option<Located> {
        let mut keys = Vec::new();
        for path in paths {
            // A top-level key has no dot: the catalog has no such key, and an unknown key is an
            // error of the reader, which carries its own position.
            let key = &path[..path.find(['.', '[']).unwrap_or(path.len())];
            if key.is_empty() {
                return Some(Self::new(text));
            }
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        // A part that does not read alone (an alias of an anchor in a part not read) is read
        // with the whole text.
        (!keys.is_empty()).then(|| Self::read(text, Some(&keys)).unwrap_or_else(|| Self::new(text)))
    }

    fn read(text: &str, keys: Option<&[&str]>) -> Option<Located> {
        let mut builder = Builder {
            locating: true,
            stop_after: keys,
            ..Default::default()
        };
        let root = builder.read(text).ok()?;
        Some(Located { root: Some(root) })
    }

    /// The node an alias stands for, or the node itself.
    fn resolve(node: &Node) -> &Node {
        match &node.value {
            Value::Alias(anchored) => anchored,
            _ => node,
        }
    }

    /// The node at `path`, or the nearest ancestor that exists.
    pub fn find(&self, path: &str) -> Option<NodeLoc> {
        Some(self.walk(path)?.0)
    }

    /// Whether `path` itself (not only an ancestor) exists.
    pub fn contains(&self, path: &str) -> bool {
        self.walk(path).is_some_and(|(_, whole)| whole)
    }

    /// The deepest node on `path`, and whether it is the whole path.
    fn walk(&self, path: &str) -> Option<(NodeLoc, bool)> {
        let mut node = Self::resolve(self.root.as_ref()?);
        let mut loc = NodeLoc {
            key: None,
            value: node.mark,
        };
        let mut rest = path;
        loop {
            // A path that ends with a dot goes on to an empty key (`context.` for `"": …`).
            let dotted = rest.starts_with('.');
            rest = rest.strip_prefix('.').unwrap_or(rest);
            if rest.is_empty() && !dotted {
                return Some((loc, true));
            }
            let next = match &node.value {
                Value::Seq(items) => rest
                    .strip_prefix('[')
                    .and_then(|r| r.split_once(']'))
                    .and_then(|(i, after)| Some((items.get(i.parse::<usize>().ok()?)?, None, after))),
                // A key may hold a dot: the longest key the path goes on from wins, and of two
                // equal keys the last, as serde keeps it.
                Value::Map(entries) => entries
                    .iter()
                    .filter_map(|(k, v)| {
                        let after = rest.strip_prefix(key_text(k)?.as_str())?;
                        (after.is_empty() || after.starts_with(['.', '['])).then_some((v, Some(k.mark), after))
                    })
                    .max_by_key(|(_, _, after)| std::cmp::Reverse(after.len())),
                Value::Scalar { .. } | Value::Alias(_) => None,
            };
            let Some((child, key, after)) = next else {
                return Some((loc, false));
            };
            node = Self::resolve(child);
            loc = NodeLoc { key, value: child.mark };
            rest = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<String, String> {
        from_str::<serde_json::Value>(text)
            .map(|v| v.to_string())
            .map_err(|e| e.to_string())
    }

    /// Plain scalars are typed as serde_yaml 0.9 typed them (each expectation below is what it
    /// gave, checked against it while it was still a dependency), and anything quoted is text.
    #[test]
    fn scalars_are_typed_as_catalogs_rely_on() {
        let cases = [
            ("a: 1", r#"{"a":1}"#),
            ("a: -12", r#"{"a":-12}"#),
            ("a: +1", r#"{"a":1}"#),
            ("a: -0", r#"{"a":0}"#),
            ("a: 0x1F", r#"{"a":31}"#),
            ("a: -0x1F", r#"{"a":-31}"#),
            ("a: 0o17", r#"{"a":15}"#),
            ("a: 0b101", r#"{"a":5}"#),
            ("a: 9007199254740991", r#"{"a":9007199254740991}"#),
            ("a: -9007199254740991", r#"{"a":-9007199254740991}"#),
            ("a: 1.5", r#"{"a":1.5}"#),
            ("a: -2.5e3", r#"{"a":-2500.0}"#),
            ("a: 1E3", r#"{"a":1000.0}"#),
            ("a: +.5", r#"{"a":0.5}"#),
            ("a: 5.", r#"{"a":5.0}"#),
            ("a: -0.0", r#"{"a":-0.0}"#),
            ("a: ~", r#"{"a":null}"#),
            ("a:", r#"{"a":null}"#),
            ("a: NULL", r#"{"a":null}"#),
            ("a: True", r#"{"a":true}"#),
            ("a: FALSE", r#"{"a":false}"#),
            // Text: YAML 1.1 booleans, words Rust would read as numbers, leading zeros, signs
            // where a number cannot have them, versions, quoted or `!!str` scalars.
            ("a: yes", r#"{"a":"yes"}"#),
            ("a: no", r#"{"a":"no"}"#),
            ("a: nan", r#"{"a":"nan"}"#),
            ("a: inf", r#"{"a":"inf"}"#),
            ("a: 007", r#"{"a":"007"}"#),
            ("a: -007", r#"{"a":"-007"}"#),
            ("a: 00", r#"{"a":"00"}"#),
            ("a: 1_000", r#"{"a":"1_000"}"#),
            ("a: 0x", r#"{"a":"0x"}"#),
            ("a: 0x+1", r#"{"a":"0x+1"}"#),
            ("a: +-1", r#"{"a":"+-1"}"#),
            ("a: +", r#"{"a":"+"}"#),
            ("a: 1.0.3", r#"{"a":"1.0.3"}"#),
            ("a: --kind", r#"{"a":"--kind"}"#),
            ("a: .ralph/store", r#"{"a":".ralph/store"}"#),
            ("a: '1'", r#"{"a":"1"}"#),
            ("a: \"0x1F\"", r#"{"a":"0x1F"}"#),
            ("a: 'null'", r#"{"a":"null"}"#),
            ("a: \"true\"", r#"{"a":"true"}"#),
            ("a: !!str 1", r#"{"a":"1"}"#),
            ("a: !!int 5", r#"{"a":5}"#),
            ("a: \"tab\\tand \\u00e9\"", r#"{"a":"tab\tand é"}"#),
            ("a: |\n  two\n  lines\n", r#"{"a":"two\nlines\n"}"#),
            ("a: >-\n  folded\n  text\n", r#"{"a":"folded text"}"#),
            ("a: [1, x, {b: c}]", r#"{"a":[1,"x",{"b":"c"}]}"#),
            ("a: {}\nb: []", r#"{"a":{},"b":[]}"#),
            ("- 1\n- - 2\n  - 3\n", r#"[1,[2,3]]"#),
            ("200: ok", r#"{"200":"ok"}"#),
            ("a: &x {b: 1}\nc: *x", r#"{"a":{"b":1},"c":{"b":1}}"#),
            // A shared block read at several aliases, the last of which takes it whole, and
            // aliases inside an anchored block; a scalar's alias as a key.
            (
                "a: &x [1, {b: 2}]\nc: *x\nd: [*x, *x]",
                r#"{"a":[1,{"b":2}],"c":[1,{"b":2}],"d":[[1,{"b":2}],[1,{"b":2}]]}"#,
            ),
            (
                "a: &x {b: 1}\nc: &y {d: *x}\ne: *y\nf: [*y]",
                r#"{"a":{"b":1},"c":{"d":{"b":1}},"e":{"d":{"b":1}},"f":[{"d":{"b":1}}]}"#,
            ),
            ("a: &k key\nb: {*k : 1}", r#"{"a":"key","b":{"key":1}}"#),
        ];
        for (text, expected) in cases {
            assert_eq!(json(text).as_deref(), Ok(expected), "{text:?}");
        }
    }

    /// Typed fields take what serde_yaml gave them: any scalar as text, a number only from a
    /// plain one, a unit variant from a scalar; an empty value is an empty list.
    #[test]
    fn typed_fields_read_as_before_and_faults_name_their_path_and_place() {
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
            f: Option<f64>,
            kind: Kind,
            #[serde(default)]
            list: Vec<String>,
        }
        let t: T = from_str("text: 12\nn: 3\nf: 2\nkind: two\nlist: [a, 1, 'b', true]").unwrap();
        assert_eq!(
            (t.text.as_str(), t.n, t.f, &t.kind),
            ("12", Some(3), Some(2.0), &Kind::Two)
        );
        assert_eq!(t.list, ["a", "1", "b", "true"]);
        let t: T = from_str("text: yes\nn: ~\nkind: \"one\"\nlist:").unwrap();
        assert_eq!(
            (t.text.as_str(), t.n, t.kind, t.list.len()),
            ("yes", None, Kind::One, 0)
        );
        let fault = |text: &str| from_str::<Vec<T>>(text).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            fault("- text: a\n  kind: one\n- text: a\n  n: '3'\n  kind: one"),
            "[1].n: invalid type: string \"3\", expected u32 at line 4 column 6"
        );
        assert_eq!(
            fault("- text: a\n  kind: three"),
            "[0].kind: unknown variant `three`, expected `one` or `two` at line 2 column 9"
        );
        assert_eq!(
            fault("- {text: a, kind: one, other: 1}"),
            "[0]: unknown field `other`, expected one of `text`, `n`, `f`, `kind`, `list` at line 1 column 24"
        );
        // A missing key is reported at its mapping, which starts at its first key.
        assert_eq!(
            fault("-   n: 1\n    text: a"),
            "[0]: missing field `kind` at line 1 column 5"
        );
    }

    #[test]
    fn aliases_count_as_the_nodes_they_copy() {
        // Each level doubles the nodes: 2^30 of them, from a few hundred bytes.
        let mut text = String::from("a0: &a0 [x, x]\n");
        for i in 1..30 {
            text.push_str(&format!("a{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1));
        }
        let e = parse(&text).unwrap_err();
        assert_eq!(e.code, "too-many-nodes");
        // It stops at the first alias past the limit (level k holds 2^(k+1) nodes, 2^23 is
        // the limit), not after copying all 2^30: speed is for the benchmarks, this is the why.
        assert!(e.mark.line <= 24, "stopped at line {}", e.mark.line);
        assert_eq!(parse("a: *nothing").unwrap_err().code, "yaml-syntax");
        // A key that is an alias of a scalar is compared with the others.
        assert_eq!(
            parse("a: &k key\nb: {*k : 1, key: 2}").unwrap_err().code,
            "duplicate-key"
        );
    }

    #[test]
    fn what_the_reader_does_not_take_is_an_error_where_it_is() {
        let code = |text: &str| parse(text).map(|_| ()).map_err(|e| (e.code, e.mark.line, e.mark.col));
        assert_eq!(code("a: 1\n---\nb: 2\n"), Err(("yaml-syntax", 2, 1)));
        assert_eq!(code("a: !Custom 1\n"), Err(("yaml-syntax", 1, 12)));
        assert_eq!(code("a:\n  b: .inf\n"), Err(("not-finite", 2, 6)));
        assert_eq!(code("a: [1, 9007199254740992]\n"), Err(("unsafe-integer", 1, 8)));
        assert_eq!(code("a: 0xffffffffffffffffff\n"), Err(("unsafe-integer", 1, 4)));
        assert_eq!(code("a: 1e400\n"), Err(("not-finite", 1, 4)));
        // Quoted, or a key: not a number.
        assert_eq!(code("a: '.inf'\n9007199254740993: x\n"), Ok(()));
        assert_eq!(code(""), Ok(()));
        assert!(parse("# only a comment\n").unwrap().is_null());
    }

    #[test]
    fn reading_one_key_builds_no_other_value_and_keeps_the_limits() {
        let keys = |text: &str| -> Vec<(String, bool)> {
            let root = parse_key(text, "context").unwrap();
            let Value::Map(entries) = &root.value else {
                panic!("{root:?}")
            };
            entries
                .iter()
                .map(|(k, v)| (key_text(k).unwrap().clone(), v.is_null()))
                .collect()
        };
        let tools = "tools:\n  - {name: a, steps: [{run: [x]}]}\nversion: 1\n";
        // Stopped after `context`: the syntax error after it is not read.
        assert_eq!(
            keys(&format!("{tools}context: {{a: {{type: string}}}}\nlater: [unclosed\n")),
            [("context".to_string(), false)]
        );
        // Without one, every top-level key is read, and `tools` is not built (a null stands for it).
        assert_eq!(
            keys(tools),
            [("tools".to_string(), true), ("version".to_string(), false)]
        );
        // A skipped value is still held to the depth limit, and duplicate top-level keys are refused.
        let deep = format!("tools: {}{}\ncontext: {{}}\n", "[".repeat(100), "]".repeat(100));
        assert_eq!(parse_key(&deep, "context").unwrap_err().code, "too-deep");
        assert_eq!(
            parse_key("tools: [1]\ntools: [2]\n", "context").unwrap_err().code,
            "duplicate-key"
        );
    }

    #[test]
    fn a_path_is_located_at_its_node_or_nearest_ancestor() {
        let located = Located::new("version: 1\ntools:\n  - name: a\n    params:\n      limit: {type: integer}\n");
        let at = |line, col| Mark { line, col };
        let loc = |key, value| Some(NodeLoc { key: Some(key), value });
        assert_eq!(located.find("version"), loc(at(1, 1), at(1, 10)));
        assert_eq!(located.find("tools[0].name"), loc(at(3, 5), at(3, 11)));
        assert_eq!(located.find("tools[0].params.limit.type").unwrap().value, at(5, 21));
        assert_eq!(
            located.find("tools[0]").unwrap().value,
            at(3, 5),
            "a block mapping starts at its key"
        );
        assert_eq!(located.find("tools[0].name.nope").unwrap().value.line, 3);
        assert!(located.contains("tools[0].params") && !located.contains("tools[1]"));
        // A key with a dot in it.
        let dotted = Located::new("a:\n  b.c: 1\n  b: {c: 2}\n");
        assert_eq!(dotted.find("a.b.c").unwrap().value, at(2, 8));
        assert_eq!(dotted.find("a.b").unwrap().value, at(3, 6));
        // An empty key: the path ends with the dot before it.
        let empty = Located::new("context:\n  s: 1\n  \"\": 2\n");
        assert_eq!(empty.find("context.").unwrap().key, Some(at(3, 3)));
        assert!(empty.contains("context.") && !Located::new("context:\n  s: 1\n").contains("context."));
    }

    /// A path through an alias goes on in the anchored node (where its copy's nodes would be),
    /// and the tree holds the anchored node once, however many aliases name it.
    #[test]
    fn paths_through_aliases_locate_in_the_anchor() {
        let at = |line, col| Mark { line, col };
        let text = "a: &x\n  b: 1\n  c: [2, 3]\nd: *x\ne: {f: *x}\n";
        let index = Located::new(text);
        assert_eq!(index.find("d").unwrap().value, at(4, 4));
        assert_eq!(index.find("d.b").unwrap().key, Some(at(2, 3)));
        assert_eq!(index.find("e.f.c[1]").unwrap().value, at(3, 10));
        assert!(index.contains("e.f.b") && !index.contains("e.f.z"));
        let top = index.root.as_ref().map(|root| &root.value);
        let shared = matches!(top, Some(Value::Map(top)) if matches!(top[1].1.value, Value::Alias(_)));
        assert!(shared, "the alias is held as one, not copied");
    }

    #[test]
    fn paths_are_located_reading_only_as_far_as_they_need() {
        let fixed = "a: {x: 1}\nb:\n  - y: &k {z: 2}\nc: [*k]\nd: {w: *k}\ntail: [1, \"closed\"]\n";
        let whole = Located::new(fixed);
        // The same text with a tail that does not parse: a reading of it all locates nothing.
        let text = fixed.replace("\"closed\"]", "\"unclosed]");
        assert!(Located::new(&text).root.is_none());
        let paths = ["b[0].y.z", "a.x", "b[0].y"];
        let part = Located::for_paths(&text, paths).expect("paths to locate");
        for path in paths {
            assert_eq!(part.find(path), whole.find(path), "{path}");
        }
        assert_eq!(part.find("b[0].y.z").unwrap().value, Mark { line: 3, col: 15 });
        // `d` aliases an anchor in `b`, which a reading of `d` alone does not hold: that part
        // is read with the whole text.
        let through = Located::for_paths(fixed, ["d.w.z"]).expect("a path");
        assert_eq!(through.find("d.w.z"), whole.find("d.w.z"));
        assert_eq!(through.find("d.w.z").unwrap().key, Some(Mark { line: 3, col: 12 }));
        assert!(Located::for_paths(fixed, []).is_none());
    }
}
