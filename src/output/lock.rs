//! The output folder's lock: writers hold it exclusive, `check` shared, so concurrent runs are
//! serialized and a check never sees a half-applied tree. The lock is the OS's (`flock`), so it
//! goes away with a killed run.
//!
//! It must not create anything but the output folder (and, off Unix, `.ixgen/lock`).

use super::io_error;
use crate::error::Error;
use crate::escape;
use std::path::Path;
#[cfg(not(unix))]
use {
    super::fs::{make_folders, resolve},
    super::shown,
    crate::paths::RelPath,
};

/// Holds the output folder's lock until dropped.
pub struct Lock(#[allow(dead_code)] std::fs::File);

/// Takes the exclusive lock on the output folder, waiting for another run to finish. The lock
/// is the OS's (`flock`), so it goes away with a killed run's process. On Unix the folder
/// itself is locked, which leaves nothing behind on disk; elsewhere a folder cannot be opened
/// as a file, so `.ixgen/lock` is.
pub fn lock(out: &Path) -> Result<Lock, Error> {
    std::fs::create_dir_all(out).map_err(io_error("create the folder", escape::display_path(out)))?;
    let file = open_lock(out, true)?.expect("created when asked to");
    file.lock().map_err(io_error("lock", escape::display_path(out)))?;
    Ok(Lock(file))
}

/// Takes the exclusive lock on an output folder that exists; `None` (and nothing created)
/// when there is none.
pub(crate) fn lock_existing(out: &Path) -> Result<Option<Lock>, Error> {
    if !std::fs::symlink_metadata(out).is_ok_and(|m| m.is_dir()) {
        return Ok(None);
    }
    lock(out).map(Some)
}

/// Takes the lock shared, if there is one: `check` then never sees a run's half-applied tree.
/// It never creates anything (a check writes nothing).
pub fn lock_shared(out: &Path) -> Result<Option<Lock>, Error> {
    let Ok(Some(file)) = open_lock(out, false) else {
        return Ok(None);
    };
    file.lock_shared()
        .map_err(io_error("lock", escape::display_path(out)))?;
    Ok(Some(Lock(file)))
}

#[cfg(unix)]
pub(super) fn open_lock(out: &Path, _create: bool) -> Result<Option<std::fs::File>, Error> {
    match std::fs::File::open(out) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(io_error("open", escape::display_path(out))(source)),
    }
}

#[cfg(not(unix))]
pub(super) fn open_lock(out: &Path, create: bool) -> Result<Option<std::fs::File>, Error> {
    let rel = RelPath::state("lock");
    if create {
        make_folders(out, &rel, &mut Vec::new())?;
    }
    let full = resolve(out, &rel)?;
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).write(create).create(create).truncate(false);
    match opts.open(&full) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(io_error("open the lock", shown(out, &rel))(source)),
    }
}
