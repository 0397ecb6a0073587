//! The only code that quotes anything: TypeScript literals, comments, and values in messages.
//!
//! Templates never see catalog text directly. Every value they print is a [`Ts`] built here
//! (or an [`Ident`], a name already validated), so a template cannot print a raw string:
//! `Ts` has no constructor outside this module. Markdown (the Claude plugin's README) works the
//! same way through [`Md`], and the Rust target's source (`crate::hosts::rust`) through [`Rs`].
//! JSON files are serialized by serde_json from typed structs, and
//! TOML by the toml crate, so neither needs quoting here.

use std::fmt;

/// Each safe text prints as the text it holds, and lends it as `as_str`.
macro_rules! display_inner {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl $t {
            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    )*};
}

display_inner!(Ts, Ident, Md, Rs);

/// A piece of TypeScript source that is safe to paste: a literal or an expression built from
/// literals. Only this module makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ts(String);

impl Ts {
    /// `self` followed by a method call whose arguments are already-safe expressions:
    /// `.describe("…")`, `.min(1)`.
    pub fn call(self, method: &str, args: &[Ts]) -> Ts {
        debug_assert!(method.chars().all(|c| c.is_ascii_alphanumeric() || "_.".contains(c)));
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

/// What stands for a value while a file is rendered, to be filled in afterwards (the session
/// file's context values, see `crate::record`). It holds NULs, which no quoting here leaves
/// bare, so it cannot be mistaken for anything a template printed.
pub fn placeholder(name: &str) -> String {
    format!("\u{0}ixgen-value:{name}\u{0}")
}

/// [`placeholder`] as a piece of TypeScript to print where the value goes.
pub fn ts_placeholder(name: &str) -> Ts {
    Ts(placeholder(name))
}

/// A TypeScript string literal holding exactly the string it is given ([`ts_json`] of it).
///
/// JSON string syntax is valid TypeScript; on top of it U+2028 and U+2029 are escaped (older
/// engines end a line there) and `</` becomes `<\/` so the text can never close a script
/// element if the file is ever inlined into HTML.
pub fn ts_str(s: &str) -> Ts {
    ts_json(s)
}

/// Any serializable value as a TypeScript expression (a JSON literal, escaped as [`ts_str`]).
pub fn ts_json<T: serde::Serialize + ?Sized>(value: &T) -> Ts {
    let json = serde_json::to_string(value).expect("model values always serialize");
    Ts(json_to_ts(json))
}

/// Any serializable value as a TypeScript expression, laid out for a reviewer: a value that
/// fits in [`PRETTY_WIDTH`] columns stays on one line, a larger one gets one entry per line.
/// (serde_json's pretty printer puts every scalar on its own line, which triples a spec.)
pub fn ts_json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> Ts {
    Ts(json_to_ts(pretty_text(value)))
}

/// The JSON text of a value as [`ts_json_pretty`] lays it out: serialized once, compactly,
/// then laid out from that text, so no tree of the value is built (a tree per spec was most of
/// the cost of laying out a large catalog's specs).
fn pretty_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let compact = serde_json::to_vec(value).expect("model values always serialize");
    let mut out = Vec::with_capacity(compact.len() + compact.len() / 4);
    Compact::new(&compact).write(0, 0, &mut out);
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Writes to `w` the text of a JSON file (with a final newline) holding a long list: an object
/// whose entry `key` (present in `head`, whose value there is ignored) is the list of
/// `entries`, each item on a line of its own however wide, or the object of them, each
/// `"name": value` on a line of its own, when they have names (other entries of `head` are laid
/// out as [`ts_json_pretty`]).
/// One item per line rather than one line per node: for a list of 10,000 tools the indentation
/// of the nested lines was a third of the file, and a changed item still shows as one changed
/// line of its own in a diff, with its neighbours untouched. Items are taken one at a time, so
/// a list of 10,000 tools never costs the memory of its whole tree. The object and a non-empty
/// list always take several lines. The text goes to `w` as it is printed, a few items at a
/// time, so a large list is never whole in memory either; a write error comes back as
/// serde_json's I/O error.
pub fn json_lines_to(
    head: &impl serde::Serialize,
    key: &str,
    entries: impl IntoIterator<Item = (Option<String>, serde_json::Value)>,
    w: &mut dyn std::io::Write,
) -> Result<(), serde_json::Error> {
    /// Bytes gathered before they are handed to `w`.
    const CHUNK: usize = 64 << 10;
    use serde::ser::Error as _;
    let serde_json::Value::Object(head) = serde_json::to_value(head)? else {
        return Err(serde_json::Error::custom("the head of a listing file is not an object"));
    };
    if !head.contains_key(key) {
        return Err(serde_json::Error::custom(format!(
            "the head of a listing file has no `{key}`"
        )));
    }
    let mut entries = entries.into_iter().peekable();
    // Empty: the head's own value says which (`[]` or `{}`).
    let map = entries.peek().map_or(head[key].is_object(), |(name, _)| name.is_some());
    let (open, close) = if map { (b'{', b'}') } else { (b'[', b']') };
    let (mut out, mut item_text) = (b"{".to_vec(), Vec::new());
    for (i, (k, v)) in head.iter().enumerate() {
        out.extend_from_slice(if i > 0 { b",\n  " } else { b"\n  " });
        serde_json::to_writer(&mut out, k)?;
        out.extend_from_slice(b": ");
        if k != key {
            Compact::new(&serde_json::to_vec(v)?).write(0, 2, &mut out);
        } else {
            out.push(open);
            let mut any = false;
            for (name, item) in entries.by_ref() {
                out.extend_from_slice(if any { b",\n    " } else { b"\n    " });
                if let Some(name) = name {
                    serde_json::to_writer(&mut out, &name)?;
                    out.extend_from_slice(b": ");
                }
                item_text.clear();
                serde_json::to_writer(&mut item_text, &item)?;
                spaced(&item_text, &mut out);
                any = true;
                if out.len() >= CHUNK {
                    w.write_all(&out).map_err(serde_json::Error::io)?;
                    out.clear();
                }
            }
            if any {
                out.extend_from_slice(b"\n  ");
            }
            out.push(close);
        }
    }
    out.extend_from_slice(b"\n}\n");
    w.write_all(&out).map_err(serde_json::Error::io)
}

/// The widest line [`ts_json_pretty`] writes when it can help it.
pub const PRETTY_WIDTH: usize = 100;

/// Compact JSON text, as serde_json writes it, and where each of its objects and arrays ends
/// and how wide it is once [`spaced`]: all that laying it out needs, found in one pass.
struct Compact<'a> {
    text: &'a [u8],
    /// Each object and array by where it starts: (start, its closing bracket, its width in
    /// characters once spaced).
    nodes: Vec<(usize, usize, usize)>,
}

impl<'a> Compact<'a> {
    fn new(text: &'a [u8]) -> Compact<'a> {
        let (mut nodes, mut open) = (Vec::new(), Vec::new());
        // The width so far, spaced: a character for each byte that starts one, and a space
        // after each `,` and `:` between entries.
        let mut width = 0;
        let (mut in_string, mut escaped) = (false, false);
        for (i, &b) in text.iter().enumerate() {
            width += usize::from(b & 0xC0 != 0x80);
            if in_string {
                (in_string, escaped) = (escaped || b != b'"', !escaped && b == b'\\');
                continue;
            }
            match b {
                b'"' => in_string = true,
                b',' | b':' => width += 1,
                b'{' | b'[' => {
                    open.push(nodes.len());
                    nodes.push((i, i, width - 1));
                }
                b'}' | b']' => {
                    let n = open.pop().expect("serde_json closes what it opens");
                    nodes[n] = (nodes[n].0, i, width - nodes[n].2);
                }
                _ => {}
            }
        }
        Compact { text, nodes }
    }

    /// Writes the value that starts at `p` laid out at `indent`: on one line when it fits in
    /// [`PRETTY_WIDTH`] columns, one entry per line otherwise. Returns where the value ends.
    fn write(&self, p: usize, indent: usize, out: &mut Vec<u8>) -> usize {
        let text = self.text;
        let Ok(n) = self.nodes.binary_search_by_key(&p, |n| n.0) else {
            let end = self.scalar_end(p);
            out.extend_from_slice(&text[p..end]);
            return end;
        };
        let (_, close, width) = self.nodes[n];
        if close == p + 1 || width <= PRETTY_WIDTH.saturating_sub(indent) {
            spaced(&text[p..=close], out);
            return close + 1;
        }
        out.push(text[p]);
        let mut q = p + 1;
        loop {
            out.push(b'\n');
            out.resize(out.len() + indent + 2, b' ');
            if text[p] == b'{' {
                let key_end = self.scalar_end(q);
                out.extend_from_slice(&text[q..key_end]);
                out.extend_from_slice(b": ");
                q = key_end + 1;
            }
            q = self.write(q, indent + 2, out);
            if text[q] != b',' {
                break;
            }
            out.push(b',');
            q += 1;
        }
        out.push(b'\n');
        out.resize(out.len() + indent, b' ');
        out.push(text[close]);
        close + 1
    }

    /// Where the string, number or literal that starts at `p` ends.
    fn scalar_end(&self, p: usize) -> usize {
        let text = &self.text[p..];
        let len = if text[0] == b'"' {
            ts_literal_len(text)
        } else {
            text.iter().position(|b| matches!(b, b',' | b'}' | b']'))
        };
        p + len.unwrap_or(text.len())
    }
}

/// Compact JSON text on one line with a space after each `,` and `:` between entries (never
/// inside strings).
fn spaced(compact: &[u8], out: &mut Vec<u8>) {
    let (mut in_string, mut escaped) = (false, false);
    for &b in compact {
        out.push(b);
        if in_string {
            (in_string, escaped) = (escaped || b != b'"', !escaped && b == b'\\');
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' || b == b':' {
            out.push(b' ');
        }
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
    let whole = n.fract() == 0.0 && n.abs() < 9.0e15;
    Ts(if whole { (n as i64).to_string() } else { n.to_string() })
}

/// An integer literal.
pub fn ts_int(n: i64) -> Ts {
    Ts(n.to_string())
}

/// The length of the literal [`ts_str`] or [`ts_int`] wrote at the start of `b`: a string up to
/// its closing quote, or an optionally negative run of digits. `None` when `b` starts with
/// neither. (The run record's replay finds a per-run file's values with it; `crate::record`.)
pub fn ts_literal_len(b: &[u8]) -> Option<usize> {
    match b.first()? {
        b'"' => {
            let mut i = 1;
            while i < b.len() {
                match b[i] {
                    b'\\' => i += 2,
                    b'"' => return Some(i + 1),
                    _ => i += 1,
                }
            }
            None
        }
        first => {
            let sign = usize::from(*first == b'-');
            let digits = b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
            (digits > 0).then_some(sign + digits)
        }
    }
}

/// Text for the inside of a `//` comment: one line, nothing that could end the comment.
pub fn comment(s: &str) -> Ts {
    let line = s.replace(|c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}', " ");
    Ts(line.replace("*/", "* /"))
}

/// A name that is already a valid identifier in every generated language (validated in the
/// catalog stage: `[a-z_][a-z0-9_]*` or `[A-Z_][A-Z0-9_]*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident(String);

impl Ident {
    /// Checks and wraps a name; `None` when it is not a plain identifier or is reserved.
    pub fn new(name: &str) -> Option<Ident> {
        Ident::export_name(name).filter(|_| !TS_RESERVED.split_whitespace().any(|w| w == name))
    }

    /// An export name: any plain identifier, reserved words included, because
    /// `export { local as delete }` is valid where `const delete` is not.
    pub fn export_name(name: &str) -> Option<Ident> {
        let ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        ok.then(|| Ident(name.to_string()))
    }
}

/// Words a TypeScript binding cannot be named, separated by spaces.
pub const TS_RESERVED: &str = "break case catch class const continue debugger default delete do else enum export \
    extends false finally for function if import in instanceof new null return super switch this throw true try \
    typeof var void while with as implements interface let package private protected public static yield await";

/// A piece of Markdown that is safe to paste into running text: catalog text cannot open a
/// heading, a list, a link, an HTML tag or a code span in it. Only this module makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Md(String);

/// Line breaks (and the Unicode ones) and tabs become single spaces: every Markdown value here
/// sits inside one line, so a newline in catalog text must not end a list item or start a
/// block (and an `unsupported` reason, a block scalar, shows on one line in a warning and in
/// `ixgen list`).
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Catalog text as Markdown running text, on one line, inside a line.
///
/// Inline syntax (`\`, backticks, emphasis, links and images (their `[`), HTML, entities,
/// tables, strikethrough) is backslash-escaped; so is `#`, which can close an ATX heading.
pub fn md_text(s: &str) -> Md {
    let line = one_line(s);
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if "\\`*_[]<>|~&#".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Md(out)
}

/// Catalog text as a Markdown paragraph that starts a line: as [`md_text`], and what opens a
/// block only at the start of a line (`-`, `+`, `=`, `1.`, `1)`) is escaped there too.
pub fn md_line(s: &str) -> Md {
    let mut out = md_text(s).0;
    if out.starts_with(['-', '+', '=']) {
        out.insert(0, '\\');
    }
    let digits = out.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && out[digits..].starts_with(['.', ')']) {
        out.insert(digits, '\\');
    }
    Md(out)
}

/// Catalog text as an inline code span, on one line: the fence is one backtick longer than the
/// longest run inside, and padded when the text starts or ends with a backtick, so no value can
/// close the span early.
pub fn md_code(s: &str) -> Md {
    let line = one_line(s);
    // An empty span would print nothing at all: show the empty value as `""`.
    if line.is_empty() {
        return Md(format!("`{}`", debug_quote(s)));
    }
    let longest = line.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let padded = line.starts_with('`') || line.ends_with('`');
    let pad = if padded { " " } else { "" };
    Md(format!("{fence}{pad}{line}{pad}{fence}"))
}

/// A Markdown link to `url` labelled with `text`. The destination is written in angle
/// brackets with `<`, `>`, whitespace and `\\` percent-encoded, so it stays one destination.
pub fn md_link(text: &str, url: &str) -> Md {
    let mut dest = String::with_capacity(url.len());
    for c in url.chars() {
        if c.is_whitespace() || matches!(c, '<' | '>' | '\\') {
            dest.extend(c.encode_utf8(&mut [0; 4]).bytes().map(|b| format!("%{b:02X}")));
        } else {
            dest.push(c);
        }
    }
    Md(format!("[{}](<{dest}>)", md_text(text)))
}

/// A word of a shell command line (POSIX sh) shown for the user to run: as it is when it has
/// no character the shell treats specially, else in single quotes (a `'` in it as `'\''`).
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c);
    if !s.is_empty() && !s.starts_with('=') && s.chars().all(plain) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A value shown in a message: quoted and with control characters escaped, so a newline or an
/// escape sequence in user input cannot forge output lines.
pub fn debug_quote(s: &str) -> String {
    format!("{s:?}")
}

/// One line of text from the catalog or the disk, safe to print: every unprintable character
/// (newlines included) is written as a Rust escape (`\n`, `\u{1b}`). Text without any is
/// returned as it is.
pub fn terminal(s: &str) -> String {
    replace_unprintable(s, &[], |c, out| out.extend(c.escape_default()))
}

/// Many lines of text, safe to print: as [`terminal`], but newlines and tabs stay.
pub fn terminal_lines(s: &str) -> String {
    replace_unprintable(s, &['\n', '\t'], |c, out| out.extend(c.escape_default()))
}

/// `s` with `with` writing in place of each unprintable character not in `keep`; `s` as it is
/// when it has none. Unprintable: what must not reach a terminal or CI log raw, control
/// characters (a newline could start a `::error` line, ESC a terminal sequence, BEL a beep) and
/// the invisible ones that make text read as other text (line separators, bidirectional
/// overrides, BOM), as [`crate::paths::is_forbidden_char`] tells them.
fn replace_unprintable(s: &str, keep: &[char], with: impl Fn(char, &mut String)) -> String {
    let unprintable = |c: char| crate::paths::is_forbidden_char(c) && !keep.contains(&c);
    if !s.chars().any(unprintable) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unprintable(c) {
            with(c, &mut out);
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
/// diagnostic's span — still point where they did. Newlines and tabs stay, and the carriage
/// return of a CRLF line end becomes a space (a Windows-edited catalog is not a row of `?`).
pub fn source_text(s: &str) -> String {
    replace_unprintable(&s.replace("\r\n", " \n"), &['\n', '\t'], |c, out| {
        out.push_str(match c.len_utf8() {
            1 => "?",
            2 => "¿",
            3 => "\u{FFFD}",
            _ => "\u{FFFD}?",
        })
    })
}

/// A GitHub workflow command's message (`::error …::<message>`): `%`, CR and LF are encoded, and
/// every other unprintable character is written as a Rust escape (`\u{1b}`).
pub fn gh_message(s: &str) -> String {
    // The log shows it raw: an escape sequence would color or hide text, a direction override
    // reverse it. Line breaks are the message's own, encoded.
    let shown = replace_unprintable(s, &['\n', '\r'], |c, out| out.extend(c.escape_default()));
    shown.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A GitHub workflow command's property value (`file=<value>`): as a message, plus `:` and `,`.
pub fn gh_property(s: &str) -> String {
    gh_message(s).replace(':', "%3A").replace(',', "%2C")
}

/// A GitHub workflow command's `file=` value: the path without `.` segments (`./mcp/x.json`
/// is `mcp/x.json`), which GitHub matches against the repository's paths as written; the
/// runner makes an absolute path inside the workspace relative itself.
pub fn gh_file(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    let path = parts.join("/");
    gh_property(&if absolute { format!("/{path}") } else { path })
}

/// A GitHub workflow command annotating `file` (on `line`, and `col` when given), or the run
/// itself without a file: `::error file=…,line=…,col=…,title=…::message`, each value escaped
/// for its place. Every annotation ixgen prints is written here (`check`, `diff`, failures).
pub fn gh_annotation(
    level: &str,
    file: Option<&str>,
    at: Option<(usize, Option<usize>)>,
    title: &str,
    message: &str,
) -> String {
    let mut props = String::new();
    if let Some(file) = file {
        props = format!("file={},", gh_file(file));
        if let Some((line, col)) = at {
            props += &format!("line={line},");
            props += &col.map(|c| format!("col={c},")).unwrap_or_default();
        }
    }
    format!("::{level} {props}title={}::{}", gh_property(title), gh_message(message))
}

/// A value inside terminal text: in backticks, or quoted with escapes when it holds a control
/// character or a backtick, so a value can neither forge output lines nor end its own quote.
pub fn term_code(s: &str) -> String {
    if s.contains(|c: char| c.is_control() || matches!(c, '`' | '\u{2028}' | '\u{2029}')) {
        debug_quote(s)
    } else {
        format!("`{s}`")
    }
}

// ---------------------------------------------------------------------------------------------
// Rust source (the `rust` target).

/// A piece of Rust source that is safe to paste: a string literal, the inside of a `//`
/// comment, or an identifier made here from catalog text. Only this module makes them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rs(String);

impl Rs {
    /// A name followed by more of it (`IxLocate` + `Tool`): `more` is ASCII letters and digits.
    pub fn concat(&self, more: &str) -> Rs {
        assert!(
            more.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "a name is made of a name's words: {more:?}"
        );
        Rs(format!("{}{more}", self.0))
    }
}

/// Characters a Rust literal or comment must not hold as they are: what no path may hold
/// ([`crate::paths::is_forbidden_char`]: control characters, as a bare CR is an error in a doc
/// comment; the line and paragraph separators, the byte-order mark, the bidirectional
/// overrides), and the direction marks: rustc refuses bidirectional controls in literals and
/// comments (`text_direction_codepoint_in_literal`, deny by default: they can make code read
/// unlike what it does); and the soft hyphen, zero-width space and word joiner, which clippy
/// refuses as they are (`invisible_characters`, deny by default).
fn rs_unsafe(c: char) -> bool {
    crate::paths::is_forbidden_char(c) || matches!(c, '\u{200e}' | '\u{200f}' | '\u{ad}' | '\u{200b}' | '\u{2060}')
}

/// A Rust string literal holding exactly `s`: `"…"` with `\\`, `\"` and every character of
/// [`rs_unsafe`] escaped (`\n`, `\t`, or `\u{…}`).
pub fn rs_str(s: &str) -> Rs {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if rs_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    Rs(out)
}

/// A `#[doc]` attribute's text showing `s` as a code span, on one line: each backtick, which
/// would end the span, becomes `'`.
pub fn rs_doc_code(s: &str) -> Rs {
    rs_str(&format!("`{}`", one_line(s).replace('`', "'")))
}

/// A Rust string literal holding exactly `s`, readable where it can be: a raw string
/// (`r#"…"#`, with as many `#` as `s` needs) when `s` holds nothing of [`rs_unsafe`] but line
/// feeds, [`rs_str`] otherwise. For JSON text, whose quotes would otherwise all be escaped.
pub fn rs_raw_str(s: &str) -> Rs {
    // Checked a byte at a time first: the JSON of a spec is nearly always printable ASCII.
    let printable = s.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b));
    if !printable && s.chars().any(|c| c != '\n' && rs_unsafe(c)) {
        return rs_str(s);
    }
    // The shortest run of `#` that no `"` in `s` is followed by: one more than the longest
    // after a quote (one pass over the text, however many short strings a JSON text has).
    let run = |after: &str| after.bytes().take_while(|&b| b == b'#').count();
    let hashes = s.split('"').skip(1).map(run).max().map_or(0, |longest| longest + 1);
    let h = "#".repeat(hashes);
    let mut out = String::with_capacity(s.len() + 2 * hashes + 3);
    for part in ["r", &h, "\"", s, "\"", &h] {
        out.push_str(part);
    }
    Rs(out)
}

/// Any serializable value as a Rust string literal of its JSON text, laid out as
/// [`ts_json_pretty`] lays it out (one line when it fits, one entry per line otherwise).
pub fn rs_json<T: serde::Serialize + ?Sized>(value: &T) -> Rs {
    rs_raw_str(&pretty_text(value))
}

/// Text for the inside of a `//` comment: one line, without the characters rustc refuses in
/// comments (each becomes a space).
pub fn rs_comment(s: &str) -> Rs {
    Rs(s.replace(rs_unsafe, " "))
}

/// Words a Rust identifier cannot be (strict and reserved keywords, 2024 edition).
pub const RS_RESERVED: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
    "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract",
    "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
    "union",
];

/// The ASCII words of catalog text, in lower case (`it's a-b` → `it`, `s`, `a`, `b`): what Rust
/// names are made of.
fn rs_words(s: &str) -> Vec<String> {
    // Every other character ends a word, and so does a lower-case letter or digit followed by
    // a capital (`getLines`).
    let mut spaced = String::with_capacity(s.len());
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        spaced.push(if c.is_ascii_alphanumeric() { c } else { ' ' }.to_ascii_lowercase());
    }
    spaced.split_whitespace().map(str::to_string).collect()
}

/// A snake_case Rust field or function name for catalog text: its ASCII words, lower case,
/// joined by `_`; `fallback` when it has none, a leading `_` before a digit, and a trailing `_`
/// after a keyword (`in` → `in_`). Not unique: the caller tells names apart.
pub fn rs_snake(s: &str, fallback: &str) -> Rs {
    let mut name = rs_words(s).join("_");
    if name.is_empty() {
        name = fallback.to_string();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if RS_RESERVED.contains(&name.as_str()) {
        name.push('_');
    }
    Rs(name)
}

/// An UpperCamelCase Rust type or variant name for catalog text: its ASCII words, each
/// capitalised, joined; `fallback` when it has none, before a leading digit and after `Self`.
/// Not unique: the caller tells names apart.
pub fn rs_camel(s: &str, fallback: &str) -> Rs {
    let mut name: String = rs_words(s)
        .into_iter()
        .map(|mut w| {
            // A word is never empty, and ASCII.
            w[..1].make_ascii_uppercase();
            w
        })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, fallback);
    }
    // `Self`: the fallback after it, not a `_` (an UpperCamelCase name has none).
    if RS_RESERVED.contains(&name.as_str()) {
        name.push_str(fallback);
    }
    Rs(name)
}

/// A name with a numeric suffix, to tell apart two names made alike: `Name2` for a type or
/// variant name (`camel`), `name_2` or `NAME_2` otherwise.
pub fn rs_suffixed(name: &Rs, n: usize, camel: bool) -> Rs {
    let (base, sep) = (name.0.trim_end_matches('_'), if camel { "" } else { "_" });
    Rs(format!("{base}{sep}{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_only_when_the_shell_would_read_them_otherwise() {
        assert_eq!(shell_word("--out=gen/a.b"), "--out=gen/a.b");
        assert_eq!(shell_word("tools catalog.yaml"), "'tools catalog.yaml'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word("=cmd"), "'=cmd'");
        assert_eq!(shell_word("*"), "'*'");
    }

    #[test]
    fn rust_literals_escape_what_rustc_refuses_and_nothing_else() {
        assert_eq!(rs_str("a\"b\\c\n\r\t").as_str(), r#""a\"b\\c\n\r\t""#);
        // Bidirectional controls, separators, BOM and other controls as \u{…}; the rest as is.
        assert_eq!(
            rs_str("\u{202e}x\u{2066}\u{2028}\u{feff}\u{0}é🦀").as_str(),
            r#""\u{202e}x\u{2066}\u{2028}\u{feff}\u{0}é🦀""#
        );
        // Raw strings need one more `#` than the longest run after a quote.
        assert_eq!(rs_raw_str("plain").as_str(), "r\"plain\"");
        assert_eq!(rs_raw_str("{\"a\": 1}").as_str(), "r#\"{\"a\": 1}\"#");
        assert_eq!(rs_raw_str("\"## x \"#").as_str(), "r###\"\"## x \"#\"###");
        assert_eq!(rs_raw_str("line\nline").as_str(), "r\"line\nline\"");
        // A character a raw string cannot hold falls back to the escaped form.
        assert_eq!(rs_raw_str("\"\u{202e}\"").as_str(), r#""\"\u{202e}\"""#);
        assert_eq!(rs_comment("a\u{202e}b\nc").as_str(), "a b c");
        // A value's backtick cannot end the code span of its doc.
        assert_eq!(rs_doc_code("a`b\nc").as_str(), r#""`a'b c`""#);
    }

    #[test]
    fn rust_names_are_identifiers_whatever_the_text() {
        for (text, snake, camel) in [
            ("ix-locate", "ix_locate", "IxLocate"),
            ("getLines", "get_lines", "GetLines"),
            ("in", "in_", "In"),
            ("self", "self_", "SelfV"),
            ("1st", "_1st", "V1st"),
            ("it's", "it_s", "ItS"),
            ("ünï 🦀", "n", "N"),
            ("", "v", "V"),
            ("${e}", "e", "E"),
        ] {
            assert_eq!(rs_snake(text, "v").as_str(), snake, "{text:?}");
            assert_eq!(rs_camel(text, "V").as_str(), camel, "{text:?}");
        }
        assert_eq!(rs_suffixed(&rs_snake("in", "v"), 2, false).as_str(), "in_2");
        assert_eq!(rs_suffixed(&rs_camel("a b", "V"), 3, true).as_str(), "AB3");
    }

    #[test]
    fn a_literal_is_found_whatever_follows_it() {
        for s in ["", "plain", "q\"b\\s\\", "\"\\\"", "é\n\u{2028}</", "\u{0}end"] {
            let lit = ts_str(s).as_str().to_string();
            for tail in ["", ",\n", "\";", "\\\"x\""] {
                let b = format!("{lit}{tail}");
                assert_eq!(ts_literal_len(b.as_bytes()), Some(lit.len()), "{b:?}");
            }
        }
        for n in [0, 7, -1, i64::MAX, i64::MIN] {
            let lit = ts_int(n).as_str().to_string();
            assert_eq!(ts_literal_len(format!("{lit},").as_bytes()), Some(lit.len()));
        }
        for b in ["", "-", "-,", "x1", "\"unclosed", "\"ends in a backslash\\"] {
            assert_eq!(ts_literal_len(b.as_bytes()), None, "{b:?}");
        }
    }

    #[test]
    fn the_width_of_a_value_is_the_width_it_is_printed_in() {
        let v = serde_json::json!({"a": [1, -2.5, 1e300, true, false, null], "é": {"k": "v\n\"\\,:"}, "e": {}, "l": ["😀\u{7f}\u{1f}"]});
        let compact = serde_json::to_vec(&v).unwrap();
        let mut out = Vec::new();
        spaced(&compact, &mut out);
        let printed = String::from_utf8(out).unwrap();
        assert_eq!(
            printed,
            r#"{"a": [1, -2.5, 1e+300, true, false, null], "é": {"k": "v\n\"\\,:"}, "e": {}, "l": ["😀\u001f"]}"#
        );
        let layout = Compact::new(&compact);
        assert_eq!(layout.nodes.len(), 5);
        assert_eq!(layout.nodes[0], (0, compact.len() - 1, printed.chars().count()));
        // Each nested one as printed on its own.
        for &(start, close, width) in &layout.nodes {
            let mut alone = Vec::new();
            spaced(&compact[start..=close], &mut alone);
            assert_eq!(String::from_utf8(alone).unwrap().chars().count(), width);
        }
    }

    /// [`json_lines_to`] into a string.
    fn json_lines(
        head: &serde_json::Value,
        key: &str,
        entries: impl IntoIterator<Item = (Option<String>, serde_json::Value)>,
    ) -> Result<String, serde_json::Error> {
        let mut out = Vec::new();
        json_lines_to(head, key, entries, &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_listing_file_is_valid_json_with_one_line_per_item() {
        let head = serde_json::json!({"tools": null, "ttl": 5});
        let items = [
            serde_json::json!({"name": "a", "note": "x\u{2028}</y"}),
            serde_json::json!({"name": "b", "long": "z".repeat(120)}),
        ];
        let text = json_lines(&head, "tools", items.clone().map(|v| (None, v))).unwrap();
        assert_eq!(
            text,
            format!(
                "{{\n  \"tools\": [\n    {{\"name\": \"a\", \"note\": \"x\u{2028}</y\"}},\n    {{\"name\": \"b\", \"long\": \"{}\"}}\n  ],\n  \"ttl\": 5\n}}\n",
                "z".repeat(120)
            )
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["tools"][0]["note"], "x\u{2028}</y");
        assert_eq!(
            json_lines(&head, "tools", []).unwrap(),
            "{\n  \"tools\": [],\n  \"ttl\": 5\n}\n"
        );
        assert!(json_lines(&head, "other", items.map(|v| (None, v))).is_err());
    }

    #[test]
    fn a_map_file_has_one_line_per_entry() {
        let head = serde_json::json!({"generator": "g", "files": {}});
        let entries = [
            (
                Some("a.ts".to_string()),
                serde_json::json!({"group": "x", "blake3": "h"}),
            ),
            (Some("b\"c".to_string()), serde_json::json!({"group": "y"})),
        ];
        assert_eq!(
            json_lines(&head, "files", entries).unwrap(),
            "{\n  \"generator\": \"g\",\n  \"files\": {\n    \"a.ts\": {\"group\": \"x\", \"blake3\": \"h\"},\n    \"b\\\"c\": {\"group\": \"y\"}\n  }\n}\n"
        );
        assert_eq!(
            json_lines(&head, "files", []).unwrap(),
            "{\n  \"generator\": \"g\",\n  \"files\": {}\n}\n"
        );
    }

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
        assert_eq!(gh_file("./a/./b,c.json"), "a/b%2Cc.json");
        assert_eq!(gh_file("/w/./x"), "/w/x");
    }

    #[test]
    fn markdown_text_cannot_open_markup() {
        let cases = [
            ("plain words", "plain words"),
            ("a *b* _c_ `d`", r"a \*b\* \_c\_ \`d\`"),
            ("[x](http://e) ![i](j)", r"\[x\](http://e) !\[i\](j)"),
            ("<script>&amp;</script>", r"\<script\>\&amp;\</script\>"),
            ("# heading", r"\# heading"),
            ("- item", "- item"),
            ("version 0.1.0", "version 0.1.0"),
            ("a | b ~~c~~", r"a \| b \~\~c\~\~"),
            ("back\\slash", r"back\\slash"),
            (
                "two\nlines\r\n\n# not a heading\u{2028}x\ty",
                r"two lines \# not a heading x y",
            ),
            ("it's café 🦀", "it's café 🦀"),
        ];
        for (input, want) in cases {
            assert_eq!(md_text(input).as_str(), want, "input {input:?}");
        }
    }

    #[test]
    fn markdown_lines_cannot_open_blocks() {
        let cases = [
            ("- item", r"\- item"),
            ("+ item", r"\+ item"),
            ("=== setext", r"\=== setext"),
            ("12. item", r"12\. item"),
            ("3) item", r"3\) item"),
            ("0.1.0 is out", r"0\.1.0 is out"),
            ("# heading\n- x", r"\# heading - x"),
            ("Plain first line.", "Plain first line."),
        ];
        for (input, want) in cases {
            assert_eq!(md_line(input).as_str(), want, "input {input:?}");
        }
    }

    #[test]
    fn markdown_links_keep_one_destination() {
        assert_eq!(
            md_link("home", "https://e.x/a b>c").as_str(),
            "[home](<https://e.x/a%20b%3Ec>)"
        );
        assert_eq!(md_link("[x]", "u").as_str(), r"[\[x\]](<u>)");
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
        // A CRLF line end shows as the line it is; a lone carriage return is still marked.
        assert_eq!(source_text("a: 1\r\nb\rc\r\n"), "a: 1 \nb?c \n");
    }

    #[test]
    fn markdown_values_stay_one_literal_span() {
        assert_eq!(md_code("a-b").as_str(), "`a-b`");
        assert_eq!(md_code("ix mcp").as_str(), "`ix mcp`");
        assert_eq!(md_code("a`b").as_str(), "``a`b``");
        assert_eq!(md_code("`x`").as_str(), "`` `x` ``");
        assert_eq!(md_code("``x``").as_str(), "``` ``x`` ```");
        assert_eq!(md_code("a\nb").as_str(), "`a b`");
        assert_eq!(md_code("line\n- item").as_str(), "`line - item`");
        assert_eq!(md_code("").as_str(), "`\"\"`");
        assert_eq!(
            md_text("*a* [b](c) <d>\n# e & 1.0").as_str(),
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
