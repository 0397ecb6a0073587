//! Staging: the bytes of each changed file written to a complete temp file beside its target,
//! rendered again where the compare kept only a hash (and checked against that hash).
//!
//! It must not give any file its final name: [`super::commit`] renames staged files, and
//! [`super::create`] names new ones.

use super::fs::{check_size, resolve};
use super::manifest::{Manifest, content_hash};
use super::{Change, io_error, shown};
use crate::error::Error;
use crate::paths::{RelPath, TEMP_PREFIX, TEMP_SUFFIX};
use crate::plan::{Content, PlannedFile, has_marker};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A sink that writes a streamed file to its temp file and hashes it on the way; the first
/// write error is kept, so that it is reported as the write failure it is.
pub(super) struct Hashed<'f> {
    file: &'f mut std::fs::File,
    hasher: blake3::Hasher,
    error: Option<std::io::Error>,
    /// How many bytes were written.
    len: u64,
}

impl Write for Hashed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.write_all(buf) {
            Ok(()) => {
                self.hasher.update(buf);
                self.len += buf.len() as u64;
                Ok(buf.len())
            }
            Err(e) => {
                let kind = e.kind();
                self.error.get_or_insert(e);
                Err(std::io::Error::from(kind))
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// One file staged for a rename.
pub(super) struct Staged<'a> {
    pub(super) rel: &'a RelPath,
    pub(super) full: PathBuf,
    /// The staged file, closed: a run stages every new file before the first rename, and
    /// holding each one open would run out of file descriptors (1,024 by default) on a large
    /// catalog. It is still removed when dropped.
    pub(super) tmp: tempfile::TempPath,
    /// What the file held before (none for a new file), to put back on a rollback.
    pub(super) old: Option<&'a [u8]>,
}

/// Stages every file that replaces one as a complete temp file beside its target. A change
/// that kept only its hash is rendered again from `files`, and must hash to what was compared;
/// its bytes are dropped once staged, so the run holds a batch of rendered files, not the whole
/// output.
pub(super) fn stage_all<'a>(
    out: &Path,
    changes: &[&'a Change],
    manifest: &Manifest,
    planned: &BTreeMap<RelPath, &PlannedFile<'_>>,
) -> Result<Vec<Staged<'a>>, Error> {
    // Rendered on every core a batch at a time, written in order on this thread: temp files
    // created from several threads in one folder only contend for its lock.
    let mut staged = Vec::with_capacity(changes.len());
    for batch in changes.chunks(STAGE_BATCH) {
        let rendered = crate::par::map(batch, |c| match c.new.is_none() && !is_streamed(c, planned) {
            true => rerender(c, manifest, planned).map(Some),
            false => Ok(None),
        });
        for (c, bytes) in batch.iter().zip(rendered) {
            let bytes = bytes?;
            let full = resolve(out, &c.path)?;
            // A streamed file is rendered straight into its temp file, on this thread ([`write_change`]).
            // A file it replaces was compared, so its hash is recorded: rendered again, never for
            // the first time.
            let tmp = stage_with(out, &c.path, &full, |file| match bytes {
                Some(b) => file.write_all(&b).map_err(io_error("write", shown(out, &c.path))),
                None => write_change(out, c, file, manifest, planned)?.map_or(Ok(()), |_| Err(bytes_gone(c))),
            })?
            .into_temp_path();
            staged.push(Staged {
                rel: &c.path,
                full,
                tmp,
                old: c.old.as_deref(),
            });
        }
    }
    // On a failure every staged file is dropped on return, which deletes it.
    Ok(staged)
}

/// Files rendered again per batch while staging: enough to keep every core busy, few enough
/// that a batch's bytes stay small (a few MB of tool files).
pub(super) const STAGE_BATCH: usize = 512;

/// The bytes of a change that kept only its hash, rendered again; they must be the bytes that
/// were compared (rendering is pure), or the run stops before anything is replaced.
pub(super) fn rerender(
    c: &Change,
    manifest: &Manifest,
    planned: &BTreeMap<RelPath, &PlannedFile<'_>>,
) -> Result<Vec<u8>, Error> {
    let expected = recorded_hash(c, manifest)?;
    let bytes = match planned.get(&c.path).map(|f| &f.content) {
        Some(Content::Owned(b)) => b.clone(),
        Some(Content::Deferred(render)) => render()?,
        // A streamed file is rendered straight into its file (`write_change`); a merge
        // always keeps its bytes.
        Some(Content::Streamed(_) | Content::JsonMerge(_)) | None => return Err(bytes_gone(c)),
    };
    same_as_compared(c, &content_hash(&bytes), expected)?;
    Ok(bytes)
}

/// The hash a change that kept only its hash was compared with (the manifest's new entry).
pub(super) fn recorded_hash<'m>(c: &Change, manifest: &'m Manifest) -> Result<&'m str, Error> {
    let entry = manifest.files.get(c.path.as_str());
    entry.and_then(|e| e.blake3.as_deref()).ok_or_else(|| bytes_gone(c))
}

pub(super) fn bytes_gone(c: &Change) -> Error {
    Error::internal(format!("`{}` changed, but its new bytes are gone", c.path))
}

/// Rendering is pure: bytes rendered again to be written must be the ones compared, or the
/// run stops before anything is replaced.
pub(super) fn same_as_compared(c: &Change, hash: &str, expected: &str) -> Result<(), Error> {
    if hash == expected {
        return Ok(());
    }
    Err(Error::internal(format!(
        "`{}` rendered differently when written than when compared",
        c.path
    )))
}

/// Whether a change is planned as a streamed file (rendered straight into its file).
pub(super) fn is_streamed(c: &Change, planned: &BTreeMap<RelPath, &PlannedFile<'_>>) -> bool {
    planned
        .get(&c.path)
        .is_some_and(|f| matches!(f.content, Content::Streamed(_)))
}

/// Writes a change's bytes into `file`: the ones it kept, or rendered again. A file the compare
/// did not render (the manifest has no entry for it, see
/// [`compare_one`](super::compare::compare_one)) is rendered here for the first time, and its
/// hash is returned, for the manifest. A streamed file is rendered straight into `file` through
/// a hasher; one that kept only its hash must hash to what was compared (as [`rerender`] checks
/// for a file rendered whole) before the file is given its name.
pub(super) fn write_change(
    out: &Path,
    c: &Change,
    file: &mut std::fs::File,
    manifest: &Manifest,
    planned: &BTreeMap<RelPath, &PlannedFile<'_>>,
) -> Result<Option<String>, Error> {
    let recorded = manifest.files.contains_key(c.path.as_str());
    let rendered;
    let mut first = None;
    let bytes = match (&c.new, planned.get(&c.path).map(|f| &f.content)) {
        (Some(bytes), _) => bytes,
        (None, Some(Content::Streamed(render))) => {
            let expected = recorded.then(|| recorded_hash(c, manifest)).transpose()?;
            let mut sink = Hashed {
                file,
                hasher: blake3::Hasher::new(),
                error: None,
                len: 0,
            };
            let rendered = render(&mut sink);
            if let Some(e) = sink.error.take() {
                return Err(io_error("write", shown(out, &c.path))(e));
            }
            rendered?;
            // A file the compare did not render is measured here, before it gets its name.
            check_size(out, &c.path, sink.len)?;
            let hash = sink.hasher.finalize().to_hex();
            return match expected {
                Some(expected) => same_as_compared(c, &hash, expected).map(|()| None),
                None => Ok(Some(hash.to_string())),
            };
        }
        // A deferred file the compare left unrendered must carry ixgen's marker (see
        // [`PlannedFile::deferred`]).
        (None, Some(Content::Deferred(render))) if !recorded => {
            rendered = render()?;
            if !has_marker(&rendered) {
                return Err(Error::internal(format!(
                    "`{}` was rendered without ixgen's marker, which a file created before its hash \
                     is recorded must carry",
                    c.path
                )));
            }
            first = Some(content_hash(&rendered));
            &rendered
        }
        (None, _) => {
            rendered = rerender(c, manifest, planned)?;
            &rendered
        }
    };
    check_size(out, &c.path, bytes.len() as u64)?;
    file.write_all(bytes).map_err(io_error("write", shown(out, &c.path)))?;
    Ok(first)
}

/// Writes `bytes` to a temp file beside `full`, with the mode the file will have: the
/// replaced file's, or for a new file 0666 less the umask (the kernel applies it at creation).
pub(super) fn stage(out: &Path, rel: &RelPath, full: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, Error> {
    stage_with(out, rel, full, |file| {
        file.write_all(bytes).map_err(io_error("write", shown(out, rel)))
    })
}

/// [`stage`] with the file's bytes written by `write`.
pub(super) fn stage_with(
    out: &Path,
    rel: &RelPath,
    full: &Path,
    write: impl FnOnce(&mut std::fs::File) -> Result<(), Error>,
) -> Result<tempfile::NamedTempFile, Error> {
    let dir = full.parent().unwrap_or(out);
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    let existing = std::fs::symlink_metadata(full).ok().filter(|m| m.is_file());
    #[cfg(unix)]
    if existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(io_error("create a temp file in", shown(out, &rel.parent())))?;
    write(tmp.as_file_mut())?;
    if let Some(m) = existing {
        // By the open file (`fchmod`), not its name: the name could be swapped for a symlink.
        tmp.as_file()
            .set_permissions(m.permissions())
            .map_err(io_error("set permissions of", shown(out, rel)))?;
    }
    Ok(tmp)
}
