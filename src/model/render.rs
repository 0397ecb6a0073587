//! Lowering of step data flow and `output` blocks (`crate::catalog::render`) into the
//! execution spec's [`SpecBlock`]s and field conditions. Called by the lowering pass
//! (`super::lower`) once `catalog::render::check_tool` has checked the tool (and with the
//! pass's own condition lowering for the conditions blocks carry), so a node that does not
//! lower here is a bug, which the pass reports as an internal error, never a silent guess.

use crate::catalog::render::{Block, Limit, RichValue, Shape, Value_};
use crate::catalog::{Catalog, Cond};
use crate::spec::{CmpOp, JsonT, SpecBlock, SpecCond, SpecField, SpecMark, SpecValue};
use crate::template::Template;

/// A template of a block, which `catalog::render` checked against the data it names.
fn tpl(text: &str) -> Option<Template> {
    Template::parse(text).ok()
}

/// A condition on a field of step data: `{field: x.y, gte: 3}` → `{param: "x.y", op, than}`.
/// `None` when the condition is not a field condition.
pub fn field_cond(c: &Cond) -> Option<SpecCond> {
    let param = c.field.clone()?;
    let cmp = [
        (CmpOp::Lt, c.lt),
        (CmpOp::Lte, c.lte),
        (CmpOp::Gt, c.gt),
        (CmpOp::Gte, c.gte),
    ]
    .into_iter()
    .find_map(|(op, v)| v.map(|v| (op, v)));
    Some(if let Some((op, v)) = cmp {
        SpecCond::Compare {
            param,
            op,
            than: super::json_number(v),
        }
    } else if let Some(v) = &c.in_values {
        SpecCond::ParamIn {
            param,
            values: v.clone(),
        }
    } else if let Some(v) = &c.equals {
        SpecCond::ParamEquals {
            param,
            equals: v.clone(),
        }
    } else {
        SpecCond::ParamSet {
            param,
            set: c.set.unwrap_or(true),
        }
    })
}

/// The `recovery` text of a tool: the catalog's `cli.recovery`, for tools that run the CLI.
/// `Some(None)` when there is none; `None` when it does not lower.
pub fn recovery(cat: &Catalog, t: &crate::catalog::Tool) -> Option<Option<Template>> {
    let runs = t.steps.iter().any(|s| s.run.is_some() && s.program.is_none());
    match cat.cli.as_ref().and_then(|c| c.recovery.as_deref()).filter(|_| runs) {
        Some(text) => tpl(text).map(Some),
        None => Some(None),
    }
}

/// One output block; `cond` lowers the conditions it carries (with the pass's checks).
pub fn block(b: &Block, cond: &mut dyn FnMut(&Cond) -> Option<SpecCond>) -> Option<SpecBlock> {
    let when = match &b.when {
        Some(c) => Some(Box::new(cond(c)?)),
        None => None,
    };
    let limit = match &b.limit {
        None => None,
        Some(Limit::Fixed(n)) => Some(JsonT::Lit((*n).into())),
        Some(Limit::Param(p)) => {
            let t = tpl(p)?;
            Some(match t.single_var() {
                Some(v) => JsonT::Var(v.to_string()),
                None => JsonT::Tpl(t),
            })
        }
    };
    let title = lift(b.title.as_deref().map(tpl))?;
    let empty = lift(b.empty.as_deref().map(tpl))?;
    Some(if let Some(t) = &b.text {
        SpecBlock::Text { when, text: tpl(t)? }
    } else if let Some(fields) = &b.fields {
        SpecBlock::Fields {
            when,
            fields: fields
                .iter()
                .map(|(k, v)| field(k, v, cond))
                .collect::<Option<Vec<_>>>()?,
        }
    } else if let Some(list) = &b.list {
        SpecBlock::List {
            when,
            list: list.clone(),
            title,
            item: Box::new(value(b.item.as_ref()?, cond)?),
            total: b.total.clone(),
            limit,
            empty,
        }
    } else {
        SpecBlock::Table {
            when,
            table: b.table.clone()?,
            title,
            columns: b
                .columns
                .iter()
                .flatten()
                .map(|(k, v)| field(k, v, cond))
                .collect::<Option<Vec<_>>>()?,
            total: b.total.clone(),
            limit,
            empty,
        }
    })
}

/// `Some(x)` → `x` lowered; `None` stays `None`; a failure is `None` of the whole.
fn lift<T>(x: Option<Option<T>>) -> Option<Option<T>> {
    match x {
        None => Some(None),
        Some(None) => None,
        Some(Some(v)) => Some(Some(v)),
    }
}

fn field(label: &str, v: &Value_, cond: &mut dyn FnMut(&Cond) -> Option<SpecCond>) -> Option<SpecField> {
    Some(SpecField {
        label: label.to_string(),
        value: value(v, cond)?,
    })
}

fn value(v: &Value_, cond: &mut dyn FnMut(&Cond) -> Option<SpecCond>) -> Option<SpecValue> {
    let plain = SpecValue {
        tpl: None,
        map: None,
        to: Default::default(),
        otherwise: None,
        mark: None,
    };
    Some(match v {
        Value_::Template(t) => SpecValue {
            tpl: Some(tpl(t)?),
            ..plain
        },
        Value_::Rich(rich) => {
            let RichValue {
                value,
                map,
                to,
                otherwise,
                mark,
            } = &**rich;
            SpecValue {
                tpl: lift(value.as_deref().map(tpl))?,
                map: map.clone(),
                to: to
                    .iter()
                    .map(|(k, t)| tpl(t).map(|t| (k.clone(), t)))
                    .collect::<Option<_>>()?,
                otherwise: lift(otherwise.as_deref().map(tpl))?,
                mark: match mark {
                    Some(m) => Some(Box::new(SpecMark {
                        when: cond(&m.when)?,
                        text: m.text.clone(),
                    })),
                    None => None,
                },
            }
        }
    })
}

/// The tool's declared output schema, resolved (MCP `outputSchema`).
pub fn output_schema(cat: &Catalog, t: &crate::catalog::Tool) -> Option<serde_json::Value> {
    match t.output_schema.as_ref()? {
        Shape::Any(_) => None,
        Shape::Named(n) => cat.schemas.get(n).cloned(),
        Shape::Inline(v) => Some(v.clone()),
    }
}

#[cfg(test)]
/// The data checks of `crate::catalog::render`, through the whole lowering pass.
mod tests {
    use crate::error::Error;

    /// The diagnostic codes of a one-tool catalog whose tool ends with `tail` (YAML at the tool's
    /// indentation); empty when it is valid.
    fn codes(tail: &str) -> Vec<String> {
        let text = format!(
            r#"version: 1
product: {{name: demo, version: 1.0.0, description: Demo}}
cli: {{binary: demo}}
schemas:
  r:
    type: object
    properties:
      a: {{anyOf: [{{type: object, properties: {{x: {{type: integer}}}}}}, {{type: "null"}}]}}
      m: {{type: object, additionalProperties: {{type: object, properties: {{n: {{type: string}}}}}}}}
      list: {{type: array, items: {{type: object, properties: {{k: {{type: string}}}}}}}}
      s: {{type: string}}
toolsets: {{main: {{tools: [t]}}}}
tools:
  - name: t
    description: A tool
    params:
      q: {{type: string}}
      n: {{type: integer, default: 3}}
{tail}
"#
        );
        // The data checks run in the lowering pass, with every other check of a tool.
        let loaded = match crate::catalog::load_text("t.yaml", text.as_bytes()) {
            Ok(l) => l,
            Err(Error::Catalog { diagnostics, .. }) => {
                return diagnostics.iter().map(|d| d.code.to_string()).collect();
            }
            Err(e) => panic!("{e}"),
        };
        match crate::model::lower(loaded, "t.yaml", |_| Vec::new()) {
            Ok(_) => Vec::new(),
            Err(Error::Catalog { diagnostics, .. }) => diagnostics.iter().map(|d| d.code.to_string()).collect(),
            Err(e) => panic!("{e}"),
        }
    }

    const STEP: &str = "    steps:\n      - id: r\n        run: [get, --format, json]\n        json: r\n";

    #[test]
    fn paths_follow_any_of_additional_properties_and_untyped_results() {
        let ok = format!(
            "{STEP}    output:\n      - text: \"{{r.a.x}} {{r.m.anything.n}} {{r.list.0.k}} {{r.list|count}}\"\n"
        );
        assert_eq!(codes(&ok), Vec::<String>::new());
        let untyped = "    steps:\n      - id: u\n        run: [get]\n        json: true\n    output:\n      - text: \"{u.whatever.deep}\"\n";
        assert_eq!(codes(untyped), Vec::<String>::new());
        let bad = format!("{STEP}    output:\n      - text: \"{{r.m.anything.nope}}\"\n");
        assert_eq!(codes(&bad), ["unknown-field"]);
    }

    #[test]
    fn parameters_have_no_fields_and_strings_are_not_lists() {
        assert_eq!(
            codes(&format!("{STEP}    output:\n      - text: \"{{q.x}}\"\n")),
            ["unknown-field"]
        );
        let over_string = format!("{STEP}    output:\n      - list: r.s\n        item: \"{{item}}\"\n");
        assert_eq!(codes(&over_string), ["not-an-array"]);
    }

    #[test]
    fn misuses_of_json_limit_and_output_schema_are_reported() {
        assert_eq!(
            codes("    steps:\n      - run: [get]\n        json: true\n"),
            ["bad-json"]
        );
        assert_eq!(
            codes("    steps:\n      - run: [get]\n        limit: 3\n"),
            ["bad-step"]
        );
        let limit_of_string =
            format!("{STEP}    output:\n      - list: r.list\n        item: \"{{k}}\"\n        limit: \"{{q}}\"\n");
        assert_eq!(codes(&limit_of_string), ["bad-output"]);
        let limit_of_number =
            format!("{STEP}    output:\n      - list: r.list\n        item: \"{{k}}\"\n        limit: \"{{n}}\"\n");
        assert_eq!(codes(&limit_of_number), Vec::<String>::new());
        assert_eq!(codes(&format!("{STEP}    output_schema: nope\n")), ["unknown-schema"]);
        assert_eq!(
            codes(&format!("{STEP}    output_schema: {{type: array}}\n")),
            ["bad-output-schema"]
        );
        assert_eq!(
            codes(&format!("{STEP}    output:\n      - text: x\n        list: r.list\n")),
            ["bad-output"]
        );
    }

    #[test]
    fn a_parallel_step_cannot_branch_on_another_steps_data() {
        let par = "    parallel: true\n    steps:\n      - id: r\n        run: [get]\n        json: r\n      - run: [more]\n        when: {field: r.s, set: true}\n";
        assert_eq!(codes(par), ["bad-condition"]);
        let seq = par.replace("    parallel: true\n", "");
        assert_eq!(codes(&seq), Vec::<String>::new());
    }
}
