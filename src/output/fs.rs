//! Reading and walking below the output folder without ever following a symlink.
//!
//! Every path is resolved component by component (or, on Linux, by one `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`), and only regular files of at most [`MAX_READ`]
//! bytes are read back. This module must not decide what to write, nor write a file: it
//! only reads, checks and creates folders.

use super::{io_error, shown, unsafe_path};
use crate::error::Error;
use crate::paths::RelPath;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest file ixgen reads back from the output folder (a generated file, a shared config,
/// the manifest). It bounds the memory an attacker's tree costs; a file ixgen would write over
/// it is refused before anything is written ([`check_size`]), since every later run would
/// refuse to read it back.
pub(super) const MAX_READ: u64 = 64 << 20;

/// Refuses a file of `len` bytes that ixgen would write at `rel`, when it is over [`MAX_READ`]:
/// ixgen could never read it back (a catalog whose aliases repeat a long description in
/// thousands of tools renders one).
pub(super) fn check_size(out: &Path, rel: &RelPath, len: u64) -> Result<(), Error> {
    if len <= MAX_READ {
        return Ok(());
    }
    Err(Error::usage(
        format!(
            "`{}` would be {len} bytes, over the limit of {} MiB of a file ixgen writes (and reads back)",
            shown(out, rel),
            MAX_READ >> 20
        ),
        "shorten the descriptions and schemas of the toolset's tools, or split them into several toolsets; nothing was written",
    ))
}

/// Why a path through a symlink is refused.
const SYMLINK: &str = "it is a symlink, and ixgen never follows one below --out";

/// Follows `rel` below `out` without following any symlink: every component that exists is
/// looked at with `lstat`. A symlink anywhere on the way is refused (it could lead outside
/// `--out`, or make two paths one file); so is a file where a folder is needed and a folder
/// where a file is. Returns the full path.
pub(super) fn resolve(out: &Path, rel: &RelPath) -> Result<PathBuf, Error> {
    for here in rel.ancestors().iter().chain([rel]) {
        let last = here == rel;
        match std::fs::symlink_metadata(out.join(here.as_str())) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => return Err(io_error("look at", shown(out, here))(source)),
            Ok(m) if m.file_type().is_symlink() => return Err(unsafe_path(out, here, SYMLINK)),
            Ok(m) if !last && !m.is_dir() => {
                return Err(unsafe_path(
                    out,
                    here,
                    "it is not a folder, but a generated file needs it to be one",
                ));
            }
            Ok(m) if last && m.is_dir() => {
                return Err(unsafe_path(out, here, "it is a folder where ixgen writes a file"));
            }
            Ok(_) => {}
        }
    }
    Ok(out.join(rel.as_str()))
}

/// Opens a file for reading without following a symlink in its last component (the folders
/// were checked by [`resolve`]); this closes the window between the check and the open.
/// Non-blocking, so that a FIFO at a generated path is refused instead of waiting forever for
/// a writer (a regular file reads the same either way).
#[cfg(unix)]
pub(super) fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?.into())
}

#[cfg(not(unix))]
pub(super) fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// The output folder, opened once to read many files below it (the run record's replay reads
/// every generated file). On Linux each file is opened with `openat2` and
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`: the kernel itself refuses a symlink anywhere on
/// the way, in one call instead of an `lstat` per component. Whatever that call does not
/// answer plainly (a symlink, a folder, an old kernel) is read the portable way, which gives
/// the precise message.
pub(crate) struct OutDir<'a> {
    pub(super) out: &'a Path,
    #[cfg(target_os = "linux")]
    pub(super) fd: Option<std::os::fd::OwnedFd>,
    /// Folders known not to exist ([`OutDir::noting_absent`]): nothing below them is read.
    absent: BTreeSet<RelPath>,
}

impl<'a> OutDir<'a> {
    pub(crate) fn open(out: &'a Path) -> OutDir<'a> {
        #[cfg(target_os = "linux")]
        use rustix::fs::{Mode, OFlags};
        OutDir {
            out,
            #[cfg(target_os = "linux")]
            fd: rustix::fs::open(out, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok(),
            absent: BTreeSet::new(),
        }
    }

    /// Notes which folders of `files` do not exist, each looked up once: a first write of
    /// 10,000 tools into one new folder then makes one call for it instead of one for each
    /// file (a file that appears there later is still never overwritten: a new file is only
    /// ever created where nothing is, see [`create_all`](super::create::create_all)).
    pub(crate) fn noting_absent(mut self, files: &[RelPath]) -> Self {
        #[cfg(target_os = "linux")]
        if let Some(dir) = &self.fd {
            let folders: BTreeSet<RelPath> = files.iter().map(RelPath::parent).collect();
            for f in folders {
                // Only a plain "not there": a symlink on the way is left to each file's read.
                if let Err(e) = openat2_folder(dir, &f)
                    && e.kind() == std::io::ErrorKind::NotFound
                {
                    self.absent.insert(f);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = files;
        self
    }

    /// Whether `rel` is below a folder [`OutDir::noting_absent`] found missing.
    pub(super) fn in_absent(&self, rel: &RelPath) -> bool {
        !self.absent.is_empty() && self.absent.contains(&rel.parent())
    }

    /// Reads a file below the folder (never through a symlink), or `None` when there is none.
    pub(crate) fn read(&self, rel: &RelPath) -> Result<Option<Vec<u8>>, Error> {
        if self.in_absent(rel) {
            return Ok(None);
        }
        #[cfg(target_os = "linux")]
        if let Some(dir) = &self.fd {
            use rustix::fs::OFlags;
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
            match openat2(dir, rel.as_str(), flags)
                .map(std::fs::File::from)
                .map(|f| (f.metadata(), f))
            {
                // The size is known: one read, without a second one to find the end.
                Ok((Ok(meta), mut file)) if meta.is_file() && meta.len() <= MAX_READ => {
                    let mut bytes = vec![0; meta.len() as usize];
                    if file.read_exact(&mut bytes).is_ok() {
                        return Ok(Some(bytes));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                _ => {}
            }
        }
        read_rel(self.out, rel)
    }
}

/// Opens the folder `rel` below `dir` (the output folder itself when `rel` is empty), to
/// create files in, refusing any symlink on the way.
#[cfg(target_os = "linux")]
pub(super) fn openat2_folder(dir: &std::os::fd::OwnedFd, rel: &RelPath) -> std::io::Result<std::os::fd::OwnedFd> {
    let path = if rel.as_str().is_empty() { "." } else { rel.as_str() };
    use rustix::fs::OFlags;
    openat2(dir, path, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC)
}

/// `openat2` of `path` below `dir` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`. An error the
/// kernel gives for the call itself (`ENOSYS` before Linux 5.6, `EPERM` from a seccomp filter)
/// is returned like any other: every caller falls back to the portable way on any error but a
/// plain "not there".
#[cfg(target_os = "linux")]
pub(super) fn openat2(
    dir: &std::os::fd::OwnedFd,
    path: &str,
    flags: rustix::fs::OFlags,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, ResolveFlags};
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
    Ok(rustix::fs::openat2(dir, path, flags, Mode::empty(), resolve)?)
}

/// Reads a file below `out` (checked as [`open_rel`] checks it), or `None` when there is none.
pub(super) fn read_rel(out: &Path, rel: &RelPath) -> Result<Option<Vec<u8>>, Error> {
    let Some((file, meta)) = open_rel(out, rel)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_READ + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error("read", shown(out, rel)))?;
    Ok(Some(bytes))
}

/// Opens a file below `out` for reading: no symlink on the way, and only a regular file of at
/// most [`MAX_READ`] bytes; `None` when there is none.
pub(super) fn open_rel(out: &Path, rel: &RelPath) -> Result<Option<(std::fs::File, std::fs::Metadata)>, Error> {
    let full = resolve(out, rel)?;
    let file = match open_nofollow(&full) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(unsafe_path(out, rel, SYMLINK));
        }
        Err(source) => return Err(io_error("read", shown(out, rel))(source)),
    };
    let meta = file.metadata().map_err(io_error("read", shown(out, rel)))?;
    if !meta.is_file() {
        // A FIFO or device at a generated path would block or never end.
        return Err(unsafe_path(out, rel, "it is not a regular file"));
    }
    if meta.len() > MAX_READ {
        return Err(unsafe_path(
            out,
            rel,
            "it is larger than 64 MiB, far more than ixgen ever writes",
        ));
    }
    Ok(Some((file, meta)))
}

/// Whether the folder `dir` (which may be the output folder itself) can be followed: where it
/// and the folders above it exist, each is a folder and none is a symlink.
pub(super) fn safe_dir(out: &Path, dir: &RelPath) -> bool {
    let on_the_way = dir.ancestors().into_iter().chain([dir.clone()]);
    // `lstat` of a symlink is no folder.
    let followable = |a: RelPath| std::fs::symlink_metadata(out.join(a.as_str())).map_or(true, |m| m.is_dir());
    on_the_way.filter(|a| !a.as_str().is_empty()).all(followable)
}

#[cfg(unix)]
pub(super) fn writable(dir: &Path) -> bool {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_ok()
}

#[cfg(not(unix))]
pub(super) fn writable(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| !m.permissions().readonly())
}

/// Creates the folders above `rel` that do not exist, below `out` only, recording each one so
/// a rollback can remove it. Existing ones were checked by [`resolve`].
pub(super) fn make_folders(out: &Path, rel: &RelPath, created: &mut Vec<PathBuf>) -> Result<(), Error> {
    for dir in rel.ancestors() {
        let full = out.join(dir.as_str());
        match std::fs::symlink_metadata(&full) {
            Ok(m) if m.is_dir() && !m.file_type().is_symlink() => continue,
            Ok(_) => return Err(unsafe_path(out, &dir, "it is a symlink or not a folder")),
            Err(_) => {}
        }
        std::fs::create_dir(&full).map_err(io_error("create the folder", shown(out, &dir)))?;
        created.push(full);
    }
    Ok(())
}
