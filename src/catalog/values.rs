//! Checks on the catalog's values that its types cannot make: the regular expressions the
//! generated code will run, as JavaScript reads them. (Duplicate keys, numbers JavaScript
//! cannot hold and hostile nesting are refused while the YAML is read, in `super::yaml`.)

use std::collections::HashSet;

/// Longest regular expression accepted, in characters, and its deepest group nesting: the
/// expression parser recurses, and a real pattern is a line, not a page.
const MAX_REGEX_LEN: usize = 4096;
const MAX_REGEX_GROUPS: usize = 256;

/// Checks a regular expression as JavaScript's `RegExp` will read it, with `flags`. Both
/// runtimes read every expression with the `u` flag added (code points, not UTF-16 units), so it
/// must be valid with `u`. Hosts differ on `u` for schema `pattern`s (Ajv sets it, zod does not),
/// so a parameter's pattern must also be valid without it (`both_unicode`).
pub fn check_regex(re: &str, flags: &str, both_unicode: bool) -> Result<(), String> {
    // A catalog repeats its patterns (a `matches` in every tool): each is compiled once per
    // thread. Only valid ones are kept; an invalid one is reported where it is.
    thread_local! {
        static VALID: std::cell::RefCell<HashSet<(String, String, bool)>> = Default::default();
    }
    let key = (re.to_string(), flags.to_string(), both_unicode);
    if VALID.with(|v| v.borrow().contains(&key)) {
        return Ok(());
    }
    if re.chars().count() > MAX_REGEX_LEN {
        return Err(format!("it is longer than {MAX_REGEX_LEN} characters"));
    }
    if re.matches('(').count() > MAX_REGEX_GROUPS {
        return Err(format!("it has more than {MAX_REGEX_GROUPS} groups"));
    }
    check_flags(flags)?;
    regress::Regex::with_flags(re, flags).map_err(|e| e.to_string())?;
    if !flags.contains('u') {
        let why = if both_unicode {
            "JSON Schema validators and both runtimes"
        } else {
            "both runtimes"
        };
        regress::Regex::with_flags(re, format!("{flags}u").as_str())
            .map_err(|e| format!("{e} (with the `u` flag, which {why} use)"))?;
    }
    VALID.with(|v| v.borrow_mut().insert(key));
    Ok(())
}

/// The flags ixgen passes to `RegExp`: each of `i`, `m`, `s`, `u` at most once.
pub fn check_flags(flags: &str) -> Result<(), String> {
    for (i, f) in flags.char_indices() {
        if !"imsu".contains(f) {
            return Err(format!("`{f}` is not a regular expression flag ixgen supports"));
        }
        if flags[..i].contains(f) {
            return Err(format!("the flag `{f}` is given twice"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_expressions_are_ecmascript() {
        for ok in [r"^[0-9A-Za-z]+$", r"\b(medium|high)\b", r"(?<n>a)\k<n>", r"a+?"] {
            assert_eq!(check_regex(ok, "", true), Ok(()), "{ok}");
        }
        for bad in [r"(?i)abc", r"(?P<n>a)", r"a++", r"[", r"\p{Foo}"] {
            assert!(check_regex(bad, "", true).is_err(), "{bad}");
        }
        assert!(check_regex("a", "ii", false).is_err());
        assert!(check_regex("a", "g", false).is_err());
        assert!(check_regex("a", "iu", false).is_ok());
        // Valid without `u`, not with it: a schema pattern must work for both kinds of host.
        assert!(check_regex(r"\-", "", true).is_err());
        // The runtimes read every expression with `u` (code points), so a `matches` or a
        // `parse` pattern must be valid with it too.
        let e = check_regex(r"\-", "", false).unwrap_err();
        assert!(e.ends_with("(with the `u` flag, which both runtimes use)"), "{e}");
        assert!(check_regex(r"^.{3}$", "i", false).is_ok());
    }
}
