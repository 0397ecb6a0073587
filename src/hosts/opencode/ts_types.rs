//! TypeScript types generated from the execution spec's JSON Schema (`crate::spec::schema`).
//!
//! The runtime file starts with these types and its interpreter is written against them, so
//! the TypeScript compiler proves that the interpreter reads what ixgen emits: rename or
//! retype a field in `src/spec.rs` and the type check of the runtime fails. Only the subset of
//! JSON Schema that schemars produces for the spec types is understood; anything else is an
//! internal error caught by the unit test below, never silently `unknown`.

use crate::escape::{Ident, ts_json, ts_str};
use serde_json::Value;

/// `export type …` declarations for the schema's root and every definition, in a fixed order.
pub fn declarations(schema: &Value) -> Result<String, String> {
    let title = schema.get("title").and_then(Value::as_str);
    let root = (title.ok_or("the spec schema has no title")?, schema);
    let defs = schema.get("$defs").and_then(Value::as_object).into_iter().flatten();
    let mut out = String::new();
    for (name, def) in std::iter::once(root).chain(defs.map(|(n, d)| (n.as_str(), d))) {
        out.push_str(&format!("export type {name} = {}\n", ty(def)?));
    }
    Ok(out)
}

/// The TypeScript type of one schema node.
fn ty(s: &Value) -> Result<String, String> {
    if s == &Value::Bool(true) {
        return Ok("unknown".into());
    }
    let obj = s.as_object().ok_or_else(|| format!("unsupported schema node {s}"))?;
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        return r
            .strip_prefix("#/$defs/")
            .map(str::to_string)
            .ok_or_else(|| format!("unsupported $ref {r}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = obj.get(key).and_then(Value::as_array) {
            return list.iter().map(ty).collect::<Result<_, _>>().map(union);
        }
    }
    if let Some(c) = obj.get("const") {
        return Ok(ts_json(c).to_string());
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        return Ok(union(values.iter().map(|v| ts_json(v).to_string()).collect()));
    }
    match obj.get("type") {
        Some(Value::Array(types)) => {
            // `type: [x, "null"]`: the same node once per type.
            let one = |t: &Value| {
                let mut one = obj.clone();
                one.insert("type".into(), t.clone());
                ty(&Value::Object(one))
            };
            types.iter().map(one).collect::<Result<_, _>>().map(union)
        }
        Some(Value::String(t)) => match t.as_str() {
            "string" | "boolean" | "null" => Ok(t.clone()),
            "integer" | "number" => Ok("number".into()),
            "array" => {
                let items = obj.get("items").ok_or("an array schema without items")?;
                Ok(format!("readonly ({})[]", ty(items)?))
            }
            "object" => object(obj),
            other => Err(format!("unsupported type {other}")),
        },
        _ => Err(format!("unsupported schema node {s}")),
    }
}

fn object(obj: &serde_json::Map<String, Value>) -> Result<String, String> {
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields = Vec::new();
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, schema) in props {
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            fields.push(format!("readonly {}{optional}: {}", key(name), ty(schema)?));
        }
    }
    match obj.get("additionalProperties") {
        Some(Value::Bool(false)) | None => {}
        Some(Value::Bool(true)) => fields.push("readonly [key: string]: unknown".into()),
        Some(schema) => fields.push(format!("readonly [key: string]: {}", ty(schema)?)),
    }
    Ok(format!("{{ {} }}", fields.join("; ")))
}

fn union(members: Vec<String>) -> String {
    let mut seen: indexmap::IndexSet<String> = members.into_iter().collect();
    if seen.len() == 1 {
        seen.pop().expect("one member")
    } else {
        seen.iter().map(|m| format!("({m})")).collect::<Vec<_>>().join(" | ")
    }
}

/// A property name: bare when it is an identifier, quoted otherwise.
fn key(name: &str) -> String {
    Ident::export_name(name).map_or_else(|| ts_str(name).to_string(), |ident| ident.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_of_the_spec_schema_has_a_type() {
        let decls = declarations(&crate::spec::schema()).unwrap();
        assert!(
            decls.contains("export type ExecSpec = { readonly version: number;"),
            "{decls}"
        );
        assert!(decls.contains("readonly kind: \"cli\""), "{decls}");
        assert!(decls.contains("export type Template = readonly (Part)[]"), "{decls}");
        assert!(!decls.contains("unsupported"));
    }

    #[test]
    fn optional_fields_and_unions() {
        let s = serde_json::json!({
            "title": "X", "type": "object",
            "properties": {"a": {"type": ["string", "null"]}, "in": {"enum": ["p", "q"]}, "b-c": true},
            "required": ["in"]
        });
        assert_eq!(
            declarations(&s).unwrap(),
            "export type X = { readonly a?: (string) | (null); readonly in: (\"p\") | (\"q\"); readonly \"b-c\"?: unknown }\n"
        );
    }
}
