//! Lowering of step data flow and `output` blocks (`crate::catalog::render`) into the
//! execution spec's [`SpecBlock`]s and field conditions. Part of the model stage: the catalog
//! is already validated, so nothing here reports errors.

use crate::catalog::render::{Block, Limit, RichValue, Shape, Value_};
use crate::catalog::{Catalog, Cond};
use crate::spec::{CmpOp, SpecBlock, SpecCond, SpecField, SpecMark, SpecValue};
use crate::template::{Part, Template};

fn tpl(text: &str) -> Template {
    Template::parse(text).unwrap_or_else(|_| Template(vec![Part::Text(text.to_string())]))
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
            than: crate::model::json_number(v),
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
pub fn recovery(cat: &Catalog, t: &crate::catalog::Tool) -> Option<Template> {
    let runs = t.steps.iter().any(|s| s.run.is_some() && s.program.is_none());
    cat.cli
        .as_ref()
        .and_then(|c| c.recovery.as_deref())
        .filter(|_| runs)
        .map(tpl)
}

/// One output block.
pub fn block(b: &Block) -> SpecBlock {
    let when = b.when.as_ref().map(crate::model::cond);
    let limit = b.limit.as_ref().map(|l| match l {
        Limit::Fixed(n) => crate::spec::JsonT::Lit((*n).into()),
        Limit::Param(p) => crate::model::json_t(&serde_json::Value::String(p.clone())),
    });
    let title = b.title.as_deref().map(tpl);
    let empty = b.empty.as_deref().map(tpl);
    if let Some(t) = &b.text {
        SpecBlock::Text { when, text: tpl(t) }
    } else if let Some(fields) = &b.fields {
        SpecBlock::Fields {
            when,
            fields: fields.iter().map(|(k, v)| field(k, v)).collect(),
        }
    } else if let Some(list) = &b.list {
        SpecBlock::List {
            when,
            list: list.clone(),
            title,
            item: Box::new(value(b.item.as_ref().expect("validated: a list has an item"))),
            total: b.total.clone(),
            limit,
            empty,
        }
    } else {
        SpecBlock::Table {
            when,
            table: b.table.clone().unwrap_or_default(),
            title,
            columns: b.columns.iter().flatten().map(|(k, v)| field(k, v)).collect(),
            total: b.total.clone(),
            limit,
            empty,
        }
    }
}

fn field(label: &str, v: &Value_) -> SpecField {
    SpecField {
        label: label.to_string(),
        value: value(v),
    }
}

fn value(v: &Value_) -> SpecValue {
    let plain = SpecValue {
        tpl: None,
        map: None,
        to: Default::default(),
        otherwise: None,
        mark: None,
    };
    match v {
        Value_::Template(t) => SpecValue {
            tpl: Some(tpl(t)),
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
                tpl: value.as_deref().map(tpl),
                map: map.clone(),
                to: to.iter().map(|(k, t)| (k.clone(), tpl(t))).collect(),
                otherwise: otherwise.as_deref().map(tpl),
                mark: mark.as_ref().map(|m| SpecMark {
                    when: crate::model::cond(&m.when),
                    text: m.text.clone(),
                }),
            }
        }
    }
}

/// The tool's declared output schema, resolved (MCP `outputSchema`).
pub fn output_schema(cat: &Catalog, t: &crate::catalog::Tool) -> Option<serde_json::Value> {
    match t.output_schema.as_ref()? {
        Shape::Any(_) => None,
        Shape::Named(n) => cat.schemas.get(n).cloned(),
        Shape::Inline(v) => Some(v.clone()),
    }
}
