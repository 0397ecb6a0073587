//! Secret redaction: the TypeScript runtime's rules (`__ixgenSecrets`), with the same ECMAScript
//! regular expressions (regress), so that both runtimes hide exactly the same text.

use regress::Regex;
use std::sync::LazyLock;

/// A rule: its expression, what a match becomes, and the words every match contains (`needles`),
/// lower case when the expression ignores case.
struct Rule {
    re: Regex,
    pattern: &'static str,
    /// The `i` flag.
    case_blind: bool,
    replace: fn(&str, &[Option<&str>]) -> String,
    needles: &'static [&'static str],
    /// For a rule that would otherwise be tried at every position of the text: the expression
    /// anchored (`^(?:…)`), and where it can start, each with how far a match from there can
    /// reach ([`assignments`]).
    starts: Option<(Regex, Starts)>,
}

/// Where a rule can start in a text, each with how far a match from there can reach.
type Starts = fn(&str) -> Vec<(usize, usize)>;

/// The characters outside ASCII whose case folds to an ASCII letter (`ſ` → `s`, the Kelvin sign
/// → `k`, dotted and dotless `i`). A case-blind expression might match one of them where the
/// needle has the letter, so a text holding any of them is never skipped by its needles.
const FOLDS_TO_ASCII: [char; 4] = ['\u{17f}', '\u{212a}', '\u{130}', '\u{131}'];

impl Rule {
    fn new(
        (pattern, flags): (&'static str, &str),
        needles: &'static [&'static str],
        replace: fn(&str, &[Option<&str>]) -> String,
    ) -> Rule {
        Rule {
            re: Regex::with_flags(pattern, flags).expect("a redaction rule compiles"),
            pattern,
            case_blind: flags.contains('i'),
            replace,
            needles,
            starts: None,
        }
    }

    /// The rule tried only where `starts` says a match can start.
    fn at(mut self, starts: Starts) -> Rule {
        let flags = if self.case_blind { "i" } else { "" };
        let anchored = format!("^(?:{})", self.pattern);
        self.starts = Some((
            Regex::with_flags(&anchored, flags).expect("an anchored rule compiles"),
            starts,
        ));
        self
    }

    /// Whether the rule can match `s` (`lower`: `s` in ASCII lower case; `folds`: `s` holds one
    /// of [`FOLDS_TO_ASCII`]). Exact, not a guess: a match holds one of its needles, so a text
    /// holding none is left as it is without running the expression. An expression that cannot
    /// start from a fixed word is tried at every position of the text: for a 5 MB answer, most
    /// of the time redaction took.
    fn may_match(&self, s: &str, lower: &str, folds: bool) -> bool {
        let case_blind = self.case_blind;
        self.needles.is_empty()
            || (case_blind && folds)
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
            // The digit is asked of the whole run here, not in a lookahead that reads the run
            // again from each `sk-` (a run of `sk-sk-sk-…` made that quadratic). The same
            // matches: a later `sk-` in a run has a suffix of the run, with no digit if the run
            // has none.
            (r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}", ""),
            &["sk-"],
            |m, _| {
                if m.bytes().any(|b| b.is_ascii_digit()) {
                    "[REDACTED]".into()
                } else {
                    m.to_string()
                }
            },
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
        )
        .at(assignments),
    ]
});

/// Where the `name=value` rule can match in `s`: each (start, end) is a position where a match
/// can start and how far one from there can reach. A match's name is a run of `[A-Za-z0-9_-]`
/// that holds a needle and ends where the separator begins; it starts at the run's start or
/// after a `-` (`\b`, then a letter or digit), and the separator (quotes, spaces, `:` or `=`,
/// holding a `:` or `=`) and the value (up to a space, quote or bracket) after it go no further
/// than `end`. So the expression, anchored, is tried at these few places instead of at every
/// position of the text, and finds there exactly what it would find in the whole text: it looks
/// at nothing before its start but that `\b`, and nothing after its value.
///
/// Of a run's starts, only the leftmost whose name has the expression's shape is given
/// ([`named`]): one per run at most, so each character is looked at a bounded number of times (trying
/// every start of a run of 20,000 `-`-joined names took 15 s).
fn assignments(s: &str) -> Vec<(usize, usize)> {
    let lower = s.to_ascii_lowercase();
    let mut hits: Vec<usize> = ["key", "token", "secret", "passw"]
        .iter()
        .flat_map(|n| lower.match_indices(n).map(|(i, _)| i))
        .collect();
    hits.sort_unstable();
    let b = s.as_bytes();
    let name = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let sep = |c: char| matches!(c, '"' | '\'' | ':' | '=') || crate::js::is_space(c);
    let value = |c: char| !crate::js::is_space(c) && !"\"'`,;&<>()[]{}".contains(c);
    let (mut name_end, mut seps, mut values) = (0, 0..0, 0..0);
    let mut out = Vec::new();
    for i in hits {
        if i < name_end {
            continue;
        }
        let start = i - b[..i].iter().rev().take_while(|&&c| name(c)).count();
        name_end = i + b[i..].iter().take_while(|&&c| name(c)).count();
        let sep_end = run_end(s, name_end, sep, &mut seps);
        if !s[name_end..sep_end].contains([':', '=']) {
            continue;
        }
        let end = run_end(s, sep_end, value, &mut values);
        out.extend(named(&lower.as_bytes()[..name_end], start).map(|p| (p, end)));
    }
    out
}

/// The leftmost start in the run of name characters from `start` to the end of `lower`
/// (lowercased) from which the whole rest of the run is a name the `name=value` rule takes:
/// `(?:[a-z0-9]+[_-])+` and a needle, or a bare word. A start is the run's start or follows a
/// `-`. The first form holds from a start that begins with a letter or digit after the run's
/// last doubled joint (`--`, `-_`, `_-`, `__`) before the needle, and from every such start if
/// from one; a bare word starts further right, so it is the start only when the first form has
/// none. Whether the separator and value follow is the same from every start of the run.
fn named(lower: &[u8], start: usize) -> Option<usize> {
    let end = lower.len();
    let is_start = |p: usize| p == start || lower[p - 1] == b'-';
    let joint = |c: u8| c == b'_' || c == b'-';
    let ends_with = |w: &&str| lower[start..].ends_with(w.as_bytes());
    let shaped = ["key", "token", "secret", "password", "passwd"]
        .into_iter()
        .find(ends_with)
        .map(|n| end - n.len())
        .filter(|&q| q >= start + 2 && joint(lower[q - 1]))
        .and_then(|q| {
            let after = (start..q - 1)
                .rev()
                .find(|&i| joint(lower[i]) && joint(lower[i + 1]))
                .map_or(start, |i| i + 2);
            (after..q - 1).find(|&p| is_start(p) && lower[p].is_ascii_alphanumeric())
        });
    shaped.or_else(|| {
        ["apikey", "token", "secret", "password", "passwd"]
            .into_iter()
            .find(ends_with)
            .map(|w| end - w.len())
            .filter(|&p| is_start(p))
    })
}

/// Where the run of `class` characters from `at` ends. `seen` is the last run found: a run met
/// again (a value several names share) is not read again.
fn run_end(s: &str, at: usize, class: impl Fn(char) -> bool, seen: &mut std::ops::Range<usize>) -> usize {
    if !seen.contains(&at) {
        let len = s[at..]
            .char_indices()
            .find(|&(_, c)| !class(c))
            .map_or(s.len() - at, |(i, _)| i);
        *seen = at..at + len;
    }
    seen.end
}

/// `s.replace(re /g, f)`: with the rule's `starts`, the anchored expression tried only there.
fn replace_all(rule: &Rule, s: &str, whole: bool) -> String {
    // Each match, with where in `s` the text it was found in starts.
    let found: Vec<(usize, regress::Match)> = match &rule.starts {
        Some((anchored, starts)) if !whole => {
            let (mut found, mut reach) = (Vec::new(), 0);
            for (p, end) in starts(s) {
                if p >= reach
                    && let Some(m) = anchored.find(&s[p..end])
                {
                    reach = p + m.end();
                    found.push((p, m));
                }
            }
            found
        }
        _ => rule.re.find_iter(s).map(|m| (0, m)).collect(),
    };
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (at, m) in found {
        let piece = |r: std::ops::Range<usize>| &s[at + r.start..at + r.end];
        out.push_str(&s[last..at + m.start()]);
        let groups: Vec<Option<&str>> = m.groups().skip(1).map(|g| g.map(piece)).collect();
        out.push_str(&(rule.replace)(piece(m.range()), &groups));
        last = at + m.end();
    }
    out.push_str(&s[last..]);
    out
}

/// Hides the secrets of a text. Each rule's needles are looked for in the text as given: a
/// replacement only puts `[REDACTED]` between pieces of it, which makes no needle.
pub fn redact(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    // A character that folds to an ASCII letter might also make a name [`assignments`] does
    // not see: then the rule is tried everywhere.
    let folds = !s.is_ascii() && s.contains(FOLDS_TO_ASCII);
    (RULES.iter())
        .filter(|rule| rule.may_match(s, &lower, folds))
        .fold(s.to_string(), |acc, rule| replace_all(rule, &acc, folds))
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
            |s: &str| (super::RULES.iter()).fold(s.to_string(), |acc, r| super::replace_all(r, &acc, true));
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
            "a--key=a_token : zzzzzzzzzz",
            "my-api-key = \"abcdefghijk\" x-token-y=abcdefghijk",
            "token\n=\nabcdefghij -token=abcdefghij",
            "__secret='abcdefghijkl' key\u{a0}=\u{2028}abcdefghij",
            "apikey:abcdefghij; passwd=(x) k_key=k_key=k_key=abcdefghij",
            "",
        ];
        for a in pieces {
            for b in pieces {
                let text = format!("{a} {b}\n{b}:{a}");
                assert_eq!(redact(&text), every_rule(&text), "{text:?}");
            }
        }
    }

    /// 20,000 texts, each of fewer than `most` pieces drawn from `parts` (xorshift from `seed`,
    /// so a failure comes back the same).
    fn random_texts(parts: &[&str], most: u64, mut seed: u64) -> Vec<String> {
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..20_000)
            .map(|_| {
                (0..next() % most)
                    .map(|_| parts[(next() % parts.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    /// The `sk-` rule, its digit asked in the replacement, hides what its lookahead form hid:
    /// random runs of `sk-`, letters, digits and joints, against the lookahead expression.
    #[test]
    fn sk_keys_are_found_as_the_lookahead_found_them() {
        const PARTS: &[&str] = &["sk-", "sk-", "a", "abcdefghij", "B", "7", "-", "_", " ", "é", "xsk-"];
        let lookahead =
            regress::Regex::with_flags(r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}", "").unwrap();
        let rule = &super::RULES[3];
        for text in random_texts(PARTS, 24, 0x9e37_79b9_7f4a_7c15) {
            let mut want = String::new();
            let mut last = 0;
            for m in lookahead.find_iter(&text) {
                want.push_str(&text[last..m.start()]);
                want.push_str("[REDACTED]");
                last = m.end();
            }
            want.push_str(&text[last..]);
            assert_eq!(super::replace_all(rule, &text, true), want, "{text:?}");
        }
    }

    /// Where the `name=value` rule is tried ([`super::assignments`]) never changes what it
    /// finds: texts made at random of names, needles, separators and values, each redacted as
    /// it is and with the rule tried at every position. The second alphabet is mostly name
    /// pieces and joints, so that runs with doubled joints before a needle (`a1--a1-key`, where
    /// only a later start matches) come often.
    #[test]
    fn assignments_are_found_where_the_whole_text_finds_them() {
        const PARTS: &[&str] = &[
            "key",
            "token",
            "Secret",
            "passwd",
            "api",
            "a1",
            "-",
            "_",
            "--",
            "=",
            ":",
            " ",
            "\n",
            "\"",
            "'",
            "abcdefgh9",
            "x",
            "\u{a0}",
            ",",
            "(",
            ".",
            "é",
        ];
        const NAMES: &[&str] = &["a1", "key", "api", "Token", "-", "-", "_", "--", "=", "abcdefgh9", " "];
        let rule = &super::RULES[5];
        for parts in [PARTS, NAMES] {
            for text in random_texts(parts, 16, 0x2545_f491_4f6c_dd1d) {
                assert_eq!(
                    super::replace_all(rule, &text, false),
                    super::replace_all(rule, &text, true),
                    "{text:?}"
                );
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
