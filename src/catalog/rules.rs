//! The check of a value against a parameter's type (`super::validate` and the lowering pass
//! call it), and the keys that do nothing. The constructs around a tool's steps
//! (confirmation, rules, exit codes, limits, redaction) are checked and lowered together in
//! `crate::model`'s lowering pass; their serde + schemars types are in `super::types`.

use super::types::{Param, ParamType};
use crate::diagnostic::Diagnostic;

/// Checks a literal value against a parameter's type, enum and bounds.
pub fn check_value(p: &Param, v: &serde_json::Value) -> Result<(), String> {
    check_typed(p.ty, p.values.as_deref(), Some(p), v)
}

/// [`check_value`] against a type and its enum values; `bounded` is the parameter whose bounds
/// and items apply (none for an array's items).
fn check_typed(
    ty: ParamType,
    values: Option<&[String]>,
    bounded: Option<&Param>,
    v: &serde_json::Value,
) -> Result<(), String> {
    use serde_json::Value as J;
    let within = |x: f64, what: &str| match bounded.map_or((None, None), |p| (p.min, p.max)) {
        (Some(min), _) if x < min => Err(format!("has {what} {x}, below `min` {min}")),
        (_, Some(max)) if x > max => Err(format!("has {what} {x}, above `max` {max}")),
        _ => Ok(()),
    };
    match (ty, v) {
        (ParamType::String | ParamType::Path, J::String(s)) => within(s.chars().count() as f64, "length"),
        (ParamType::Integer, J::Number(n)) if n.is_i64() || n.is_u64() => within(n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Number, J::Number(n)) => within(n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Boolean, J::Bool(_)) => Ok(()),
        (ParamType::Enum, J::String(s)) if values.unwrap_or_default().contains(s) => Ok(()),
        (ParamType::Enum, J::String(s)) => Err(format!(
            "`{s}` is not one of its values ({})",
            values.unwrap_or_default().join(", ")
        )),
        (ParamType::Array, J::Array(items)) => {
            within(items.len() as f64, "length")?;
            match bounded.and_then(|p| p.items.as_deref()) {
                Some(it) => (items.iter()).try_for_each(|x| check_typed(it.ty, it.values.as_deref(), None, x)),
                None => Ok(()),
            }
        }
        (ty, v) => Err(format!("is {}, not {}", json_kind(v), type_name(ty))),
    }
}

/// The catalog's name of a parameter type.
pub fn type_name(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "string",
        ParamType::Integer => "integer",
        ParamType::Number => "number",
        ParamType::Boolean => "boolean",
        ParamType::Enum => "enum",
        ParamType::Array => "array",
        ParamType::Path => "path",
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(n) if n.is_f64() => "a fractional number",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}

/// Keys that are written but do nothing (`validate --strict` fails on them): `if_empty: ""` (an
/// empty text is no text: the section is `_(no output)_`; an empty answer is the tool's
/// `answer: {empty: ""}`) and `default: null` (a missing default). A null default is taken out
/// here, so that everything after reads it as the missing default it is.
pub fn no_effect(cat: &mut super::Catalog) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (t, tool) in cat.tools.iter().enumerate() {
        for (s, step) in tool.steps.iter().enumerate() {
            if step.if_empty.as_deref() == Some("") {
                found.push(
                    Diagnostic::warning(
                        "no-effect",
                        format!("tools[{t}].steps[{s}].if_empty"),
                        "an empty `if_empty` has no effect: the section is still `_(no output)_`",
                    )
                    .at_key()
                    .help("remove it; for an empty answer write `answer: {empty: \"\"}` on the tool"),
                );
            }
        }
    }
    for (t, name, p) in every_param(cat) {
        if p.default.take_if(|d| d.is_null()).is_some() {
            let tool = t.map_or(String::new(), |t| format!("tools[{t}]."));
            let path = format!("{tool}params.{name}.default");
            found.push(
                Diagnostic::warning("no-effect", path, "`default: null` is no default")
                    .at_key()
                    .help("remove it: a parameter without `default` is unset when not given"),
            );
        }
    }
    found
}

/// A default read as its parameter's type ([`as_type`]), before anything checks or prints it, so
/// every host writes the same one.
pub fn whole_defaults(cat: &mut super::Catalog) {
    use serde_json::Value as J;
    for (_, _, p) in every_param(cat) {
        let items = p.items.as_ref().map(|i| i.ty);
        match (p.ty, items, p.default.as_deref_mut()) {
            (ParamType::Array, Some(ty), Some(J::Array(ds))) => ds.iter_mut().for_each(|d| as_type(ty, d)),
            (ty, _, Some(d)) => as_type(ty, d),
            _ => {}
        }
    }
}

/// A value written for a parameter of type `ty` (a default, a condition's `equals` or `in`),
/// read as that type:
/// - a whole number written with a fraction (`10.0`) for an integer is the integer it equals,
///   as JSON Schema reads it (`10.0` is an `integer` there);
/// - a number or boolean for an enum is its text, as the enum's own `values: [1, 2, 3]` are
///   (`1` is the value `"1"`).
pub fn as_type(ty: ParamType, v: &mut serde_json::Value) {
    let x = v.as_f64().unwrap_or_default();
    match ty {
        ParamType::Integer if v.is_f64() && x.fract() == 0.0 && x.abs() < 2f64.powi(53) => {
            *v = serde_json::Value::from(x as i64);
        }
        ParamType::Enum if v.is_number() || v.is_boolean() => *v = serde_json::Value::String(v.to_string()),
        _ => {}
    }
}

/// Every parameter of the catalog, shared and each tool's own, with the tool's index.
fn every_param(cat: &mut super::Catalog) -> impl Iterator<Item = (Option<usize>, &String, &mut Param)> {
    let shared = cat.params.iter_mut().map(|(name, p)| (None, name, p));
    let own = (cat.tools.iter_mut().enumerate())
        .flat_map(|(t, tool)| tool.params.iter_mut().map(move |(name, p)| (Some(t), name, p)));
    shared.chain(own)
}

#[cfg(test)]
mod tests {
    /// `default: 10.0` on an integer (or in an array of integers) is the integer 10 (JSON
    /// Schema's reading), and every host then writes `10`; `1.5` is still refused, and a number
    /// parameter keeps its `10.0`. An enum's `default: 1` is its value `"1"`.
    #[test]
    fn a_whole_fraction_is_an_integer_default() {
        let text = "version: 1\nproduct: {name: demo, version: 1.0.0, description: d}\ntoolsets: {main: {tools: [a]}}\n\
                    params: {s: {type: integer, default: -3.0}, l: {type: array, items: {type: integer}, default: [1.0, 2]}}\n\
                    tools:\n  - {name: a, description: d, steps: [{run: [a]}], use_params: [s], \
                    params: {i: {type: integer, default: 10.0}, f: {type: integer, default: 1.5}, n: {type: number, default: 10.0}, \
                    e: {type: enum, values: [1, 2], default: 1}, b: {type: array, items: {type: enum, values: [true]}, default: [true]}}}\n";
        let mut cat = crate::catalog::load_text("w.yaml", text.as_bytes()).unwrap().catalog;
        super::whole_defaults(&mut cat);
        let default = |p: &super::Param| serde_json::to_string(p.default.as_deref().unwrap()).unwrap();
        let own = &cat.tools[0].params;
        assert_eq!(default(&cat.params["s"]), "-3");
        assert_eq!(default(&cat.params["l"]), "[1,2]");
        assert_eq!(default(&own["i"]), "10");
        assert_eq!(default(&own["n"]), "10.0");
        let f = &own["f"];
        assert_eq!(default(&own["e"]), r#""1""#);
        assert_eq!(default(&own["b"]), r#"["true"]"#);
        assert_eq!(default(f), "1.5");
        let err = super::check_value(f, f.default.as_deref().unwrap()).unwrap_err();
        assert_eq!(err, "is a fractional number, not integer");
    }
}
