//! Semantic versions of `product.version`, and the bump a set of changes needs.
//!
//! Below 1.0.0 the rule is Cargo's: the left-most non-zero part is the major one, so a breaking
//! change to 0.4.2 needs 0.5.0 and anything else needs 0.4.3. Pre-release and build suffixes
//! are kept for ordering (1.0.0-rc.1 < 1.0.0) but never produced.

use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

/// A parsed `MAJOR.MINOR.PATCH[-PRE][+BUILD]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
}

impl Version {
    /// Parses a version; `None` when it is not semantic-versioning syntax.
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim();
        let s = s.split_once('+').map_or(s, |(v, _)| v);
        let (nums, pre) = match s.split_once('-') {
            Some((n, p)) if !p.is_empty() => (n, p.to_string()),
            Some(_) => return None,
            None => (s, String::new()),
        };
        let mut it = nums.split('.');
        let mut part = || -> Option<u64> {
            let p = it.next()?;
            // Semver forbids leading zeros (`01`) and anything but digits.
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || (p.len() > 1 && p.starts_with('0')) {
                return None;
            }
            p.parse().ok()
        };
        let v = Version {
            major: part()?,
            minor: part()?,
            patch: part()?,
            pre,
        };
        it.next().is_none().then_some(v)
    }

    /// The smallest version after `self` that a change of `level` needs.
    pub fn bumped(&self, level: Level) -> Version {
        if level == Level::None {
            return self.clone();
        }
        let (major, minor, patch) = (self.major, self.minor, self.patch);
        let (major, minor, patch) = match (level, major) {
            (Level::None, _) => (major, minor, patch),
            (Level::Major, 0) => (0, minor + 1, 0),
            (Level::Minor | Level::Patch, 0) => (0, minor, patch + 1),
            (Level::Major, _) => (major + 1, 0, 0),
            (Level::Minor, _) => (major, minor + 1, 0),
            (Level::Patch, _) => (major, minor, patch + 1),
        };
        // A pre-release is raised by its own release, whatever changed: 2.0.0-rc.1 → 2.0.0 may
        // still break what the release candidate had.
        if !self.pre.is_empty() {
            return Version {
                pre: String::new(),
                ..self.clone()
            };
        }
        Version {
            major,
            minor,
            patch,
            pre: String::new(),
        }
    }

    /// Whether `new` is raised enough from `self` for a change of `level`.
    pub fn allows(&self, new: &Version, level: Level) -> bool {
        new >= &self.bumped(level)
    }

    /// How far `new` was raised from `self`.
    pub fn change_to(&self, new: &Version) -> Change {
        match new.cmp(self) {
            Ordering::Less => Change::Lowered,
            Ordering::Equal => Change::Unchanged,
            Ordering::Greater => [Level::Major, Level::Minor, Level::Patch]
                .into_iter()
                .find(|l| self.allows(new, *l))
                .map_or(Change::Unchanged, Change::Raised),
        }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            // A release sorts after its pre-releases.
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
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

/// What happened to `product.version` between the two catalogs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Lowered,
    Unchanged,
    /// Raised enough for a change of this level (and not of the next).
    Raised(Level),
}

impl Change {
    pub fn id(self) -> &'static str {
        match self {
            Change::Lowered => "lowered",
            Change::Unchanged => "none",
            Change::Raised(l) => l.id(),
        }
    }
}

impl Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn parses_semver_and_refuses_the_rest() {
        assert_eq!(v("1.2.3").to_string(), "1.2.3");
        assert_eq!(v("1.2.3-rc.1+build.5").to_string(), "1.2.3-rc.1");
        for bad in ["1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.2.x", "", "1.2.3-"] {
            assert!(Version::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn bumps_follow_cargo_below_one() {
        assert_eq!(v("1.4.2").bumped(Level::Major).to_string(), "2.0.0");
        assert_eq!(v("1.4.2").bumped(Level::Minor).to_string(), "1.5.0");
        assert_eq!(v("1.4.2").bumped(Level::Patch).to_string(), "1.4.3");
        assert_eq!(v("0.4.2").bumped(Level::Major).to_string(), "0.5.0");
        assert_eq!(v("0.4.2").bumped(Level::Minor).to_string(), "0.4.3");
        assert_eq!(v("2.0.0-rc.1").bumped(Level::Major).to_string(), "2.0.0");
    }

    #[test]
    fn classifies_the_actual_change() {
        assert_eq!(v("1.4.2").change_to(&v("2.0.0")), Change::Raised(Level::Major));
        assert_eq!(v("1.4.2").change_to(&v("1.5.0")), Change::Raised(Level::Minor));
        assert_eq!(v("1.4.2").change_to(&v("1.4.9")), Change::Raised(Level::Patch));
        assert_eq!(v("1.4.2").change_to(&v("1.4.2")), Change::Unchanged);
        assert_eq!(v("1.4.2").change_to(&v("1.4.1")), Change::Lowered);
        assert_eq!(v("0.1.0").change_to(&v("0.2.0")), Change::Raised(Level::Major));
        assert_eq!(v("0.1.0").change_to(&v("0.1.1")), Change::Raised(Level::Minor));
        assert!(v("1.4.2").allows(&v("1.5.0"), Level::Patch));
        assert!(!v("1.4.2").allows(&v("1.5.0"), Level::Major));
    }
}
