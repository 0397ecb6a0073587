//! Creating the files at paths that were free when compared: each is written whole before its
//! name appears, and never over anything (Linux: an `O_TMPFILE` file linked under its name;
//! elsewhere a temp file renamed only if the name is still free).
//!
//! It must not replace an existing file: that is a staged rename, in `super::commit`.

use super::fs::{OutDir, openat2_folder, resolve};
use super::manifest::Manifest;
use super::stage::{is_streamed, stage_with, write_change};
use super::{Change, io_error, shown};
use crate::error::Error;
use crate::paths::RelPath;
use crate::plan::PlannedFile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Creates the files at paths that were free when compared, during the commit, on every
/// core. Each is written whole before its name appears, and never over anything: on Linux as
/// an unnamed file in its folder (`O_TMPFILE`) that is then linked under its name, which costs
/// the file system less than a temp file and a rename, and leaves nothing behind if the run is
/// killed; elsewhere (or where the file system cannot) as a temp file renamed only if the name
/// is still free. `tick` is the commit's step, checked before each file. Every file named is
/// added to `done`, so a failure rolls all of them back.
///
/// Returns the hashes of the files rendered here for the first time ([`write_change`]), and
/// the streamed ones among them still unnamed: such a file carries no marker, so it may get its
/// name only once the manifest lists its hash ([`Unnamed::name`], after the final manifest).
pub(super) fn create_all<'a, 'f>(
    out: &Path,
    folders: &'f NewFolders,
    creates: &[&'a Change],
    manifest: &Manifest,
    planned: &BTreeMap<RelPath, &PlannedFile<'_>>,
    tick: &(dyn Fn() -> std::io::Result<()> + Sync),
    done: &mut Vec<Done<'a>>,
) -> Result<Created<'a, 'f>, Error> {
    /// A new file: named (its full path), or held until the manifest lists it.
    enum Made<'f> {
        Named(PathBuf),
        Held(Unnamed<'f>),
    }
    let results = crate::par::map(creates, |c| -> Result<(Made<'f>, Option<String>), Error> {
        tick().map_err(io_error("write", shown(out, &c.path)))?;
        let first = std::cell::Cell::new(None);
        let write = |file: &mut std::fs::File| {
            first.set(write_change(out, c, file, manifest, planned)?);
            Ok(())
        };
        let file = folders.unnamed(out, c, &write)?;
        let made = if is_streamed(c, planned) && !manifest.files.contains_key(c.path.as_str()) {
            Made::Held(file)
        } else {
            Made::Named(file.name(out, c)?)
        };
        Ok((made, first.take()))
    });
    let (mut failed, mut hashes, mut held) = (None, Vec::new(), Vec::new());
    for (c, result) in creates.iter().zip(results) {
        match result {
            Ok((made, first)) => {
                hashes.extend(first.map(|h| (c.path.clone(), h)));
                match made {
                    Made::Held(file) => held.push((*c, file)),
                    Made::Named(full) => done.push(Done::Wrote { full, old: None }),
                }
            }
            Err(e) => failed = failed.or(Some(e)),
        }
    }
    failed.map_or(Ok(Created { first: hashes, held }), Err)
}

/// What [`create_all`] made: the hashes of the files it rendered for the first time, and the
/// streamed ones among them, still without their names.
#[derive(Debug)]
pub(super) struct Created<'a, 'f> {
    pub(super) first: Vec<(RelPath, String)>,
    pub(super) held: Vec<(&'a Change, Unnamed<'f>)>,
}

/// A file at a path that was free when the run compared it: another program is writing into
/// the output folder.
pub(super) fn appeared(out: &Path, rel: &RelPath) -> Error {
    Error::usage(
        format!("{} appeared while ixgen was writing it", shown(out, rel)),
        "another program is writing into the output folder; run ixgen again once it is done",
    )
}

/// The folders new files are created in, each opened once below the output folder (Linux:
/// `openat2` refusing any symlink on the way, as [`OutDir`] reads), for [`create_all`]. None
/// opened (the default): every file is created the portable way.
#[derive(Default)]
pub(super) struct NewFolders {
    #[cfg(target_os = "linux")]
    fds: BTreeMap<RelPath, std::os::fd::OwnedFd>,
}

/// Whether linking an unnamed file by its descriptor was refused once: the kernel is older than
/// 6.10, so every file is linked by its `/proc` name ([`Unnamed::name`]).
#[cfg(target_os = "linux")]
pub(super) static BY_PROC: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A new file written whole that has no name yet: dropped, it leaves nothing behind.
#[derive(Debug)]
pub(super) enum Unnamed<'f> {
    /// Linux: an `O_TMPFILE` file in its folder, opened as `dir`.
    #[cfg(target_os = "linux")]
    Tmpfile {
        dir: &'f std::os::fd::OwnedFd,
        file: std::fs::File,
    },
    /// Elsewhere: a temp file beside its target.
    Temp(tempfile::NamedTempFile, std::marker::PhantomData<&'f ()>),
}

impl NewFolders {
    /// Opens the folders of `creates`. None without `/proc`: an unnamed file is linked by its
    /// `/proc` name, so there every file is created the portable way.
    pub(super) fn open(out: &Path, creates: &[&Change]) -> NewFolders {
        #[cfg(target_os = "linux")]
        {
            let mut fds = BTreeMap::new();
            if let Some(root) = OutDir::open(out).fd
                && std::fs::metadata("/proc/self/fd").is_ok()
            {
                for c in creates {
                    let dir = c.path.parent();
                    if !fds.contains_key(&dir)
                        && let Ok(fd) = openat2_folder(&root, &dir)
                    {
                        fds.insert(dir, fd);
                    }
                }
            }
            NewFolders { fds }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (out, creates);
            NewFolders {}
        }
    }

    /// Writes `c` whole as a file without a name: an unnamed file in its folder where the
    /// folder was opened and its file system has `O_TMPFILE`, a temp file beside it elsewhere.
    pub(super) fn unnamed(
        &self,
        out: &Path,
        c: &Change,
        write: &dyn Fn(&mut std::fs::File) -> Result<(), Error>,
    ) -> Result<Unnamed<'_>, Error> {
        #[cfg(target_os = "linux")]
        if let Some(dir) = self.fds.get(&c.path.parent()) {
            use rustix::fs::{Mode, OFlags};
            use rustix::io::Errno;
            let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
            match rustix::fs::openat(dir, c".", flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => {
                    let mut file = std::fs::File::from(fd);
                    write(&mut file)?;
                    return Ok(Unnamed::Tmpfile { dir, file });
                }
                // The file system has no `O_TMPFILE`: a temp file, as elsewhere.
                Err(e) if e == Errno::OPNOTSUPP || e == Errno::ISDIR || e == Errno::INVAL => {}
                Err(e) => return Err(io_error("create", shown(out, &c.path))(e)),
            }
        }
        let full = resolve(out, &c.path)?;
        let tmp = stage_with(out, &c.path, &full, write)?;
        Ok(Unnamed::Temp(tmp, std::marker::PhantomData))
    }
}

impl Unnamed<'_> {
    /// Gives the file `c`'s name, never over a file that is there now. Returns its full path.
    pub(super) fn name(self, out: &Path, c: &Change) -> Result<PathBuf, Error> {
        match self {
            #[cfg(target_os = "linux")]
            Unnamed::Tmpfile { dir, file } => {
                use rustix::fs::{AtFlags, CWD};
                use rustix::io::Errno;
                use std::os::fd::AsRawFd;
                use std::sync::atomic::Ordering::Relaxed;
                let name = std::ffi::CString::new(c.path.file_name())
                    .map_err(|_| Error::internal(format!("`{}` has a NUL byte", c.path)))?;
                // The new name is never followed, and an existing one is never replaced. Since
                // Linux 6.10 a process may link a file it opened itself by the descriptor
                // (`AT_EMPTY_PATH`); before, that needs a privilege, and the file is linked by
                // its `/proc` name instead (a path walk more for each file).
                let by_fd = (!BY_PROC.load(Relaxed))
                    .then(|| rustix::fs::linkat(&file, c"", dir, name.as_c_str(), AtFlags::EMPTY_PATH));
                // ENOENT is what a kernel before 6.10 answers; EPERM what a sandbox that filters
                // the flag may answer. Either way the `/proc` name still works.
                if let Some(Err(e)) = by_fd
                    && (e == Errno::NOENT || e == Errno::PERM)
                {
                    BY_PROC.store(true, Relaxed);
                }
                let linked = match by_fd {
                    Some(Ok(())) => Ok(()),
                    Some(Err(e)) if !BY_PROC.load(Relaxed) => Err(e),
                    _ => {
                        let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
                        rustix::fs::linkat(CWD, proc.as_str(), dir, name.as_c_str(), AtFlags::SYMLINK_FOLLOW)
                    }
                };
                match linked {
                    Ok(()) => Ok(out.join(c.path.as_str())),
                    Err(e) if e == Errno::EXIST => Err(appeared(out, &c.path)),
                    Err(e) => Err(io_error("create", shown(out, &c.path))(e)),
                }
            }
            Unnamed::Temp(tmp, _) => {
                let full = resolve(out, &c.path)?;
                tmp.persist_noclobber(&full).map_err(|e| match e.error.kind() {
                    std::io::ErrorKind::AlreadyExists => appeared(out, &c.path),
                    _ => io_error("create", shown(out, &c.path))(e.error),
                })?;
                Ok(full)
            }
        }
    }
}

/// What a commit did, in order, so a rollback can undo it: the bytes to put back, or none
/// for a file the run created.
pub(super) enum Done<'a> {
    Wrote {
        full: PathBuf,
        old: Option<std::borrow::Cow<'a, [u8]>>,
    },
    /// A removed file, with its permissions (to put it back as it was).
    Removed {
        full: PathBuf,
        old: &'a [u8],
        permissions: Option<std::fs::Permissions>,
    },
}
