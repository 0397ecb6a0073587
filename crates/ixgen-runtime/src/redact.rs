//! Secret redaction: the TypeScript runtime's rules (`__ixgenSecrets`), with the same ECMAScript
//! regular expressions (regress), so that both runtimes hide exactly the same text.

use regress::Regex;
use std::sync::LazyLock;

type Rule = (Regex, fn(&str, &[Option<&str>]) -> String);

fn re(pattern: &str, flags: &str) -> Regex {
    Regex::with_flags(pattern, flags).expect("a redaction rule compiles")
}

fn redacted(_: &str, _: &[Option<&str>]) -> String {
    "[REDACTED]".into()
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        (
            re(
                r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)",
                "",
            ),
            redacted,
        ),
        (re(r"\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)", "i"), |m, g| {
            let (p, t) = (g[0].unwrap_or(""), g[1].unwrap_or(""));
            let rest: String = t.chars().skip(1).collect();
            let mixed = rest.chars().any(|c| c.is_ascii_uppercase()) && t.chars().any(|c| c.is_ascii_lowercase());
            if t.chars().any(|c| c.is_ascii_digit()) || mixed {
                format!("{p}[REDACTED]")
            } else {
                m.to_string()
            }
        }),
        (
            re(
                r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,})",
                "",
            ),
            redacted,
        ),
        (
            re(r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}", ""),
            redacted,
        ),
        (
            re(
                r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}|(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}",
                "",
            ),
            redacted,
        ),
        // name=value assignments: keep the name. Unquoted "name: value" and "name = value" look like code, so only
        // passwords are redacted in that form; key/token/secret values must also be 8+ characters long.
        (
            re(
                r#"\b((?:[A-Za-z0-9]+[_-])+(?:key|token|secret|password|passwd)|apikey|token|secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'`,;&<>()[\]{}]+)"#,
                "i",
            ),
            |m, g| {
                let (name, sepr, value) = (g[0].unwrap_or(""), g[1].unwrap_or(""), g[2].unwrap_or(""));
                let pw = name.to_ascii_lowercase().contains("pass");
                let bare = sepr.trim_matches(crate::js::is_space);
                let code_like = (bare == ":" || bare == "=") && !sepr.contains(['"', '\'']) && sepr != "=";
                if pw || (crate::js::len16(value) >= 8 && !code_like) {
                    format!("{name}{sepr}[REDACTED]")
                } else {
                    m.to_string()
                }
            },
        ),
    ]
});

/// `s.replace(re /g, f)`.
fn replace_all(re: &Regex, s: &str, f: fn(&str, &[Option<&str>]) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for m in re.find_iter(s) {
        let r = m.range();
        out.push_str(&s[last..r.start]);
        let groups: Vec<Option<&str>> = m.groups().skip(1).map(|g| g.map(|g| &s[g])).collect();
        out.push_str(&f(&s[r.clone()], &groups));
        last = r.end;
    }
    out.push_str(&s[last..]);
    out
}

/// Hides the secrets of a text.
pub fn redact(s: &str) -> String {
    RULES
        .iter()
        .fold(s.to_string(), |acc, (re, f)| replace_all(re, &acc, *f))
}

/// Redacts every string of a JSON value (what is sent to a runtime route).
pub fn redact_deep(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(redact(s)),
        Value::Array(items) => Value::Array(items.iter().map(redact_deep).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, x)| (k.clone(), redact_deep(x))).collect()),
        x => x.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn hides_tokens_and_keeps_words() {
        assert_eq!(
            redact("boom: token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked"),
            "boom: token [REDACTED] leaked"
        );
        assert_eq!(redact("api_key=abcdefgh1234"), "api_key=[REDACTED]");
        assert_eq!(redact("password: hunter2"), "password: [REDACTED]");
        assert_eq!(redact("task-list risk-high"), "task-list risk-high");
        assert_eq!(redact("token = short"), "token = short");
        assert_eq!(
            redact("Authorization: Bearer abcdefghijklmnop1"),
            "Authorization: Bearer [REDACTED]"
        );
    }
}
