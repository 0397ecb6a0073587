// Test harness: loads the runtime file ixgen generates, gives the specs of generated tool files, and fake programs for PATH.
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const ROOT = join(import.meta.dir, "..", "..")
export type RunTool = (spec: unknown, context: Record<string, unknown>, args: unknown, ctx?: unknown, shared?: unknown) => Promise<string>
export type RunToolAnswer = (spec: unknown, context: Record<string, unknown>, args: unknown, ctx?: unknown, shared?: unknown) => Promise<{ text: string; isError: boolean }>

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `ixgen-${tag}-`))
}

// The runtime under test is the one ixgen emits: the committed output of the ix catalog (kept current by
// tests/generated.rs), with its generated spec types.
const RUNTIME_DIR = join(ROOT, "generated", ".opencode", "ixgen")
const runtimes = readdirSync(RUNTIME_DIR).filter((f) => /^runtime-[0-9a-f]+\.ts$/.test(f))
if (runtimes.length !== 1) throw new Error(`expected one runtime file in ${RUNTIME_DIR}, found ${runtimes.join(", ") || "none"}`)
export const RUNTIME_PATH = join(RUNTIME_DIR, runtimes[0] as string)
// The ix catalog's shared settings (url, program, fallback), which its generated specs leave out: a test that runs
// a generated spec passes them, as the tool file does.
const shareds = readdirSync(RUNTIME_DIR).filter((f) => /^shared-[0-9a-f]+\.ts$/.test(f))
if (shareds.length !== 1) throw new Error(`expected one shared settings file in ${RUNTIME_DIR}, found ${shareds.join(", ") || "none"}`)
export const SHARED: unknown = ((await import(join(RUNTIME_DIR, shareds[0] as string))) as { SHARED: unknown }).SHARED

// The ix catalog has no compute steps, so its output has no CEL evaluator beside the runtime: the tests load a
// copy of the runtime file with the vendored evaluator (templates/opencode/cel.js) under the name it imports.
function runtimeWithCel(): string {
  const text = readFileSync(RUNTIME_PATH, "utf8")
  const name = /^const __IXGEN_CEL_MODULE = "\.\/(cel-[0-9a-f]+\.js)"$/m.exec(text)?.[1]
  if (!name) throw new Error(`no __IXGEN_CEL_MODULE in ${RUNTIME_PATH}`)
  const dir = tempDir("runtime")
  writeFileSync(join(dir, runtimes[0] as string), text)
  writeFileSync(join(dir, name), readFileSync(join(ROOT, "templates", "opencode", "cel.js")))
  return join(dir, runtimes[0] as string)
}

export async function loadRuntime(): Promise<{ runTool: RunTool; runToolAnswer: RunToolAnswer; redact: (s: string) => string }> {
  const mod = (await import(runtimeWithCel())) as { runTool: RunTool; runToolAnswer: RunToolAnswer; __ixgenRedact: (s: string) => string }
  return { runTool: mod.runTool, runToolAnswer: mod.runToolAnswer, redact: mod.__ixgenRedact }
}

// The ixgen binary under test (cargo passes it; a plain `bun test` uses the debug build).
export const IXGEN_BIN = process.env.IXGEN_BIN ?? join(ROOT, "target", "debug", "ixgen")

export function ixgen(args: string[]): string {
  const r = spawnSync(IXGEN_BIN, args, { encoding: "utf8" })
  if (r.status !== 0) throw new Error(`ixgen ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout}`)
  return r.stdout
}

// The specs a generated tool file carries, by tool id: `const SPEC_<id>: ExecSpec = {…}` is JSON after the `=`.
export function specsOf(file: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const m of readFileSync(file, "utf8").matchAll(/^const SPEC_([a-z0-9_]+): ExecSpec = (\{[\s\S]*?\n\})$/gm))
    out[m[1] as string] = JSON.parse(m[2] as string)
  return out
}

// A product tool's spec from the committed output of the ix catalog.
export function generatedSpec(id: string): Record<string, unknown> {
  const spec = specsOf(join(ROOT, "generated", ".opencode", "tools", `${id}.ts`))[id]
  if (!spec) throw new Error(`no SPEC_${id} in generated/.opencode/tools/${id}.ts`)
  return spec
}

// The ix catalog's session tools, generated now (session files are per run, never committed).
export function sessionSpecs(): Record<string, Record<string, unknown>> {
  const out = tempDir("session")
  ixgen(["--out", out, "opencode", "--session", "demo", "--iteration", "3", "--store", join(out, "store"), "--pid", "4242"])
  // (The store and pid given here are overridden per call by the tests' own context.)
  // The session file goes where the ralph loop keeps its own tools file (.opencode/tool/ralph.ts).
  const dir = join(out, ".opencode", "tool")
  const file = existsSync(dir) ? readdirSync(dir).find((f) => f.startsWith("ralph")) : undefined
  if (!file) throw new Error(`no session file in ${dir}`)
  return specsOf(join(dir, file))
}

// Writes an executable script run by this same Bun binary.
export function fakeProgram(dir: string, name: string, js: string): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, name)
  writeFileSync(path, `#!${process.execPath}\n${js}\n`)
  chmodSync(path, 0o755)
  return path
}

// Fake `ix`: logs its argv as one JSON line, then behaves according to its first argument.
export const FAKE_IX = `
const fs = require("node:fs")
const args = process.argv.slice(2)
if (process.env.IX_ARGV_LOG) fs.appendFileSync(process.env.IX_ARGV_LOG, JSON.stringify(args) + "\\n")
const cmd = args[0]
if (cmd === "fail") { process.stderr.write("line one\\nboom: token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked\\n"); process.exit(3) }
if (cmd === "sleep") await Bun.sleep(Number(args[1]))
if (cmd === "stdin") { process.stdout.write("got:" + (await Bun.stdin.text())); process.exit(0) }
if (cmd === "impact") { console.log(process.env.IX_IMPACT ?? "risk: low"); process.exit(0) }
if (cmd === "status") { if (process.env.IX_STATUS_FAIL) { console.error("unknown command status"); process.exit(2) } console.log("connected"); process.exit(0) }
// In JSON mode, one result that names the call, in the shapes of callers/callees (results) and depends (tree).
const said = { name: "ix " + args.join(" "), kind: "fake", rel: "calls", path: "p" }
if (args.includes("json")) { console.log(JSON.stringify({ resolvedTarget: { name: args[1] }, results: [said], tree: [said] })); process.exit(0) }
console.log("ix " + args.join(" "))
`

// Fake \`xs\` 0.13.4: append/cat/cas on a JSONL file inside the store directory. Ids imitate SCRU128: frames made
// in one run share their first 12 characters, so short prefixes are ambiguous as with the real store; the 13th
// character is a counter, so a 13-character prefix is unique.
export const FAKE_XS = `
const fs = require("node:fs"), path = require("node:path"), crypto = require("node:crypto")
if (fs.fstatSync(1).isFile()) { console.error("Operation not permitted (os error 1)"); process.exit(1) }
const [cmd, store, ...rest] = process.argv.slice(2)
const frames = path.join(store, "frames.jsonl")
if (!fs.existsSync(store)) { console.error("store not found"); process.exit(1) }
if (cmd === "append") {
  const [topic, flag, meta] = rest
  const body = process.stdin.isTTY ? "" : await Bun.stdin.text()
  let hash = null
  if (body) { hash = "sha256-" + crypto.createHash("sha256").update(body).digest("base64"); fs.mkdirSync(path.join(store, "cas"), { recursive: true }); fs.writeFileSync(path.join(store, "cas", Buffer.from(hash).toString("hex")), body) }
  const n = fs.existsSync(frames) ? fs.readFileSync(frames, "utf8").split("\\n").filter(Boolean).length : 0
  const frame = { topic, id: "03fk8mzq7x2a" + n.toString(36) + crypto.randomBytes(8).toString("hex").slice(0, 12), hash, meta: flag === "--meta" ? JSON.parse(meta) : null, ttl: "forever" }
  fs.appendFileSync(frames, JSON.stringify(frame) + "\\n")
  console.log(JSON.stringify(frame))
} else if (cmd === "cat") {
  if (fs.existsSync(frames)) process.stdout.write(fs.readFileSync(frames, "utf8"))
} else if (cmd === "cas") {
  process.stdout.write(fs.readFileSync(path.join(store, "cas", Buffer.from(rest[0]).toString("hex")), "utf8"))
} else { console.error("unknown command"); process.exit(2) }
`

// Where the pinned hosts live: tests/hosts/node_modules by default, IXGEN_HOST_MODULES to override.
export const HOST_MODULES = process.env.IXGEN_HOST_MODULES ?? join(ROOT, "tests", "hosts", "node_modules")

// Bun.spawn returns before the child has exec'd its program: until then /proc/<pid>/comm still says `bun`, and a
// test of "signal only a process named X" would see the wrong name. Waits (5 s at most) until the process has the
// name `name`; where there is no /proc it returns at once (the runtime then asks `ps`, which sees the same race
// less often).
export function waitForName(pid: number, name: string): void {
  const comm = `/proc/${pid}/comm`
  if (!existsSync("/proc/self/comm")) return
  for (let i = 0; i < 500; i++) {
    try { if (readFileSync(comm, "utf8").trim() === name.slice(0, 15)) return } catch { /* not there yet, or gone */ }
    Bun.sleepSync(10)
  }
  throw new Error(`process ${pid} did not become \`${name}\` within 5 s`)
}
