//! Secret redaction: the TypeScript runtime's rules (`__ixgenSecrets`), with the same ECMAScript
//! regular expressions (regress), so that both runtimes hide exactly the same text.

use regress::Regex;
use std::sync::LazyLock;

/// A rule: its expression, what a match becomes, and the words every match contains (`needles`),
/// lower case when the expression ignores case.
struct Rule {
    re: Regex,
    /// The `i` flag.
    case_blind: bool,
    replace: fn(&str, &[Option<&str>]) -> String,
    needles: &'static [&'static str],
}

/// The characters outside ASCII whose case folds to an ASCII letter (`ſ` → `s`, the Kelvin sign
/// → `k`, dotted and dotless `i`). A case-blind expression might match one of them where the
/// needle has the letter, so a text holding any of them is never skipped by its needles.
const FOLDS_TO_ASCII: [char; 4] = ['\u{17f}', '\u{212a}', '\u{130}', '\u{131}'];

impl Rule {
    fn new(
        (pattern, flags): (&str, &str),
        needles: &'static [&'static str],
        replace: fn(&str, &[Option<&str>]) -> String,
    ) -> Rule {
        Rule {
            re: Regex::with_flags(pattern, flags).expect("a redaction rule compiles"),
            case_blind: flags.contains('i'),
            replace,
            needles,
        }
    }

    /// Whether the rule can match `s` (`lower`: `s` in ASCII lower case). Exact, not a guess: a
    /// match holds one of its needles, so a text holding none is left as it is without running
    /// the expression. An expression that cannot start from a fixed word is tried at every
    /// position of the text: for a 5 MB answer, most of the time redaction took.
    fn may_match(&self, s: &str, lower: &str) -> bool {
        let case_blind = self.case_blind;
        self.needles.is_empty()
            || (case_blind && s.contains(FOLDS_TO_ASCII))
            || (self.needles.iter()).any(|n| if case_blind { lower.contains(n) } else { s.contains(n) })
    }
}

fn redacted(_: &str, _: &[Option<&str>]) -> String {
    "[REDACTED]".into()
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        Rule::new(
            (
                r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)",
                "",
            ),
            &["-----BEGIN "],
            redacted,
        ),
        Rule::new(
            (r"\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)", "i"),
            &["bearer"],
            |m, g| {
                let (p, t) = (g[0].unwrap_or(""), g[1].unwrap_or(""));
                let rest: String = t.chars().skip(1).collect();
                let mixed = rest.chars().any(|c| c.is_ascii_uppercase()) && t.chars().any(|c| c.is_ascii_lowercase());
                if t.chars().any(|c| c.is_ascii_digit()) || mixed {
                    format!("{p}[REDACTED]")
                } else {
                    m.to_string()
                }
            },
        ),
        Rule::new(
            (
                r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,})",
                "",
            ),
            &["gh", "github_pat_", "glpat-"],
            redacted,
        ),
        Rule::new(
            (r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}", ""),
            &["sk-"],
            redacted,
        ),
        Rule::new(
            (
                r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}|(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}",
                "",
            ),
            &["AKIA", "ASIA", "AIza", "xox"],
            redacted,
        ),
        // name=value assignments: keep the name. Unquoted "name: value" and "name = value" look like code, so only
        // passwords are redacted in that form; key/token/secret values must also be 8+ characters long.
        Rule::new(
            (
                r#"\b((?:[A-Za-z0-9]+[_-])+(?:key|token|secret|password|passwd)|apikey|token|secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'`,;&<>()[\]{}]+)"#,
                "i",
            ),
            &["key", "token", "secret", "passw"],
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

/// Hides the secrets of a text. Each rule's needles are looked for in the text as given: a
/// replacement only puts `[REDACTED]` between pieces of it, which makes no needle.
pub fn redact(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    (RULES.iter())
        .filter(|rule| rule.may_match(s, &lower))
        .fold(s.to_string(), |acc, rule| replace_all(&rule.re, &acc, rule.replace))
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

    /// The needles only save time: every rule run on every text gives the same text, on texts
    /// that hold each rule's secret, a needle without its secret, neither, and the characters
    /// outside ASCII that fold to a needle's letters.
    #[test]
    fn needles_never_change_what_is_hidden() {
        let every_rule =
            |s: &str| (super::RULES.iter()).fold(s.to_string(), |acc, r| super::replace_all(&r.re, &acc, r.replace));
        let pieces = [
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "Authorization: BEARER Z9y8X7w6V5u4T3s2R1",
            "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5j4J3i2",
            "github_pat_Z9y8X7w6V5u4T3s2R1q0P9o8N7",
            "glpat-Z9y8X7w6V5u4T3s2R1q0P9",
            "sk-Z9y8X7w6V5u4T3s2R1q0P9",
            "AKIAZ9Y8X7W6V5U4T3S2",
            "AIzaZ9y8X7w6V5u4T3s2R1q0P9o8N7m6L5j4J3i",
            "xoxb-Z9y8X7w6V5u4",
            "DB_PASSWORD=hunter2",
            "api_KEY: 'abcdefgh1234'",
            "Secret = \"abcdefghij\"",
            "to\u{17f}ken=abcdefghij1",
            "\u{212a}EY=abcdefghij1 \u{131}\u{130}",
            "plain words, a key idea, token-free text",
            "",
        ];
        for a in pieces {
            for b in pieces {
                let text = format!("{a} {b}\n{b}:{a}");
                assert_eq!(redact(&text), every_rule(&text), "{text:?}");
            }
        }
    }

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
