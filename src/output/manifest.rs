//! The manifest (`.ixgen/manifest.json`): which files ixgen owns, and what proves that the
//! bytes at each path are the ones it wrote (a hash, a per-run file's [`Shape`], or a pending
//! file's marker).
//!
//! This module reads, validates and serializes the manifest; it must not write it (a commit
//! does, through a temp file) nor compare a plan with the disk.

use super::fs::read_rel;
use super::shown;
use crate::error::Error;
use crate::escape;
use crate::paths::RelPath;
use crate::plan::{RunTemplate, TemplatePart, has_marker};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A per-run file's template as the run record and the manifest keep it: not its text (10 KB
/// of TypeScript that would be parsed out of escaped JSON at every iteration) but its shape. The file on disk is
/// the template filled with some run's values; given the texts' lengths, and how a value is
/// spelled ([`escape::ts_literal_len`]), a replay (or the check that a per-run file is ixgen's)
/// cuts the values out of it and checks that what is left is the recorded texts, by hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    /// In order: the length in bytes of each text, and where each value goes.
    parts: Vec<ShapePart>,
    /// BLAKE3 of the texts, one after the other.
    texts: String,
}

/// A piece of a [`Shape`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ShapePart {
    Text(usize),
    Var { var: String },
}

impl Shape {
    /// The shape of a template.
    pub fn of(template: &RunTemplate) -> Shape {
        let mut texts = blake3::Hasher::new();
        let parts = template
            .0
            .iter()
            .map(|p| match p {
                TemplatePart::Text(t) => {
                    texts.update(t.as_bytes());
                    ShapePart::Text(t.len())
                }
                TemplatePart::Var(var) => ShapePart::Var { var: var.clone() },
            })
            .collect();
        Shape {
            parts,
            texts: texts.finalize().to_hex().to_string(),
        }
    }

    /// The template filled with `value`, when `old` is the template filled with any values:
    /// `None` when it is not (an edit, another template), or a variable has no value.
    pub fn refill(&self, old: &[u8], value: impl Fn(&str) -> Option<String>) -> Option<Vec<u8>> {
        let mut texts = blake3::Hasher::new();
        let mut new = Vec::with_capacity(old.len() + 64);
        let mut at: usize = 0;
        for p in &self.parts {
            match p {
                ShapePart::Text(len) => {
                    let text = old.get(at..at.checked_add(*len)?)?;
                    texts.update(text);
                    new.extend_from_slice(text);
                    at += len;
                }
                ShapePart::Var { var } => {
                    at += escape::ts_literal_len(&old[at..])?;
                    new.extend_from_slice(value(var)?.as_bytes());
                }
            }
        }
        (at == old.len() && texts.finalize().to_hex().as_str() == self.texts).then_some(new)
    }

    /// Whether `bytes` are the template filled with some values: a per-run file ixgen wrote.
    pub fn fits(&self, bytes: &[u8]) -> bool {
        self.refill(bytes, |_| Some(String::new())).is_some()
    }
}

/// Whether `h` is a BLAKE3 hex digest.
pub(super) fn is_hex_digest(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The manifest: every owned file of every group, with the hash of what was written.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub generator: String,
    /// The product whose files these are (`product.name`); none in a manifest written before
    /// ixgen recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    pub files: BTreeMap<String, ManifestEntry>,
    /// The keys ixgen set in shared JSON files (`opencode.json`, `.cursor/mcp.json`, ...), by
    /// file: a key no run plans any more (a dropped target, a renamed server, a tool that no
    /// longer asks for confirmation) is taken out again, and only while it holds what ixgen set.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub keys: BTreeMap<String, Vec<MergedKey>>,
}

/// One key ixgen set in a shared JSON file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergedKey {
    pub group: String,
    /// Where it is: the object keys from the file's top level.
    pub key: Vec<String>,
    /// BLAKE3 of the value's compact JSON, as ixgen set it.
    pub blake3: String,
}

impl MergedKey {
    pub(super) fn new(group: &str, key: &[String], value: &serde_json::Value) -> MergedKey {
        MergedKey {
            group: group.to_string(),
            key: key.to_vec(),
            blake3: value_hash(value),
        }
    }
}

/// The hash a [`MergedKey`] records of a value: of its compact JSON (serde_json keeps an
/// object's key order, so a value read back from the file hashes as the one ixgen set).
pub(super) fn value_hash(value: &serde_json::Value) -> String {
    content_hash(&serde_json::to_vec(value).expect("a JSON value always serializes"))
}

/// One owned file, with what proves that the bytes at its path are ixgen's: an entry that
/// proves nothing (a manifest whose hashes were lost in a hand merge) makes ixgen refuse to
/// overwrite or remove the file without `--force`.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    pub group: String,
    /// Hash of what ixgen wrote; none for a per-run file, which has its shape instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blake3: Option<String>,
    /// A per-run file's shape ([`Shape`]): the same for every run of one catalog and options,
    /// so that rewriting the file with new values never rewrites the manifest too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// While a run is in flight, the hash of the version it is replacing: a run killed
    /// midway leaves either version on disk, and both count as ixgen's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// While a run is in flight, a file it is about to create, whose hash it learns only once
    /// the file is written: a run killed midway leaves it, and the next run takes it over or
    /// removes it, whatever that run plans. It is ixgen's only if it carries the marker: the
    /// run creates it only at a free path, never over anything, with the marker in it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

impl ManifestEntry {
    /// Whether `bytes` are provably what ixgen wrote: the recorded hash (or the one being
    /// replaced), a per-run file's shape filled with any values, or a pending file's marker.
    pub(super) fn matches(&self, bytes: &[u8]) -> bool {
        let hash = std::cell::OnceCell::new();
        let hash = || hash.get_or_init(|| content_hash(bytes)).clone();
        let proven = match (&self.blake3, &self.shape) {
            (Some(h), _) => *h == hash(),
            (None, Some(shape)) => shape.fits(bytes),
            (None, None) => self.pending && has_marker(bytes),
        };
        proven || self.previous.as_ref().is_some_and(|p| *p == hash())
    }

    /// Why ixgen refuses to overwrite (or, `removing`, remove) the file at `path` whose bytes the
    /// entry does not match: an edit, or, when the entry cannot prove anything (no hash, shape or
    /// pending mark), a file ixgen touches only with `--force`.
    pub(super) fn refusal(&self, path: String, removing: bool) -> Error {
        if self.blake3.is_some() || self.shape.is_some() || self.pending {
            Error::Edited { path, removing }
        } else {
            Error::Unproven { path, removing }
        }
    }
}

/// The content hash recorded in the manifest. BLAKE3: this runs on every file of every loop
/// iteration, and it is several times faster than SHA-256 without SHA instructions.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The manifest's path (the run record checks it too).
pub(crate) fn manifest_path() -> RelPath {
    RelPath::state("manifest.json")
}

/// The run record's path (`crate::record`). A write removes the record before it stages
/// anything, so that a record on disk means the last writing run finished: a replay then
/// looks for a killed run's temp files only beside the per-run files it writes itself and
/// beside the record (a run that changed nothing, killed while it saved its record).
pub(crate) fn record_rel() -> RelPath {
    RelPath::state("run.json")
}

/// Reads the manifest of an output folder: the valid entries, and a note for each entry that
/// is ignored. A manifest that is not one (bad JSON, unknown keys) is an error: guessing
/// would either forget files ixgen owns or take files it does not.
pub fn read_manifest(out: &Path) -> Result<(Manifest, Vec<String>), Error> {
    let rel = manifest_path();
    let Some(bytes) = read_rel(out, &rel)? else {
        return Ok((Manifest::default(), Vec::new()));
    };
    let mut manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| Error::CorruptManifest {
        path: shown(out, &rel),
        why: e.to_string(),
    })?;
    let mut notes = Vec::new();
    for (key, entry) in std::mem::take(&mut manifest.files) {
        let valid = RelPath::file(&key).map_err(|e| e.to_string()).and_then(|p| {
            let hash_ok = entry.blake3.iter().chain(&entry.previous).all(|h| is_hex_digest(h))
                && entry.shape.as_ref().is_none_or(|s| is_hex_digest(&s.texts));
            if !hash_ok {
                Err("its hash is not a BLAKE3 hex digest".to_string())
            } else if manifest.files.contains_key(p.as_str()) {
                Err(format!("it names `{p}` again"))
            } else {
                Ok(p)
            }
        });
        match valid {
            Ok(p) => {
                manifest.files.insert(p.to_string(), entry);
            }
            Err(why) => notes.push(format!(
                "ignoring the manifest entry {} ({why}); ixgen will not touch it",
                escape::debug_quote(&key)
            )),
        }
    }
    for (file, keys) in std::mem::take(&mut manifest.keys) {
        let valid = RelPath::file(&file).map_err(|e| e.to_string()).and_then(|p| {
            match keys.iter().all(|k| is_hex_digest(&k.blake3) && !k.key.is_empty()) {
                true => Ok(p),
                false => Err("a key's hash is not a BLAKE3 hex digest, or it names no key".to_string()),
            }
        });
        match valid {
            Ok(p) => manifest.keys.entry(p.to_string()).or_default().extend(keys),
            Err(why) => notes.push(format!(
                "ignoring the manifest's keys of {} ({why}); ixgen will not take them out",
                escape::debug_quote(&file)
            )),
        }
    }
    Ok((manifest, notes))
}

/// The manifest's text: one file per line (`crate::escape::json_lines_to`), a tenth smaller
/// than serde_json's pretty layout for 10,000 files and as easy to diff. Only whitespace
/// differs, so any manifest written before reads the same.
pub(super) fn manifest_bytes(m: &Manifest) -> Vec<u8> {
    let head = Manifest {
        generator: m.generator.clone(),
        product: m.product.clone(),
        files: BTreeMap::new(),
        keys: m.keys.clone(),
    };
    let entries = m.files.iter().map(|(path, e)| {
        let entry = serde_json::to_value(e).expect("a manifest entry always serializes");
        (Some(path.clone()), entry)
    });
    let mut bytes = Vec::new();
    crate::escape::json_lines_to(&head, "files", entries, &mut bytes).expect("the manifest always serializes");
    bytes
}
