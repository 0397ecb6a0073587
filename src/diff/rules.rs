//! The rules of `ixgen diff`: one table, one line per rule with its id, class, detector and
//! summary, as `buf breaking`'s rules are. Every id is stable kebab-case: catalogs switch rules
//! off by id in `lint.breaking`, and CI logs, JSON and annotations name them.
//!
//! Adding a rule: a line here, its detector in `detect.rs` (a function of the same name that
//! looks at the places of the comparison it concerns), a row in `docs/diff.md`, a fixture
//! pair in `tests/fixtures/diff/`. The line's place in its class is the order findings of one
//! place of the comparison are reported in, and the order `--list-rules` prints.

use super::detect::{self, Detector};
use serde::Serialize;

/// How a change affects the people and agents who call the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// An existing caller can fail: a call that worked is refused, or reaches something else.
    Breaking,
    /// The same calls are accepted, but what they do or return changed.
    Behaviour,
    /// Something was added or relaxed: every call that worked still works the same way.
    Compatible,
    /// Descriptions and titles: only what the model reads changed (and its context cost).
    Cosmetic,
}

impl Class {
    /// Every class, most severe first (the order reports are grouped in).
    pub const ALL: [Class; 4] = [Class::Breaking, Class::Behaviour, Class::Compatible, Class::Cosmetic];

    /// The id used in `lint.breaking.ignore` and in JSON.
    pub fn id(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Behaviour => "behaviour",
            Class::Compatible => "compatible",
            Class::Cosmetic => "cosmetic",
        }
    }

    /// The heading of the class in text reports.
    pub fn label(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Behaviour => "behaviour change",
            Class::Compatible => "compatible",
            Class::Cosmetic => "cosmetic",
        }
    }
}

macro_rules! rules {
    ($($variant:ident $id:literal $class:ident $detect:ident $summary:literal;)*) => {
        /// A rule of `ixgen diff`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(#[doc = $summary] $variant,)*
        }

        impl Rule {
            /// Every rule, in the order `--list-rules` prints them.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The rule's stable kebab-case id.
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The class of every finding of this rule.
            pub fn class(self) -> Class {
                match self {
                    $(Rule::$variant => Class::$class,)*
                }
            }

            /// The function that finds the rule's changes.
            pub fn detector(self) -> Detector {
                match self {
                    $(Rule::$variant => detect::$detect,)*
                }
            }

            /// What the rule detects, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Rule::$variant => $summary,)*
                }
            }
        }
    };
}

rules! {
    SurfaceRemoved "surface-removed" Breaking surface_removed "a host surface (a target, or the MCP server behind the MCP hosts) is no longer generated";
    ToolRemoved "tool-removed" Breaking tool_removed "a tool was removed from the catalog (a rename without `renamed_from` is a removal plus an addition)";
    ToolsetMemberRemoved "toolset-member-removed" Breaking toolset_member_removed "a tool still in the catalog is no longer given to a surface (its toolset, the target's toolset or the catalog's filters changed, or it became `unsupported`)";
    ToolRenamed "tool-renamed" Breaking tool_renamed "a tool was renamed (declared with `renamed_from`)";
    ToolIdChanged "tool-id-changed" Breaking tool_id_changed "the id a host gives a tool changed, e.g. after a server, plugin or session file rename";
    ToolsetRemoved "toolset-removed" Breaking toolset_removed "a toolset was removed (it can be chosen with `ixgen opencode --toolset`)";
    ParamRemoved "param-removed" Breaking param_removed "a parameter was removed (a rename without `renamed_from` is a removal plus an addition)";
    ParamRenamed "param-renamed" Breaking param_renamed "a parameter was renamed (declared with `renamed_from`)";
    ParamRequiredAdded "param-required-added" Breaking param_required_added "a new required parameter";
    ParamTypeChanged "param-type-changed" Breaking param_type_changed "a parameter's type (or its array items' type) changed";
    EnumValueRemoved "enum-value-removed" Breaking enum_value_removed "an allowed value was removed from an enum";
    BoundTightened "bound-tightened" Breaking bound_tightened "a minimum was raised or added, a maximum lowered or added, or out-of-range numbers are now refused instead of clamped";
    PatternAdded "pattern-added" Breaking pattern_added "a string parameter gained a pattern";
    PatternChanged "pattern-changed" Breaking pattern_changed "a parameter's pattern changed (ixgen cannot prove a regular expression wider, so it may narrow)";
    ParamBecameRequired "param-became-required" Breaking param_became_required "an optional parameter became required";
    ToolBecameWrite "tool-became-write" Breaking tool_became_write "a read tool became a write tool (read-only clients and filters drop it)";
    ToolBecameDestructive "tool-became-destructive" Breaking tool_became_destructive "a tool became destructive";
    CliArgvChanged "cli-argv-changed" Breaking cli_argv_changed "the commands a tool runs changed (program, subcommand, option or flag names, a command added or removed): an installed CLI may not accept them";
    StoreStepChanged "store-step-changed" Breaking store_step_changed "what a store or signal step writes, reads or signals changed: the loop reading the store may not see it";
    RuntimeRouteChanged "runtime-route-changed" Breaking runtime_route_changed "the method or path of a tool's runtime route changed: a running runtime may not serve it";
    ServerCommandChanged "server-command-changed" Breaking server_command_changed "the command line the MCP hosts launch the server with changed (command, arguments, filter flags): an installed server may not accept it";
    NullableRemoved "nullable-removed" Breaking nullable_removed "a parameter no longer accepts `null` (`nullable` removed): a call that sent `null` is refused";
    EqualsContextAdded "equals-context-added" Breaking equals_context_added "a parameter must now equal a context value (`equals_context` added or changed): a call with another value is refused";
    ConfirmAdded "confirm-added" Breaking confirm_added "a tool now asks for confirmation before it runs (`confirm` added): an unattended call is held or refused";
    RuleAdded "rule-added" Breaking rule_added "a rule across parameters was added (`rules`: `require`, `forbid` or `check`): a call that passed may be refused";
    ServerEnvChanged "server-env-changed" Behaviour server_env_changed "the environment the MCP hosts launch the server with changed";
    StepChanged "step-changed" Behaviour step_changed "a tool's steps changed with the same interface: conditions, titles, messages, computed expressions, order, concurrency, or other values in the same command and options";
    RouteChanged "route-changed" Behaviour route_changed "a tool's runtime route was added, removed, or sends a different body, timeout or output field";
    ConfirmChanged "confirm-changed" Behaviour confirm_changed "a tool's confirmation was removed, or whom it asks about what changed (`confirm`)";
    DefaultChanged "default-changed" Behaviour default_changed "a parameter's default changed, was added or was removed";
    OutputChanged "output-changed" Behaviour output_changed "the heading, fallback text or output schema of a tool's result changed";
    HintsChanged "hints-changed" Behaviour hints_changed "a tool's hints changed without breaking callers: write to read, no longer destructive, idempotent, open-world";
    TierChanged "tier-changed" Behaviour tier_changed "a tool moved to another tier, so a `--tier` filter keeps or drops it";
    KeepEmptyChanged "keep-empty-changed" Behaviour keep_empty_changed "whether an empty string is a value or means \"not given\" changed (`keep_empty`)";
    SurfaceAdded "surface-added" Compatible surface_added "a new host surface is generated";
    ToolAdded "tool-added" Compatible tool_added "a new tool";
    ToolsetMemberAdded "toolset-member-added" Compatible toolset_member_added "an existing tool is now given to another surface";
    ParamAddedOptional "param-added-optional" Compatible param_added_optional "a new optional parameter";
    EnumValueAdded "enum-value-added" Compatible enum_value_added "an enum gained an allowed value";
    BoundRelaxed "bound-relaxed" Compatible bound_relaxed "a minimum was lowered or removed, a maximum raised or removed, or out-of-range numbers are now clamped";
    PatternRemoved "pattern-removed" Compatible pattern_removed "a parameter's pattern was removed";
    ParamBecameOptional "param-became-optional" Compatible param_became_optional "a required parameter became optional";
    NullableAdded "nullable-added" Compatible nullable_added "a parameter now accepts `null` (`nullable` added)";
    EqualsContextRemoved "equals-context-removed" Compatible equals_context_removed "a parameter no longer has to equal a context value (`equals_context` removed)";
    RuleRemoved "rule-removed" Compatible rule_removed "a rule across parameters was removed (`rules`: `require`, `forbid` or `check`)";
    TitleChanged "title-changed" Cosmetic title_changed "a tool's title changed";
    DescriptionChanged "description-changed" Cosmetic description_changed "a tool's or parameter's description changed (its context cost is reported per host)";
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl Rule {
    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for r in Rule::ALL {
            assert!(seen.insert(r.id()), "duplicate rule id {}", r.id());
            assert!(
                r.id().chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{} is not kebab-case",
                r.id()
            );
            // A rule id may not shadow a class id, or `ignore: [breaking]` would be ambiguous.
            assert!(Class::ALL.iter().all(|c| c.id() != r.id()));
            assert_eq!(Rule::from_id(r.id()), Some(*r));
        }
    }

    /// Every rule has its row in the table of `docs/diff.md`, with its class, and the table
    /// names no rule that does not exist.
    #[test]
    fn the_docs_table_names_every_rule_with_its_class() {
        let docs = include_str!("../../docs/diff.md");
        let rows: Vec<(&str, &str)> = docs
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let id = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                let class = *cells.get(2)?;
                Class::ALL.iter().any(|c| c.id() == class).then_some((id, class))
            })
            .collect();
        for r in Rule::ALL {
            assert!(
                rows.contains(&(r.id(), r.class().id())),
                "docs/diff.md has no row `| `{}` | {} |`",
                r.id(),
                r.class().id()
            );
        }
        for (id, _) in &rows {
            assert!(
                Rule::from_id(id).is_some(),
                "docs/diff.md lists `{id}`, which is no rule"
            );
        }
        assert_eq!(rows.len(), Rule::ALL.len(), "a rule is listed twice in docs/diff.md");
    }
}
