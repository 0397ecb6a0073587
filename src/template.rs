//! The placeholder templates, defined in the runtime crate (`ixgen_runtime::template`) so that the
//! runtime reads the specs ixgen writes with the very same types.

pub use ixgen_runtime::template::*;

/// Where byte `offset` of a template's text is, as a 1-based line and column (in characters)
/// of that text: what a diagnostic inside the catalog value that holds the template names
/// (`crate::diagnostic::Diagnostic::inside`), so that a fault on a block scalar's third line
/// is shown on that line.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// The byte offset of the first placeholder naming `var` (`{var}` or `{var|fmt}`) in a text
/// that parses as a template ([`Template::parse`]): `{{` and `}}` are literal braces there.
pub fn placeholder_offset(text: &str, var: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'}' if bytes.get(i + 1) == Some(&bytes[i]) => i += 2,
            b'{' => {
                let end = i + 1 + text[i + 1..].find('}')?;
                let name = &text[i + 1..end];
                if name.split('|').next() == Some(var) {
                    return Some(i);
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_in_a_template_is_its_line_and_column() {
        let text = "first {a}\nsécond {{b}}\n  third {b|code}";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(placeholder_offset(text, "a").map(|o| line_col(text, o)), Some((1, 7)));
        // `{{b}}` is literal text: the placeholder is the one on the third line.
        assert_eq!(placeholder_offset(text, "b").map(|o| line_col(text, o)), Some((3, 9)));
        assert_eq!(placeholder_offset(text, "c"), None);
        let unclosed = Template::parse("x\ny\n  {oops").unwrap_err();
        assert_eq!(line_col("x\ny\n  {oops", unclosed.offset), (3, 3));
    }
}
