//! Paths inside the output folder: the one type every path ixgen reads, writes or removes
//! goes through.
//!
//! A catalog's target paths and a manifest's entries are both attacker-controlled in CI (the
//! catalog and the manifest are committed), so neither is ever joined onto `--out` as a raw
//! string. [`RelPath`] is the only way in: it refuses what could leave the folder (absolute
//! paths, `..`), what could forge a log line (control characters), what names no file (`.`,
//! `x/`), and what belongs to ixgen itself (`.ixgen/…`, its temp files), and it normalizes
//! (`./mcp//tools.json` is `mcp/tools.json`) so one file has one name. This module only
//! checks strings; following the path on disk safely is `crate::output`'s job.

use std::fmt;

/// ixgen's own folder below `--out`: the manifest, the run record and its `.gitignore`.
pub const STATE_DIR: &str = ".ixgen";

/// Temp files ixgen writes next to their target: `.ixgen-<random>.tmp`.
pub const TEMP_PREFIX: &str = ".ixgen-";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".tmp";

/// Longest path ixgen accepts, in bytes: PATH_MAX on Linux, so a longer one could never be
/// opened anyway, and refusing it early gives a clear message instead of an OS error.
const MAX_PATH: usize = 4096;
/// Longest path component, in bytes (NAME_MAX on every common filesystem).
const MAX_NAME: usize = 255;

/// A normalized path relative to the output folder: `/`-separated, no empty, `.` or `..`
/// component, no control character. The empty path is the output folder itself and is only
/// made by [`RelPath::dir`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct RelPath(String);

/// Why a string is not a usable path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("it is empty")]
    Empty,
    #[error("it is absolute")]
    Absolute,
    #[error("it has a `..` component, which could leave the output folder")]
    Parent,
    #[error("it has a `\\`; separate folders with `/`")]
    Backslash,
    #[error("it has the control character U+{:04X}", u32::from(*.0))]
    Control(char),
    #[error("it has the invisible character U+{:04X}, which makes it read as another path", u32::from(*.0))]
    Invisible(char),
    #[error("it names a folder, not a file")]
    FolderOnly,
    #[error("ixgen keeps its own state there (`.ixgen/`, `.ixgen-*.tmp`)")]
    Reserved,
    #[error("it is too long (at most {} bytes, {} a component)", MAX_PATH, MAX_NAME)]
    TooLong,
}

impl PathError {
    /// How to fix it, for a catalog diagnostic.
    pub fn help(&self) -> &'static str {
        match self {
            PathError::Empty | PathError::FolderOnly => {
                "name a file relative to the output folder, e.g. `mcp/tools.json`"
            }
            PathError::Absolute | PathError::Parent => {
                "write a path relative to the output folder, without a leading `/` or any `..`"
            }
            PathError::Backslash => "use `/` between folders",
            PathError::Control(_) => "remove the control character",
            PathError::Invisible(_) => "remove the invisible character",
            PathError::Reserved => "choose a path outside `.ixgen/` that does not look like an ixgen temp file",
            PathError::TooLong => "shorten the path",
        }
    }
}

/// Characters no path may hold: control characters (a newline could start a `::error` line in
/// a CI log), and the invisible ones that make a printed path read as another (line and
/// paragraph separators, bidirectional overrides, a byte-order mark).
pub fn is_forbidden_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Characters that print as nothing (zero-width spaces and joiners, direction marks, a soft
/// hyphen, fillers): in a path, `.cursor\u{200B}/mcp.json` would read as `.cursor/mcp.json`.
/// Refused in paths only: in descriptions they have uses (a joiner inside an emoji).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2060}'..='\u{2064}'
            | '\u{3164}'
            | '\u{FFA0}'
    )
}

impl RelPath {
    /// A file path: must name a file (not `.`, not ending in `/`).
    pub fn file(s: &str) -> Result<RelPath, PathError> {
        if s.ends_with('/') {
            return Err(PathError::FolderOnly);
        }
        let p = Self::dir(s)?;
        if p.0.is_empty() {
            return Err(PathError::FolderOnly);
        }
        if p.file_name().starts_with(TEMP_PREFIX) && p.file_name().ends_with(TEMP_SUFFIX) {
            return Err(PathError::Reserved);
        }
        Ok(p)
    }

    /// A folder path: `.` (the output folder itself) and a trailing `/` are allowed.
    pub fn dir(s: &str) -> Result<RelPath, PathError> {
        if s.is_empty() {
            return Err(PathError::Empty);
        }
        if let Some(c) = s.chars().find(|c| is_forbidden_char(*c)) {
            return Err(PathError::Control(c));
        }
        if let Some(c) = s.chars().find(|c| is_invisible(*c)) {
            return Err(PathError::Invisible(c));
        }
        if s.contains('\\') {
            return Err(PathError::Backslash);
        }
        // `C:x` is relative to a drive's current folder on Windows: as bad as absolute.
        if s.starts_with('/') || matches!(s.as_bytes(), [d, b':', ..] if d.is_ascii_alphabetic()) {
            return Err(PathError::Absolute);
        }
        let mut parts = Vec::new();
        for part in s.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(PathError::Parent),
                p if p.len() > MAX_NAME => return Err(PathError::TooLong),
                p => parts.push(p),
            }
        }
        if parts.first() == Some(&STATE_DIR) {
            return Err(PathError::Reserved);
        }
        let joined = parts.join("/");
        if joined.len() > MAX_PATH {
            return Err(PathError::TooLong);
        }
        Ok(RelPath(joined))
    }

    /// ixgen's own files below `.ixgen/` (the manifest, the run record): made only from constants.
    pub(crate) fn state(name: &'static str) -> RelPath {
        RelPath(format!("{STATE_DIR}/{name}"))
    }

    /// The path text, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The folders that hold it, outermost first (`a/b/c` → `a`, `a/b`).
    pub fn ancestors(&self) -> Vec<RelPath> {
        self.0
            .match_indices('/')
            .map(|(i, _)| RelPath(self.0[..i].to_string()))
            .collect()
    }

    /// The entry `name` of this folder, for a name read from the disk (a temp file's); `None`
    /// when the name could not be part of a valid path.
    pub fn child(&self, name: &str) -> Option<RelPath> {
        let ok = !matches!(name, "" | "." | "..")
            && name.len() <= MAX_NAME
            && !name.contains(['/', '\\'])
            && !name.chars().any(|c| is_forbidden_char(c) || is_invisible(c));
        let sep = if self.0.is_empty() { "" } else { "/" };
        ok.then(|| RelPath(format!("{}{sep}{name}", self.0)))
    }

    /// The folder that holds it (empty for a file at the top).
    pub fn parent(&self) -> RelPath {
        RelPath(self.0.rsplit_once('/').map_or("", |(p, _)| p).to_string())
    }
}

impl fmt::Display for RelPath {
    // Safe to print as it is: construction refused every control and invisible character.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_to_one_name_per_file() {
        for (input, want) in [
            ("mcp/tools.json", "mcp/tools.json"),
            ("./mcp/tools.json", "mcp/tools.json"),
            ("mcp//./tools.json", "mcp/tools.json"),
            ("a/b/c", "a/b/c"),
        ] {
            assert_eq!(RelPath::file(input).unwrap().as_str(), want, "{input}");
        }
        assert_eq!(RelPath::dir("./").unwrap().as_str(), "");
        assert_eq!(RelPath::dir(".opencode/tools/").unwrap().as_str(), ".opencode/tools");
    }

    #[test]
    fn refuses_what_could_leave_or_forge() {
        for (input, want) in [
            ("", PathError::Empty),
            ("/etc/passwd", PathError::Absolute),
            ("C:x", PathError::Absolute),
            ("../victim", PathError::Parent),
            ("a/../../b", PathError::Parent),
            ("a\\b", PathError::Backslash),
            ("a\n::error::x", PathError::Control('\n')),
            ("a\u{1b}[2J", PathError::Control('\u{1b}')),
            ("a\u{202e}b", PathError::Control('\u{202e}')),
            (".cursor\u{200b}/mcp.json", PathError::Invisible('\u{200b}')),
            ("a\u{200f}b.json", PathError::Invisible('\u{200f}')),
            ("a\u{00ad}b.json", PathError::Invisible('\u{00ad}')),
            (".", PathError::FolderOnly),
            ("./", PathError::FolderOnly),
            ("x/", PathError::FolderOnly),
            (".ixgen/manifest.json", PathError::Reserved),
            ("./.ixgen/lock", PathError::Reserved),
            ("a/.ixgen-x.tmp", PathError::Reserved),
        ] {
            assert_eq!(RelPath::file(input), Err(want), "{input:?}");
        }
        assert!(RelPath::file(&"a/".repeat(3000)).is_err());
        assert_eq!(RelPath::file(&"x".repeat(256)), Err(PathError::TooLong));
    }

    #[test]
    fn ancestors_and_parent() {
        let p = RelPath::file("a/b/c").unwrap();
        let a: Vec<String> = p.ancestors().iter().map(|p| p.to_string()).collect();
        assert_eq!(a, ["a", "a/b"]);
        assert_eq!(p.parent().as_str(), "a/b");
        assert_eq!(RelPath::file("c").unwrap().parent().as_str(), "");
        assert!(RelPath::file("c").unwrap().ancestors().is_empty());
    }
}
