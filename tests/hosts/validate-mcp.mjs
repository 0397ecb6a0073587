#!/usr/bin/env node
// Usage: node validate-mcp.mjs <tools.json> [--schema <spec schema.json>] [--revision 2025-11-25|2026-07-28] [--hosts]
//
// Checks a tools/list result ({"tools": [...]}) that ixgen generated:
//   1. every tool against `#/$defs/Tool` of the MCP spec's JSON Schema;
//   2. each tool's inputSchema (and outputSchema, if any) compiled as a JSON
//      Schema 2020-12 document of its own: it must pass the 2020-12
//      meta-schema, and Ajv's strictSchema mode rejects unknown keywords
//      (a typo such as "requried" is silently ignored by every host) and
//      unknown formats;
//   3. the whole file against `#/$defs/ListToolsResult`;
//   4. no two tools share a name.
// With --hosts, also the stricter rules of the real hosts (see
// shared/HOSTS.md): names ^[a-z0-9_-]{1,64}$, no "$schema" in a schema, no
// top-level oneOf/anyOf/allOf in inputSchema, every type "array" has "items",
// descriptions at most 2048 characters.
//
// The spec schema defaults to <repo>/tests/spec/mcp/<revision>/schema.json
// (that is ../spec/... from this folder); --revision defaults to
// 2025-11-25. Note that ListToolsResult of 2026-07-28 requires cacheScope,
// resultType and ttlMs, which a 2025-11-25 result does not have.
//
// Prints one line per check (ok / FAIL) and a summary on stdout; exit 0 when
// everything passed, 1 on any failure, 2 on bad usage or unreadable input.
//
// Ajv options, and why: the spec schema compiles in full strict mode. Tool
// schemas use strictSchema (unknown keywords and formats are errors) but not
// strictTypes, strictTuples or strictRequired: those reject valid 2020-12
// that hosts accept, such as {"type": ["string", "null"]} or an "enum"
// without "type"; allowUnionTypes is on for the same reason.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const REVISIONS = ["2025-11-25", "2026-07-28"];

function usage(msg) {
  if (msg) console.error(`validate-mcp: ${msg}`);
  console.error(
    "usage: node validate-mcp.mjs <tools.json> [--schema <spec schema.json>] [--revision 2025-11-25|2026-07-28] [--hosts]",
  );
  process.exit(2);
}

const argv = process.argv.slice(2);
let file = null;
let schemaPath = null;
let revision = "2025-11-25";
let hosts = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--schema") schemaPath = argv[++i] ?? usage("--schema needs a path");
  else if (a === "--revision") revision = argv[++i] ?? usage("--revision needs a value");
  else if (a === "--hosts") hosts = true;
  else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else if (file === null) file = a;
  else usage(`unexpected argument ${a}`);
}
if (file === null) usage("missing <tools.json>");
if (!REVISIONS.includes(revision)) usage(`unknown revision ${revision} (known: ${REVISIONS.join(", ")})`);
schemaPath ??= resolve(here, "../spec/mcp", revision, "schema.json");

function readJson(path, what) {
  if (!existsSync(path)) {
    console.error(`validate-mcp: ${what} not found: ${path}`);
    process.exit(2);
  }
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    console.error(`validate-mcp: ${what} is not JSON: ${path}: ${err.message}`);
    process.exit(2);
  }
}

const spec = readJson(schemaPath, "spec schema");
const doc = readJson(file, "tools file");

const specAjv = new Ajv2020({ strict: true, allErrors: true });
addFormats(specAjv);
specAjv.addSchema(spec, "mcp-spec");
const validateTool = specAjv.getSchema("mcp-spec#/$defs/Tool");
const validateList = specAjv.getSchema("mcp-spec#/$defs/ListToolsResult");
if (!validateTool || !validateList) {
  console.error(`validate-mcp: ${schemaPath} has no $defs/Tool or $defs/ListToolsResult`);
  process.exit(2);
}

function errorsText(errors) {
  return (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params && Object.keys(e.params).length ? " " + JSON.stringify(e.params) : ""}`);
}

let failures = 0;
let checks = 0;
function report(ok, label, details = []) {
  checks++;
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${label}`);
  for (const d of details) console.log(`       ${d}`);
}

// A fresh Ajv per schema: each is its own document, and a "$id" in one must not clash with another.
function compileOwn(schema) {
  const ajv = new Ajv2020({
    strict: true,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
    logger: false,
  });
  addFormats(ajv);
  try {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return ["not a JSON object"];
    ajv.compile(schema);
    return [];
  } catch (err) {
    const more = ajv.errors ? errorsText(ajv.errors) : [];
    return [err.message, ...more];
  }
}

// Host rules (--hosts): walk every subschema.
function hostProblems(tool) {
  const out = [];
  if (typeof tool.name !== "string" || !/^[a-z0-9_-]{1,64}$/.test(tool.name)) out.push(`name ${JSON.stringify(tool.name)} is not ^[a-z0-9_-]{1,64}$`);
  if (typeof tool.description === "string" && tool.description.length > 2048)
    out.push(`description has ${tool.description.length} characters (Claude Code cuts at 2048)`);
  const input = tool.inputSchema;
  if (input && typeof input === "object") {
    for (const k of ["oneOf", "anyOf", "allOf"]) if (k in input) out.push(`inputSchema has top-level ${k} (the Anthropic API refuses the tool)`);
  }
  const walk = (s, path) => {
    if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${path}/${i}`));
    if (s === null || typeof s !== "object") return;
    if ("$schema" in s) out.push(`${path}: has "$schema" (Gemini rejects it)`);
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes("array") && !("items" in s) && !("prefixItems" in s)) out.push(`${path}: type "array" without "items"`);
    for (const [k, v] of Object.entries(s)) {
      if (["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].includes(k) && v && typeof v === "object") {
        for (const [name, sub] of Object.entries(v)) walk(sub, `${path}/${k}/${name}`);
      } else if (["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"].includes(k)) {
        walk(v, `${path}/${k}`);
      } else if (["anyOf", "oneOf", "allOf", "prefixItems"].includes(k)) {
        walk(v, `${path}/${k}`);
      }
    }
  };
  walk(tool.inputSchema, "inputSchema");
  if (tool.outputSchema !== undefined) walk(tool.outputSchema, "outputSchema");
  return out;
}

console.log(`validate-mcp: ${file} against MCP ${revision} (${schemaPath})${hosts ? " with host rules" : ""}`);

const tools = doc && typeof doc === "object" && Array.isArray(doc.tools) ? doc.tools : null;
if (tools === null) {
  report(false, "file is a tools/list result", ['needs a top-level "tools" array']);
} else {
  const seen = new Map();
  tools.forEach((tool, i) => {
    const label = `tools[${i}] ${tool && typeof tool.name === "string" ? tool.name : "(no name)"}`;
    report(validateTool(tool), `${label}: #/$defs/Tool`, errorsText(validateTool.errors));
    if (tool && typeof tool === "object") {
      if ("inputSchema" in tool) {
        const p = compileOwn(tool.inputSchema);
        report(p.length === 0, `${label}: inputSchema is a valid JSON Schema 2020-12 document`, p);
      }
      if ("outputSchema" in tool) {
        const p = compileOwn(tool.outputSchema);
        report(p.length === 0, `${label}: outputSchema is a valid JSON Schema 2020-12 document`, p);
      }
      if (hosts) {
        const p = hostProblems(tool);
        report(p.length === 0, `${label}: host rules`, p);
      }
      if (typeof tool.name === "string") {
        if (seen.has(tool.name)) report(false, `${label}: unique name`, [`same name as tools[${seen.get(tool.name)}]`]);
        else seen.set(tool.name, i);
      }
    }
  });
}
report(validateList(doc), "whole file: #/$defs/ListToolsResult", errorsText(validateList.errors));

console.log(`validate-mcp: ${tools ? tools.length : 0} tool(s), ${checks} check(s), ${failures} problem(s)`);
process.exit(failures === 0 ? 0 : 1);
