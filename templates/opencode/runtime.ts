// The interpreter of tool specs (docs/exec-spec.md): every generated tool file imports runTool from here.
import { dirname as __ixgenDirname, isAbsolute as __ixgenIsAbs, join as __ixgenJoin, relative as __ixgenRel, resolve as __ixgenResolvePath, sep as __ixgenSep } from "node:path"
import { mkdtemp as __ixgenMkdtemp, rm as __ixgenRm, stat as __ixgenStat, writeFile as __ixgenWriteFile } from "node:fs/promises"
import { lstatSync as __ixgenLstat, realpathSync as __ixgenRealpath } from "node:fs"
import { tmpdir as __ixgenTmpdir } from "node:os"
import { createHash as __ixgenHash } from "node:crypto"

// The spec's types (ExecSpec, SpecParam, …) are generated from the Rust types and precede this text in the
// runtime file; these aliases keep the interpreter's own names short.
type __IxTpl = Template
type __IxJsonT = JsonT
// What argument coercion needs of a parameter or of an array's items.
interface __IxType {
  readonly type: SpecType; readonly values?: readonly string[] | null; readonly items?: SpecItems | null
  readonly pattern?: string | null; readonly min?: number | null; readonly max?: number | null; readonly clamp?: boolean | null
}
type __IxParam = SpecParam
type __IxCond = SpecCond
type __IxStore = { readonly program: string; readonly store: Template; readonly topic: Template }
// A spec as the interpreter reads it: what it left out filled in from the catalog's shared settings (__ixgenWithShared).
type __IxRuntime = SpecRuntime & { readonly url_env: string; readonly default_url: string; readonly timeout_ms: number }
type __IxExec = Exclude<SpecExec, { kind: "cli" }> | (Extract<SpecExec, { kind: "cli" }> & { readonly program: string })
type __IxStep = Omit<SpecStep, "exec"> & { readonly exec: __IxExec }
type __IxSpec = Omit<ExecSpec, "runtime" | "steps"> & { readonly runtime?: __IxRuntime | null; readonly steps: readonly __IxStep[] }
// Structural subset of OpenCode's ToolContext, so the runtime needs no type import.
interface __IxCtx {
  readonly worktree?: string; readonly directory?: string; readonly abort?: AbortSignal
  // OpenCode's permission request: resolves when the rules allow it or the user approves, rejects otherwise.
  readonly ask?: (input: { permission: string; patterns: string[]; always: string[]; metadata: Record<string, unknown> }) => unknown
}
type __IxVars = Record<string, unknown>
// `stream`: an accepted run's output as printed (what `parse` reads); `process`: the run as data (`capture`).
// `label`: how an error names the run: the program that ran (the step's own, or a `when_missing` alternative) and its
// first literal argument.
type __IxOut = { missing?: string; ok: boolean; out: string; result?: unknown; err?: string; stream?: string; process?: __IxProcData; label?: string }
type __IxProcData = { exit_code: number | null; stdout: string; stderr: string; duration_ms: number }
type __IxProc = { missing?: boolean; code: number | null; stdout: string; stderr: string; why?: string }

// Secret shapes, anchored on real token formats and minimum lengths so ordinary words ("task-", "risk-") survive.
// A rule's `starts`, when it has them: the only places in the text where it can match (the expression is tried there
// alone, sticky), so that no text makes it try every position of a long run (redact.rs has the proof).
type __IxSecretRule = [RegExp, (m: string, ...g: string[]) => string, ((s: string) => number[])?]
const __ixgenSecrets: __IxSecretRule[] = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, () => "[REDACTED]"],
  [/\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/gi, (m, p, t) => (/\d/.test(t) || /[A-Z]/.test(t.slice(1)) && /[a-z]/.test(t) ? `${p}[REDACTED]` : m)],
  [/(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,})/g, () => "[REDACTED]"],
  // The digit is asked of the whole run in the replacement, not in a lookahead that reads the run again from each `sk-`.
  [/(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}/g, (m) => (/\d/.test(m) ? "[REDACTED]" : m)],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}|(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}/g, () => "[REDACTED]"],
  // name=value assignments: keep the name. Unquoted "name: value" and "name = value" look like code, so only
  // passwords are redacted in that form; key/token/secret values must also be 8+ characters long.
  [/\b((?:[A-Za-z0-9]+[_-])+(?:key|token|secret|password|passwd)|apikey|token|secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'`,;&<>()[\]{}]+)/gi,
    (m, name, sepr, value) => {
      const pw = /pass/i.test(name)
      const codeLike = /^\s*[:=]\s*$/.test(sepr) && sepr !== "="
      return (pw || (value.length >= 8 && !codeLike)) ? `${name}${sepr}[REDACTED]` : m
    }, __ixgenAssignments],
]
// Where the name=value rule can start: in each run of [A-Za-z0-9_-] that holds a needle, the leftmost start (the
// run's start or after a `-`) from which the rest of the run is `(?:[a-z0-9]+[_-])+` and a needle (a letter or digit
// after the run's last doubled joint before the needle), else a bare word at the run's end.
function __ixgenAssignments(s: string): number[] {
  const lower = s.replace(/[A-Z]/g, (c) => c.toLowerCase())
  const hits: number[] = []
  for (const n of ["key", "token", "secret", "passw"]) for (let i = lower.indexOf(n); i !== -1; i = lower.indexOf(n, i + 1)) hits.push(i)
  hits.sort((a, b) => a - b)
  const code = (i: number) => lower.charCodeAt(i), alnum = (i: number) => (code(i) >= 97 && code(i) <= 122) || (code(i) >= 48 && code(i) <= 57)
  const joint = (i: number) => code(i) === 95 || code(i) === 45, name = (i: number) => alnum(i) || joint(i)
  const out: number[] = []
  let end = 0
  for (const i of hits) {
    if (i < end) continue
    let start = i
    while (start > 0 && name(start - 1)) start--
    end = i
    while (end < lower.length && name(end)) end++
    const run = lower.slice(start, end), first = start
    const isStart = (p: number) => p === first || code(p - 1) === 45
    const n = ["key", "token", "secret", "password", "passwd"].find((w) => run.endsWith(w))
    let at: number | undefined
    if (n !== undefined && end - n.length >= start + 2 && joint(end - n.length - 1)) {
      const q = end - n.length
      let after = start
      for (let k = q - 2; k >= start; k--) if (joint(k) && joint(k + 1)) { after = k + 2; break }
      for (let p = after; p < q - 1 && at === undefined; p++) if (isStart(p) && alnum(p)) at = p
    }
    const w = ["apikey", "token", "secret", "password", "passwd"].find((w) => run.endsWith(w))
    if (at === undefined && w !== undefined && isStart(end - w.length)) at = end - w.length
    if (at !== undefined) out.push(at)
  }
  return out
}
// `s.replace(re, f)` with the expression tried at `starts` only (in order; a start inside a match is passed over).
function __ixgenReplaceAt(s: string, re: RegExp, f: (m: string, ...g: string[]) => string, starts: number[]): string {
  const sticky = new RegExp(re.source, re.flags.replace("g", "") + "y")
  let out = "", last = 0
  for (const p of starts) {
    if (p < last) continue
    sticky.lastIndex = p
    const m = sticky.exec(s)
    if (!m) continue
    out += s.slice(last, p) + f(m[0], ...(m.slice(1) as string[]))
    last = p + m[0].length
  }
  return out + s.slice(last)
}
export function __ixgenRedact(s: string): string {
  return __ixgenSecrets.reduce((acc, [re, f, starts]) => (starts ? __ixgenReplaceAt(acc, re, f, starts(acc)) : acc.replace(re, f)), s)
}
function __ixgenRedactDeep(v: unknown): unknown {
  if (typeof v === "string") return __ixgenRedact(v)
  if (Array.isArray(v)) return v.map(__ixgenRedactDeep)
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, __ixgenRedactDeep(x)]))
  return v
}

// A variable, or a path into a step's JSON result: `locate.resolvedTarget.name`, `items.0`.
function __ixgenGet(vars: __IxVars, k: string): unknown {
  let v: unknown = vars
  const segs = k.includes(".") ? k.split(".") : [k]
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as string
    // A field of an array of objects is the array of that field: `impacts.riskLevel` (missing ones are null).
    if (Array.isArray(v) && !/^\d+$/.test(seg)) return v.map((x) => __ixgenGet({ x }, ["x", ...segs.slice(i)].join(".")) ?? null)
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, seg)) return undefined
    v = (v as Record<string, unknown>)[seg]
  }
  return v
}
const __ixgenIsSet = (v: unknown): boolean => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0)
const __ixgenMsg = (e: unknown): string => (e instanceof Error ? e.message : String(e))
function __ixgenStr(v: unknown): string {
  if (v === undefined || v === null) return ""
  if (Array.isArray(v)) return v.map(__ixgenStr).join(", ")
  return typeof v === "object" ? JSON.stringify(v) : String(v)
}
// `md`: the text becomes markdown output, so each value is escaped (`__ixgenMdEsc`); argv and headings are not.
function __ixgenRender(t: __IxTpl | null | undefined, vars: __IxVars, md = false): string {
  return (t ?? []).map((p) => (typeof p === "string" ? p : __ixgenFmt(__ixgenGet(vars, p.var), p.fmt ?? null, md))).join("")
}
const __ixgenTplSet = (t: __IxTpl, vars: __IxVars): boolean => t.every((p) => typeof p === "string" || __ixgenIsSet(__ixgenGet(vars, p.var)) || __ixgenKeptEmpty(vars, p.var))
function __ixgenJson(j: __IxJsonT, vars: __IxVars): unknown {
  if ("lit" in j) return j.lit
  if ("var" in j) return __ixgenGet(vars, j.var) ?? null
  if ("tpl" in j) return __ixgenRender(j.tpl, vars)
  if ("arr" in j) return j.arr.map((x) => __ixgenJson(x, vars))
  const o: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(j.obj)) if (!("var" in x) || __ixgenIsSet(__ixgenGet(vars, x.var))) o[k] = __ixgenJson(x, vars)
  return o
}
// A code fence longer than any backtick run inside, so stderr cannot close it early.
function __ixgenFence(body: string): string {
  const n = Math.max(2, ...(body.match(/`+/g) ?? []).map((r) => r.length)) + 1
  return "`".repeat(n) + "\n" + body + "\n" + "`".repeat(n)
}
function __ixgenTail(s: string): string {
  const t = s.trim().split("\n").slice(-20).join("\n")
  return t.length > 2000 ? "…" + t.slice(-2000) : t
}

// Every regular expression of a spec is read in Unicode mode (`u`), as the Rust runtime reads it: `.` and `{n}` count
// code points, not UTF-16 units (half an emoji). ixgen's validation accepts only patterns valid with `u`.
function __ixgenRegExp(pattern: string, flags: string | null | undefined): RegExp {
  const f = (flags ?? "").replace(/[gy]/g, "")
  return new RegExp(pattern, f.includes("u") ? f : f + "u")
}

// The deepest nesting of arrays and objects read from a program's or a route's JSON, as the Rust runtime's
// MAX_JSON_DEPTH: serde_json refuses 128 levels where JSON.parse accepts thousands, and both runtimes walk values
// recursively. The nesting is counted outside strings before parsing, so any depth is refused safely.
const __IXGEN_MAX_JSON_DEPTH = 100
class __IxgenTooDeep extends Error {}
function __ixgenParseJson(text: string): unknown {
  let depth = 0, inStr = false, esc = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inStr) { if (esc) esc = false; else if (c === 92) esc = true; else if (c === 34) inStr = false; continue }
    if (c === 34) inStr = true
    else if (c === 91 || c === 123) { if (++depth > __IXGEN_MAX_JSON_DEPTH) throw new __IxgenTooDeep() }
    else if ((c === 93 || c === 125) && depth > 0) depth--
  }
  return JSON.parse(text)
}

class __IxgenArgError extends Error {}
// Text shown inside one inline code span of an error: runs of backticks and line breaks become one space.
function __ixgenOneRun(s: string): string {
  return s.replace(/[`\r\n]+/g, " ")
}
// Whether `s` names a path inside `base`: by its text (`..` and absolute paths elsewhere are
// out), and on the disk: the deepest part of it that exists, every symbolic link followed, is
// inside `base`'s real path. A link in the worktree to /etc/passwd leads out, and the program
// given the path would follow it; so does a link whose target is missing (a program writing
// there would create the target, wherever it is).
function __ixgenInside(base: string, s: string): boolean {
  const out = (from: string, to: string) => {
    const rel = __ixgenRel(from, to)
    return rel === ".." || rel.startsWith(".." + __ixgenSep) || __ixgenIsAbs(rel)
  }
  let p = __ixgenResolvePath(base, s)
  if (s.includes("\0") || out(base, p)) return false
  let root: string
  try { root = __ixgenRealpath(base) } catch { return true }
  for (;;) {
    try { return !out(root, __ixgenRealpath(p)) } catch { /* missing: its parent, unless a link */ }
    try { __ixgenLstat(p); return false } catch { /* missing */ }
    const up = __ixgenDirname(p)
    if (up === p) return true
    p = up
  }
}
function __ixgenCoerce(p: __IxType, v: unknown, label: string, base: string): unknown {
  const bad = (m: string): never => { throw new __IxgenArgError(`\`${label}\` ${m}`) }
  const show = (x: unknown) => JSON.stringify(x) ?? String(x)
  const lo = p.min ?? undefined, hi = p.max ?? undefined
  if (p.type === "integer" || p.type === "number") {
    const numeric = typeof v === "string" && /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(v)
    let n = typeof v === "number" ? v : numeric ? Number(v) : NaN
    if (!Number.isFinite(n)) bad(`must be ${p.type === "integer" ? "an integer" : "a number"}, got ${show(v)}`)
    if (p.type === "integer") n = Math.trunc(n)
    if (lo !== undefined && n < lo) n = p.clamp ? lo : bad(`must be at least ${lo}, got ${n}`)
    if (hi !== undefined && n > hi) n = p.clamp ? hi : bad(`must be at most ${hi}, got ${n}`)
    return n
  }
  if (p.type === "boolean") {
    const s = typeof v === "string" ? v.trim().toLowerCase() : v
    return s === true || s === "true" ? true : s === false || s === "false" ? false : bad(`must be true or false, got ${show(v)}`)
  }
  if (p.type === "array") {
    let list: unknown = v
    // Models sometimes send a JSON-encoded array as a string.
    if (typeof v === "string" && v.trim().startsWith("[")) try { list = __ixgenParseJson(v) } catch { /* keep it as one element */ }
    const items = (Array.isArray(list) ? list : [list]).filter((x) => x !== undefined && x !== null)
    const out = items.map((x, i) => __ixgenCoerce(p.items ?? { type: "string" }, x, `${label}[${i}]`, base))
    if (lo !== undefined && out.length < lo) bad(`needs at least ${lo} item(s)`)
    if (hi !== undefined && out.length > hi) bad(`takes at most ${hi} item(s)`)
    return out
  }
  let s = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : bad(`must be a string, got ${show(v)}`)
  if (p.type === "enum") {
    const values = p.values ?? []
    const ci = values.filter((x) => x.toLowerCase() === s.toLowerCase())
    if (values.includes(s)) { /* exact */ } else if (ci.length === 1) s = ci[0] as string
    // JSON strings: a quote or backslash in a value reads right.
    else bad(`must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}; got ${show(v)}`)
  }
  if (p.type === "path" && !__ixgenInside(base, s)) bad(`must stay inside the worktree (${base}), got ${show(v)}`)
  if (p.type !== "enum" && lo !== undefined && s.length < lo) bad(`must be at least ${lo} characters long`)
  if (p.type !== "enum" && hi !== undefined && s.length > hi) bad(`must be at most ${hi} characters long`)
  if (p.pattern && !__ixgenRegExp(p.pattern, "").test(s)) bad(`must match ${p.pattern}, got ${show(v)}`)
  return s
}
function __ixgenArgs(params: readonly __IxParam[], args: unknown, base: string, context: __IxVars = {}): { vals: __IxVars; errors: string[] } {
  const raw: __IxVars = args && typeof args === "object" && !Array.isArray(args) ? (args as __IxVars) : {}
  const vals: __IxVars = {}, errors: string[] = []
  for (const p of params) {
    let v = __ixgenGet(raw, p.name)
    // An empty string is how models often say "not given": treat it like a missing argument,
    // unless the parameter keeps it (`keep_empty`: content "" empties a range).
    if (v === undefined || v === null || (v === "" && !p.keep_empty)) v = p.default ?? undefined
    if (v === undefined || v === null) { if (p.required) errors.push(`\`${p.name}\` is required`); continue }
    try { vals[p.name] = __ixgenCoerce(p, v, p.name, base) } catch (e) { errors.push(__ixgenMsg(e)); continue }
    // An argument that names a baked context value (a session name) must name this one: these tools act on it only.
    const want = p.equals_context ? __ixgenGet(context, p.equals_context) : undefined
    if (p.equals_context && vals[p.name] !== __ixgenStr(want))
      errors.push(`\`${p.name}\` is ${JSON.stringify(vals[p.name])}, but these tools were generated for ${p.equals_context} ${JSON.stringify(__ixgenStr(want))}; pass ${JSON.stringify(__ixgenStr(want))} or leave \`${p.name}\` out`)
  }
  return { vals, errors }
}

type __IxResults = Map<string, { ok: boolean; out: string }>
function __ixgenCond(c: __IxCond, vars: __IxVars, res: __IxResults, handled: Set<string>): boolean {
  if ("all" in c) return c.all.every((x) => __ixgenCond(x, vars, res, handled))
  if ("any" in c) return c.any.some((x) => __ixgenCond(x, vars, res, handled))
  if ("not" in c) return !__ixgenCond(c.not, vars, res, new Set())
  if ("step" in c) {
    const r = res.get(c.step)
    if (!r) return false
    if ("matches" in c) return r.ok && __ixgenRegExp(c.matches, c.flags).test(r.out)
    if (c.failed && !r.ok) handled.add(c.step)
    return c.failed ? !r.ok : r.ok
  }
  const v = __ixgenGet(vars, c.param)
  if ("op" in c) return __ixgenCompare(v, c.op, c.than)
  if ("in" in c) return (Array.isArray(v) ? v : [v]).some((x) => c.in.includes(x))
  if ("equals" in c) return v === c.equals || JSON.stringify(v) === JSON.stringify(c.equals)
  if ("contains" in c) return Array.isArray(v) ? v.includes(c.contains) : typeof v === "string" && v.includes(String(c.contains))
  return __ixgenGiven(vars, c.param) === c.set
}

async function __ixgenSpawn(program: string, argv: string[], cwd: string, stdin: string | null, signal?: AbortSignal): Promise<__IxProc> {
  const none = { code: null, stdout: "", stderr: "" }
  // Resolve against the current PATH ourselves: Bun.spawn looks programs up in the PATH the process started with.
  const exe = program.includes("/") ? program : Bun.which(program, { PATH: process.env.PATH ?? "" })
  if (exe === null) return { ...none, missing: true }
  try {
    // Its own process group (`detached`: setsid), so that a timeout or a cancel stops the program's children too, as
    // the Rust runtime does: killing only the direct child leaves a script's children running and holding the pipes.
    const proc = Bun.spawn([exe, ...argv], {
      cwd, env: { ...process.env }, stdin: stdin === null ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe", detached: true,
    })
    const stop = () => { try { process.kill(-proc.pid, "SIGKILL") } catch { /* the group is gone already */ } }
    if (signal?.aborted) stop()
    else signal?.addEventListener("abort", stop, { once: true })
    // Both outputs to their end, or once stopped (a timeout or a cancel) what came until 100 ms later: a child that left
    // the group (setsid) can hold the pipes for any time.
    const read = (s: ReadableStream<Uint8Array>) => {
      const dec = new TextDecoder(), got = { text: "" }
      const done = (async () => { for await (const c of s) got.text += dec.decode(c, { stream: true }); got.text += dec.decode() })().catch(() => {})
      return { done, text: () => got.text }
    }
    const out = read(proc.stdout), err = read(proc.stderr)
    const stopped = new Promise<void>((r) => {
      const later = () => setTimeout(r, 100)
      if (signal?.aborted) later()
      else signal?.addEventListener("abort", later, { once: true })
    })
    try {
      const [status] = await Promise.all([proc.exited, Promise.race([Promise.all([out.done, err.done]), stopped])])
      const [stdout, stderr] = [out.text(), err.text()]
      // Bun reports a death by signal N as exit code 128+N (a shell's convention); the program exited with no code.
      const code = proc.signalCode ? null : status
      const why = code === 0 ? undefined : signal?.aborted ? "was cancelled" : proc.signalCode ? `was stopped by ${proc.signalCode}` : `exited with code ${code}`
      return { code, stdout, stderr, why }
    } finally {
      signal?.removeEventListener("abort", stop)
    }
  } catch (e) {
    const enoent = (e as { code?: unknown }).code === "ENOENT" || /ENOENT|not found/i.test(__ixgenMsg(e))
    return enoent && program.includes("/") ? { ...none, missing: true } : { ...none, why: `could not be started: ${__ixgenMsg(e)}` }
  }
}
function __ixgenFail(program: string, argv: string[], r: __IxProc): string {
  const excerpt = __ixgenTail(r.stderr) || __ixgenTail(r.stdout)
  const label = __ixgenOneRun([program, ...argv.slice(0, 1)].join(" "))
  return `**Error:** \`${label}\` ${r.why}` + (excerpt ? "\n\n" + __ixgenFence(excerpt) : "")
}
async function __ixgenPool<T, R>(xs: readonly T[], n: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(xs.length)
  let next = 0
  const worker = async () => { while (next < xs.length) { const i = next++; out[i] = await f(xs[i] as T) } }
  await Promise.all(Array.from({ length: Math.min(n, xs.length) }, worker))
  return out
}

type __IxItem = { id: string; hash: string | null; fields: Record<string, unknown>; body?: string }
function __ixgenMatch(ids: string[], want: string): string[] {
  const w = want.trim().toLowerCase()
  const exact = ids.filter((i) => i.toLowerCase() === w)
  return exact.length ? exact : w.length >= 8 ? ids.filter((i) => i.toLowerCase().startsWith(w)) : []
}
// Reads every frame of the store, keeps the topic's, and folds them into items (bodies unread) by the ralph loop's rules,
// so a listing shows what the loop itself reads: a frame whose `action` is absent or "add" adds an item (fields it lacks
// take the fold's `defaults`); a frame whose action is one of the fold's `updates` changes the FIRST item, in the order
// added, whose id equals or starts with its `id`, setting the frame's other fields and the action's own; any other frame
// is ignored. (Our own updates always carry a full id: an ambiguous prefix is refused before anything is appended.)
type __IxFoldRules = { readonly defaults?: { readonly [f: string]: unknown } | null; readonly updates?: { readonly [a: string]: { readonly [f: string]: unknown } } | null }
type __IxFrame = { id: string; hash?: unknown; meta?: unknown }
// Every frame of the store on `topic`, in the store's order (`xs cat`, one JSON frame a line).
async function __ixgenFrames(e: __IxStore, store: string, topic: string, cwd: string, signal?: AbortSignal): Promise<{ frames: __IxFrame[] } | { fail: __IxOut }> {
  const r = await __ixgenSpawn(e.program, ["cat", store], cwd, null, signal)
  if (r.missing) return { fail: { missing: e.program, ok: false, out: "" } }
  if (r.why) return { fail: { ok: false, out: "", err: __ixgenFail(e.program, ["cat"], r) } }
  const frames: __IxFrame[] = []
  for (const line of r.stdout.split("\n")) {
    let f: { topic?: unknown; id?: unknown; hash?: unknown; meta?: unknown }
    // A line that is not JSON, or is nested deeper than both runtimes read, is not a frame.
    try { f = __ixgenParseJson(line) as typeof f } catch { continue }
    if (f?.topic === topic && typeof f.id === "string") frames.push(f as __IxFrame)
  }
  return { frames }
}
async function __ixgenFold(e: __IxStore & __IxFoldRules, store: string, topic: string, cwd: string, signal?: AbortSignal): Promise<{ items: __IxItem[] } | { fail: __IxOut }> {
  const read = await __ixgenFrames(e, store, topic, cwd, signal)
  if ("fail" in read) return read
  const items = new Map<string, __IxItem>()
  for (const f of read.frames) {
    const meta = (f.meta && typeof f.meta === "object" ? f.meta : {}) as Record<string, unknown>
    const { action, id, iteration, ...fields } = meta
    if (action === undefined || action === null || action === "add")
      items.set(f.id, { id: f.id, hash: typeof f.hash === "string" ? f.hash : null, fields: { ...(e.defaults ?? {}), ...fields } })
    else if (typeof action === "string" && e.updates && Object.hasOwn(e.updates, action) && typeof id === "string") {
      const hit = [...items.keys()].find((k) => k === id || k.startsWith(id))
      if (hit !== undefined) Object.assign((items.get(hit) as __IxItem).fields, fields, e.updates[action])
    }
  }
  return { items: [...items.values()] }
}
async function __ixgenBodies(e: __IxStore, store: string, items: __IxItem[], cwd: string, signal?: AbortSignal): Promise<void> {
  await __ixgenPool(items, 8, async (it) => {
    it.body = it.hash ? (await __ixgenSpawn(e.program, ["cas", store, it.hash], cwd, null, signal)).stdout : ""
  })
}
// JSON text with every object's keys sorted: two metas compare equal whatever order their keys came in.
const __ixgenCanon = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(__ixgenCanon).join(",")}]`
  : v !== null && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${__ixgenCanon((v as Record<string, unknown>)[k])}`).join(",")}}`
  : JSON.stringify(v)
// The milliseconds since the epoch in a SCRU128 id (its top 48 of 128 bits), or NaN when `id` is not one.
const __ixgenScruMs = (id: string) =>
  /^[0-9a-z]{25}$/i.test(id) ? Number([...id.toLowerCase()].reduce((n, c) => n * 36n + BigInt(parseInt(c, 36)), 0n) >> 80n) : NaN
// xs 0.13.4's `append` stores the frame but now and then exits 0 having printed nothing: it does not flush its stdout
// before it exits (about one run in 400 on a busy machine). The appended frame's id is then read back from the store:
// the frames on `topic` with this meta and this body (by its hash; no body, no hash) that the store added since
// `since`, the time the append started. Only frames identical in all three, appended in the same moment, are ambiguous.
async function __ixgenAppended(e: __IxStore, store: string, topic: string, meta: unknown, body: string | null, since: number, cwd: string, signal?: AbortSignal): Promise<string[]> {
  const read = await __ixgenFrames(e, store, topic, cwd, signal)
  if ("fail" in read) return []
  const want = __ixgenCanon(JSON.parse(JSON.stringify(meta ?? null)))
  const hash = body ? `sha256-${__ixgenHash("sha256").update(body, "utf8").digest("base64")}` : null
  return read.frames
    .filter((f) => (f.hash ?? null) === hash && __ixgenScruMs(f.id) >= since && __ixgenCanon(f.meta ?? null) === want)
    .map((f) => f.id)
}
const __ixgenLine = (it: __IxItem) => `- \`${it.id}\` ${(it.body ?? "").trim().split("\n")[0] || "_(empty)_"}`

async function __ixgenExec(x: __IxExec, vars: __IxVars, cwd: string, signal?: AbortSignal): Promise<__IxOut> {
  if (x.kind === "cli") return __ixgenCli(x, vars, cwd, signal)
  if (x.kind === "signal") return __ixgenSignal(x.pid, x.signal ?? "SIGTERM", x.process ?? null, vars)
  // (runTool evaluates compute steps itself, with the parameters to bind as null; this is for any other caller.)
  if (x.kind === "compute") return __ixgenCompute(x.expr, vars, [])
  const store = __ixgenRender(x.store, vars), topic = __ixgenRender(x.topic, vars)
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(topic) || topic.includes("..") || topic.endsWith(".") || topic.length > 255)
    return { ok: false, out: "", err: `**Error:** \`${topic}\` is not a valid store topic.` }
  // `needId`: the caller shows the new frame's id, so an append that printed none looks it up (see __ixgenAppended).
  const append = async (meta: unknown, body: string | null, needId: boolean): Promise<__IxOut> => {
    const args = ["append", store, topic, "--meta", JSON.stringify(meta)], since = Date.now()
    const r = await __ixgenSpawn(x.program, args, cwd, body, signal)
    if (r.missing) return { missing: x.program, ok: false, out: "" }
    if (r.why) return { ok: false, out: "", err: __ixgenFail(x.program, args, r) }
    let id = r.stdout.trim()
    try { const f: unknown = JSON.parse(id); if (f && typeof f === "object" && "id" in f) id = String(f.id) } catch { /* keep the raw text */ }
    if (id === "" && needId) {
      const ids = await __ixgenAppended(x, store, topic, meta, body, since, cwd, signal)
      if (ids.length !== 1)
        return { ok: false, out: "", err: `**Error:** \`${x.program} append\` exited 0 without printing the new frame, and ${ids.length ? `${ids.length} identical frames on \`${topic}\` match` : `no frame on \`${topic}\` matches`} what it appended, so its id is unknown. List the items before you add this one again.` }
      id = ids[0] as string
    }
    return { ok: true, out: id, result: id }
  }
  // `now_ms`: the append's time, for a loop that only honours recent frames (the completion frame's `ts`).
  if (x.kind === "store_append") return append(__ixgenJson(x.meta, { ...vars, now_ms: Date.now() }), x.body ? __ixgenRender(x.body, vars) : null, true)
  const folded = await __ixgenFold(x, store, topic, cwd, signal)
  if ("fail" in folded) return folded.fail
  if (x.kind === "store_update") {
    const want = __ixgenRender(x.id, vars).trim()
    const ids = __ixgenMatch(folded.items.map((i) => i.id), want)
    const hits = folded.items.filter((it) => ids.includes(it.id))
    if (hits.length === 0) {
      const hint = want.length < 8 ? " (give the full id or a prefix of at least 8 characters)" : ""
      return { ok: false, out: "", err: `**Error:** no item with id \`${want}\` on \`${topic}\`${hint}. Nothing was changed.` }
    }
    if (hits.length > 1) {
      await __ixgenBodies(x, store, hits, cwd, signal)
      return { ok: false, out: "", err: `**Error:** \`${want}\` matches ${hits.length} items; nothing was changed. Use the full id:\n\n${hits.map(__ixgenLine).join("\n")}` }
    }
    const full = (hits[0] as __IxItem).id, r = await append(__ixgenJson(x.meta, { ...vars, id: full, now_ms: Date.now() }), null, false)
    return r.ok ? { ok: true, out: full, result: full } : r
  }
  let items = folded.items
  if (x.filter && __ixgenTplSet(x.filter.equals, vars)) {
    const want = __ixgenRender(x.filter.equals, vars), field = x.filter.field
    items = items.filter((it) => __ixgenStr(it.fields[field]) === want)
  }
  await __ixgenBodies(x, store, items, cwd, signal)
  let md = items.map(__ixgenLine).join("\n")
  const groupBy = x.group_by
  if (groupBy && items.length) {
    const key = (it: __IxItem) => __ixgenStr(it.fields[groupBy]) || "none"
    const order = [...new Set([...(x.groups ?? []), ...items.map(key)])]
    md = order.map((g) => [g, items.filter((it) => key(it) === g)] as const).filter(([, l]) => l.length)
      .map(([g, l]) => `### ${g} (${l.length})\n\n${l.map(__ixgenLine).join("\n")}`).join("\n\n")
  }
  md = md || "_No items._"
  return { ok: true, out: md, result: md }
}

async function __ixgenSignal(pidT: __IxTpl, sig: string, expect: string | null, vars: __IxVars): Promise<__IxOut> {
  const raw = __ixgenRender(pidT, vars).trim(), pid = Number(raw)
  const fail = (m: string): __IxOut => ({ ok: false, out: "", result: raw, err: m })
  // Never signal pid 0, 1 or a negative pid: those reach whole process groups or init.
  if (!/^\d+$/.test(raw) || pid <= 1) return fail(`**Error:** \`${raw}\` is not a process id that can be signalled.`)
  if (!/^SIG[A-Z0-9]+$/.test(sig)) return fail(`**Error:** \`${sig}\` is not a signal name.`)
  if (expect) {
    let name: string | null = null
    try { name = (await Bun.file(`/proc/${pid}/comm`).text()).trim() } catch {
      const r = await __ixgenSpawn("ps", ["-p", String(pid), "-o", "comm="], "/", null)
      name = r.code === 0 ? (r.stdout.trim().split("/").pop() ?? "") : null
    }
    if (name === null) return fail(`**Not signalled:** process ${pid} is not running.`)
    // Linux truncates /proc/<pid>/comm to 15 bytes.
    if (name !== expect && name !== expect.slice(0, 15)) return fail(`**Not signalled:** process ${pid} is \`${name}\`, not \`${expect}\`.`)
  }
  try { process.kill(pid, sig) } catch (e) { return fail(`**Error:** could not send ${sig} to process ${pid}: ${__ixgenMsg(e)}`) }
  return { ok: true, out: `Sent ${sig} to process ${pid}.`, result: raw }
}

// Why a route failed is one of a few fixed texts, the Rust runtime's too (docs/exec-spec.md, "Runtime"): the error
// messages of Bun's fetch and of JSON.parse differ from ureq's and serde_json's, and would make the answers differ.
async function __ixgenRuntime(rt: __IxRuntime, vars: __IxVars, abort?: AbortSignal): Promise<{ md?: string; json?: unknown; url: string; why?: string }> {
  const url = (process.env[rt.url_env] || rt.default_url).replace(/\/+$/, "") + rt.path
  const timeout = AbortSignal.timeout(rt.timeout_ms)
  const failed = () => ({ url, why: timeout.aborted ? `timed out after ${rt.timeout_ms} ms` : abort?.aborted ? "the call was cancelled" : "the connection failed" })
  const signals = [timeout, ...(abort ? [abort] : [])]
  let signal: AbortSignal
  if (typeof AbortSignal.any === "function") signal = AbortSignal.any(signals)
  else { // Older runtimes: combine the signals by hand.
    const c = new AbortController()
    for (const s of signals) s.aborted ? c.abort() : s.addEventListener("abort", () => c.abort(), { once: true })
    signal = c.signal
  }
  const method = (rt.method || "POST").toUpperCase(), withBody = rt.body != null && method !== "GET" && method !== "HEAD"
  const body = withBody ? JSON.stringify(__ixgenRedactDeep(__ixgenJson(rt.body as __IxJsonT, vars))) : undefined
  let text: string
  try {
    const res = await fetch(url, { method, signal, headers: withBody ? { "content-type": "application/json" } : {}, body })
    if (!res.ok) return { url, why: `HTTP ${res.status}` }
    text = await res.text()
  } catch {
    return failed()
  }
  let data: unknown
  try { data = __ixgenParseJson(text) } catch (e) {
    return { url, why: e instanceof __IxgenTooDeep ? `the answer is nested deeper than ${__IXGEN_MAX_JSON_DEPTH} levels` : "the answer is not JSON" }
  }
  if (!rt.markdown_field) return { url, json: data }
  const md = data && typeof data === "object" ? (data as Record<string, unknown>)[rt.markdown_field] : undefined
  return typeof md === "string" && md.trim() ? { url, md } : { url, why: `no \`${rt.markdown_field}\` in the answer` }
}

// ---- CLI steps: argv (with temp-file arguments), accepted exit codes, stream, output cap, timeout (docs/exec-spec.md).
type __IxCli = Extract<__IxExec, { kind: "cli" }>
// A parameter that keeps "" (`keep_empty`) is set even when empty; the names ride along in the variables under a symbol.
const __ixgenKeepKey: unique symbol = Symbol("ixgen.keep_empty")
function __ixgenKeptEmpty(vars: __IxVars, k: string): boolean {
  const keep = (vars as { [__ixgenKeepKey]?: ReadonlySet<string> })[__ixgenKeepKey]
  return keep !== undefined && keep.has(k) && __ixgenGet(vars, k) === ""
}
// Given: set, or a kept "" (what `require`, `forbid`, a rule's `default` and a `set` condition test).
const __ixgenGiven = (vars: __IxVars, k: string): boolean => __ixgenIsSet(__ixgenGet(vars, k)) || __ixgenKeptEmpty(vars, k)
function __ixgenAmount(a: SpecAmount | null | undefined, vars: __IxVars): number | undefined {
  if (a === undefined || a === null) return undefined
  if (typeof a === "number") return a
  const v = __ixgenGet(vars, a.var)
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v * (a.scale ?? 1) : undefined
}
// An argument vector from its spec; `file` arguments go into a private folder made on first use (`tmp.dir`), their
// names starting with `prefix` (each alternative of a step has its own).
async function __ixgenArgv(args: readonly SpecArg[], vars: __IxVars, tmp: { dir: string | null }, prefix: string): Promise<string[]> {
  const argv: string[] = []
  for (const a of args) {
    if (typeof a === "string") argv.push(a)
    else if ("opt" in a) { if (__ixgenTplSet(a.value, vars)) argv.push(a.opt, __ixgenRender(a.value, vars)) }
    else if ("flag" in a) { if (__ixgenGet(vars, a.if) === true) argv.push(a.flag) }
    else if ("spread" in a) { const v = __ixgenGet(vars, a.spread); for (const s of Array.isArray(v) ? v : __ixgenIsSet(v) ? [v] : []) argv.push(__ixgenStr(s)) }
    else if ("json" in a) argv.push(JSON.stringify(__ixgenJson(a.json, vars)))
    else if ("file" in a) {
      if (!__ixgenTplSet(a.file, vars)) continue
      // A private folder per step (mode 0700 from mkdtemp), a file readable by the user only; removed by the caller.
      tmp.dir ??= await __ixgenMkdtemp(__ixgenJoin(__ixgenTmpdir(), "ixgen-"))
      const path = __ixgenJoin(tmp.dir, `${prefix}arg-${argv.length}.txt`)
      await __ixgenWriteFile(path, __ixgenRender(a.file, vars), { mode: 0o600 })
      argv.push(path)
    }
    else if (__ixgenTplSet(a, vars)) argv.push(__ixgenRender(a, vars))
  }
  return argv
}
async function __ixgenCli(x: __IxCli, vars: __IxVars, cwd: string, signal?: AbortSignal): Promise<__IxOut> {
  const tmp: { dir: string | null } = { dir: null }
  try {
    const ms = __ixgenAmount(x.timeout_ms, vars)
    const timer = ms === undefined ? undefined : AbortSignal.timeout(ms)
    const both = [signal, timer].filter((s): s is AbortSignal => s !== undefined)
    const sig = both.length > 1 ? AbortSignal.any(both) : both[0]
    const stdin = x.stdin ? __ixgenRender(x.stdin, vars) : null
    // The program, then each alternative (`when_missing`) while the ones before are not installed.
    let ran: { program: string; spec: readonly SpecArg[]; argv: string[]; r: __IxProc; took: number } | null = null
    const candidates = [{ program: x.program, argv: x.argv }, ...(x.otherwise ?? [])]
    for (const [k, c] of candidates.entries()) {
      const argv = await __ixgenArgv(c.argv, vars, tmp, k ? `alt${k}-` : ""), started = Date.now()
      const r = await __ixgenSpawn(c.program, argv, cwd, stdin, sig)
      if (!r.missing) { ran = { program: c.program, spec: c.argv, argv, r, took: Date.now() - started }; break }
    }
    if (ran === null) return { missing: x.program, ok: false, out: "" }
    const { program, argv, r } = ran
    // The run as data (`capture`): what a later step or block reads, whatever the exit code.
    const data: __IxProcData = { exit_code: r.code, stdout: r.stdout, stderr: r.stderr, duration_ms: ran.took }
    if (timer?.aborted && !signal?.aborted) r.why = `timed out after ${ms} ms`
    else if (r.code !== null && (x.any_exit || (x.ok_exit ?? []).includes(r.code))) r.why = undefined
    const stream = x.output === "stderr" ? r.stderr : x.output === "both" ? [r.stdout, r.stderr].filter((t) => t.trim()).map((t) => t.replace(/\n+$/, "")).join("\n") : r.stdout
    if (r.why) return { ok: false, out: stream, err: __ixgenFail(program, argv, r), process: data }
    let out = stream
    const max = __ixgenAmount(x.max_output, vars)
    // Not inside a pair of UTF-16 units (an emoji): half of one is no character.
    if (max !== undefined && out.length > max) out = out.slice(0, max).replace(/[\ud800-\udbff]$/, "") + `\n\n_(cut at ${max} of ${out.length} characters)_`
    if (!out.trim() && x.if_empty) out = __ixgenRender(x.if_empty, vars)
    const label = [program, ...ran.spec.slice(0, 1).filter((a) => typeof a === "string")].join(" ")
    return { ok: true, out, result: out.trim(), stream, process: data, label }
  } finally {
    if (tmp.dir !== null) await __ixgenRm(tmp.dir, { recursive: true, force: true })
  }
}

// An accepted run's output read as records (`parse`); a JSON Lines line that is not JSON fails the step, as a
// `json` step's output that is not JSON does.
function __ixgenParse(r: __IxOut, p: SpecParse, x: __IxExec): __IxOut {
  const records: unknown[] = []
  const re = p.format === "regex" ? __ixgenRegExp(p.pattern, p.flags) : null
  const lines = (r.stream ?? r.out).split("\n")
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] as string).replace(/\r$/, "")
    if (!line.trim()) continue
    if (p.format === "jsonl") {
      try { records.push(__ixgenParseJson(line)) } catch (e) {
        const label = r.label ?? (x.kind === "cli" ? [x.program, ...x.argv.slice(0, 1).filter((a) => typeof a === "string")].join(" ") : "step")
        const deep = e instanceof __IxgenTooDeep ? `: nested deeper than ${__IXGEN_MAX_JSON_DEPTH} levels` : ""
        return { ok: false, out: r.out, process: r.process, err: `**Error:** \`${__ixgenOneRun(label)}\` did not print JSON Lines (line ${n + 1}${deep}).\n\n` + __ixgenFence(__ixgenTail(line)) }
      }
    } else if (p.format === "delimited") {
      const parts = line.split(p.separator)
      if (parts.length < p.fields.length) continue
      const vals = [...parts.slice(0, p.fields.length - 1), parts.slice(p.fields.length - 1).join(p.separator)]
      records.push(Object.fromEntries(p.fields.map((f, i) => [f, vals[i]])))
    } else {
      const m = (re as RegExp).exec(line)
      if (m) records.push(Object.fromEntries(p.fields.map((f, i) => [f, m[i + 1] ?? null])))
    }
  }
  return { ...r, result: records }
}

// ---- Rules across parameters, applied once every argument has passed on its own.
function __ixgenRules(spec: __IxSpec, vals: __IxVars, base: string): string[] {
  const errors: string[] = []
  for (const r of spec.rules ?? []) {
    if (r.rule !== "compare" && r.when && !__ixgenCond(r.when, vals, new Map(), new Set())) continue
    if (r.rule === "default") {
      for (const [k, v] of Object.entries(r.values)) {
        const p = spec.params.find((q) => q.name === k)
        const x = __ixgenJson(v, vals)
        if (p && !__ixgenGiven(vals, k) && __ixgenIsSet(x)) vals[k] = __ixgenCoerce(p, x, k, base)
      }
    } else if (r.rule === "require") {
      if (!r.params.every((k) => __ixgenGiven(vals, k))) errors.push(r.message)
    } else if (r.rule === "forbid") {
      if (r.params.some((k) => __ixgenGiven(vals, k))) errors.push(r.message)
    } else {
      const a = __ixgenGet(vals, r.left), b = __ixgenGet(vals, r.right)
      if (typeof a !== "number" || typeof b !== "number") continue
      const ok = r.op === ">=" ? a >= b : r.op === ">" ? a > b : r.op === "<=" ? a <= b : a < b
      if (!ok) errors.push(`${r.message} (got ${a} and ${b})`)
    }
  }
  return errors
}

// ---- Confirmation through the host. OpenCode 1.18's wildcard: `*` any text, `?` one character, a trailing " *" optional.
function __ixgenWildcard(text: string, pattern: string): boolean {
  let re = pattern.replaceAll("\\", "/").replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  if (re.endsWith(" .*")) re = re.slice(0, -3) + "( .*)?"
  return new RegExp("^" + re + "$", "s").test(text.replaceAll("\\", "/"))
}
// What a confirmation decides before anything runs, from the subject alone: the refusal's markdown ("refused"), run
// without asking ("allowed"), or ask the user (before the steps, or after the first `after` of them).
function __ixgenGate(c: SpecConfirm, vars: __IxVars): { refused: string } | "allowed" | "ask" {
  const subject = __ixgenRender(c.subject, vars).trim()
  const denied = (c.deny ?? []).find((p) => __ixgenWildcard(subject, p))
  if (denied !== undefined) return { refused: `**Refused:** \`${__ixgenOneRun(subject)}\` matches the blocked pattern \`${denied}\`. Nothing was run.` }
  if ((c.allow ?? []).some((p) => __ixgenWildcard(subject, p))) return "allowed"
  return "ask"
}
// Asks the user, with the preview rendered from what is known now. Undefined when the tool may go on; otherwise the
// markdown that says why it did not.
async function __ixgenAsk(c: SpecConfirm, vars: __IxVars, ctx?: __IxCtx): Promise<string | undefined> {
  const subject = __ixgenRender(c.subject, vars).trim()
  const shown = "`" + __ixgenOneRun(subject) + "`"
  if (typeof ctx?.ask !== "function") return `**Not run:** this tool asks before it runs, and the host offers no way to ask.`
  // OpenCode 1.18's TUI shows a custom permission as "Call tool <permission>" and no metadata; the request (and its
  // `permission.asked` event) carries the preview to every other client that reads it.
  const metadata: Record<string, unknown> = { subject }
  if (c.preview) metadata.preview = __ixgenRender(c.preview, vars)
  try {
    await ctx.ask({ permission: c.permission, patterns: [subject], always: [subject], metadata })
    return undefined
  } catch (e) {
    // OpenCode's DeniedError goes on to list every rule; its first sentence says enough.
    const why = (__ixgenMsg(e).split("\n")[0] ?? "").split(/(?<=\.) /)[0]?.slice(0, 200).replace(/\.$/, "") || "no reason given"
    return `**Not run:** permission for ${shown} was refused (${why}).`
  }
}

// ---- Step data and rendered output (docs/exec-spec.md, "Output") ----------------------------------------------

// The one markdown escaper of data values: a value stays inline text (no line breaks, so it cannot start a heading,
// list or fence) and cannot open emphasis, links, HTML, code or table cells.
function __ixgenMdEsc(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, " ").replace(/[\\`*[\]<>|]/g, "\\$&").replace(/^([#+-])/, "\\$1")
}
// An inline code span no backtick in the value can close.
function __ixgenCode(s: string): string {
  const t = s.replace(/\s*[\r\n]+\s*/g, " "), f = "`".repeat(Math.max(0, ...(t.match(/`+/g) ?? []).map((r) => r.length)) + 1)
  const pad = t.startsWith("`") || t.endsWith("`") ? " " : ""
  return f + pad + t + pad + f
}
function __ixgenFmt(v: unknown, fmt: Fmt | null, md: boolean): string {
  if (fmt === "count") return String(Array.isArray(v) ? v.length : 0)
  if (fmt === "sum") return String((Array.isArray(v) ? v : [v]).reduce((a: number, x) => a + (typeof x === "number" ? x : 0), 0))
  const s = fmt === "upper" ? __ixgenStr(v).toUpperCase() : __ixgenStr(v)
  return fmt === "code" ? __ixgenCode(s) : md ? __ixgenMdEsc(s) : s
}
function __ixgenCompare(v: unknown, op: CmpOp, than: number): boolean {
  if (typeof v !== "number" || !Number.isFinite(v)) return false
  return op === "lt" ? v < than : op === "lte" ? v <= than : op === "gt" ? v > than : v >= than
}
// A JSON step's stdout, parsed; empty output (the CLI's "not found" in JSON mode) is null.
function __ixgenJsonOut(r: __IxOut, x: __IxExec): __IxOut {
  const text = r.out.trim()
  try { return { ...r, result: text ? __ixgenParseJson(text) : null } } catch (e) {
    const label = x.kind === "cli" ? [x.program, ...x.argv.slice(0, 1).filter((a) => typeof a === "string")].join(" ") : x.kind
    const what = e instanceof __IxgenTooDeep ? `printed JSON nested deeper than ${__IXGEN_MAX_JSON_DEPTH} levels` : "did not print JSON"
    return { ok: false, out: r.out, err: `**Error:** \`${__ixgenOneRun(label)}\` ${what}.` + (text ? "\n\n" + __ixgenFence(__ixgenTail(text)) : "") }
  }
}
// A value as markdown, or null when it is unset (a field line is then left out).
function __ixgenValue(v: SpecValue, scope: __IxVars, res: __IxResults): string | null {
  let t: __IxTpl | null | undefined = v.tpl
  if (v.map) {
    const k = __ixgenGet(scope, v.map)
    t = __ixgenIsSet(k) && v.to && Object.hasOwn(v.to, __ixgenStr(k)) ? v.to[__ixgenStr(k)] : v.else
  }
  if (!t || !__ixgenTplSet(t, scope)) return null
  const out = __ixgenRender(t, scope, true)
  return v.mark && __ixgenCond(v.mark.when, scope, res, new Set()) ? out + v.mark.text : out
}
// The variables of one list or table row: the row's own fields first, and the row itself as `item`.
const __ixgenRow = (vars: __IxVars, row: unknown): __IxVars =>
  row && typeof row === "object" && !Array.isArray(row) ? { ...vars, ...(row as __IxVars), item: row } : { ...vars, item: row }
// `handled`: a shown block whose condition is `{step: x, failed: true}` handles x's failure, as a step would.
function __ixgenOutput(blocks: readonly SpecBlock[], vars: __IxVars, res: __IxResults, handled: Set<string>): string {
  const out: string[] = []
  for (const b of blocks) {
    const touched = new Set<string>()
    if (b.when && !__ixgenCond(b.when, vars, res, touched)) continue
    touched.forEach((t) => handled.add(t))
    if ("text" in b) { if (__ixgenTplSet(b.text, vars)) out.push(__ixgenRender(b.text, vars, true)); continue }
    if ("fields" in b) {
      const lines = b.fields.flatMap((f) => { const v = __ixgenValue(f.value, vars, res); return v === null ? [] : [`**${f.label}:** ${v}`] })
      if (lines.length) out.push(lines.join("\n"))
      continue
    }
    const all = __ixgenGet(vars, "list" in b ? b.list : b.table)
    if (!Array.isArray(all)) continue
    if (!all.length) { if (b.empty) out.push(__ixgenRender(b.empty, vars, true)); continue }
    // A limit that is unset or renders empty (`"{limit}"` left out) cuts nothing; Number(null) would be 0 rows.
    const lim = b.limit != null ? __ixgenJson(b.limit, vars) : null
    const limit = __ixgenIsSet(lim) ? Number(lim) : NaN
    const rows = Number.isFinite(limit) && limit >= 0 ? all.slice(0, limit) : all
    // `total`: the count before a CLI's own limit cut the array short.
    const t = b.total ? __ixgenGet(vars, b.total) : undefined, total = typeof t === "number" && t > all.length ? t : all.length
    const count = rows.length < total ? `showing ${rows.length} of ${total}` : `${total}`
    const head = b.title ? `**${__ixgenRender(b.title, vars, true)}** (${count}):\n\n` : ""
    if ("list" in b) {
      const items = rows.flatMap((r) => { const v = __ixgenValue(b.item, __ixgenRow(vars, r), res); return v === null ? [] : [`- ${v}`] })
      out.push(head + items.join("\n"))
    } else {
      const line = (cells: string[]) => `| ${cells.join(" | ")} |`
      const body = rows.map((r) => line(b.columns.map((c) => __ixgenValue(c.value, __ixgenRow(vars, r), res) ?? "")))
      out.push(head + [line(b.columns.map((c) => c.label)), line(b.columns.map(() => "---")), ...body].join("\n"))
    }
  }
  return out.join("\n\n")
}

// A spec with what it leaves out taken from the catalog's shared settings: a route's URL, timeout and markdown field, a
// `cli` step's program, and the fallback of a tool with a `cli` step (docs/exec-spec.md). Throws when neither has one.
function __ixgenWithShared(spec: ExecSpec, shared: SpecShared): __IxSpec {
  const need = <T,>(v: T | null | undefined, what: string): T => {
    if (v === undefined || v === null) throw new Error(`the spec leaves out ${what}, and the catalog's shared settings have none`)
    return v
  }
  const steps = spec.steps.map((s): __IxStep => s.exec.kind !== "cli" ? s as __IxStep
    : { ...s, exec: { ...s.exec, program: need(s.exec.program ?? shared.program, "a step's program") } })
  const rt = spec.runtime, srt = shared.runtime
  const runtime = rt ? {
    ...rt,
    url_env: need(rt.url_env ?? srt?.url_env, "the runtime's url_env"),
    default_url: need(rt.default_url ?? srt?.default_url, "the runtime's default_url"),
    timeout_ms: need(rt.timeout_ms ?? srt?.timeout_ms, "the runtime's timeout_ms"),
    markdown_field: rt.json ? null : rt.markdown_field ?? srt?.markdown_field,
  } : rt
  const fallback = spec.fallback ?? (spec.steps.some((s) => s.exec.kind === "cli") ? shared.fallback : null)
  return { ...spec, steps, runtime, fallback }
}

// Entry point: validates the raw arguments, tries the runtime route, then runs the steps. Resolves to a string; a
// failed call rejects with an Error whose message is that string when the spec says failures are errors
// (`answer.errors: "error"`: OpenCode shows a tool whose `execute` throws as a failed call).
// `shared`: the catalog's shared settings file's SHARED, which fills in what the spec leaves out.
// ---- Computed data (docs/expressions.md) ------------------------------------------------------------------------
// A `compute` step evaluates a CEL expression with @bufbuild/cel, vendored as `cel-<hash>.js` beside this file (ixgen
// writes it only for a catalog with compute steps, so the import is dynamic). The Rust runtime runs the cel crate;
// ixgen's own functions below are defined once in docs/expressions.md and implemented in both, and data crosses
// between JSON and CEL by one rule: an integral number (within ±2^53) is an `int`, a map's keys come out sorted.
interface __IxCelLib {
  celEnv(o: { funcs: readonly unknown[] }): unknown
  parse(src: string): unknown
  plan(env: unknown, expr: unknown): (bindings: Record<string, unknown>) => unknown
  celMethod(name: string, target: unknown, args: readonly unknown[], result: unknown, impl: (this: unknown, ...a: unknown[]) => unknown): unknown
  CelScalar: { DYN: unknown }
  strings: readonly unknown[]
  isCelList(v: unknown): v is Iterable<unknown>
  isCelMap(v: unknown): v is ReadonlyMap<unknown, unknown>
  isCelUint(v: unknown): v is { value: bigint }
  isCelError(v: unknown): boolean
}
let __ixgenCelLoaded: Promise<{ lib: __IxCelLib; env: unknown }> | undefined
function __ixgenCel(): Promise<{ lib: __IxCelLib; env: unknown }> {
  __ixgenCelLoaded ??= (import(new URL(__IXGEN_CEL_MODULE, import.meta.url).href) as Promise<__IxCelLib>).then((lib) => {
    const D = lib.CelScalar.DYN, m = (name: string, args: number, f: (this: unknown, ...a: unknown[]) => unknown) =>
      lib.celMethod(name, D, Array.from({ length: args }, () => D), D, f)
    const str = (v: unknown): string => { if (typeof v !== "string") throw new Error("expects a string"); return v }
    const list = (v: unknown): unknown[] => { if (!lib.isCelList(v)) throw new Error("expects a list"); return [...v] }
    const field = (v: unknown, name: string): unknown => (lib.isCelMap(v) ? v.get(name) ?? null : null)
    const num = (v: unknown): number | undefined =>
      typeof v === "bigint" || typeof v === "number" ? Number(v) : lib.isCelUint(v) ? Number(v.value) : undefined
    // Null first; numbers, strings (UTF-16 order) and booleans each among their own kind.
    const order = (a: unknown, b: unknown): number => {
      if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1
      if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0
      if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b)
      const x = num(a), y = num(b)
      if (x === undefined || y === undefined) throw new Error("cannot order values of different types")
      return x < y ? -1 : x > y ? 1 : 0
    }
    const sortBy = (xs: unknown[], key: (v: unknown) => unknown, desc: boolean) =>
      xs.map((v) => [key(v), v] as const).sort((a, b) => (desc ? -1 : 1) * order(a[0], b[0]) || 0).map((p) => p[1])
    const funcs = [
      m("replaceRe", 2, function (p, rep) {
        const s = str(this), r = str(rep)
        let out = "", last = 0
        for (const g of s.matchAll(new RegExp(str(p), "gu"))) {
          out += s.slice(last, g.index) + __ixgenExpand(r, g)
          last = g.index + g[0].length
        }
        return out + s.slice(last)
      }),
      m("lines", 0, function () {
        const s = str(this)
        return s === "" ? [] : (s.endsWith("\n") ? s.slice(0, -1) : s).split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
      }),
      m("sort", 0, function () { return sortBy(list(this), (v) => v, false) }),
      m("orderBy", 1, function (f) { const n = str(f); return sortBy(list(this), (v) => field(v, n), false) }),
      m("orderByDesc", 1, function (f) { const n = str(f); return sortBy(list(this), (v) => field(v, n), true) }),
      m("groupBy", 1, function (f) {
        const n = str(f), groups: { id: string; key: unknown; items: unknown[] }[] = []
        for (const v of list(this)) {
          const key = field(v, n), id = JSON.stringify(__ixgenFromCel(lib, key) ?? null)
          const g = groups.find((x) => x.id === id)
          if (g) g.items.push(v)
          else groups.push({ id, key, items: [v] })
        }
        return groups.map((g) => ({ key: g.key, count: BigInt(g.items.length), items: g.items }))
      }),
      m("take", 1, function (n) {
        if (typeof n !== "bigint" && !lib.isCelUint(n)) throw new Error("expects an int")
        const k = Number(typeof n === "bigint" ? n : n.value)
        return list(this).slice(0, Math.max(0, k))
      }),
      m("sum", 0, function () {
        const xs = list(this)
        if (xs.some((x) => typeof x !== "bigint" && typeof x !== "number")) throw new Error("expects a list of numbers")
        if (!xs.every((x) => typeof x === "bigint")) return xs.reduce((a: number, x) => a + Number(x), 0)
        // A running total past an int's range, as a chain of + is (and as ixgen serve answers): an error.
        return xs.reduce((a: bigint, x) => {
          const t = a + (x as bigint)
          if (t > 9223372036854775807n || t < -9223372036854775808n) throw new Error("integer overflow")
          return t
        }, 0n)
      }),
      m("formatDate", 1, function (layout) {
        const l = str(layout), t = this
        let secs: number | bigint
        if (typeof t === "bigint") secs = t
        else if (lib.isCelUint(t)) {
          // A uint past an int's range, as ixgen serve refuses it.
          if (t.value > 9223372036854775807n) throw new Error("out of range")
          secs = t.value
        } else if (typeof t === "number" && Number.isFinite(t) && Math.abs(t) < 1e15) secs = Math.floor(t)
        else if (typeof t === "string") {
          const p = __ixgenParseIso(t)
          if (p === undefined) throw new Error("not an ISO 8601 date")
          secs = p
        } else throw new Error("expects seconds since the epoch or an ISO 8601 date")
        // The day and the second in it, exactly: an int's seconds can be past 2^53 (its days cannot).
        let day: number, s: number
        if (typeof secs === "bigint") {
          const q = secs / 86400n, k = secs % 86400n < 0n ? q - 1n : q
          day = Number(k)
          s = Number(secs - k * 86400n)
        } else {
          day = Math.floor(secs / 86400)
          s = secs - day * 86400
        }
        const [y, mo, d] = __ixgenCivil(day)
        const two = (n: number) => String(n).padStart(2, "0")
        // A year before 1 BC as Rust's `{:04}` writes it: the sign, then the digits (-2 is -002).
        const year = y < 0 ? "-" + String(-y).padStart(3, "0") : String(y).padStart(4, "0")
        const parts: [string, string][] = [["YYYY", year], ["MM", two(mo)], ["DD", two(d)],
          ["hh", two(Math.floor(s / 3600))], ["mm", two(Math.floor(s / 60) % 60)], ["ss", two(s % 60)]]
        let out = ""
        for (let i = 0; i < l.length;) {
          const hit = parts.find(([k]) => l.startsWith(k, i))
          if (hit) { out += hit[1]; i += hit[0].length } else { const c = String.fromCodePoint(l.codePointAt(i) as number); out += c; i += c.length }
        }
        return out
      }),
    ]
    return { lib, env: lib.celEnv({ funcs: [...lib.strings, ...funcs] }) }
  })
  return __ixgenCelLoaded
}
// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms, as expr.rs has them).
function __ixgenDays(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y, era = Math.floor(yy / 400), yoe = yy - era * 400, mp = (m + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1, doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}
function __ixgenCivil(days: number): [number, number, number] {
  const z = days + 719468, era = Math.floor(z / 146097), doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)), mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1, m = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d]
}
// Seconds since the epoch of `YYYY-MM-DD[THH:MM[:SS[.f]]][Z|±HH:MM]` (UTC without an offset); undefined otherwise.
function __ixgenParseIso(s: string): number | undefined {
  const g = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|([+-])(\d{2}):?(\d{2}))?$/.exec(s)
  if (!g) return undefined
  const n = (i: number) => Number(g[i] ?? 0), mo = n(2), d = n(3), h = n(4), mi = n(5), sec = n(6)
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return undefined
  const offset = (g[8] === "-" ? -1 : 1) * (n(9) * 3600 + n(10) * 60)
  return __ixgenDays(n(1), mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset
}
// The replacement's `$` forms that replaceRe documents: `$$`, `$&`, `$1`…`$99` (two digits when that group exists).
function __ixgenExpand(rep: string, g: RegExpMatchArray): string {
  let out = ""
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i] as string, d = rep[i + 1]
    if (c === "$" && d !== undefined) {
      if (d === "$" || d === "&") { out += d === "$" ? "$" : g[0]; i++; continue }
      if (/[0-9]/.test(d)) {
        const one = Number(d), e = rep[i + 2], two = e !== undefined && /[0-9]/.test(e) ? one * 10 + Number(e) : -1
        if (two >= 1 && two < g.length) { out += g[two] ?? ""; i += 2; continue }
        if (one >= 1 && one < g.length) { out += g[one] ?? ""; i++; continue }
      }
    }
    out += c
  }
  return out
}
const __ixgenCelReserved = new Set(["true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
  "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"])
const __ixgenCelName = (k: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && !__ixgenCelReserved.has(k)
function __ixgenToCel(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) <= 2 ** 53 ? BigInt(v) : v
  if (Array.isArray(v)) return v.map(__ixgenToCel)
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, __ixgenToCel(x)]))
  return v === undefined ? null : v
}
// CEL to JSON; undefined for what JSON cannot hold (bytes, types, messages).
function __ixgenFromCel(lib: __IxCelLib, v: unknown): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v
  if (typeof v === "bigint") return Number(v)
  if (typeof v === "number") return Number.isFinite(v) ? v : null
  if (lib.isCelUint(v)) return Number(v.value)
  if (lib.isCelList(v)) {
    const xs = [...v].map((x) => __ixgenFromCel(lib, x))
    return xs.includes(undefined) ? undefined : xs
  }
  if (lib.isCelMap(v)) {
    const es = [...v.entries()].map(([k, x]) => [lib.isCelUint(k) ? String(k.value) : String(k), __ixgenFromCel(lib, x)] as const)
    if (es.some((e) => e[1] === undefined)) return undefined
    es.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    // Two keys of one text ({1: 'a', '1': 'b'}) are not a JSON object (as in ixgen serve).
    if (es.some((e, i) => i > 0 && es[i - 1][0] === e[0])) return undefined
    return Object.fromEntries(es)
  }
  return undefined
}
async function __ixgenCompute(expr: string, vars: __IxVars, params: readonly __IxParam[]): Promise<__IxOut> {
  const fail: __IxOut = { ok: false, out: "", err: `**Error:** \`${__ixgenOneRun(expr)}\` could not be computed.` }
  let cel: { lib: __IxCelLib; env: unknown }
  try { cel = await __ixgenCel() } catch (e) {
    __ixgenCelLoaded = undefined
    return { ok: false, out: "", err: `**Error:** the CEL evaluator (${__IXGEN_CEL_MODULE} beside the runtime file) could not be loaded: ${__ixgenMsg(e)}. Run \`ixgen generate\` again.` }
  }
  try {
    const bindings: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(vars)) if (v !== undefined && __ixgenCelName(k)) bindings[k] = __ixgenToCel(v)
    for (const p of params) if (__ixgenCelName(p.name) && !(p.name in bindings)) bindings[p.name] = null
    const r = cel.lib.plan(cel.env, cel.lib.parse(expr))(bindings)
    const v = cel.lib.isCelError(r) ? undefined : __ixgenFromCel(cel.lib, r)
    if (v === undefined) return fail
    return { ok: true, out: typeof v === "string" ? v : v === null ? "" : JSON.stringify(v), result: v }
  } catch {
    return fail
  }
}

export async function runTool(raw: ExecSpec, context: Record<string, unknown>, args: unknown, ctx?: __IxCtx, shared: SpecShared = {}): Promise<string> {
  const a = await runToolAnswer(raw, context, args, ctx, shared)
  if (a.isError && raw.answer?.errors === "error") throw new Error(a.text)
  return a.text
}
// The answer and whether the call failed (MCP's `isError`), as the Rust runtime's `Answer`. Never throws.
export async function runToolAnswer(raw: ExecSpec, context: Record<string, unknown>, args: unknown, ctx?: __IxCtx, shared: SpecShared = {}): Promise<{ text: string; isError: boolean }> {
  let head = `## ${raw.name}\n\n`
  const fail = (text: string) => ({ text, isError: true })
  // A tool file and a runtime file from two ixgen releases: say so instead of misreading the spec.
  if (raw.version !== SPEC_VERSION)
    return fail(`${head}**Error:** this tool was generated for spec version ${raw.version}, but its runtime file reads version ${SPEC_VERSION}. Run \`ixgen generate\` again.`)
  try {
    const spec = __ixgenWithShared(raw, shared)
    // OpenCode reports worktree "/" outside a git repository; the session directory is the better root then.
    const wt = ctx?.worktree, cwd = wt && wt !== "/" ? wt : ctx?.directory || wt || process.cwd()
    const { vals, errors } = __ixgenArgs(spec.params, args, cwd, context)
    // The rules see the parameters that keep "" too: a kept "" is a given value (`require` holds, `forbid` refuses it).
    const keeps = new Set(spec.params.filter((p) => p.keep_empty).map((p) => p.name))
    ;(vals as { [__ixgenKeepKey]?: ReadonlySet<string> })[__ixgenKeepKey] = keeps
    if (!errors.length) errors.push(...__ixgenRules(spec, vals, cwd))
    const vars: __IxVars = { ...context, ...vals }
    ;(vars as { [__ixgenKeepKey]?: ReadonlySet<string> })[__ixgenKeepKey] = keeps
    head = spec.answer?.heading === false ? ""
      : `## ${__ixgenRender(spec.heading, vars).replace(/\s+/g, " ").replace(/[\s:]+$/, "").trim() || spec.name}\n\n`
    if (errors.length) return fail(__ixgenRedact(`${head}**Invalid arguments:** ${errors.join("; ")}`))
    // The question comes before the steps, or after the first `after` of them (they compute its preview). Only steps
    // that run one after another can come first; any other spec asks at once, so nothing runs unasked.
    let askAt: number | undefined
    if (spec.confirm) {
      const g = __ixgenGate(spec.confirm, vars)
      if (typeof g === "object") return fail(__ixgenRedact(head + g.refused))
      const n = spec.confirm.after
      if (g === "ask" && n != null && !spec.parallel && !spec.runtime && n < spec.steps.length) askAt = n
      else if (g === "ask") {
        const refused = await __ixgenAsk(spec.confirm, vars, ctx)
        if (refused !== undefined) return fail(__ixgenRedact(head + refused))
      }
    }
    // A tool's answer is redacted unless its `redact` scope leaves answers alone; error texts always are.
    const answer = (t: string, isError = false) => ({ text: spec.redact === "errors" || spec.redact === "none" ? t : __ixgenRedact(t), isError })
    if (spec.runtime) {
      const r = await __ixgenRuntime(spec.runtime, vars, ctx?.abort)
      if (r.md !== undefined) return answer(r.md.trimStart().startsWith("#") ? r.md : head + r.md)
      if (r.json !== undefined) return answer(head + "```json\n" + JSON.stringify(r.json, null, 2) + "\n```")
      if (!spec.steps.length) return fail(__ixgenRedact(`${head}**Error:** the runtime is unreachable at ${r.url} (${r.why}).`))
      // The steps run instead; `output` can say why (`{runtime.url}`, `{runtime.why}`).
      vars.runtime = { url: r.url, why: r.why ?? "unknown" }
    }
    const results: __IxResults = new Map(), handled = new Set<string>()
    const trim = spec.answer?.trim ?? true
    // What stands for nothing: `_(no output)_`, or the catalog's `empty` text.
    const emptyText = (v: __IxVars = vars) => (spec.answer?.empty ? __ixgenRender(spec.answer.empty, v) : "_(no output)_")
    const done: { id: string | null; secs: { text: string; err: boolean }[] }[] = []
    const run = async (step: __IxStep): Promise<{ missing?: string; ok: boolean; out: string; secs: { text: string; err: boolean }[]; data?: unknown }> => {
      const each = step.for_each ? __ixgenGet(vars, step.for_each) : undefined
      const all: unknown[] = !step.for_each ? [undefined] : Array.isArray(each) ? each : __ixgenIsSet(each) ? [each] : []
      const list = step.limit != null ? all.slice(0, step.limit) : all
      const secs: { text: string; err: boolean }[] = [], outs: string[] = [], data: unknown[] = []
      let ok = true
      for (const item of list) {
        const scope: __IxVars = step.for_each ? { ...vars, item } : vars
        // The step's own working directory, inside the project (`cwd`).
        let dir = cwd, bad: string | undefined
        if (step.cwd && __ixgenTplSet(step.cwd, scope)) {
          const want = __ixgenRender(step.cwd, scope), shown = __ixgenOneRun(want)
          dir = __ixgenResolvePath(cwd, want)
          if (!__ixgenInside(cwd, want)) bad = `**Error:** the working directory \`${shown}\` is outside the project.`
          else if (!(await __ixgenStat(dir).then((st) => st.isDirectory(), () => false))) bad = `**Error:** the working directory \`${shown}\` does not exist.`
        }
        let r: __IxOut = bad !== undefined ? { ok: false, out: "", err: bad } : step.exec.kind === "compute" ? await __ixgenCompute(step.exec.expr, scope, spec.params) : await __ixgenExec(step.exec, scope, dir, ctx?.abort)
        if (r.missing) return { missing: r.missing, ok: false, out: "", secs }
        if (step.json && r.ok) r = __ixgenJsonOut(r, step.exec)
        if (step.parse && r.ok) r = __ixgenParse(r, step.parse, step.exec)
        data.push(step.capture ? r.process : r.ok ? r.result : undefined)
        const err = r.err === undefined || spec.redact !== "errors" ? r.err : __ixgenRedact(r.err)
        const text = step.message ? __ixgenRender(step.message, { ...scope, result: r.result }) : r.out
        const body = err ?? (!text.trim() ? emptyText(scope) : trim ? text.trim() : text)
        const title = step.title ? __ixgenRender(step.title, scope) : ""
        // A hidden helper step shows nothing of its own, only an error.
        if (!step.hidden || !r.ok) secs.push({ text: title ? `**${title}**\n\n${body}` : body, err: !r.ok })
        ok &&= r.ok
        outs.push(r.out)
      }
      return { ok, out: outs.join("\n"), secs, data: step.for_each ? data : data[0] }
    }
    // A JSON step's parsed result, or a compute step's value, becomes the variable named by its id.
    const keep = (s: __IxStep, o: { data?: unknown }) => { if (s.id && (s.json || s.parse || s.capture || s.exec.kind === "compute") && o.data !== undefined) vars[s.id] = o.data }
    const missing = (program: string) => fail(__ixgenRedact(head + (spec.fallback
      ? __ixgenRender(spec.fallback, vars) : `\`${program}\` is not installed (it was not found on PATH). Install it and try again.`)))
    if (spec.parallel) {
      const chosen = spec.steps.filter((s) => !s.when || __ixgenCond(s.when, vars, results, handled))
      const outs = await Promise.all(chosen.map(run))
      const miss = outs.find((o) => o.missing)
      if (miss?.missing) return missing(miss.missing)
      outs.forEach((o, i) => {
        const s = chosen[i] as __IxStep
        // Recorded after all ran, for the conditions of `output`.
        if (s.id) results.set(s.id, { ok: o.ok, out: o.out })
        keep(s, o)
        done.push({ id: s.id ?? null, secs: o.secs })
      })
    } else {
      // Whether a step so far failed and nothing handled it: the preview could not be computed.
      const failedYet = () => done.some((d) => d.secs.some((x) => x.err) && !(d.id !== null && handled.has(d.id)))
      for (const [k, s] of spec.steps.entries()) {
        if (ctx?.abort?.aborted) break
        if (askAt === k && spec.confirm) {
          askAt = undefined
          // A failed preview step ends the call with its error: there is nothing right to ask about.
          if (failedYet()) break
          const refused = await __ixgenAsk(spec.confirm, vars, ctx)
          if (refused !== undefined) return fail(__ixgenRedact(head + refused))
        }
        const touched = new Set<string>()
        if (s.when && !__ixgenCond(s.when, vars, results, touched)) continue
        touched.forEach((t) => handled.add(t))
        const o = await run(s)
        if (o.missing) return missing(o.missing)
        if (s.id) results.set(s.id, { ok: o.ok, out: o.out })
        keep(s, o)
        done.push({ id: s.id ?? null, secs: o.secs })
      }
    }
    // With rendered output, the blocks replace the sections, but the errors of unhandled failed steps come first.
    const rendered = spec.output?.length ? __ixgenOutput(spec.output, vars, results, handled) : null
    const unhandled = (d: { id: string | null }) => !(d.id !== null && handled.has(d.id))
    let secs = done.flatMap((d) => d.secs.filter((x) => !x.err || unhandled(d)).map((x) => x.text))
    const failed = done.some((d) => d.secs.some((x) => x.err) && unhandled(d))
    if (rendered !== null) secs = [...done.flatMap((d) => d.secs.filter((x) => x.err && unhandled(d)).map((x) => x.text)), rendered].filter(Boolean)
    if (failed && spec.recovery) secs.push(__ixgenRender(spec.recovery, vars))
    const tail = ctx?.abort?.aborted ? "\n\n_Cancelled._" : ""
    return answer(head + (secs.join("\n\n") || emptyText()) + tail, failed || !!ctx?.abort?.aborted)
  } catch (e) {
    return fail(__ixgenRedact(`${head}**Error:** the ixgen runtime failed: ${__ixgenMsg(e)}`))
  }
}
