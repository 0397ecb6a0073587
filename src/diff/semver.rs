//! Semantic versions of `product.version`, and the bump a set of changes needs.
//!
//! Below 1.0.0 the rule is Cargo's: the left-most non-zero part is the major one, so a breaking
//! change to 0.4.2 needs 0.5.0 and anything else needs 0.4.3; below 0.1.0 every release is its
//! own major one, so any change to 0.0.3 needs 0.0.4. Pre-release and build suffixes
//! are kept for ordering (1.0.0-rc.1 < 1.0.0) but never produced. A raise to a pre-release
//! allows any change, as in cargo-semver-checks: a pre-release promises no compatibility
//! (semantic versioning, item 9), so 1.4.2 → 2.0.0-rc.1 may break, and so may 2.0.0-rc.1 →
//! 2.0.0-rc.2; the release itself is then checked against the last release.

use serde::Serialize;
use std::cmp::Ordering;

/// A parsed `MAJOR.MINOR.PATCH[-PRE][+BUILD]` (the `semver` crate: its precedence of
/// pre-releases, `rc.2 < rc.10`, is the specification's). Build metadata is dropped when parsed:
/// it has no precedence, so `1.0.0+a` and `1.0.0+b` are the same version here.
pub type Version = ::semver::Version;

/// Parses a version; `None` when it is not semantic-versioning syntax.
pub fn parse(s: &str) -> Option<Version> {
    let mut v = Version::parse(s.trim()).ok()?;
    v.build = ::semver::BuildMetadata::EMPTY;
    Some(v)
}

/// The smallest version after `v` that a change of `level` needs.
pub fn bumped(v: &Version, level: Level) -> Version {
    let (major, minor, patch) = (v.major, v.minor, v.patch);
    let (major, minor, patch) = match (level, major) {
        (Level::None, _) => (major, minor, patch),
        // A pre-release is raised by its own release, whatever changed: 2.0.0-rc.1 → 2.0.0 may
        // still break what the release candidate had.
        _ if !v.pre.is_empty() => (major, minor, patch),
        (_, 0) if minor == 0 => (0, 0, patch + 1),
        (Level::Major, 0) => (0, minor + 1, 0),
        (Level::Minor | Level::Patch, 0) => (0, minor, patch + 1),
        (Level::Major, _) => (major + 1, 0, 0),
        (Level::Minor, _) => (major, minor + 1, 0),
        (Level::Patch, _) => (major, minor, patch + 1),
    };
    Version::new(major, minor, patch)
}

/// Whether `new` is raised enough from `old` for a change of `level`: any raise to a
/// pre-release is (see the module's comment).
pub fn allows(old: &Version, new: &Version, level: Level) -> bool {
    match level {
        Level::None => new >= old,
        _ if !new.pre.is_empty() => new > old,
        _ => new >= &bumped(old, level),
    }
}

/// How far `new` was raised from `old`.
pub fn change(old: &Version, new: &Version) -> Change {
    match new.cmp(old) {
        Ordering::Less => Change::Lowered,
        Ordering::Equal => Change::Unchanged,
        Ordering::Greater => [Level::Major, Level::Minor, Level::Patch]
            .into_iter()
            .find(|l| allows(old, new, *l))
            .map_or(Change::Unchanged, Change::Raised),
    }
}

/// The size of a change, as semantic versioning names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    None,
    Patch,
    Minor,
    Major,
}

impl Level {
    pub fn id(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Patch => "patch",
            Level::Minor => "minor",
            Level::Major => "major",
        }
    }
}

/// What happened to `product.version` between the two catalogs: serialized as `lowered`,
/// `none`, or the level it was raised enough for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Lowered,
    #[serde(rename = "none")]
    Unchanged,
    /// Raised enough for a change of this level (and not of the next).
    #[serde(untagged)]
    Raised(Level),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn parses_semver_and_refuses_the_rest() {
        assert_eq!(v("1.2.3").to_string(), "1.2.3");
        assert_eq!(v("1.2.3-rc.1+build.5").to_string(), "1.2.3-rc.1");
        for bad in ["1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.2.x", "", "1.2.3-"] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn bumps_follow_cargo_below_one() {
        assert_eq!(bumped(&v("1.4.2"), Level::Major).to_string(), "2.0.0");
        assert_eq!(bumped(&v("1.4.2"), Level::Minor).to_string(), "1.5.0");
        assert_eq!(bumped(&v("1.4.2"), Level::Patch).to_string(), "1.4.3");
        assert_eq!(bumped(&v("0.4.2"), Level::Major).to_string(), "0.5.0");
        assert_eq!(bumped(&v("0.4.2"), Level::Minor).to_string(), "0.4.3");
        for level in [Level::Major, Level::Minor, Level::Patch] {
            assert_eq!(bumped(&v("0.0.3"), level).to_string(), "0.0.4", "{level:?}");
        }
        assert_eq!(bumped(&v("2.0.0-rc.1"), Level::Major).to_string(), "2.0.0");
    }

    #[test]
    fn classifies_the_actual_change() {
        assert_eq!(change(&v("1.4.2"), &v("2.0.0")), Change::Raised(Level::Major));
        assert_eq!(change(&v("1.4.2"), &v("1.5.0")), Change::Raised(Level::Minor));
        assert_eq!(change(&v("1.4.2"), &v("1.4.9")), Change::Raised(Level::Patch));
        assert_eq!(change(&v("1.4.2"), &v("1.4.2")), Change::Unchanged);
        assert_eq!(change(&v("1.4.2+a"), &v("1.4.2+b")), Change::Unchanged);
        assert_eq!(change(&v("1.4.2"), &v("1.4.1")), Change::Lowered);
        assert_eq!(change(&v("0.1.0"), &v("0.2.0")), Change::Raised(Level::Major));
        assert_eq!(change(&v("0.1.0"), &v("0.1.1")), Change::Raised(Level::Minor));
        assert_eq!(change(&v("0.0.3"), &v("0.0.4")), Change::Raised(Level::Major));
        assert!(allows(&v("0.0.3"), &v("0.0.4"), Level::Major));
        assert!(allows(&v("1.4.2"), &v("1.5.0"), Level::Patch));
        assert!(!allows(&v("1.4.2"), &v("1.5.0"), Level::Major));
    }

    /// Pre-releases in the specification's precedence (numeric identifiers compare as numbers),
    /// which a comparison of the suffixes as text gets wrong.
    #[test]
    fn pre_releases_compare_by_precedence() {
        // From one pre-release to a later one is a raise (to a pre-release: enough for any
        // change), never a lowering; the other way round is one.
        assert_eq!(
            change(&v("2.0.0-rc.2"), &v("2.0.0-rc.10")),
            Change::Raised(Level::Major)
        );
        assert_eq!(change(&v("2.0.0-rc.10"), &v("2.0.0-rc.2")), Change::Lowered);
        assert_eq!(change(&v("2.0.0-alpha.1"), &v("2.0.0-alpha")), Change::Lowered);
        assert_eq!(change(&v("2.0.0-rc.1"), &v("2.0.0")), Change::Raised(Level::Major));
    }

    /// A release candidate of the next major version may carry a breaking change (it once
    /// counted as "enough for a minor change", so `diff` refused 1.0.0 → 2.0.0-rc.1).
    #[test]
    fn a_raise_to_a_pre_release_allows_any_change() {
        for new in ["2.0.0-rc.1", "1.1.0-rc.1", "1.0.1-alpha"] {
            assert_eq!(change(&v("1.0.0"), &v(new)), Change::Raised(Level::Major), "{new}");
            assert!(allows(&v("1.0.0"), &v(new), Level::Major), "{new}");
        }
        assert_eq!(change(&v("1.0.0"), &v("1.0.0-rc.1")), Change::Lowered);
        assert!(!allows(&v("1.0.0"), &v("1.0.0-rc.1"), Level::Patch));
        assert!(!allows(&v("2.0.0-rc.2"), &v("2.0.0-rc.2"), Level::Patch));
    }
}
