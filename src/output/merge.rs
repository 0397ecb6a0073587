//! The JSONC merge of a shared file (`opencode.json`, `.mcp.json`, ...): ixgen sets its keys
//! and keeps every other byte the user wrote (comments, layout, number spellings, a BOM).
//!
//! Pure: bytes in, bytes out. It must not read or write the disk, and it refuses (rather than
//! guesses at) a file that is not JSON with comments, that nests too deeply, or that holds a key
//! twice.

use super::manifest::{MergedKey, value_hash};
use crate::error::Error;
use crate::escape;
use crate::paths::RelPath;
use std::collections::BTreeSet;

/// Deepest nesting accepted in a shared JSON file: the JSONC parser recurses.
pub(super) const MAX_JSON_DEPTH: usize = 128;

/// A JSON value as the CST editor takes it. Numbers keep serde_json's spelling.
pub(super) fn cst_value(v: &serde_json::Value) -> jsonc_parser::cst::CstInputValue {
    use jsonc_parser::cst::CstInputValue as C;
    match v {
        serde_json::Value::Null => C::Null,
        serde_json::Value::Bool(b) => C::Bool(*b),
        serde_json::Value::Number(n) => C::Number(n.to_string()),
        serde_json::Value::String(s) => C::String(s.clone()),
        serde_json::Value::Array(a) => C::Array(a.iter().map(cst_value).collect()),
        serde_json::Value::Object(o) => C::Object(o.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect()),
    }
}

/// The deepest `{`/`[` nesting of a JSONC text, counted with the parser's own (iterative)
/// scanner, so that a hostile file is refused before the recursive parser sees it.
pub(super) fn json_depth(text: &str) -> Result<usize, String> {
    let mut scanner = jsonc_parser::Scanner::new(text, &Default::default());
    let (mut depth, mut max) = (0usize, 0usize);
    loop {
        match scanner.scan() {
            Ok(None) => return Ok(max),
            Ok(Some(jsonc_parser::tokens::Token::OpenBrace | jsonc_parser::tokens::Token::OpenBracket)) => {
                depth += 1;
                max = max.max(depth);
                if max > MAX_JSON_DEPTH {
                    return Ok(max);
                }
            }
            Ok(Some(jsonc_parser::tokens::Token::CloseBrace | jsonc_parser::tokens::Token::CloseBracket)) => {
                depth = depth.saturating_sub(1);
            }
            Ok(Some(_)) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The path to the first key that an object of `v` holds twice (depth is bounded before:
/// [`json_depth`]).
pub(super) fn duplicate_key(v: &jsonc_parser::ast::Value<'_>, at: &mut Vec<String>) -> Option<Vec<String>> {
    use jsonc_parser::ast::Value;
    match v {
        Value::Object(o) => {
            let mut seen = BTreeSet::new();
            for p in &o.properties {
                let name = p.name.as_str();
                at.push(name.to_string());
                if !seen.insert(name) {
                    return Some(at.clone());
                }
                if let Some(found) = duplicate_key(&p.value, at) {
                    return Some(found);
                }
                at.pop();
            }
            None
        }
        Value::Array(a) => a.elements.iter().find_map(|e| duplicate_key(e, at)),
        _ => None,
    }
}

/// Parses a shared file as its hosts read it (JSON with comments), refusing what ixgen would
/// have to guess at: its byte-order mark, if any, and its editable tree.
fn parse_shared<'t>(old: &'t [u8], path: &RelPath) -> Result<(&'t str, jsonc_parser::cst::CstRootNode), Error> {
    let invalid = |why: String| {
        Error::usage(
            format!("`{path}` is not valid JSON ({why}); ixgen merges its server into it and will not guess"),
            format!("fix or remove `{path}`, then run ixgen again"),
        )
    };
    let text = std::str::from_utf8(old).map_err(|e| invalid(format!("not UTF-8: {e}")))?;
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let bom = &text[..text.len() - body.len()];
    if json_depth(body).map_err(&invalid)? > MAX_JSON_DEPTH {
        return Err(invalid(format!("nested deeper than {MAX_JSON_DEPTH} levels")));
    }
    // JSONC as its hosts read it: JSON with comments and trailing commas, and nothing of
    // JSON5's (bare keys, single quotes, hex, NaN, missing commas), which a host would refuse.
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let ast = jsonc_parser::parse_to_ast(body, &Default::default(), &options).map_err(|e| invalid(e.to_string()))?;
    // A key twice in one object: hosts disagree on which copy counts, so ixgen's value in
    // either would be a guess.
    if let Some(at) = ast.value.as_ref().and_then(|v| duplicate_key(v, &mut Vec::new())) {
        return Err(invalid(format!(
            "the key {} appears twice in one object",
            escape::debug_quote(&at.join("."))
        )));
    }
    let root = jsonc_parser::cst::CstRootNode::parse(body, &options).map_err(|e| invalid(e.to_string()))?;
    Ok((bom, root))
}

/// Renders a merged JSON file from what is on disk: the user's JSON or JSONC is edited in
/// place, so only ixgen's key changes and every other byte (comments, formatting, number
/// spellings, a byte-order mark) stays as the user wrote it. With `recorded` (the hash of the
/// value ixgen set there before), a value edited since is refused rather than overwritten, or
/// with `force` overwritten: the flag returned says so.
pub(super) fn merge_json(
    old: Option<&[u8]>,
    pointer: &[String],
    value: &serde_json::Value,
    skeleton: &serde_json::Map<String, serde_json::Value>,
    path: &RelPath,
    recorded: Option<&str>,
    force: bool,
) -> Result<(Vec<u8>, bool), Error> {
    // A host plans the pointer; an empty one is a bug in that host, not the user's file.
    let Some((last, parents)) = pointer.split_last() else {
        return Err(Error::internal(format!("a merge into `{path}` names no key to set")));
    };
    let Some(old) = old else {
        // A new file: the skeleton's keys, then the value at the pointer.
        let inner = pointer[1..].iter().rev();
        let nested = inner.fold(value.clone(), |v, k| serde_json::json!({ k: v }));
        let mut root = skeleton.clone();
        root.insert(pointer[0].clone(), nested);
        let mut text = serde_json::to_string_pretty(&root).expect("a JSON value always serializes");
        text.push('\n');
        return Ok((text.into_bytes(), false));
    };
    let (bom, root) = parse_shared(old, path)?;
    let not_object = |at: &[String]| {
        let at = if at.is_empty() {
            "the top level".to_string()
        } else {
            format!("`{}`", at.join("."))
        };
        Error::usage(
            format!(
                "`{path}`: {at} is not a JSON object, so ixgen cannot set `{}` in it",
                pointer.join(".")
            ),
            format!("make it an object in `{path}`"),
        )
    };
    let mut obj = match root.value() {
        // An empty file (or one holding only comments) becomes an object.
        None => root.object_value_or_set(),
        Some(v) => v.as_object().ok_or_else(|| not_object(&[]))?,
    };
    for (i, key) in parents.iter().enumerate() {
        obj = match obj.get(key) {
            Some(prop) => prop.object_value().ok_or_else(|| not_object(&pointer[..=i]))?,
            None => obj
                .append(key, jsonc_parser::cst::CstInputValue::Object(Vec::new()))
                .object_value()
                .expect("just set to an object"),
        };
    }
    match obj.get(last) {
        // The value is already there: the file stays exactly as it is.
        Some(prop) if prop.value().and_then(|v| v.to_serde_value()).as_ref() == Some(value) => {
            Ok((old.to_vec(), false))
        }
        Some(prop) => {
            // No record: a value ixgen never set there (the user's own entry under ixgen's
            // key), refused as an edit is.
            let current = prop.value().and_then(|v| v.to_serde_value());
            let edited = recorded.is_none_or(|h| current.is_none_or(|v| value_hash(&v) != h));
            if edited && !force {
                return Err(edited_key(path, pointer, recorded.is_none(), false));
            }
            prop.set_value(cst_value(value));
            Ok((format!("{bom}{root}").into_bytes(), edited))
        }
        None => {
            obj.append(last, cst_value(value));
            Ok((format!("{bom}{root}").into_bytes(), false))
        }
    }
}

/// Takes out of a shared file the keys ixgen set there and no longer plans: a key that is gone
/// already is left alone, and one whose value is not what ixgen set (an edit) is refused
/// unless `force` (the flag returned says one was taken out). `None` when nothing is.
pub(super) fn remove_keys(
    old: &[u8],
    keys: &[&MergedKey],
    force: bool,
    path: &RelPath,
) -> Result<Option<(Vec<u8>, bool)>, Error> {
    let (bom, root) = parse_shared(old, path)?;
    let (mut removed, mut edited) = (false, false);
    for k in keys {
        let Some((last, parents)) = k.key.split_last() else {
            continue;
        };
        let top = root.value().and_then(|v| v.as_object());
        let obj = parents.iter().fold(top, |o, key| o?.get(key)?.object_value());
        let Some(prop) = obj.and_then(|o| o.get(last)) else {
            continue;
        };
        let value = prop.value().and_then(|v| v.to_serde_value());
        if value.is_none_or(|v| value_hash(&v) != k.blake3) {
            if !force {
                return Err(edited_key(path, &k.key, false, true));
            }
            edited = true;
        }
        prop.remove();
        removed = true;
    }
    Ok(removed.then(|| (format!("{bom}{root}").into_bytes(), edited)))
}

/// A key of a shared file whose value is not the one ixgen set there (an edit, or `foreign`: a
/// value it never set), which ixgen neither overwrites nor (`removing`) takes out without
/// `--force`, as with a file it owns.
fn edited_key(path: &RelPath, key: &[String], foreign: bool, removing: bool) -> Error {
    let (done, hint) = match removing {
        true => (
            "no longer sets it and will not take it out",
            "take the key out yourself",
        ),
        false => (
            "will not overwrite it",
            "move your change elsewhere or into the catalog",
        ),
    };
    let what = match foreign {
        true => "holds a value ixgen did not set",
        false => "was edited since ixgen set it",
    };
    Error::usage(
        format!("`{path}`: `{}` {what}; ixgen {done}", key.join(".")),
        format!("{hint}, or pass --force to let ixgen replace it"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_every_other_byte() {
        let rel = RelPath::file("opencode.json").unwrap();
        let old = "\u{FEFF}{\n  // mine\n  \"n\": 1e2, \"big\": 12345678901234567890,\n  \"mcp\": { \"other\": {\"x\": 1} },\n}\n";
        let value = serde_json::json!({"type": "local", "command": ["ix"]});
        let merge = |old: &[u8]| {
            merge_json(
                Some(old),
                &["mcp".into(), "ix".into()],
                &value,
                &Default::default(),
                &rel,
                None,
                false,
            )
            .map(|(bytes, _)| bytes)
        };
        let out = merge(old.as_bytes()).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.starts_with("\u{FEFF}{\n  // mine\n  \"n\": 1e2, \"big\": 12345678901234567890,\n"),
            "{text}"
        );
        assert!(text.contains("\"other\": {\"x\": 1}"), "{text}");
        assert!(text.contains("\"ix\""), "{text}");
        // Merging again changes nothing, byte for byte.
        assert_eq!(merge(&out).unwrap(), out);
    }

    #[test]
    fn deep_json_is_refused_before_parsing() {
        let rel = RelPath::file("x.json").unwrap();
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = merge_json(
            Some(deep.as_bytes()),
            &["a".into()],
            &serde_json::json!(1),
            &Default::default(),
            &rel,
            None,
            false,
        );
        assert!(e.unwrap_err().to_string().contains("nested deeper"));
    }
}
