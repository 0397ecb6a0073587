#!/usr/bin/env node
// Usage: node validate-json.mjs <schema.json> <doc.json>
//
// Validates one JSON document against one JSON Schema, with the Ajv class
// that matches the schema's "$schema": draft 2020-12 (also when "$schema" is
// absent; schemars 1.x emits 2020-12), 2019-09, or draft-07/06. Used to check
// ixgen's catalogs against ixgen's own generated schema
// (generated/schema/catalog.schema.json). YAML is not read: convert to JSON first.
//
// The schema is compiled with Ajv's strictSchema (unknown keywords are
// errors) and ajv-formats, plus the numeric formats schemars emits (int8..int64,
// uint8..uint64, uint, int, float, double), so a typo in the schema is caught
// too. strictTypes/strictTuples/strictRequired are off: schemars output such
// as {"type": ["string", "null"]} is valid 2020-12 that they would refuse.
//
// Prints "ok" or each error (instance path, message, schema path) on stdout;
// exit 0 valid, 1 invalid, 2 bad usage or a schema that does not compile.
import { existsSync, readFileSync } from "node:fs";
import Ajv from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

function usage(msg) {
  if (msg) console.error(`validate-json: ${msg}`);
  console.error("usage: node validate-json.mjs <schema.json> <doc.json>");
  process.exit(2);
}

const [schemaPath, docPath, ...rest] = process.argv.slice(2);
if (!schemaPath || !docPath || rest.length) usage();

function readJson(path, what) {
  if (!existsSync(path)) usage(`${what} not found: ${path}`);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    usage(`${what} is not JSON: ${path}: ${err.message}`);
  }
}
const schema = readJson(schemaPath, "schema");
const doc = readJson(docPath, "document");

const dialect = typeof schema === "object" && schema !== null ? schema.$schema : undefined;
let AjvClass;
if (dialect === undefined || /json-schema\.org\/draft\/2020-12\/schema#?$/.test(dialect)) AjvClass = Ajv2020;
else if (/json-schema\.org\/draft\/2019-09\/schema#?$/.test(dialect)) AjvClass = Ajv2019;
else if (/json-schema\.org\/draft-0[67]\/schema#?$/.test(dialect)) AjvClass = Ajv;
else usage(`unsupported "$schema": ${dialect} (supported: 2020-12, 2019-09, draft-07, draft-06)`);

const ajv = new AjvClass({
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
if (/draft-06/.test(dialect ?? "")) {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json"));
}
addFormats(ajv);
// `example` is an OpenAPI annotation the MCP Registry's server.schema.json uses throughout; it
// constrains nothing, so it is known here rather than relaxing strict mode for every schema.
ajv.addKeyword({ keyword: "example", schemaType: ["string", "number", "boolean", "object", "array", "null"] });
// The numeric formats schemars puts on integer and number fields.
const int = (bits, signed) => {
  const max = signed ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
  const min = signed ? -(2n ** BigInt(bits - 1)) : 0n;
  return { type: "number", validate: (x) => Number.isInteger(x) && BigInt(x) >= min && BigInt(x) <= max };
};
for (const bits of [8, 16, 32, 64]) {
  ajv.addFormat(`uint${bits}`, int(bits, false));
  if (bits < 32) ajv.addFormat(`int${bits}`, int(bits, true)); // int32/int64 come from ajv-formats
}
ajv.addFormat("uint", { type: "number", validate: (x) => Number.isInteger(x) && x >= 0 });
ajv.addFormat("int", { type: "number", validate: (x) => Number.isInteger(x) });

let validate;
try {
  validate = ajv.compile(schema);
} catch (err) {
  console.error(`validate-json: the schema does not compile: ${schemaPath}: ${err.message}`);
  process.exit(2);
}

if (validate(doc)) {
  console.log(`ok: ${docPath} is valid against ${schemaPath}`);
  process.exit(0);
}
console.log(`FAIL: ${docPath} is not valid against ${schemaPath}:`);
for (const e of validate.errors) {
  const params = e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : "";
  console.log(`  ${e.instancePath || "/"} ${e.message}${params} (${e.schemaPath})`);
}
process.exit(1);
