//! Where the two catalogs come from: the current one (a file or the embedded ix catalog), and
//! the older one (a file, or the same catalog path at a git ref, read with `git show`).
//!
//! This is the only part of `diff` that runs a program or reads the disk.

use crate::catalog::{self, Loaded};
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the embedded ix catalog lives in the ixgen repository: its name in reports and
/// annotations, and the path read at a ref when no `--catalog` is given.
pub const EMBEDDED_PATH: &str = "catalog/ix.yaml";

/// A loaded catalog and the name reports give its file (`catalog/ix.yaml`, `HEAD~1:catalog/ix.yaml`).
pub struct Source {
    pub loaded: Loaded,
    pub name: String,
}

/// Loads the current catalog.
pub fn current(catalog: Option<&Path>) -> Result<Source, Error> {
    let loaded = catalog::load(catalog)?;
    let name = catalog.map_or_else(|| EMBEDDED_PATH.to_string(), |p| p.display().to_string());
    Ok(Source { loaded, name })
}

/// Loads the older catalog: `against` names an existing file, or else a git ref.
pub fn against(catalog: Option<&Path>, against: &str) -> Result<Source, Error> {
    let as_file = Path::new(against);
    // Any file that is not a folder (a device such as `/dev/zero` too) is read as a file, and
    // never more of it than a catalog may hold.
    let (name, bytes) = if std::fs::metadata(as_file).is_ok_and(|m| !m.is_dir()) {
        let bytes = catalog::load::catalog_bytes(as_file).map_err(|e| {
            Error::usage(
                format!(
                    "cannot read the catalog `{}`: {e}",
                    crate::escape::display_path(as_file)
                ),
                "pass --against an older catalog file or a git ref (e.g. --against HEAD~1)",
            )
        })?;
        (against.to_string(), bytes)
    } else {
        git_show(catalog, against)?
    };
    Ok(Source {
        loaded: catalog::load_text(&name, bytes)?,
        name,
    })
}

fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output, Error> {
    Command::new("git").arg("-C").arg(dir).args(args).output().map_err(|e| {
        Error::usage(
            format!("cannot run git to read the catalog at a ref: {e}"),
            "install git, or pass the older catalog as a file to --against",
        )
    })
}

/// Reads the catalog's path at `rev`: the same path as `--catalog`, relative to the root of
/// the repository that holds it, or `catalog/ix.yaml` for the embedded catalog.
fn git_show(catalog: Option<&Path>, rev: &str) -> Result<(String, Vec<u8>), Error> {
    // A ref that starts with `-` would be read as an option.
    if rev.is_empty() || rev.starts_with('-') {
        return Err(Error::usage(
            format!(
                "--against {}: not a file, and not a git ref",
                crate::escape::debug_quote(rev)
            ),
            "pass a branch, tag or commit (`main`, `v1.4.0`, `HEAD~1`) or an existing catalog file",
        ));
    }
    let dir = match catalog {
        Some(p) => std::path::absolute(p)
            .map_err(crate::output::io_error("resolve", p.display().to_string()))?
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        None => PathBuf::from("."),
    };
    let top = git(&dir, &["rev-parse", "--show-toplevel"])?;
    if !top.status.success() {
        return Err(Error::usage(
            format!(
                "--against `{rev}` is not a file, and `{}` is not inside a git repository to read it at a ref",
                dir.display()
            ),
            "pass the older catalog as a file, or run inside the repository that holds the catalog",
        ));
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim_end_matches(['\n', '\r']));
    let commit = format!("{rev}^{{commit}}");
    let verify = git(&top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &commit])?;
    if !verify.status.success() {
        return Err(Error::usage(
            format!(
                "unknown git ref `{rev}` (and no file of that name) in {}",
                top.display()
            ),
            "pass a branch, tag or commit that exists (`git log --oneline`, `git tag`), e.g. `main`, `v1.4.0`, `HEAD~1`; in a shallow clone, fetch it first",
        ));
    }
    let rel = match catalog {
        None => EMBEDDED_PATH.to_string(),
        Some(p) => {
            let abs = std::fs::canonicalize(p).map_err(|source| Error::ReadCatalog {
                path: p.display().to_string(),
                source,
            })?;
            let top_abs = std::fs::canonicalize(&top).unwrap_or(top.clone());
            let rel = abs.strip_prefix(&top_abs).map_err(|_| {
                Error::usage(
                    format!("`{}` is outside the git repository {}", p.display(), top.display()),
                    "pass the older catalog as a file to --against",
                )
            })?;
            // Git paths use `/` whatever the platform.
            rel.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/")
        }
    };
    let spec = format!("{rev}:{rel}");
    // The blob's size first: `git show` would hand over all of it.
    let size = git(&top, &["cat-file", "-s", "--end-of-options", &spec])?;
    let size: Option<u64> = String::from_utf8_lossy(&size.stdout).trim().parse().ok();
    if size.is_some_and(|n| n > catalog::yaml::MAX_BYTES as u64) {
        return Err(Error::usage(
            format!(
                "`{rel}` at `{rev}` is larger than {} MB, the most a catalog may hold",
                catalog::yaml::MAX_BYTES >> 20
            ),
            "diff against a ref whose catalog is a catalog, or pass the older catalog as a file",
        ));
    }
    let shown = git(&top, &["show", "--end-of-options", &spec])?;
    if !shown.status.success() {
        return Err(Error::usage(
            format!("`{rel}` does not exist at `{rev}`"),
            "the catalog was added or moved after that ref: diff against a later ref, or pass the older catalog as a file",
        ));
    }
    Ok((spec, shown.stdout))
}
