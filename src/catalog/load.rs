//! Reading a catalog: bytes → UTF-8 → YAML → typed [`Catalog`]. Validation and lowering are one
//! pass of the model stage (`crate::model::lower`), so a loaded catalog is typed, not yet valid.
//!
//! The YAML itself is read by [`super::yaml`], the one reader, and nowhere else: this module
//! must not interpret the text before that reader has checked it (size, characters, depth);
//! its only look is a substring search that can rule a `context` key out. It writes nothing.

use super::types::{Catalog, ContextVar};
use super::yaml;
use crate::diagnostic::{Diagnostic, Place, SourceFile, hint_for};
use crate::error::Error;
use std::path::Path;
use std::sync::Arc;

/// The ix catalog, built into the binary: the default when no `--catalog` is given.
pub const EMBEDDED: &str = include_str!("../../catalog/ix.yaml");
/// The name the embedded catalog goes by in messages and generated headers.
pub const EMBEDDED_NAME: &str = "ix.yaml";
/// The embedded catalog converted to JSON by `build.rs` (empty if the conversion failed).
const EMBEDDED_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/ix.json"));
/// Its `context` block alone (`{"context": …}`), which every run reads for its flags: parsing
/// the whole catalog for it would cost the per-iteration run as much as the rest of its work.
const EMBEDDED_CONTEXT_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/ix-context.json"));
/// The files the embedded catalog names (its icon), built in beside it: path → bytes.
const EMBEDDED_FILES: [(&str, &[u8]); 1] = [("ix-icon.png", include_bytes!("../../catalog/ix-icon.png"))];

/// A catalog that parsed into its types, and the file it came from (to locate diagnostics).
#[derive(Debug)]
pub struct Loaded {
    pub catalog: Catalog,
    pub file: SourceFile,
}

/// Loads the catalog at `path`, or the embedded one, and reads the files it names.
pub fn load(path: Option<&Path>) -> Result<Loaded, Error> {
    match path {
        None => read_assets(load_embedded()?, |rel| {
            asset_bytes(None, rel)
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not built into ixgen"))
        }),
        Some(p) => {
            // Read at most one byte past the limit: `--catalog /dev/zero` or a huge file is
            // refused by the size check instead of filling memory.
            let bytes = read_catalog(p).map_err(|source| Error::ReadCatalog {
                path: crate::escape::display_path(p),
                source,
            })?;
            let dir = p.parent().unwrap_or(Path::new(""));
            read_assets(load_text(&p.display().to_string(), bytes)?, |rel| read_asset(dir, rel))
        }
    }
}

/// The bytes of the catalog at `path` ([`yaml::read_file`]). A run reads its catalog up to three
/// times (the context flags, the run record's key, the load), and a pipe or a device
/// (`--catalog <(…)`, `/dev/stdin`) gives its bytes only once: what such a file gave is kept
/// for the rest of the run.
fn read_catalog(path: &Path) -> std::io::Result<Vec<u8>> {
    static READ_ONCE: std::sync::Mutex<Vec<(std::path::PathBuf, Vec<u8>)>> = std::sync::Mutex::new(Vec::new());
    if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return yaml::read_file(path);
    }
    let mut kept = READ_ONCE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, bytes)) = kept.iter().find(|(p, _)| p == path) {
        return Ok(bytes.clone());
    }
    let bytes = yaml::read_file(path)?;
    kept.push((path.to_path_buf(), bytes.clone()));
    Ok(bytes)
}

/// The bytes of the catalog file at `path`, refused once they pass the catalog size limit:
/// reading stops there, so a huge file or a device costs no more memory than a catalog. For
/// the run record's key, and `diff`'s older catalog.
pub fn catalog_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = read_catalog(path)?;
    if bytes.len() > yaml::MAX_BYTES {
        return Err(std::io::Error::other(format!(
            "it is larger than {} MB, the most a catalog may hold",
            yaml::MAX_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// The bytes of a file the catalog at `path` (or the embedded one) names, by its path relative
/// to the catalog; `None` when it cannot be read. For the run record, which hashes them: read
/// as the full load reads them (within the folder, bounded), so a replay never reads what a
/// full run would refuse.
pub fn asset_bytes(path: Option<&Path>, rel: &str) -> Option<Vec<u8>> {
    match path {
        None => EMBEDDED_FILES
            .iter()
            .find(|(name, _)| *name == rel)
            .map(|(_, b)| b.to_vec()),
        Some(p) => read_asset(p.parent().unwrap_or(Path::new("")), rel).ok(),
    }
}

/// Reads the files a loaded catalog names (`product.icon`) through `read`, which takes a path
/// relative to the catalog, and checks that each is what its hosts accept. A file that is
/// missing or unfit is an error at its key in the catalog.
fn read_assets(mut loaded: Loaded, read: impl Fn(&str) -> std::io::Result<Vec<u8>>) -> Result<Loaded, Error> {
    let Some(icon) = loaded.catalog.product.icon.as_mut() else {
        return Ok(loaded);
    };
    // A catalog under review must not make ixgen read (and ship in a plugin) a file of the
    // machine that runs it: the path is checked before anything is read.
    let message = match asset_path_problem(&icon.path) {
        Some(why) => format!(
            "the icon path {} {why}: name a file inside the catalog's folder",
            crate::escape::debug_quote(&icon.path)
        ),
        None => match read(&icon.path) {
            Err(e) => format!("cannot read the icon `{}`: {e}", icon.path),
            Ok(bytes) => match icon_problem(&bytes) {
                Some(p) => format!("the icon `{}` {p}", icon.path),
                None => {
                    icon.bytes = Some(bytes);
                    return Ok(loaded);
                }
            },
        },
    };
    let mut diags = vec![
        Diagnostic::error("icon", "product.icon", message)
            .help("name a square PNG, 512 to 2048 px a side and under 2 MB, by a path relative to the catalog file"),
    ];
    locate(&mut diags, &loaded.file.text);
    Err(Error::Catalog {
        file: loaded.file,
        diagnostics: diags,
    })
}

/// An icon must be under this size (Claude Code's plugin directory's limit, 2 MB).
const MAX_ICON_BYTES: u64 = 2 * 1024 * 1024;

/// Why a path a catalog names may not be read: absolute, leaving the catalog's folder, or
/// holding a control character; `None` when it is relative and stays inside.
pub fn asset_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        Some("is empty")
    } else if path.starts_with(['/', '\\']) || path.as_bytes().get(1) == Some(&b':') {
        Some("is absolute")
    } else if path.split(['/', '\\']).any(|part| part == "..") {
        Some("leaves the catalog's folder (`..`)")
    } else if path.chars().any(char::is_control) {
        Some("holds a control character")
    } else {
        None
    }
}

/// Reads a file the catalog names, `rel` below the catalog's folder `dir`: never more than an
/// icon may hold and one byte (a device such as `/dev/zero` is not read whole), and never
/// through a symlink that leads out of the folder.
fn read_asset(dir: &Path, rel: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let path = dir.join(rel);
    // `.` joined with an empty folder (a catalog named without one) is `./`.
    let base = std::fs::canonicalize(Path::new(".").join(dir))?;
    if !std::fs::canonicalize(&path)?.starts_with(&base) {
        return Err(std::io::Error::other(
            "it leads out of the catalog's folder (a symlink)",
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)?
        .take(MAX_ICON_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Why Claude Code's plugin directory would refuse `bytes` as a plugin icon (a square PNG,
/// 512 to 2048 px a side, under 2 MB), or `None`. Only the PNG header is read: its size is
/// the 4-byte big-endian width and height at offsets 16 and 20.
pub fn icon_problem(bytes: &[u8]) -> Option<String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || !bytes.starts_with(SIGNATURE) || &bytes[12..16] != b"IHDR" {
        return Some("is not a PNG file".into());
    }
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let (w, h) = (be(16), be(20));
    if w != h {
        return Some(format!("is {w}×{h} px, not square"));
    }
    if !(512..=2048).contains(&w) {
        return Some(format!("is {w}×{h} px, outside 512 to 2048 px"));
    }
    if bytes.len() as u64 >= MAX_ICON_BYTES {
        return Some(format!("is {} bytes, not under 2 MB", bytes.len()));
    }
    None
}

/// Runs a whole reading (parse and typing) on a thread of its own, which ends with it. The
/// catalog's blocks are then that thread's, and lowering, which frees them on worker threads,
/// gets their pages back; read on the main thread, they stayed held while the workers freed
/// them (mimalloc), and a 10,000-tool `generate` peaked at 123 MiB instead of 100.
fn on_own_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join()).unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The context variables a catalog declares: the command line needs them to know its flags
/// before it can parse anything. `None` when the file cannot be read or its `context` does not
/// parse; the full load reports why. The reading builds no other top-level value and stops once
/// `context` has been read, with every limit of the full one: a run the run record replays
/// (which never loads the catalog) pays for a scan at most, not for a tree.
pub fn context_declarations(path: Option<&Path>) -> Option<indexmap::IndexMap<String, ContextVar>> {
    let Some(p) = path else {
        /// Only the `context` key; every other key is ignored here.
        #[derive(serde::Deserialize)]
        struct ContextOnly {
            #[serde(default)]
            context: indexmap::IndexMap<String, ContextVar>,
        }
        let parsed: ContextOnly = serde_json::from_str(EMBEDDED_CONTEXT_JSON)
            .or_else(|_| serde_json::from_str(EMBEDDED_JSON))
            .ok()?;
        return Some(parsed.context);
    };
    let text = String::from_utf8(catalog_bytes(p).ok()?).ok()?;
    // A key reads `context` only if the text spells it, or escapes a character of it in a
    // double-quoted key (`"\x63ontext"`): a text with neither has no context, and needs no scan.
    if !text.contains("context") && !text.contains('\\') {
        return Some(Default::default());
    }
    let root = yaml::parse_key(&text, "context").ok()?;
    let context = match root.value {
        yaml::Value::Map(entries) => entries
            .into_iter()
            .find(|(k, _)| matches!(&k.value, yaml::Value::Scalar { text, .. } if text == "context"))
            .map(|(_, v)| v),
        _ if root.is_null() => None,
        _ => return None,
    };
    context.map_or(Some(Default::default()), |c| serde::Deserialize::deserialize(c).ok())
}

/// Loads the embedded catalog through its JSON form; anything short of a clean load goes the
/// YAML way, so that diagnostics point into `ix.yaml`.
fn load_embedded() -> Result<Loaded, Error> {
    if let Ok(catalog) = serde_json::from_str::<Catalog>(EMBEDDED_JSON) {
        return Ok(Loaded {
            catalog,
            file: source(EMBEDDED_NAME, EMBEDDED.to_string()),
        });
    }
    load_text(EMBEDDED_NAME, EMBEDDED.as_bytes())
}

/// Loads a catalog from bytes; `name` is how messages call the file. Bytes given owned are kept
/// as the valid catalog's text, not copied (a large catalog would otherwise be in memory twice
/// while it parses).
pub fn load_text(name: &str, bytes: impl Into<Vec<u8>>) -> Result<Loaded, Error> {
    let mut text = match String::from_utf8(bytes.into()) {
        Ok(t) => t,
        Err(e) => {
            let (valid, bytes) = (e.utf8_error().valid_up_to(), e.into_bytes());
            let file = source(name, String::from_utf8_lossy(&bytes).into_owned());
            // The valid prefix, the lossy text's own, locates the bad byte.
            let at = yaml::Mark::after(&file.text[..valid]);
            let bad = bytes[valid];
            let message = format!("the catalog is not UTF-8: byte 0x{bad:02x} cannot start a character");
            let diag = at_pos(at, "not-utf8", message).help("save the file as UTF-8");
            return Err(Error::Catalog {
                file,
                diagnostics: vec![diag],
            });
        }
    };
    on_own_thread(move || {
        // A byte order mark is no part of the catalog's text: positions count from after it.
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        let file = source(name, text);
        let d = match yaml::parse(&file.text) {
            Ok(root) if root.is_null() => at_pos(yaml::Mark { line: 1, col: 1 }, "empty", "the catalog is empty").help(
                "a catalog needs at least `version: 1`, `product`, `toolsets` and `tools`; run `ixgen schema` for the format",
            ),
            Ok(root) => match yaml::from_node::<Catalog>(root, || yaml::parse(&file.text)) {
                Ok(catalog) => return Ok(Loaded { catalog, file }),
                Err(e) => diagnostic(e),
            },
            Err(e) => diagnostic(e),
        };
        Err(Error::Catalog {
            file,
            diagnostics: vec![d],
        })
    })
}

fn source(name: &str, text: String) -> SourceFile {
    SourceFile {
        name: name.to_string(),
        text: Arc::new(text),
    }
}

/// Resolves every diagnostic's path to a line and column, parsing the text again as far as
/// the paths need ([`yaml::Located`]): a valid catalog's run never pays for it.
pub fn locate(diags: &mut [Diagnostic], text: &str) {
    let paths = diags.iter().filter(|d| d.pos.is_none()).map(|d| d.path.as_str());
    let index = yaml::Located::for_paths(text, paths);
    for d in diags.iter_mut().filter(|d| d.pos.is_none()) {
        d.pos = index.as_ref().and_then(|i| i.find(&d.path)).map(|loc| {
            let at = |m: yaml::Mark| (m.line as usize, m.col as usize);
            match d.place {
                Place::Value => at(loc.value),
                Place::Key => at(loc.key.unwrap_or(loc.value)),
                Place::Inside { line, col } => inside(text, at(loc.value), line, col),
            }
        });
    }
}

/// Where a place inside a string value is in the file, from where the value's text starts (the
/// reader's position: the first character of a plain scalar, the quote of a quoted one, the
/// first line of a block scalar's content). A literal block (`|`) keeps its lines: the text's
/// line n is the n-th line after the indicator's, indented as the block. Any other scalar of
/// several lines folds its line breaks (`>`, quoted, plain), so only a place on its first line
/// is known exactly: anywhere else the value's start stands for it. Escapes inside quotes,
/// which are not undone, can put the column a little off.
fn inside(text: &str, (vline, vcol): (usize, usize), line: usize, col: usize) -> (usize, usize) {
    let start = text.split_inclusive('\n').take(vline - 1).map(str::len).sum::<usize>();
    let first = text[start..].lines().next().unwrap_or("");
    // A block scalar's content starts its line, after the line that ends with its indicator:
    // the last one before it that is not blank (the content may start with blank lines).
    let blank = text[..start].lines().rev().take_while(|l| l.trim().is_empty()).count();
    let indicator = text[..start].lines().rev().nth(blank).and_then(block_indicator);
    let block = indicator.is_some() && first.chars().take(vcol - 1).all(char::is_whitespace);
    if block && indicator == Some('|') {
        return (vline - blank - 1 + line, vcol + col - 1);
    }
    // No quote opens a block scalar's content.
    let quoted = !block && first.chars().nth(vcol - 1).is_some_and(|c| c == '"' || c == '\'');
    let at = (vline, vcol + col - 1 + usize::from(quoted));
    let on_first_line = line == 1 && at.1 <= first.chars().count() + 1;
    // A folded block's leading blank lines are its first line of text.
    let folded_exactly = !block || blank == 0;
    if on_first_line && folded_exactly {
        at
    } else {
        (vline, vcol)
    }
}

/// The indicator (`|` or `>`) a line ends with when a block scalar starts after it
/// (`stdin: |`, `- >-`, `run: |2 # why`).
fn block_indicator(line: &str) -> Option<char> {
    // Without a comment: a `#` after a space or tab.
    let comment = line.match_indices('#').find(|(i, _)| line[..*i].ends_with([' ', '\t']));
    let code = comment.map_or(line, |(i, _)| &line[..i]);
    let token = code.trim_end().rsplit([' ', '\t']).next()?;
    let mut chars = token.chars();
    let indicator = chars.next().filter(|c| matches!(c, '|' | '>'))?;
    chars.all(|c| matches!(c, '-' | '+' | '1'..='9')).then_some(indicator)
}

/// An error at a line and column of the text (one the reader found, located already).
fn at_pos(at: yaml::Mark, code: &'static str, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        pos: Some((at.line as usize, at.col as usize)),
        ..Diagnostic::error(code, "", message)
    }
}

/// Turns a reader's error into a diagnostic at its position. A typing error carries serde's
/// message, which says what kind of fault it is (unknown key, wrong type, missing key).
fn diagnostic(e: yaml::Error) -> Diagnostic {
    let message = e.message.as_str();
    let (code, help) = if e.code != "yaml" {
        (e.code, e.help.to_string())
    } else if let Some((found, expected)) = named(message, "unknown field `") {
        let hint = match found {
            "oneOf" | "anyOf" | "allOf" => "ixgen never emits oneOf/anyOf/allOf in an inputSchema: the Anthropic API refuses tools that have them at the top; use an `enum` parameter or two tools".to_string(),
            "$schema" => "leave `$schema` out of parameters: Gemini rejects it, and the dialect is JSON Schema 2020-12 already".to_string(),
            _ if expected.is_empty() => "remove it".to_string(),
            _ => hint_for(found, &expected, format!("the keys allowed here are: {}", expected.join(", "))),
        };
        ("unknown-key", hint)
    } else if message.contains("missing field")
        && !["invalid type", "invalid value", "unknown variant"]
            .iter()
            .any(|m| message.contains(m))
    {
        (
            "missing-key",
            "add it; run `ixgen schema` to see what it takes".to_string(),
        )
    } else {
        // A wrong type or value, or a custom type's own message (an argument, a confirmation,
        // an amount): the YAML was read, and the value is not one this key takes. Suggests for
        // "unknown variant `x`, expected one of `a`, `b`".
        let hint = match named(message, "unknown variant `") {
            Some((found, expected)) => hint_for(found, &expected, format!("use one of: {}", expected.join(", "))),
            None => "run `ixgen schema` to see what each key takes".to_string(),
        };
        ("wrong-type", hint)
    };
    // An untagged enum's message names a Rust type, none of the catalog's words.
    let message = match message.split_once("data did not match any variant of untagged enum ") {
        Some((path, _)) => format!("{path}the value is none of the forms this key takes"),
        None => plain_types(message),
    };
    at_pos(e.mark, code, message).help(help)
}

/// serde's message with the Rust type it expected said in the catalog's words (`expected f64`
/// is `expected a number`): the reader of a diagnostic wrote YAML, not Rust.
fn plain_types(message: &str) -> String {
    // serde's name of a null.
    let message = &message.replacen("invalid type: unit value", "invalid type: null", 1);
    let Some(at) = message.rfind("expected ") else {
        return message.to_string();
    };
    let rest = &message[at + "expected ".len()..];
    let ty = rest.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
    let words = match ty {
        "f64" | "f32" => "a number",
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        _ => return message.to_string(),
    };
    format!("{}expected {words}{}", &message[..at], &rest[ty.len()..])
}

/// Parses serde's "<marker>x`, expected one of `a`, `b`" (or "expected `a`"): `x` and the
/// names it expected.
fn named<'m>(message: &'m str, marker: &str) -> Option<(&'m str, Vec<&'m str>)> {
    let rest = &message[message.find(marker)? + marker.len()..];
    let (found, after) = rest.split_once('`')?;
    let expected = after.split('`').skip(1).step_by(2).collect();
    Some((found, expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_types_are_said_in_the_catalogs_words() {
        assert_eq!(
            plain_types("invalid type: unit value, expected a template"),
            "invalid type: null, expected a template"
        );
        assert_eq!(
            plain_types("invalid type: string \"abc\", expected f64"),
            "invalid type: string \"abc\", expected a number"
        );
        assert_eq!(
            plain_types("invalid value: integer `-1`, expected u32"),
            "invalid value: integer `-1`, expected a whole number, 0 or more"
        );
        // Names of the catalog's own, and types that are words already, stay.
        for kept in [
            "unknown variant `x`, expected `one` or `two`",
            "expected a string",
            "expected u32x",
        ] {
            assert_eq!(plain_types(kept), kept);
        }
    }

    /// The code and position of each diagnostic a text loads with (none when it loads).
    fn faults(text: impl AsRef<[u8]>) -> Vec<(&'static str, Option<(usize, usize)>)> {
        match load_text("c.yaml", text.as_ref()) {
            Ok(_) => Vec::new(),
            Err(Error::Catalog { diagnostics, .. }) => diagnostics.iter().map(|d| (d.code, d.pos)).collect(),
            Err(e) => panic!("{e}"),
        }
    }

    /// A place inside a value's text, from the reader's position of the value: exact in a
    /// literal block whatever its first lines, and the value's start where folding hides it.
    #[test]
    fn a_place_inside_a_value_is_on_its_own_line_or_at_the_values_start() {
        let at = |text: &str, line, col| {
            let path = if text.starts_with("a:\n  - ") { "a[0]" } else { "a" };
            let v = yaml::Located::new(text).find(path).expect("a value at `a`").value;
            inside(text, (v.line as usize, v.col as usize), line, col)
        };
        // Literal: line n of the text is the n-th line after the indicator.
        assert_eq!(at("a: |\n  one\n  two {x\n", 2, 5), (3, 7));
        assert_eq!(at("a: |-  # why\n\n  one\n    two\n", 3, 3), (4, 5));
        assert_eq!(at("k: 1\na: |2\n    one\n  two\n", 2, 1), (4, 3));
        assert_eq!(at("a:\n  - |\n    one\n    two\n", 2, 2), (4, 6));
        // Folded, quoted or plain over several lines: exact on the first line only.
        assert_eq!(at("a: >\n  one\n  two\n", 1, 2), (2, 4));
        assert_eq!(at("a: >\n  one\n  two\n", 1, 6), (2, 3));
        assert_eq!(at("a: >\n  one\n\n  two\n", 2, 1), (2, 3));
        assert_eq!(at("a: \"one\n  two\"\n", 1, 2), (1, 6));
        assert_eq!(at("a: \"one\n  two\"\n", 1, 6), (1, 4));
        assert_eq!(at("a: \"one\\ntwo\"\n", 2, 1), (1, 4));
        assert_eq!(at("a:\n  plain\n  more\n", 1, 3), (2, 5));
        assert_eq!(at("a:\n  plain\n  more\n", 1, 8), (2, 3));
        // A quoted string on its own line is no block.
        assert_eq!(at("a:\n  \"one two\"\n", 1, 2), (2, 5));
    }

    #[test]
    fn the_embedded_catalog_carries_its_icon() {
        let icon = load(None).unwrap().catalog.product.icon.expect("ix names an icon");
        let bytes = icon.bytes.expect("the loader read it");
        assert_eq!(icon_problem(&bytes), None);
    }

    #[test]
    fn unfit_icons_are_refused() {
        let png = |w: u32, h: u32| {
            let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
            b.extend(w.to_be_bytes());
            b.extend(h.to_be_bytes());
            b
        };
        assert_eq!(icon_problem(&png(512, 512)), None);
        assert_eq!(icon_problem(&png(2048, 2048)), None);
        assert!(icon_problem(&png(512, 600)).unwrap().contains("not square"));
        assert!(icon_problem(&png(256, 256)).unwrap().contains("outside 512 to 2048"));
        assert!(icon_problem(b"<svg/>").unwrap().contains("not a PNG"));
        let mut big = png(1024, 1024);
        big.resize(2 * 1024 * 1024, 0);
        assert!(icon_problem(&big).unwrap().contains("not under 2 MB"));
    }

    #[test]
    fn embedded_json_reads_as_the_yaml_does() {
        assert!(!EMBEDDED_JSON.is_empty(), "build.rs converts the embedded catalog");
        // Both before the files the catalog names are read.
        let from_json = load_embedded().unwrap().catalog;
        let from_yaml = load_text(EMBEDDED_NAME, EMBEDDED.as_bytes()).unwrap().catalog;
        let (a, b) = (format!("{from_json:?}"), format!("{from_yaml:?}"));
        let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        assert!(
            a == b,
            "the JSON form differs from the YAML at byte {at}: …{}… vs …{}…",
            &a[at.saturating_sub(60)..(at + 60).min(a.len())],
            &b[at.saturating_sub(60)..(at + 60).min(b.len())]
        );
    }

    #[test]
    fn parses_serde_messages() {
        let message = "tools[0]: unknown field `limt`, expected one of `name`, `limit`";
        let (f, e) = named(message, "unknown field `").unwrap();
        assert_eq!(f, "limt");
        assert_eq!(e, ["name", "limit"]);
        assert_eq!(crate::diagnostic::did_you_mean("limt", &e), Some("limit"));
        assert_eq!(crate::diagnostic::did_you_mean("zzz", &e), None);
    }

    #[test]
    fn a_byte_order_mark_is_accepted() {
        let with = load_text(EMBEDDED_NAME, format!("\u{feff}{EMBEDDED}").as_bytes()).unwrap();
        let without = load_text(EMBEDDED_NAME, EMBEDDED.as_bytes()).unwrap();
        assert_eq!(format!("{:?}", with.catalog), format!("{:?}", without.catalog));
        assert_eq!(with.file.text, without.file.text, "the mark is no part of the text");
        // Positions on the first line count from after the mark.
        assert_eq!(faults("\u{feff}version: x\n"), [("wrong-type", Some((1, 10)))]);
    }

    #[test]
    fn a_control_byte_is_an_error_where_it_is() {
        let catalog = EMBEDDED.replacen("name: ix\n", "name: i\u{1}x\n", 1);
        assert_ne!(catalog, EMBEDDED);
        let line = catalog.lines().position(|l| l.contains('\u{1}')).unwrap() + 1;
        let col = catalog.lines().nth(line - 1).unwrap().find('\u{1}').unwrap() + 1;
        assert_eq!(faults(catalog), [("control-char", Some((line, col)))]);
        // A NUL would end the text for the parser: the catalog after it is not lost.
        assert_eq!(faults(b"version: 1\n\0tools: x\n"), [("control-char", Some((2, 1)))]);
        // A C1 control (U+0085, next line, is allowed), DEL and U+FFFF.
        assert_eq!(faults("a: \u{85}\nb: \u{9f}\n"), [("control-char", Some((2, 4)))]);
        assert_eq!(faults(b"a: '\x7f'\n"), [("control-char", Some((1, 5)))]);
        assert_eq!(faults("a: é\u{ffff}\n"), [("control-char", Some((1, 5)))]);
        // Tabs and CRLF line ends are not control bytes.
        assert_ne!(faults(b"a:\t1\r\nb: 2\r\n").first().map(|f| f.0), Some("control-char"));
    }

    #[test]
    fn an_oversized_catalog_is_refused_without_reading_it_all() {
        /// An endless reader of zeros, which counts what it hands out.
        struct Zeros(usize);
        impl std::io::Read for Zeros {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                buf.fill(0);
                self.0 += buf.len();
                Ok(buf.len())
            }
        }
        let mut zeros = Zeros(0);
        let bytes = yaml::read_bounded(&mut zeros, 0).unwrap();
        assert_eq!((bytes.len(), zeros.0), (yaml::MAX_BYTES + 1, yaml::MAX_BYTES + 1));
        // A file larger than the limit (sparse: its size costs no disk), and /dev/zero.
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.yaml");
        std::fs::File::create(&big).unwrap().set_len(1 << 40).unwrap();
        for p in [big.as_path(), Path::new("/dev/zero")]
            .into_iter()
            .filter(|p| p.exists())
        {
            let t = std::time::Instant::now();
            let Err(Error::Catalog { diagnostics, .. }) = load(Some(p)) else {
                panic!("{} loads", p.display())
            };
            assert_eq!(diagnostics[0].code, "too-large", "{}", p.display());
            // A bound on a hang (reading /dev/zero to its end never ends), not a speed figure.
            assert!(t.elapsed().as_secs() < 30, "{}: {:?}", p.display(), t.elapsed());
            assert!(context_declarations(Some(p)).is_none());
        }
        assert!(catalog_bytes(&big).is_err());
    }

    #[test]
    fn deep_flow_nesting_in_the_context_is_refused_fast() {
        let n = 200_000;
        let text = format!("context: {}{}\nversion: 1\n", "[".repeat(n), "]".repeat(n));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep.yaml");
        std::fs::write(&path, &text).unwrap();
        let t = std::time::Instant::now();
        assert!(context_declarations(Some(&path)).is_none());
        assert_eq!(faults(text).first().map(|f| f.0), Some("too-deep"));
        // A bound on quadratic work (200,000 levels), not a speed figure.
        assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
        // The same in block style.
        let block = format!("context:\n{}1\n", "- ".repeat(n));
        assert_eq!(faults(block).first().map(|f| f.0), Some("too-deep"));
    }

    #[test]
    fn a_duplicate_key_is_an_error_at_the_second_key() {
        let catalog = EMBEDDED.replacen("  name: ix\n", "  name: ix\n  name: iy\n", 1);
        let line = catalog.lines().position(|l| l == "  name: iy").unwrap() + 1;
        assert_eq!(faults(catalog), [("duplicate-key", Some((line, 3)))]);
        assert_eq!(faults(b"a: [{k: 1, k: 2}]\n"), [("duplicate-key", Some((1, 12)))]);
        // In a mapping large enough to be checked by hashing, and a quoted key equal to a plain one.
        let keys: String = (0..40).map(|i| format!("k{i}: 1\n")).collect();
        assert_eq!(faults(format!("{keys}'k7': 2\n")), [("duplicate-key", Some((41, 1)))]);
        // The same key in two mappings is fine.
        assert_eq!(
            faults(b"a: {x: 1}\nb: {x: 1}\n").first().map(|f| f.0),
            Some("unknown-key")
        );
    }

    #[test]
    fn the_context_is_read_without_the_rest() {
        let full = context_declarations(None).unwrap();
        assert!(full.contains_key("session") && full.len() == 4);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.yaml");
        let read = |text: &str| {
            std::fs::write(&path, text).unwrap();
            context_declarations(Some(&path))
        };
        let keys = |text: &str| read(text).unwrap().into_keys().collect::<Vec<_>>();
        // Reading stops after `context`: what follows is not read (even a syntax error).
        assert_eq!(
            keys("version: 1\ncontext:\n  a: {type: string}\ntools: [unclosed\n"),
            ["a"]
        );
        // Flow style, and no context at all.
        assert_eq!(keys("{version: 1, context: {b: {type: integer}}}"), ["b"]);
        assert!(keys("version: 1\ntools: []\n").is_empty());
        // A key that escapes a letter of `context` is still read.
        assert_eq!(keys("\"\\x63ontext\": {c: {type: string}}\n"), ["c"]);
        // A context that does not type is no context (the full load says why).
        assert!(read("context: [1]\n").is_none());
    }
}
