//! The `xs` store steps (`store_append`, `store_fold`, `store_update`): the TypeScript runtime's
//! `__ixgenExec` store branch, with its folding rules (docs/exec-spec.md) and its work-around for
//! an `xs append` that exits 0 without printing the new frame.

use crate::js;
use crate::proc;
use crate::run::{Out, fail_text, json_with, str_of};
use crate::spec::{JsonT, SpecExec};
use crate::template::Template;
use base64::Engine;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use sha2::Digest;
use std::path::Path;

struct Frame {
    id: String,
    hash: Option<Value>,
    meta: Option<Value>,
}

struct Item {
    id: String,
    hash: Option<String>,
    fields: Map<String, Value>,
    body: String,
}

/// Every frame of the store on `topic`, in the store's order (`xs cat`, one JSON frame a line).
fn frames(program: &str, store: &str, topic: &str, cwd: &Path) -> Result<Vec<Frame>, Box<Out>> {
    let r = proc::spawn(program, &["cat".into(), store.into()], cwd, None, None, None);
    if r.missing {
        return Err(Box::new(Out {
            missing: Some(program.into()),
            ..Out::default()
        }));
    }
    if r.why.is_some() {
        return Err(Box::new(Out {
            err: Some(fail_text(program, &["cat".into()], &r)),
            ..Out::default()
        }));
    }
    let mut out = Vec::new();
    for line in r.stdout.split('\n') {
        // A line that is not JSON, or is nested deeper than both runtimes read, is not a frame.
        let Ok(Value::Object(mut f)) = crate::js::parse_json(line) else {
            continue;
        };
        if f.get("topic").and_then(Value::as_str) == Some(topic)
            && let Some(Value::String(id)) = f.get("id").cloned()
        {
            out.push(Frame {
                id,
                hash: f.remove("hash"),
                meta: f.remove("meta"),
            });
        }
    }
    Ok(out)
}

fn fold(
    program: &str,
    store: &str,
    topic: &str,
    defaults: &IndexMap<String, Value>,
    updates: &IndexMap<String, IndexMap<String, Value>>,
    cwd: &Path,
) -> Result<Vec<Item>, Box<Out>> {
    let mut items: IndexMap<String, Item> = IndexMap::new();
    for f in frames(program, store, topic, cwd)? {
        let mut fields = match f.meta {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let action = fields.shift_remove("action");
        let id = fields.shift_remove("id");
        fields.shift_remove("iteration");
        match action {
            None | Some(Value::Null) => add(&mut items, f.id, f.hash, defaults, fields),
            Some(Value::String(a)) if a == "add" => add(&mut items, f.id, f.hash, defaults, fields),
            Some(Value::String(a)) => {
                if let (Some(extra), Some(Value::String(id))) = (updates.get(&a), id)
                    && let Some(hit) = items.values_mut().find(|it| it.id == id || it.id.starts_with(&id))
                {
                    hit.fields.extend(fields);
                    hit.fields.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
            Some(_) => {}
        }
    }
    Ok(items.into_values().collect())
}

fn add(
    items: &mut IndexMap<String, Item>,
    id: String,
    hash: Option<Value>,
    defaults: &IndexMap<String, Value>,
    fields: Map<String, Value>,
) {
    let mut all: Map<String, Value> = defaults.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    all.extend(fields);
    let hash = match hash {
        Some(Value::String(h)) => Some(h),
        _ => None,
    };
    // A re-added id keeps its first position, as a JavaScript Map's `set` does.
    items.insert(
        id.clone(),
        Item {
            id,
            hash,
            fields: all,
            body: String::new(),
        },
    );
}

fn bodies(program: &str, store: &str, items: &mut [&mut Item], cwd: &Path) {
    std::thread::scope(|s| {
        // At most eight `xs cas` at a time, as the TypeScript runtime's pool.
        for chunk in items.chunks_mut(8) {
            let handles: Vec<_> = chunk
                .iter_mut()
                .map(|it| {
                    s.spawn(move || {
                        it.body = match &it.hash {
                            Some(h) => {
                                proc::spawn(program, &["cas".into(), store.into(), h.clone()], cwd, None, None, None)
                                    .stdout
                            }
                            None => String::new(),
                        }
                    })
                })
                .collect();
            for h in handles {
                let _ = h.join();
            }
        }
    });
}

fn line(it: &Item) -> String {
    let first = js::trim(&it.body).split('\n').next().unwrap_or("").to_string();
    format!("- `{}` {}", it.id, if first.is_empty() { "_(empty)_" } else { &first })
}

fn matching(ids: &[String], want: &str) -> Vec<String> {
    let w = js::trim(want).to_lowercase();
    let exact: Vec<String> = ids.iter().filter(|i| i.to_lowercase() == w).cloned().collect();
    if !exact.is_empty() {
        return exact;
    }
    if js::len16(&w) >= 8 {
        ids.iter()
            .filter(|i| i.to_lowercase().starts_with(&w))
            .cloned()
            .collect()
    } else {
        vec![]
    }
}

/// JSON text with every object's keys sorted.
fn canon(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("[{}]", a.iter().map(canon).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            format!(
                "{{{}}}",
                keys.iter()
                    .map(|k| format!("{}:{}", js::quoted(k), canon(&m[*k])))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        }
        x => js::stringify(x),
    }
}

/// The milliseconds in a SCRU128 id (its top 48 of 128 bits).
fn scru_ms(id: &str) -> Option<u128> {
    if id.len() != 25 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let mut n: u128 = 0;
    for c in id.to_ascii_lowercase().chars() {
        n = n.checked_mul(36)?.checked_add(u128::from(c.to_digit(36)?))?;
    }
    Some(n >> 80)
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The ids of the frames an append that printed nothing may have added (see the module doc).
fn appended(
    program: &str,
    store: &str,
    topic: &str,
    meta: &Value,
    body: Option<&str>,
    since: u128,
    cwd: &Path,
) -> Vec<String> {
    let Ok(read) = frames(program, store, topic, cwd) else {
        return vec![];
    };
    let want = canon(meta);
    let hash = body.filter(|b| !b.is_empty()).map(|b| {
        format!(
            "sha256-{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(b.as_bytes()))
        )
    });
    read.into_iter()
        .filter(|f| {
            let h = match &f.hash {
                Some(Value::String(h)) => Some(h.clone()),
                _ => None,
            };
            h == hash
                && scru_ms(&f.id).is_some_and(|ms| ms >= since)
                && canon(f.meta.as_ref().unwrap_or(&Value::Null)) == want
        })
        .map(|f| f.id)
        .collect()
}

fn append(program: &str, store: &str, topic: &str, meta: &Value, body: Option<&str>, need_id: bool, cwd: &Path) -> Out {
    let args: Vec<String> = vec![
        "append".into(),
        store.into(),
        topic.into(),
        "--meta".into(),
        js::stringify(meta),
    ];
    let since = now_ms();
    let r = proc::spawn(program, &args, cwd, body, None, None);
    if r.missing {
        return Out {
            missing: Some(program.into()),
            ..Out::default()
        };
    }
    if r.why.is_some() {
        return Out {
            err: Some(fail_text(program, &args, &r)),
            ..Out::default()
        };
    }
    let mut id = js::trim(&r.stdout).to_string();
    if let Ok(Value::Object(f)) = serde_json::from_str::<Value>(&id)
        && let Some(x) = f.get("id")
    {
        id = js::string(x);
    }
    if id.is_empty() && need_id {
        let ids = appended(program, store, topic, meta, body, since, cwd);
        if ids.len() != 1 {
            let what = if ids.is_empty() {
                format!("no frame on `{topic}` matches")
            } else {
                format!("{} identical frames on `{topic}` match", ids.len())
            };
            return Out {
                err: Some(format!(
                    "**Error:** `{program} append` exited 0 without printing the new frame, and {what} what it appended, so its id is unknown. List the items before you add this one again."
                )),
                ..Out::default()
            };
        }
        id = ids[0].clone();
    }
    Out {
        ok: true,
        out: id.clone(),
        result: Some(Value::String(id)),
        ..Out::default()
    }
}

/// Runs a store step.
pub(crate) fn exec(
    x: &SpecExec,
    vars: &Map<String, Value>,
    render: &dyn Fn(&Template) -> String,
    tpl_set: &dyn Fn(&Template) -> bool,
    cwd: &Path,
) -> Result<Out, String> {
    let (program, store, topic) = match x {
        SpecExec::StoreAppend {
            program, store, topic, ..
        }
        | SpecExec::StoreFold {
            program, store, topic, ..
        }
        | SpecExec::StoreUpdate {
            program, store, topic, ..
        } => (program, render(store), render(topic)),
        _ => return Err("not a store step".into()),
    };
    let valid = topic
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && topic
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && !topic.contains("..")
        && !topic.ends_with('.')
        && js::len16(&topic) <= 255;
    if !valid {
        return Ok(Out {
            err: Some(format!("**Error:** `{topic}` is not a valid store topic.")),
            ..Out::default()
        });
    }
    let now = Value::from(now_ms() as u64);
    let meta_of = |j: &JsonT, extra: &[(&str, Value)]| json_with(j, vars, extra);
    match x {
        SpecExec::StoreAppend { meta, body, .. } => {
            let meta = meta_of(meta, &[("now_ms", now)]);
            let body = body.as_ref().map(render);
            Ok(append(program, &store, &topic, &meta, body.as_deref(), true, cwd))
        }
        SpecExec::StoreUpdate { id, meta, .. } => {
            let items = match fold(program, &store, &topic, &IndexMap::new(), &IndexMap::new(), cwd) {
                Ok(i) => i,
                Err(o) => return Ok(*o),
            };
            let want = js::trim(&render(id)).to_string();
            let ids = matching(&items.iter().map(|i| i.id.clone()).collect::<Vec<_>>(), &want);
            let mut hits: Vec<Item> = items.into_iter().filter(|it| ids.contains(&it.id)).collect();
            if hits.is_empty() {
                let hint = if js::len16(&want) < 8 {
                    " (give the full id or a prefix of at least 8 characters)"
                } else {
                    ""
                };
                return Ok(Out {
                    err: Some(format!(
                        "**Error:** no item with id `{want}` on `{topic}`{hint}. Nothing was changed."
                    )),
                    ..Out::default()
                });
            }
            if hits.len() > 1 {
                let mut refs: Vec<&mut Item> = hits.iter_mut().collect();
                bodies(program, &store, &mut refs, cwd);
                let list: Vec<String> = hits.iter().map(line).collect();
                return Ok(Out {
                    err: Some(format!(
                        "**Error:** `{want}` matches {} items; nothing was changed. Use the full id:\n\n{}",
                        hits.len(),
                        list.join("\n")
                    )),
                    ..Out::default()
                });
            }
            let full = hits[0].id.clone();
            let meta = meta_of(meta, &[("id", Value::String(full.clone())), ("now_ms", now)]);
            let r = append(program, &store, &topic, &meta, None, false, cwd);
            Ok(if r.ok {
                Out {
                    ok: true,
                    out: full.clone(),
                    result: Some(Value::String(full)),
                    ..Out::default()
                }
            } else {
                r
            })
        }
        SpecExec::StoreFold {
            group_by,
            groups,
            filter,
            defaults,
            updates,
            ..
        } => {
            let mut items = match fold(program, &store, &topic, defaults, updates, cwd) {
                Ok(i) => i,
                Err(o) => return Ok(*o),
            };
            if let Some(f) = filter
                && tpl_set(&f.equals)
            {
                let want = render(&f.equals);
                items.retain(|it| str_of(it.fields.get(&f.field)) == want);
            }
            let mut refs: Vec<&mut Item> = items.iter_mut().collect();
            bodies(program, &store, &mut refs, cwd);
            let mut md = items.iter().map(line).collect::<Vec<_>>().join("\n");
            if let Some(g) = group_by
                && !items.is_empty()
            {
                let key = |it: &Item| {
                    let k = str_of(it.fields.get(g));
                    if k.is_empty() { "none".to_string() } else { k }
                };
                let mut order: Vec<String> = Vec::new();
                for k in groups.iter().cloned().chain(items.iter().map(key)) {
                    if !order.contains(&k) {
                        order.push(k);
                    }
                }
                md = order
                    .iter()
                    .filter_map(|g| {
                        let l: Vec<&Item> = items.iter().filter(|it| key(it) == *g).collect();
                        (!l.is_empty()).then(|| {
                            format!(
                                "### {g} ({})\n\n{}",
                                l.len(),
                                l.iter().map(|it| line(it)).collect::<Vec<_>>().join("\n")
                            )
                        })
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            if md.is_empty() {
                md = "_No items._".into();
            }
            Ok(Out {
                ok: true,
                out: md.clone(),
                result: Some(Value::String(md)),
                ..Out::default()
            })
        }
        _ => Err("not a store step".into()),
    }
}
