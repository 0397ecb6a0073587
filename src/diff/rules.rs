//! The rules of `ixgen diff`: one table, one line per rule with its id, class, summary and
//! detector, as `buf breaking`'s rules are. Every id is stable kebab-case: catalogs switch rules
//! off by id in `lint.breaking`, and CI logs, JSON and annotations name them.
//!
//! Adding a rule: a line here, its detector in `detect.rs` (a function of the same name that
//! looks at the places of the comparison it concerns; two rules that are the two directions
//! of one change share a function with a flag), a row in `docs/diff.md`, a fixture
//! pair in `tests/fixtures/diff/`. The line's place in its class is the order findings of one
//! place of the comparison are reported in, and the order `--list-rules` prints.

use super::detect::*;
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
            Class::Behaviour => "behaviour change",
            c => c.id(),
        }
    }
}

macro_rules! rules {
    ($($variant:ident $id:literal $class:ident $summary:literal => $detect:expr;)*) => {
        /// A rule of `ixgen diff`, serialized as its id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(rename_all = "kebab-case")]
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
                    $(Rule::$variant => $detect,)*
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
    SurfaceRemoved "surface-removed" Breaking "a host surface (a target, or the MCP server behind the MCP hosts) is no longer generated" => |d, n| surface(d, n, true);
    ToolRemoved "tool-removed" Breaking "a tool was removed from the catalog (a rename without `renamed_from` is a removal plus an addition)" => tool_removed;
    ToolsetMemberRemoved "toolset-member-removed" Breaking "a tool still in the catalog is no longer given to a surface (its toolset, the target's toolset or the catalog's filters changed, or it became `unsupported`)" => toolset_member_removed;
    ToolRenamed "tool-renamed" Breaking "a tool was renamed (declared with `renamed_from`)" => tool_renamed;
    ToolIdChanged "tool-id-changed" Breaking "the id a host gives a tool changed, e.g. after a server, plugin or session file rename" => tool_id_changed;
    ToolsetRemoved "toolset-removed" Breaking "a toolset was removed (it can be chosen with `ixgen opencode --toolset`)" => toolset_removed;
    ParamRemoved "param-removed" Breaking "a parameter was removed (a rename without `renamed_from` is a removal plus an addition)" => param_removed;
    ParamRenamed "param-renamed" Breaking "a parameter was renamed (declared with `renamed_from`)" => param_renamed;
    ParamRequiredAdded "param-required-added" Breaking "a new required parameter" => |d, n| param_added(d, n, true);
    ParamTypeChanged "param-type-changed" Breaking "a parameter's type (or its array items' type) changed" => param_type_changed;
    EnumValueRemoved "enum-value-removed" Breaking "an allowed value was removed from an enum" => |d, n| enum_values(d, n, true);
    BoundTightened "bound-tightened" Breaking "a minimum was raised or added, a maximum lowered or added, or out-of-range numbers are now refused instead of clamped" => |d, n| bound(d, n, true);
    PatternAdded "pattern-added" Breaking "a string parameter gained a pattern" => |d, n| pattern(d, n, Delta::Added);
    PatternChanged "pattern-changed" Breaking "a parameter's pattern changed (ixgen cannot prove a regular expression wider, so it may narrow)" => |d, n| pattern(d, n, Delta::Changed);
    ParamBecameRequired "param-became-required" Breaking "an optional parameter became required" => |d, n| required(d, n, true);
    ToolBecameWrite "tool-became-write" Breaking "a read tool became a write tool (read-only clients and filters drop it)" => tool_became_write;
    ToolBecameDestructive "tool-became-destructive" Breaking "a tool became destructive" => tool_became_destructive;
    CliArgvChanged "cli-argv-changed" Breaking "the commands a tool runs changed (program, subcommand, option or flag names, a command added or removed): an installed CLI may not accept them" => |d, n| commands(d, n, true);
    StoreStepChanged "store-step-changed" Breaking "what a store or signal step writes, reads or signals changed: the loop reading the store may not see it" => |d, n| commands(d, n, false);
    RuntimeRouteChanged "runtime-route-changed" Breaking "the method or path of a tool's runtime route changed: a running runtime may not serve it" => runtime_route_changed;
    ServerCommandChanged "server-command-changed" Breaking "the command line the MCP hosts launch the server with changed (command, arguments, or the filter flags that pass the catalog's filters): an installed server may not accept it" => server_command_changed;
    NullableRemoved "nullable-removed" Breaking "a parameter no longer accepts `null` (`nullable` removed): a call that sent `null` is refused" => |d, n| nullable(d, n, false);
    EqualsContextAdded "equals-context-added" Breaking "a parameter must now equal a context value (`equals_context` added or changed): a call with another value is refused" => |d, n| equals_context(d, n, true);
    ConfirmAdded "confirm-added" Breaking "a tool now asks for confirmation before it runs (`confirm` added): an unattended call is held or refused" => confirm_added;
    RuleAdded "rule-added" Breaking "a rule across parameters was added (`rules`: `require`, `forbid` or `check`): a call that passed may be refused" => |d, n| cross_rules(d, n, Delta::Added);
    ServerEnvChanged "server-env-changed" Behaviour "the environment the MCP hosts launch the server with changed" => server_env_changed;
    StepChanged "step-changed" Behaviour "a tool's steps changed with the same interface: conditions, titles, messages, computed expressions, order, concurrency, or other values in the same command and options" => step_changed;
    RouteChanged "route-changed" Behaviour "a tool's runtime route was added, removed, or sends a different body, timeout or output field" => route_changed;
    ConfirmChanged "confirm-changed" Behaviour "a tool's confirmation was removed, or whom it asks about what changed (`confirm`)" => confirm_changed;
    DefaultChanged "default-changed" Behaviour "a parameter's default changed, was added or was removed" => default_changed;
    OutputChanged "output-changed" Behaviour "the heading, fallback text or output schema of a tool's result changed" => output_changed;
    HintsChanged "hints-changed" Behaviour "a tool's hints changed without breaking callers: write to read, no longer destructive, idempotent, open-world" => hints_changed;
    TierChanged "tier-changed" Behaviour "a tool moved to another tier, so a `--tier` filter keeps or drops it" => tier_changed;
    KeepEmptyChanged "keep-empty-changed" Behaviour "whether an empty string is a value or means \"not given\" changed (`keep_empty`)" => keep_empty_changed;
    SurfaceAdded "surface-added" Compatible "a new host surface is generated" => |d, n| surface(d, n, false);
    ToolAdded "tool-added" Compatible "a new tool" => tool_added;
    ToolsetMemberAdded "toolset-member-added" Compatible "an existing tool is now given to another surface" => toolset_member_added;
    ParamAddedOptional "param-added-optional" Compatible "a new optional parameter" => |d, n| param_added(d, n, false);
    EnumValueAdded "enum-value-added" Compatible "an enum gained an allowed value" => |d, n| enum_values(d, n, false);
    BoundRelaxed "bound-relaxed" Compatible "a minimum was lowered or removed, a maximum raised or removed, or out-of-range numbers are now clamped" => |d, n| bound(d, n, false);
    PatternRemoved "pattern-removed" Compatible "a parameter's pattern was removed" => |d, n| pattern(d, n, Delta::Removed);
    ParamBecameOptional "param-became-optional" Compatible "a required parameter became optional" => |d, n| required(d, n, false);
    NullableAdded "nullable-added" Compatible "a parameter now accepts `null` (`nullable` added)" => |d, n| nullable(d, n, true);
    EqualsContextRemoved "equals-context-removed" Compatible "a parameter no longer has to equal a context value (`equals_context` removed)" => |d, n| equals_context(d, n, false);
    RuleRemoved "rule-removed" Compatible "a rule across parameters was removed (`rules`: `require`, `forbid` or `check`)" => |d, n| cross_rules(d, n, Delta::Removed);
    TitleChanged "title-changed" Cosmetic "a tool's or parameter's title changed" => title_changed;
    DescriptionChanged "description-changed" Cosmetic "a tool's or parameter's description changed (its context cost is reported per host)" => description_changed;
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
            // JSON names a rule by the kebab-case of its variant: it must be the id.
            assert_eq!(serde_json::json!(r), r.id(), "{r:?} serializes as its id");
        }
    }
}
