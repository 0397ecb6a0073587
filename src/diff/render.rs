//! The four forms of a diff report: text for people, JSON for tools, GitHub workflow
//! annotations on the catalog's lines, and a Markdown changelog section. Values from a catalog
//! are quoted by `crate::escape` for each form; nothing is written to disk.

use super::{Class, Finding, Report};
use crate::escape;
use std::fmt::Write;

/// Output form of `ixgen diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Github,
    Markdown,
}

/// Renders a report; the exit code is 1 when the check fails.
pub fn render(r: &Report, format: Format, color: bool) -> super::Outcome {
    let stdout = match format {
        Format::Text => text(r),
        Format::Json => serde_json::to_string_pretty(r).expect("the report serializes") + "\n",
        Format::Github => github(r),
        Format::Markdown => markdown(r),
    };
    let mut stderr = String::new();
    if !r.ok && format != Format::Json {
        let label = crate::diagnostic::error_label(color);
        for f in &r.failures {
            let _ = writeln!(stderr, "{label}: {f}");
        }
        let _ = writeln!(stderr, "  --> {}", r.version_loc);
        let breaking = r.findings.iter().any(|f| f.class == Class::Breaking && !f.ignored);
        let or = match breaking {
            true => ", pass --allow-breaking to accept the breaking changes, or switch a rule off in `lint.breaking`",
            false => "",
        };
        let to = &r.bump.suggested_version;
        let _ = writeln!(stderr, "  help: raise product.version to {to} or later{or}");
    }
    super::Outcome {
        stdout,
        stderr,
        code: if r.ok { 0 } else { 1 },
    }
}

fn surfaces(f: &Finding) -> String {
    if f.hit.surfaces.is_empty() {
        "none generated".to_string()
    } else {
        super::labels(&f.hit.surfaces)
    }
}

fn summary(r: &Report) -> String {
    let active = |c: Class| r.findings.iter().filter(|f| f.class == c && !f.ignored).count();
    let counts = Class::ALL.map(|c| format!("{} {}", active(c), c.label())).join(", ");
    let ignored = match r.findings.iter().filter(|f| f.ignored).count() {
        0 => String::new(),
        n => format!(", {n} ignored by lint.breaking"),
    };
    let actual = match r.bump.actual {
        super::semver::Change::Lowered => "lowered".to_string(),
        super::semver::Change::Unchanged => "unchanged".to_string(),
        super::semver::Change::Raised(l) => format!("enough for a {} change", l.id()),
    };
    let (was, is, bump) = (&r.before.version, &r.after.version, &r.bump);
    let (required, suggested) = (bump.required.id(), &bump.suggested_version);
    format!(
        "{counts}{ignored}; suggested bump: {required} ({was} → {suggested}); product.version {was} → {is} ({actual})"
    )
}

fn budget_phrase(b: &super::BudgetDelta) -> String {
    format!("{:+} tokens in every {}", b.delta, b.surface.session)
}

fn text(r: &Report) -> String {
    let mut o = String::new();
    let side = |s: &super::SideInfo| format!("{} ({} {})", escape::terminal(&s.file), s.product, s.version);
    let _ = writeln!(o, "ixgen diff: {} against {}", side(&r.after), side(&r.before));
    if r.findings.is_empty() {
        let _ = writeln!(o, "\nno changes to the tool surfaces");
    }
    for class in Class::ALL {
        let fs: Vec<&Finding> = r.findings.iter().filter(|f| f.class == class).collect();
        if fs.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n{} ({}):", class.label(), fs.len());
        for f in fs {
            let ignored = if f.ignored { " (ignored)" } else { "" };
            let _ = writeln!(o, "  {}{ignored}: {}", f.rule.id(), f.hit.msg.render(escape::term_code));
            let _ = writeln!(o, "      surfaces: {}", surfaces(f));
            if let Some(t) = f.hit.tokens.filter(|t| *t != 0) {
                let _ = writeln!(o, "      tokens:   {t:+} per session on each of these surfaces");
            }
            if let Some(b) = &f.hit.before {
                let _ = writeln!(o, "      before:   {b}");
            }
            if let Some(a) = &f.hit.after {
                let _ = writeln!(o, "      after:    {a}");
            }
        }
    }
    let moved: Vec<_> = r.budget.iter().filter(|b| b.delta != 0).collect();
    if !moved.is_empty() {
        let _ = writeln!(o, "\ncontext budget (estimated tokens, as `ixgen budget` counts them):");
        for b in moved {
            let (label, phrase) = (b.surface.label, budget_phrase(b));
            let _ = writeln!(o, "  {label}: {phrase} ({} → {})", b.tokens_before, b.tokens_after);
        }
    }
    let _ = writeln!(o, "\n{}", summary(r));
    o
}

fn github(r: &Report) -> String {
    let mut o = String::new();
    let unversioned_breaking = !r.failures.is_empty();
    for f in r.findings.iter().filter(|f| !f.ignored) {
        let level = match f.class {
            Class::Breaking if unversioned_breaking => "error",
            Class::Breaking | Class::Behaviour => "warning",
            Class::Compatible | Class::Cosmetic => "notice",
        };
        let mut message = format!("{} [{}]", f.hit.msg.plain(), surfaces(f));
        if let Some(b) = &f.hit.before {
            let _ = write!(message, "; before: {b}");
        }
        if let Some(t) = f.hit.tokens.filter(|t| *t != 0) {
            let _ = write!(message, "; {t:+} tokens per session");
        }
        let title = format!("ixgen diff: {} ({})", f.rule.id(), f.class.label());
        annotation(&mut o, level, &f.hit.anchor, true, &title, &message);
    }
    for b in r.budget.iter().filter(|b| b.delta != 0) {
        let message = format!("{} ({} → {} tokens)", budget_phrase(b), b.tokens_before, b.tokens_after);
        let title = "ixgen diff: context budget";
        annotation(&mut o, "notice", &r.version_loc, false, title, &message);
    }
    for f in &r.failures {
        let message = format!("{f}; raise product.version to {}", r.bump.suggested_version);
        annotation(&mut o, "error", &r.version_loc, true, "ixgen diff: version", &message);
    }
    let _ = writeln!(o, "ixgen diff: {}", summary(r));
    o
}

/// A workflow command annotating `at` (its column too, when `col`).
fn annotation(o: &mut String, level: &str, at: &super::Loc, col: bool, title: &str, message: &str) {
    let file = escape::terminal(&at.file);
    let at = (at.line, col.then_some(at.column));
    let line = escape::gh_annotation(level, Some(&file), Some(at), title, message);
    let _ = writeln!(o, "{line}");
}

fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let version = if r.bump.satisfied {
        &r.after.version
    } else {
        &r.bump.suggested_version
    };
    let (product, version) = (escape::md_text(&r.after.product), escape::md_text(version));
    let _ = writeln!(o, "## {product} {version}\n");
    let file = escape::md_code(&escape::terminal(&r.before.file));
    let (product, version) = (escape::md_text(&r.before.product), escape::md_text(&r.before.version));
    let _ = writeln!(o, "Changes to the agent tools since {product} {version} ({file}).\n");
    let active: Vec<&Finding> = r.findings.iter().filter(|f| !f.ignored).collect();
    if active.is_empty() {
        let _ = writeln!(o, "No changes to the tool surfaces.\n");
    }
    for (class, heading) in [
        (Class::Breaking, "Breaking changes"),
        (Class::Behaviour, "Behaviour changes"),
        (Class::Compatible, "Added and relaxed"),
        (Class::Cosmetic, "Descriptions and titles"),
    ] {
        let fs: Vec<&&Finding> = active.iter().filter(|f| f.class == class).collect();
        if fs.is_empty() {
            continue;
        }
        let _ = writeln!(o, "### {heading}\n");
        for f in fs {
            // Catalog values on one line, with what is unprintable escaped as the text format
            // shows it: no escape sequence or direction override reaches the notes raw.
            let msg = (f.hit.msg).render(|s| escape::md_code(&escape::terminal(&escape::one_line(s))).to_string());
            let _ = writeln!(o, "- {msg} ({}; `{}`)", escape::md_text(&surfaces(f)), f.rule.id());
        }
        let _ = writeln!(o);
    }
    let moved: Vec<_> = r.budget.iter().filter(|b| b.delta != 0).collect();
    if !moved.is_empty() {
        let _ = writeln!(o, "### Context budget\n");
        for b in moved {
            let phrase = escape::md_text(&budget_phrase(b));
            let _ = writeln!(o, "- {phrase} ({} → {})", b.tokens_before, b.tokens_after);
        }
        let _ = writeln!(o);
    }
    o
}
