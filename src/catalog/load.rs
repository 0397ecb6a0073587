//! Reading a catalog: bytes → UTF-8 → YAML → typed [`Catalog`]. Validation and lowering are one
//! pass of the model stage (`crate::model::lower`), so a loaded catalog is typed, not yet valid.
//!
//! This is the only module that knows the catalog is YAML and which YAML crate reads it
//! (serde_yaml, which upstream marks deprecated: swapping it is a change to this file and
//! `locate.rs`). It writes nothing.

use super::locate::LocationIndex;
use super::types::{Catalog, ContextVar};
use crate::diagnostic::{Diagnostic, SourceFile, Target};
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
        None => {
            let mut loaded = load_embedded()?;
            read_assets(&mut loaded, |rel| {
                EMBEDDED_FILES
                    .iter()
                    .find(|(name, _)| *name == rel)
                    .map(|(_, bytes)| bytes.to_vec())
                    .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not built into ixgen"))
            })?;
            Ok(loaded)
        }
        Some(p) => {
            let err = |source| Error::ReadCatalog {
                path: crate::escape::display_path(p),
                source,
            };
            // Read at most one byte past the limit: `--catalog /dev/zero` or a huge file is
            // refused by the size check instead of filling memory.
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(
                    std::fs::File::open(p).map_err(err)?,
                    super::values::MAX_CATALOG_BYTES as u64 + 1,
                ),
                &mut bytes,
            )
            .map_err(err)?;
            let mut loaded = load_owned(&p.display().to_string(), bytes)?;
            let dir = p.parent().unwrap_or(Path::new(""));
            read_assets(&mut loaded, |rel| std::fs::read(dir.join(rel)))?;
            Ok(loaded)
        }
    }
}

/// The bytes of the catalog file at `path` (at most the catalog size limit), for the run
/// record's key; `None` when it cannot be read or is too large (the full load says why).
pub fn catalog_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(
            std::fs::File::open(path).ok()?,
            super::values::MAX_CATALOG_BYTES as u64 + 1,
        ),
        &mut bytes,
    )
    .ok()?;
    (bytes.len() <= super::values::MAX_CATALOG_BYTES).then_some(bytes)
}

/// The bytes of a file the catalog at `path` (or the embedded one) names, by its path relative
/// to the catalog; `None` when it cannot be read. For the run record, which hashes them.
pub fn asset_bytes(path: Option<&Path>, rel: &str) -> Option<Vec<u8>> {
    match path {
        None => EMBEDDED_FILES
            .iter()
            .find(|(name, _)| *name == rel)
            .map(|(_, b)| b.to_vec()),
        Some(p) => std::fs::read(p.parent().unwrap_or(Path::new("")).join(rel)).ok(),
    }
}

/// Reads the files a loaded catalog names (`product.icon`) through `read`, which takes a path
/// relative to the catalog, and checks that each is what its hosts accept. A file that is
/// missing or unfit is an error at its key in the catalog.
fn read_assets(loaded: &mut Loaded, read: impl Fn(&str) -> std::io::Result<Vec<u8>>) -> Result<(), Error> {
    let Some(icon) = loaded.catalog.product.icon.as_mut() else {
        return Ok(());
    };
    let problem = match read(&icon.path) {
        Err(e) => Some(format!("cannot read the icon `{}`: {e}", icon.path)),
        Ok(bytes) => match icon_problem(&bytes) {
            Some(p) => Some(format!("the icon `{}` {p}", icon.path)),
            None => {
                icon.bytes = Some(bytes);
                None
            }
        },
    };
    let Some(message) = problem else {
        return Ok(());
    };
    let mut diags = vec![
        Diagnostic::error("icon", "product.icon", message)
            .help("name a square PNG, 512 to 2048 px a side and under 2 MB, by a path relative to the catalog file"),
    ];
    locate(&mut diags, &loaded.file.text);
    Err(Error::Catalog {
        file: loaded.file.clone(),
        diagnostics: diags,
    })
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
    if bytes.len() >= 2 * 1024 * 1024 {
        return Some(format!("is {} bytes, not under 2 MB", bytes.len()));
    }
    None
}

/// The context variables a catalog declares, read without loading (or validating) the rest:
/// the command line needs them to know its flags before it can parse anything. `None` when
/// the file cannot be read or its `context` does not parse; the full load reports why.
pub fn context_declarations(path: Option<&Path>) -> Option<indexmap::IndexMap<String, ContextVar>> {
    /// Only the `context` key; every other key is ignored here.
    #[derive(serde::Deserialize)]
    struct ContextOnly {
        #[serde(default)]
        context: indexmap::IndexMap<String, ContextVar>,
    }
    let parsed: ContextOnly = match path {
        None => serde_json::from_str(EMBEDDED_CONTEXT_JSON)
            .or_else(|_| serde_json::from_str(EMBEDDED_JSON))
            .ok()?,
        Some(p) => {
            let text = std::fs::read_to_string(p).ok()?;
            // Parsing a catalog of 10,000 tools takes longer than the run it precedes: read
            // the `context` block alone when it can be cut out, the whole file otherwise.
            let quick = context_block(&text).and_then(|b| serde_yaml::from_str::<Option<ContextOnly>>(&b).ok());
            match quick {
                Some(c) => c.unwrap_or(ContextOnly {
                    context: Default::default(),
                }),
                None => serde_yaml::from_str(&text).ok()?,
            }
        }
    };
    Some(parsed.context)
}

/// The top-level `context:` block of a block-style YAML document (empty when it has none), or
/// `None` when the document's shape does not allow cutting it out by lines (flow style, quoted
/// or complex keys), so the caller parses the whole file.
fn context_block(text: &str) -> Option<String> {
    let mut block = String::new();
    let mut inside = false;
    for line in text.lines() {
        if top_level_key(line)? {
            if inside {
                break;
            }
            inside = line.starts_with("context:");
        }
        if inside {
            block.push_str(line);
            block.push('\n');
        }
    }
    Some(block)
}

/// Whether a line of a block-style YAML document starts a top-level key: one starts in column
/// 0; comments, indented lines, list items and document markers do not. `None` when the line
/// shows a shape that cutting the document by lines cannot follow (flow style, quoted, complex
/// or tagged keys, anchors, aliases, directives, block scalars at the top).
fn top_level_key(line: &str) -> Option<bool> {
    let top = line
        .chars()
        .next()
        .is_some_and(|c| !matches!(c, ' ' | '\t' | '#' | '-' | '.'));
    if top && line.starts_with(['{', '[', '"', '\'', '?', '&', '*', '!', '%', '|', '>']) {
        return None;
    }
    Some(top)
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

/// Loads a catalog from bytes; `name` is how messages call the file.
pub fn load_text(name: &str, bytes: &[u8]) -> Result<Loaded, Error> {
    load_owned(name, bytes.to_vec())
}

/// [`load_text`] of bytes it may keep: a valid catalog's text is its bytes, not a copy (a
/// large catalog would otherwise be in memory twice while it parses).
fn load_owned(name: &str, bytes: Vec<u8>) -> Result<Loaded, Error> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let (e, bytes) = (e.utf8_error(), e.into_bytes());
            // Show the valid prefix so the position of the bad byte can be pointed at.
            let good = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned();
            let line = good.matches('\n').count() + 1;
            let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let file = source(name, String::from_utf8_lossy(&bytes).into_owned());
            let diag = Diagnostic {
                pos: Some((line, col)),
                target: Target::Pos { line, col },
                ..Diagnostic::error(
                    "not-utf8",
                    "",
                    format!(
                        "the catalog is not UTF-8: byte 0x{:02x} cannot start a character",
                        bytes[e.valid_up_to()]
                    ),
                )
                .help("save the file as UTF-8")
            };
            return Err(Error::Catalog {
                file,
                diagnostics: vec![diag],
            });
        }
    };
    let file = source(name, text);
    let text = file.text.as_str();

    if text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---"
    }) {
        let diag = Diagnostic {
            pos: Some((1, 1)),
            target: Target::Pos { line: 1, col: 1 },
            ..Diagnostic::error("empty", "", "the catalog is empty").help(
                "a catalog needs at least `version: 1`, `product`, `toolsets` and `tools`; run `ixgen schema` for the format",
            )
        };
        return Err(Error::Catalog {
            file,
            diagnostics: vec![diag],
        });
    }

    // A plain catalog is read in one pass (`super::quick`); anything else, and anything wrong,
    // is read the full way below, which reports it.
    if let Some(catalog) = read_quick(text) {
        return Ok(Loaded { catalog, file });
    }

    // Size, depth, duplicate keys and numbers: serde cannot see the duplicates or the numbers
    // any more, and must never be handed a hostile nesting (its parser is quadratic in it).
    // When a linear byte scan bounds the nesting, serde parses on this thread while the event
    // pass runs on another (it costs as much as the parse itself); otherwise the pass goes first.
    let shallow = super::values::shallow_enough(text);
    let (raw, plain, parsed) = if shallow {
        std::thread::scope(|s| {
            let pass = s.spawn(|| super::values::check_text_plain(text));
            let parsed = parse(text, true);
            let (raw, plain) = pass.join().expect("the value pass does not panic");
            (raw, plain, Some(parsed))
        })
    } else {
        let (raw, plain) = super::values::check_text_plain(text);
        (raw, plain, None)
    };
    if !raw.is_empty() {
        return Err(Error::Catalog { file, diagnostics: raw });
    }
    let parsed = match parsed {
        // A catalog read in pieces stands only when the pass found nothing (an alias, an
        // unfinished text) that could make a piece mean something else on its own.
        Some((p, pieced)) if plain || !pieced => p,
        _ => parse(text, plain).0,
    };
    let catalog: Catalog = match parsed {
        Ok(c) => c,
        Err(e) => {
            let diag = structural(&e, text);
            return Err(Error::Catalog {
                file,
                diagnostics: vec![diag],
            });
        }
    };

    Ok(Loaded { catalog, file })
}

/// Tools read per piece (see [`parse`]).
const PIECE_TOOLS: usize = 64;

/// Parses a catalog, in pieces when `pieces` allows it and the text can be cut (then the
/// second value is true), else whole. serde_yaml reads a document's whole event stream before
/// it deserializes anything, about 25 times the text's size: the 7.7 MB catalog of 10,000
/// tools took 200 MB that way. In pieces, the `tools` list is read 64 items at a time and the
/// rest of the document on its own, so only a piece's events are ever held. Any failure of a
/// piece falls back to reading the whole text, so a broken catalog is reported exactly as
/// before (message, line and column).
fn parse(text: &str, pieces: bool) -> (Result<Catalog, serde_yaml::Error>, bool) {
    if pieces && let Some(catalog) = parse_in_pieces(text) {
        return (Ok(catalog), true);
    }
    (serde_yaml::from_str::<Catalog>(text), false)
}

fn parse_in_pieces(text: &str) -> Option<Catalog> {
    in_pieces(
        &cut_tools(text)?,
        |p| serde_yaml::from_str(p).ok(),
        |rest| serde_yaml::from_str(rest).ok(),
    )
}

/// Reads a plain catalog in one pass ([`super::quick`]): in pieces on every core when the
/// text can be cut, as [`parse`] does.
fn read_quick(text: &str) -> Option<Catalog> {
    use super::values::{MAX_CATALOG_BYTES, MAX_DEPTH};
    if text.len() > MAX_CATALOG_BYTES {
        return None;
    }
    match cut_tools(text) {
        // A piece's own list stands for the `tools` list, one level below the top mapping.
        Some(cut) => in_pieces(
            &cut,
            |p| super::quick::read(p, MAX_DEPTH - 1),
            |rest| super::quick::read(rest, MAX_DEPTH),
        ),
        None => super::quick::read(text, MAX_DEPTH),
    }
}

/// A catalog read from a cut text: its pieces' tools (read in parallel) in the rest's `tools`.
fn in_pieces(
    cut: &Cut<'_>,
    tools: impl Fn(&str) -> Option<Vec<super::types::Tool>> + Sync,
    rest: impl Fn(&str) -> Option<Catalog>,
) -> Option<Catalog> {
    let pieces = crate::par::map(&cut.pieces, |p| tools(p));
    let mut catalog = rest(&cut.rest)?;
    let mut tools = Vec::with_capacity(cut.items);
    for piece in pieces {
        tools.extend(piece?);
    }
    // Each item line starts one tool: any other count means the cut was not where it seemed.
    if tools.len() != cut.items {
        return None;
    }
    catalog.tools = tools;
    Some(catalog)
}

/// A catalog text cut for reading in pieces.
struct Cut<'t> {
    /// The text with the items of the top-level `tools` list left out (`tools: []`).
    rest: String,
    /// The items, [`PIECE_TOOLS`] at a time: each piece is a block sequence on its own.
    pieces: Vec<&'t str>,
    items: usize,
}

/// Cuts a block-style catalog at the items of its top-level `tools` list, by lines: an item
/// starts on a line whose `-` is at the list's indentation, and everything nested in it is
/// indented further. `None` when the document's shape does not allow cutting by lines (flow
/// style, quoted or complex keys, tabs, document markers or a less indented line in the list,
/// a second `tools` key) or when the list is short enough to read whole.
fn cut_tools(text: &str) -> Option<Cut<'_>> {
    let (mut offset, mut key, mut block_end, mut indent) = (0usize, None, None, None);
    let mut starts = Vec::new();
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let in_block = key.is_some() && block_end.is_none();
        if top_level_key(body)? {
            if in_block {
                block_end = Some(start);
            }
            if let Some(after) = body.strip_prefix("tools:")
                && (after.trim().is_empty() || after.trim_start().starts_with('#'))
            {
                if key.is_some() {
                    return None;
                }
                key = Some(start);
            }
            continue;
        }
        if !in_block {
            continue;
        }
        let content = body.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if content.starts_with('\t') || body.starts_with("---") || body.starts_with("...") {
            return None;
        }
        let at = body.len() - content.len();
        let item = content == "-" || content.starts_with("- ");
        match indent {
            None if item => indent = Some(at),
            Some(i) if at >= i => {}
            _ => return None,
        }
        if item && indent == Some(at) {
            starts.push(start);
        }
    }
    let key = key?;
    let block_end = block_end.unwrap_or(text.len());
    if starts.len() <= PIECE_TOOLS {
        return None;
    }
    let pieces = starts
        .chunks(PIECE_TOOLS)
        .enumerate()
        .map(|(i, run)| {
            let end = starts.get((i + 1) * PIECE_TOOLS).copied().unwrap_or(block_end);
            &text[run[0]..end]
        })
        .collect();
    let mut rest = String::with_capacity(key + text.len() - block_end + 16);
    rest.push_str(&text[..key]);
    rest.push_str("tools: []\n");
    rest.push_str(&text[block_end..]);
    Some(Cut {
        rest,
        pieces,
        items: starts.len(),
    })
}

fn source(name: &str, text: String) -> SourceFile {
    SourceFile {
        name: name.to_string(),
        text: Arc::new(text),
    }
}

/// Resolves every diagnostic's path to a line and column.
pub fn locate(diags: &mut [Diagnostic], text: &str) {
    // Indexing parses the whole catalog again: only worth it when something needs a place
    // (every run of a valid catalog would otherwise pay for it).
    if diags.iter().all(|d| d.pos.is_some()) {
        return;
    }
    let index = LocationIndex::build(text);
    for d in diags.iter_mut() {
        if d.pos.is_some() {
            continue;
        }
        d.pos = match &d.target {
            Target::File => None,
            Target::Pos { line, col } => Some((*line, *col)),
            Target::Path { path, key } => index.find(path).map(|loc| {
                let p = if *key { loc.key.unwrap_or(loc.value) } else { loc.value };
                (p.line, p.col)
            }),
        };
    }
}

/// Turns a serde_yaml error (syntax, unknown key, wrong type) into a diagnostic.
fn structural(e: &serde_yaml::Error, text: &str) -> Diagnostic {
    let full = e.to_string();
    // serde_yaml appends " at line L column C"; the position is reported separately.
    let message = match full.find(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full.clone(),
    };
    let (line, col) = match e.location() {
        Some(l) => (l.line(), l.column()),
        None => (1, 1),
    };
    let mut diag = Diagnostic {
        pos: Some((line, col)),
        target: Target::Pos { line, col },
        ..Diagnostic::error("yaml", "", message.clone())
    };
    if let Some((found, expected)) = unknown_field(&message) {
        diag.code = "unknown-key";
        let hint = match found.as_str() {
            "oneOf" | "anyOf" | "allOf" => "ixgen never emits oneOf/anyOf/allOf in an inputSchema: the Anthropic API refuses tools that have them at the top; use an `enum` parameter or two tools".to_string(),
            "$schema" => "leave `$schema` out of parameters: Gemini rejects it, and the dialect is JSON Schema 2020-12 already".to_string(),
            _ => match did_you_mean(&found, &expected) {
                Some(m) => format!("did you mean `{m}`?"),
                None if expected.is_empty() => "remove it".to_string(),
                None => format!("the keys allowed here are: {}", expected.join(", ")),
            },
        };
        diag = diag.help(hint);
    } else if message.contains("duplicate field") || message.contains("duplicate entry") {
        diag.code = "duplicate-key";
        diag = diag.help("a key may appear once in a mapping: remove or rename one");
        // serde_yaml points at the mapping; the index keeps the last occurrence of a path,
        // which is the repeated key itself.
        if let Some(field) = message.split('`').nth(1) {
            let prefix = message.split(": ").next().filter(|p| !p.contains(' ')).unwrap_or("");
            let path = if prefix.is_empty() || prefix == message {
                field.to_string()
            } else {
                format!("{prefix}.{field}")
            };
            let index = LocationIndex::build(text);
            if let Some(loc) = index.find(&path).filter(|_| index.contains(&path)) {
                let p = loc.key.unwrap_or(loc.value);
                diag.pos = Some((p.line, p.col));
                diag.target = Target::Path { path, key: true };
            }
        }
    } else if message.contains("invalid type")
        || message.contains("invalid value")
        || message.contains("unknown variant")
    {
        diag.code = "wrong-type";
        if let Some(v) = unknown_variant(&message) {
            diag = diag.help(v);
        } else {
            diag = diag.help("run `ixgen schema` to see what each key takes");
        }
    } else if message.contains("missing field") {
        diag.code = "missing-key";
        diag = diag.help("add it; run `ixgen schema` to see what it takes");
    } else {
        diag.code = "yaml-syntax";
        diag = diag
            .help("fix the YAML syntax at this position (indentation, a missing `:` or an unclosed quote or bracket)");
    }
    diag
}

/// Parses "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
fn unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    let rest = &message[message.find("unknown field `")? + "unknown field `".len()..];
    let found = rest[..rest.find('`')?].to_string();
    let expected = ticks(&rest[rest.find('`')? + 1..]);
    Some((found, expected))
}

/// Suggests for "unknown variant `x`, expected one of `a`, `b`".
fn unknown_variant(message: &str) -> Option<String> {
    let rest = &message[message.find("unknown variant `")? + "unknown variant `".len()..];
    let found = &rest[..rest.find('`')?];
    let expected = ticks(&rest[rest.find('`')? + 1..]);
    Some(match did_you_mean(found, &expected) {
        Some(m) => format!("did you mean `{m}`?"),
        None => format!("use one of: {}", expected.join(", ")),
    })
}

fn ticks(s: &str) -> Vec<String> {
    s.split('`').skip(1).step_by(2).map(str::to_string).collect()
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

    /// A catalog of `n` tools in the block style people write, with `extra` inserted in the
    /// 150th tool's entry.
    fn many_tools(n: usize, extra: &str) -> String {
        let mut text = String::from(
            "version: 1\nproduct: {name: p, version: 1.0.0, description: d}\ntoolsets:\n  all:\n    tools: [t0]\n# the tools\ntools:\n",
        );
        for i in 0..n {
            text.push_str(&format!(
                "  - name: t{i}\n    description: \"Tool {i}\\n- not an item\"\n    # a comment\n\n    params:\n      q:\n        type: string\n        description: |\n          Query\n          - still the description\n    steps:\n      - run: [x, '{{q}}']\n"
            ));
            if i == 150 {
                text.push_str(extra);
            }
        }
        text.push_str("filters: {}\n");
        text
    }

    /// The one-pass reading agrees with the full one on every catalog in the repository: a
    /// catalog it reads passes the value checks and is what serde_yaml reads. The ix catalog,
    /// a long list read in pieces and most fixtures are read in one pass.
    #[test]
    fn the_one_pass_reading_reads_what_the_full_reading_reads() {
        fn yaml_files(dir: &Path, out: &mut Vec<(String, String)>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    yaml_files(&p, out);
                } else if p.extension().is_some_and(|x| x == "yaml") {
                    // A fixture that is not UTF-8 never reaches either reading.
                    if let Ok(text) = std::fs::read_to_string(&p) {
                        out.push((p.display().to_string(), text));
                    }
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![("many".to_string(), many_tools(300, ""))];
        yaml_files(&root.join("catalog"), &mut texts);
        yaml_files(&root.join("tests/fixtures"), &mut texts);
        let mut quick = 0;
        for (name, text) in &texts {
            let Some(fast) = read_quick(text) else { continue };
            quick += 1;
            assert!(super::super::values::check_text(text).is_empty(), "{name}");
            let full: Catalog = serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(format!("{fast:?}"), format!("{full:?}"), "{name}");
        }
        assert!(read_quick(EMBEDDED).is_some());
        assert!(cut_tools(&texts[0].1).is_some() && read_quick(&texts[0].1).is_some());
        assert!(quick * 2 > texts.len(), "{quick} of {} read in one pass", texts.len());
    }

    #[test]
    fn a_long_tool_list_read_in_pieces_is_the_list_read_whole() {
        let text = many_tools(300, "");
        let cut = cut_tools(&text).expect("a block-style catalog can be cut");
        assert_eq!((cut.items, cut.pieces.len()), (300, 5));
        let (pieced, used) = parse(&text, true);
        assert!(used);
        let whole = serde_yaml::from_str::<Catalog>(&text).unwrap();
        assert_eq!(format!("{:?}", pieced.unwrap()), format!("{whole:?}"));
        // Short lists are read whole, as before.
        assert!(cut_tools(&many_tools(PIECE_TOOLS, "")).is_none());
    }

    #[test]
    fn a_catalog_that_cannot_be_cut_safely_is_read_whole() {
        // An alias into another piece: the pass says the text is not plain.
        let text = many_tools(300, "    title: *t\n").replacen("name: t0\n", "name: &t t0\n", 1);
        assert!(!super::super::values::check_text_plain(&text).1);
        let loaded = load_text("c.yaml", text.as_bytes()).map_err(|e| e.to_string()).unwrap();
        assert_eq!(loaded.catalog.tools[150].title.as_deref(), Some("t0"));
        // A less indented line inside the list, flow style, or a second `tools` key: no cut.
        assert!(cut_tools(&many_tools(300, " odd: 1\n")).is_none());
        assert!(cut_tools(&many_tools(300, "").replace("tools:\n  - name: t0", "tools: [\n  - name: t0")).is_none());
        assert!(cut_tools(&format!("{}tools:\n", many_tools(300, ""))).is_none());
    }

    #[test]
    fn an_error_in_a_piece_is_reported_as_the_whole_text_reports_it() {
        let text = many_tools(300, "    colour: red\n");
        let Err(Error::Catalog { diagnostics, .. }) = load_text("c.yaml", text.as_bytes()) else {
            panic!("an unknown key loads");
        };
        let whole = serde_yaml::from_str::<Catalog>(&text).unwrap_err();
        let expected = structural(&whole, &text);
        assert_eq!(format!("{:?}", diagnostics), format!("{:?}", vec![expected]));
        assert!(diagnostics[0].message.contains("tools[150]"), "{:?}", diagnostics[0]);
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
        let at = a
            .bytes()
            .zip(b.bytes())
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        assert!(
            a == b,
            "the JSON form differs from the YAML at byte {at}: …{}… vs …{}…",
            &a[at.saturating_sub(60)..(at + 60).min(a.len())],
            &b[at.saturating_sub(60)..(at + 60).min(b.len())]
        );
    }

    #[test]
    fn parses_serde_messages() {
        let (f, e) = unknown_field("tools[0]: unknown field `limt`, expected one of `name`, `limit`").unwrap();
        assert_eq!(f, "limt");
        assert_eq!(e, ["name", "limit"]);
        assert_eq!(did_you_mean("limt", &e), Some("limit"));
        assert_eq!(did_you_mean("zzz", &e), None);
    }

    #[test]
    fn the_context_block_is_cut_out_or_left_to_the_full_parse() {
        let text = "version: 1\n# context: not this\ncontext:\n  a: {type: string}\n\n  b:\n    type: integer\ntools:\n- name: x\n";
        assert_eq!(
            context_block(text).as_deref(),
            Some("context:\n  a: {type: string}\n\n  b:\n    type: integer\n")
        );
        assert_eq!(context_block("version: 1\ntools: []\n").as_deref(), Some(""));
        assert_eq!(context_block("{version: 1, context: {}}"), None);
        assert_eq!(context_block("\"context\": {}\n"), None);
        // The embedded catalog's context, cut out, is the whole parse's.
        let block = context_block(EMBEDDED).unwrap();
        let cut: std::collections::BTreeMap<String, indexmap::IndexMap<String, ContextVar>> =
            serde_yaml::from_str(&block).unwrap();
        let cut = &cut["context"];
        let full = context_declarations(None).unwrap();
        assert_eq!(
            cut.iter()
                .map(|(k, v)| (k.clone(), v.default.clone()))
                .collect::<Vec<_>>(),
            full.iter()
                .map(|(k, v)| (k.clone(), v.default.clone()))
                .collect::<Vec<_>>()
        );
        assert!(full.contains_key("session") && full.len() == 4);
    }
}
