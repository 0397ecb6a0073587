// Unit tests of the tool interpreter (templates/opencode/runtime.ts) under Bun, with fake `ix`/`xs` on PATH.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FAKE_IX, FAKE_XS, SHARED, fakeProgram, generatedSpec, loadRuntime, tempDir, waitForName, type RunTool } from "./harness"

const neighbors = generatedSpec("ix_neighbors")

type Obj = Record<string, unknown>
let runTool: RunTool
let redact: (s: string) => string
const work = tempDir("work")
const bin = join(work, "bin")
const tree = join(work, "tree")
const argvLog = join(work, "argv.log")
const ctx = (extra: Obj = {}) => ({ worktree: tree, directory: tree, abort: new AbortController().signal, ...extra })
const oldPath = process.env.PATH

// Corner cases no catalog tool reaches are written as specs here, in the shape src/spec.rs serializes.
// "ix-x: {symbol}" → ["ix-x: ", {var: "symbol"}]
function tpl(s: string): unknown[] {
  return s.split(/(\{[a-z_]+\})/).filter(Boolean).map((p) => (/^\{[a-z_]+\}$/.test(p) ? { var: p.slice(1, -1) } : p))
}
const P = (name: string, type: string, extra: Obj = {}): Obj => ({ name, type, ...extra })
const spec = (over: Obj): Obj => ({ version: 4, name: "t", heading: tpl("t"), params: [], steps: [], ...over })
const cli = (id: string | null, argv: unknown[], extra: Obj = {}, exec: Obj = {}): Obj => ({
  ...(id === null ? {} : { id }), exec: { kind: "cli", program: "ix", argv, ...exec }, ...extra,
})
// A literal argv element is a plain string; one with variables is a template.
const t = (s: string): unknown => (/\{[a-z_]+\}/.test(s) ? tpl(s) : s)
const calls = (): string[][] => (existsSync(argvLog) ? readFileSync(argvLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [])

beforeAll(async () => {
  ;({ runTool, redact } = await loadRuntime())
  mkdirSync(join(tree, "src"), { recursive: true })
  fakeProgram(bin, "ix", FAKE_IX)
  fakeProgram(bin, "xs", FAKE_XS)
  process.env.PATH = `${bin}:${oldPath}`
  process.env.IX_ARGV_LOG = argvLog
})
afterAll(() => { process.env.PATH = oldPath })
beforeEach(() => { rmSync(argvLog, { force: true }); delete process.env.IX_IMPACT; delete process.env.IX_STATUS_FAIL })

// What a generated spec leaves out, the catalog's shared settings (the tool file's SHARED) fill in.
describe("shared settings", () => {
  const bare = (argv: unknown[]): Obj => ({ exec: { kind: "cli", argv } })
  test("a step without a program runs the shared one; a step's own program wins", async () => {
    expect(await runTool(spec({ steps: [bare(["q"])] }), {}, {}, ctx(), { program: "ix" })).toBe("## t\n\nix q")
    expect(await runTool(spec({ steps: [cli(null, ["q"])] }), {}, {}, ctx(), { program: "not-installed-x" })).toBe("## t\n\nix q")
    expect(await runTool(spec({ steps: [bare(["q"])] }), {}, {}, ctx())).toBe(
      "## t\n\n**Error:** the ixgen runtime failed: the spec leaves out a step's program, and the catalog's shared settings have none")
  })
  test("the shared fallback applies to a tool with a cli step that has none of its own", async () => {
    const shared = { program: "not-installed-x", fallback: ["shared fallback"] }
    expect(await runTool(spec({ steps: [bare(["q"])] }), {}, {}, ctx(), shared)).toBe("## t\n\nshared fallback")
    expect(await runTool(spec({ steps: [bare(["q"])], fallback: ["own"] }), {}, {}, ctx(), shared)).toBe("## t\n\nown")
  })
  test("a route without url and timeout takes the shared runtime's", async () => {
    const shared = { runtime: { url_env: "IXGEN_TEST_UNSET_URL", default_url: "http://127.0.0.1:9", timeout_ms: 2000, markdown_field: "md" } }
    const out = await runTool(spec({ runtime: { method: "POST", path: "/x" } }), {}, {}, ctx(), shared)
    expect(out).toStartWith("## t\n\n**Error:** the runtime is unreachable at http://127.0.0.1:9/x (")
  })
})

describe("arguments", () => {
  test("defaults and clamping: limit 500 → 30, depth default 2, direction default all", async () => {
    const out = await runTool(neighbors, {}, { symbol: "AuthController", limit: 500 }, ctx(), SHARED)
    expect(out).toStartWith("## ix-neighbors: AuthController\n\n**Callers** (1):\n\n- `ix callers AuthController --limit 30 --format json` (fake) — p")
    expect(calls().sort()).toEqual([["callees", "AuthController", "--limit", "30", "--format", "json"], ["callers", "AuthController", "--limit", "30", "--format", "json"]])
  })
  test("numeric strings are coerced, integers truncated, low values clamped", async () => {
    await runTool(neighbors, {}, { symbol: "S", direction: "depends", depth: 2.9 }, ctx(), SHARED)
    await runTool(neighbors, {}, { symbol: "S", direction: "depends", depth: "9" }, ctx(), SHARED)
    await runTool(neighbors, {}, { symbol: "S", direction: "callers", limit: "-4" }, ctx(), SHARED)
    expect(calls()).toEqual([["depends", "S", "--depth", "2", "--format", "json"], ["depends", "S", "--depth", "3", "--format", "json"], ["callers", "S", "--limit", "1", "--format", "json"]])
  })
  test("missing required, bad enum, bad number: all reported, nothing runs", async () => {
    const out = await runTool(neighbors, {}, { direction: "sideways", limit: "lots" }, ctx(), SHARED)
    expect(out).toStartWith("## ix-neighbors\n\n**Invalid arguments:** ")
    expect(out).toContain("`symbol` is required")
    expect(out).toContain('`direction` must be one of "callers", "callees", "depends", "imported-by", "all"; got "sideways"')
    expect(out).toContain('`limit` must be an integer, got "lots"')
    expect(calls()).toEqual([])
  })
  test("enum values match case-insensitively; empty string means not given", async () => {
    await runTool(neighbors, {}, { symbol: "S", direction: "Imported-By", limit: "" }, ctx(), SHARED)
    expect(calls()).toEqual([["imported-by", "S", "--limit", "15", "--format", "json"]])
  })
  test("clamp false is an error; booleans, arrays and patterns are coerced and checked", async () => {
    const s = spec({
      heading: tpl("x {names}"),
      params: [P("n", "integer", { min: 1, max: 5 }), P("b", "boolean"), P("names", "array", { items: { type: "enum", values: ["a", "b"] } }), P("tag", "string", { pattern: "^[a-z]+$" })],
      steps: [cli("s", [t("echo"), tpl("{n}"), { flag: "--b", if: "b" }, { spread: "names" }, { opt: "--tag", value: tpl("{tag}") }])],
    })
    expect(await runTool(s, {}, { n: 9 }, ctx())).toContain("`n` must be at most 5, got 9")
    expect(await runTool(s, {}, { n: 2, names: "c" }, ctx())).toContain('`names[0]` must be one of "a", "b"')
    expect(await runTool(s, {}, { b: "yes" }, ctx())).toContain('`b` must be true or false, got "yes"')
    expect(await runTool(s, {}, { tag: "Abc" }, ctx())).toContain("`tag` must match ^[a-z]+$")
    expect(await runTool(s, {}, { n: "3", b: "true", names: '["b","a"]', tag: "ok" }, ctx())).toStartWith("## x b, a\n\n")
    await runTool(s, {}, { n: 1, b: false, names: "a" }, ctx())
    expect(calls()).toEqual([["echo", "3", "--b", "b", "a", "--tag", "ok"], ["echo", "1", "a"]])
  })
  test("a path must stay inside the worktree and is passed on as given", async () => {
    const s = spec({ params: [P("p", "path", { required: true })], steps: [cli("s", [t("inventory"), { opt: "--path", value: tpl("{p}") }])] })
    for (const bad of ["../etc", "/etc/passwd", "src/../../x", "a\0b"]) expect(await runTool(s, {}, { p: bad }, ctx())).toContain("must stay inside the worktree")
    await runTool(s, {}, { p: "src/a.ts" }, ctx())
    await runTool(s, {}, { p: join(tree, "src") }, ctx())
    expect(calls()).toEqual([["inventory", "--path", "src/a.ts"], ["inventory", "--path", join(tree, "src")]])
  })
  test("a path or working directory through a link out of the worktree is refused (crates/ixgen-runtime/tests/paths.rs)", async () => {
    const links = join(tree, "links")
    mkdirSync(join(links, "src"), { recursive: true })
    writeFileSync(join(links, "src/a.txt"), "inside\n")
    symlinkSync("/etc/passwd", join(links, "pw"))
    symlinkSync("/etc", join(links, "etc"))
    symlinkSync(join(work, "missing/new.txt"), join(links, "gone"))
    symlinkSync("src", join(links, "inner"))
    const here = ctx({ worktree: links, directory: links })
    const s = spec({ params: [P("p", "path", { required: true })], steps: [cli("s", [t("inventory"), { opt: "--path", value: tpl("{p}") }])] })
    for (const out of ["pw", "etc/passwd", "etc", "gone", "inner/../pw", "..", "src/../../x"]) expect(await runTool(s, {}, { p: out }, here)).toContain("`p` must stay inside the worktree")
    for (const inside of ["src/a.txt", "inner/a.txt", "src/new.txt"]) await runTool(s, {}, { p: inside }, here)
    expect(calls()).toEqual([["inventory", "--path", "src/a.txt"], ["inventory", "--path", "inner/a.txt"], ["inventory", "--path", "src/new.txt"]])
    const d = spec({ params: [P("dir", "string")], steps: [{ ...cli("s", [t("inventory")]), cwd: tpl("{dir}") }] })
    expect(await runTool(d, {}, { dir: "etc" }, here)).toContain("the working directory `etc` is outside the project")
  })
  test("worktree '/' (no git repository) falls back to the session directory", async () => {
    const s = spec({ params: [P("p", "path")], steps: [cli("s", [t("x")])] })
    expect(await runTool(s, {}, { p: "/etc" }, ctx({ worktree: "/" }))).toContain("must stay inside the worktree")
  })
  test("args that are not an object count as no arguments", async () => {
    expect(await runTool(neighbors, {}, null, ctx(), SHARED)).toContain("`symbol` is required")
  })
})

describe("redaction", () => {
  const positives: [string, string][] = [
    ["Authorization: Bearer abcDEF123456789xyz.more", "Authorization: Bearer [REDACTED]"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"],
    ["gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "[REDACTED]"],
    ["token ghs_abcdefghijklmnopqrstuvwxyz0123456789!", "token [REDACTED]!"],
    ["ghu_abcdefghijklmnopqrstuvwxyz0123456789 ghr_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED] [REDACTED]"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"],
    ["glpat-abcdefghij0123456789", "[REDACTED]"],
    ["key sk-abcdefghijklmnopqrst1234", "key [REDACTED]"],
    ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED]"],
    ["sk-proj-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED]"],
    ["AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPLE", "[REDACTED] and [REDACTED]"],
    ["AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED]"],
    ["xoxb-1234567890-abcdefghij", "[REDACTED]"],
    ["xoxp-1234567890-abcdefghij xoxa-1234567890x xoxr-1234567890x xoxs-1234567890x", "[REDACTED] [REDACTED] [REDACTED] [REDACTED]"],
    ["API_KEY=abcd1234efgh", "API_KEY=[REDACTED]"],
    ["export GITHUB_TOKEN=whatever12345", "export GITHUB_TOKEN=[REDACTED]"],
    ["client_secret=s3cr3tvalue", "client_secret=[REDACTED]"],
    ["password=hunter2", "password=[REDACTED]"],
    ["db_password: hunter2", "db_password: [REDACTED]"],
    ['{"access_token": "abcdefgh12345678"}', '{"access_token": "[REDACTED]"}'],
    ["https://x.io/cb?token=abcdefgh12345678&x=1", "https://x.io/cb?token=[REDACTED]&x=1"],
    ["--api-key=abcdefgh12345678", "--api-key=[REDACTED]"],
    ["a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\nb", "a\n[REDACTED]\nb"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk (cut off", "[REDACTED]"],
  ]
  for (const [input, want] of positives) test(`redacts ${input.slice(0, 24).replace(/\n/g, " ")}`, () => expect(redact(input)).toBe(want))
  const negatives = [
    "task-runner and risk-assessment-2024-q3-report-final",
    "the ask-sk-style and desk-mounted things",
    "sk-learn-compatible-estimator-wrapper",
    "sk-1234",
    "ghp_short",
    "Bearer of bad news; bearer authentication-required",
    "primary_key=True; sort_key=lambda",
    "def f(cache_key: CacheKeyType) -> None",
    "cache_key = compute_digest(x)",
    "Invalid token: expired session",
    "AKIA is a prefix; AKIAshort",
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    "xoxb- and xox-foo",
    "ix-neighbors: UserService (class) — src/services/user.ts",
  ]
  for (const input of negatives) test(`keeps ${input.slice(0, 30).replace(/\n/g, " ")}`, () => expect(redact(input)).toBe(input))
  // The name=value rule is tried only at the starts __ixgenAssignments finds, and the sk- rule asks for its digit in
  // the replacement: neither changes what is hidden. Random texts of names, joints, needles, separators and values,
  // against the two expressions as they were, run over the whole text.
  test("the name=value starts and the sk- digit hide what the plain expressions hid", () => {
    const plain: [RegExp, (m: string, ...g: string[]) => string][] = [
      [/(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g, () => "[REDACTED]"],
      [/\b((?:[A-Za-z0-9]+[_-])+(?:key|token|secret|password|passwd)|apikey|token|secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'`,;&<>()[\]{}]+)/gi,
        (m, name, sepr, value) => {
          const codeLike = /^\s*[:=]\s*$/.test(sepr) && sepr !== "="
          return (/pass/i.test(name) || (value.length >= 8 && !codeLike)) ? `${name}${sepr}[REDACTED]` : m
        }],
    ]
    const parts = ["key", "Token", "secret", "passwd", "api", "a1", "-", "-", "_", "--", "=", ":", " ", "\n", "\"", "'",
      "abcdefgh9", "x", "\u00a0", ",", "é", "sk-", "B7", "\u017f", "\u212a"]
    let seed = 0x2545f491
    const next = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed >>> 0 }
    for (let i = 0; i < 20000; i++) {
      let text = ""
      for (let k = next() % 20; k > 0; k--) text += parts[next() % parts.length]
      // Only these two rules can differ: the other rules' needles are not in the parts.
      expect(redact(text)).toBe(plain.reduce((acc, [re, f]) => acc.replace(re, f), text))
    }
    // Linear on the texts that made the plain expressions try every position of a long run (seconds at 60 kB).
    const hostile = ["a-".repeat(200000) + "key" + " ".repeat(200000) + "= \"", "a-".repeat(200000) + "-key=x", "sk-".repeat(200000)]
    for (const h of hostile) expect(redact(h)).toBe(h)
  })
  test("everything returned is redacted, including the heading and error excerpts", async () => {
    const s = spec({ heading: tpl("t {q}"), params: [P("q", "string")], steps: [cli("s", [t("fail")])] })
    const out = await runTool(s, {}, { q: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }, ctx())
    expect(out).not.toContain("ghp_abc")
    expect(out).toStartWith("## t [REDACTED]\n\n")
  })
})

describe("templates, conditions and steps", () => {
  test("heading renders arrays joined, numbers, context; unset vars empty and trailing colon dropped", async () => {
    const s = spec({ heading: tpl("h: {xs} {n} {session}"), params: [P("xs", "array"), P("n", "integer")], steps: [cli("s", [t("a")])] })
    expect(await runTool(s, { session: "S" }, { xs: ["a", "b"], n: 4 }, ctx())).toStartWith("## h: a, b 4 S\n\n")
    const s2 = spec({ heading: tpl("h: {q}"), params: [P("q", "string")], steps: [cli("s", [t("a")])] })
    expect(await runTool(s2, {}, {}, ctx())).toStartWith("## h\n\n")
  })
  test("opt/t omitted when unset, json arg, message with result, no output marker", async () => {
    const s = spec({
      params: [P("q", "string"), P("limit", "integer", { default: 3 })],
      steps: [
        cli("a", [t("q"), tpl("{q}"), { opt: "--q", value: tpl("{q}") }, { json: { obj: { limit: { var: "limit" }, q: { var: "q" }, m: { lit: [1, "x"] }, s: { tpl: tpl("L{limit}") } } } }],
          { title: ["A"], message: tpl("got [{result}]") }),
        cli("b", [t("sleep"), t("0")], { title: ["B ", { var: "limit" }] }),
      ],
    })
    const out = await runTool(s, {}, {}, ctx())
    expect(calls()[0]).toEqual(["q", '{"limit":3,"m":[1,"x"],"s":"L3"}'])
    expect(out).toBe('## t\n\n**A**\n\ngot [ix q {"limit":3,"m":[1,"x"],"s":"L3"}]\n\n**B 3**\n\nix sleep 0')
    const empty = spec({ steps: [cli("a", [t("stdin")], {}, { stdin: [] })] })
    expect(await runTool(empty, {}, {}, ctx())).toBe("## t\n\ngot:")
  })
  test("stdin is the rendered template", async () => {
    const s = spec({ params: [P("c", "string")], steps: [cli("a", [t("stdin")], {}, { stdin: tpl("body {c}") })] })
    expect(await runTool(s, {}, { c: "$(x)\n`y`" }, ctx())).toBe("## t\n\ngot:body $(x)\n`y`")
  })
  test("param conditions: in / equals / contains / set / not / all / any", async () => {
    const s = spec({
      params: [P("d", "enum", { values: ["x", "y"], default: "x" }), P("r", "boolean", { default: false }), P("inc", "array", { default: ["briefing"] }), P("topic", "string")],
      steps: [
        cli("in", [t("in")], { when: { param: "d", in: ["y"] } }),
        cli("eq", [t("eq")], { when: { param: "r", equals: true } }),
        cli("co", [t("co")], { when: { param: "inc", contains: "bugs" } }),
        cli("set", [t("set")], { when: { param: "topic", set: true } }),
        cli("unset", [t("unset")], { when: { param: "topic", set: false } }),
        cli("combo", [t("combo")], { when: { all: [{ not: { param: "d", equals: "y" } }, { any: [{ param: "r", equals: true }, { param: "inc", contains: "briefing" }] }] } }),
      ],
    })
    await runTool(s, {}, {}, ctx())
    expect(calls().map((c) => c[0])).toEqual(["unset", "combo"])
    rmSync(argvLog)
    await runTool(s, {}, { d: "y", r: "true", inc: ["bugs"], topic: "auth" }, ctx())
    expect(calls().map((c) => c[0])).toEqual(["in", "eq", "co", "set"])
  })
  test("step conditions: matches (depth scaling) and failed (handled fallback hides the error)", async () => {
    const s = spec({
      params: [P("target", "string", { required: true })],
      steps: [
        cli("impact", [t("impact"), tpl("{target}")], { title: ["Impact"] }),
        cli("callers", [t("callers"), tpl("{target}")], { title: ["Key callers"], when: { step: "impact", matches: "\\b(medium|high|critical)\\b", flags: "i" } }),
      ],
    })
    expect(await runTool(s, {}, { target: "P" }, ctx())).toBe("## t\n\n**Impact**\n\nrisk: low")
    process.env.IX_IMPACT = "Risk: HIGH"
    expect(await runTool(s, {}, { target: "P" }, ctx())).toContain("**Key callers**\n\nix callers P")
    const ingest = spec({
      steps: [
        cli("status", [t("status"), t("--format"), t("json")], { title: ["Status"] }),
        cli("probe", [t("subsystems"), t("--list")], { title: ["Probe"], when: { step: "status", failed: true } }),
        cli("ok", [t("ok")], { when: { step: "status", failed: false } }),
      ],
    })
    expect(await runTool(ingest, {}, {}, ctx())).toBe("## t\n\n**Status**\n\nconnected\n\nix ok")
    process.env.IX_STATUS_FAIL = "1"
    expect(await runTool(ingest, {}, {}, ctx())).toBe("## t\n\n**Probe**\n\nix subsystems --list")
  })
  test("steps without an id (null) run and cannot be named by conditions", async () => {
    const s = spec({ steps: [cli("x", [t("fail")], { id: null }), cli("y", [t("y")], { id: null, when: { step: "x", failed: true } })] })
    expect(await runTool(s, {}, {}, ctx())).toStartWith("## t\n\n**Error:** `ix fail` exited with code 3")
    expect(calls().map((c) => c[0])).toEqual(["fail"])
  })
  test("for_each runs once per element with `item` bound", async () => {
    const s = spec({ params: [P("paths", "array")], steps: [cli("each", [t("impact"), tpl("{item}")], { for_each: "paths", title: ["Impact ", { var: "item" }], message: tpl("{item}: {result}") })] })
    const out = await runTool(s, {}, { paths: ["a.ts", "b.ts"] }, ctx())
    expect(calls()).toEqual([["impact", "a.ts"], ["impact", "b.ts"]])
    expect(out).toBe("## t\n\n**Impact a.ts**\n\na.ts: risk: low\n\n**Impact b.ts**\n\nb.ts: risk: low")
    expect(await runTool(s, {}, {}, ctx())).toBe("## t\n\n_(no output)_")
  })
  test("parallel steps run concurrently and keep their order", async () => {
    const s = spec({ parallel: true, steps: [cli("a", [t("sleep"), t("700")]), cli("b", [t("sleep"), t("700")]), cli("c", [t("x")], { when: { param: "nope", set: true } })] })
    const t0 = performance.now()
    const out = await runTool(s, {}, {}, ctx())
    expect(performance.now() - t0).toBeLessThan(1300)
    expect(out).toBe("## t\n\nix sleep 700\n\nix sleep 700")
  })
})

describe("programs", () => {
  test("hostile values arrive as exactly one argv element each and nothing runs", async () => {
    const pwned = join(work, "pwned")
    const hostile = [`a"b'c`, `$(touch ${pwned})`, `\`touch ${pwned}\``, "line1\nline2", "-rf", "--limit=999", "ünïcødé ✓ 日本語", "; rm -rf / #", "*", " spaced ", "\\back\\slash"]
    const s = spec({ params: [P("v", "string")], steps: [cli("s", [t("explain"), tpl("{v}"), { opt: "--kind", value: tpl("{v}") }])] })
    for (const v of hostile) await runTool(s, {}, { v }, ctx())
    expect(calls()).toEqual(hostile.map((v) => ["explain", v, "--kind", v]))
    expect(existsSync(pwned)).toBe(false)
  })
  test("missing program → the fallback text (or a generic message)", async () => {
    const s = spec({ params: [P("q", "string")], heading: tpl("ix-query: {q}"), fallback: tpl("**ix unavailable.** ({q})"), steps: [cli("s", [t("x")], {}, { program: "ixgen-no-such-program" })] })
    expect(await runTool(s, {}, { q: "U" }, ctx())).toBe("## ix-query: U\n\n**ix unavailable.** (U)")
    expect(await runTool({ ...s, fallback: null }, {}, { q: "U" }, ctx())).toContain("`ixgen-no-such-program` is not installed")
    const par = spec({ parallel: true, fallback: tpl("FB"), steps: [cli("a", [t("a")]), cli("b", [t("b")], {}, { program: "/nonexistent/ix" })] })
    expect(await runTool(par, {}, {}, ctx())).toBe("## t\n\nFB")
  })
  test("non-zero exit → error section with code and a redacted stderr excerpt; later steps still run", async () => {
    const s = spec({ steps: [cli("a", [t("fail"), t("now")], { title: ["A"] }), cli("b", [t("b")])] })
    const out = await runTool(s, {}, {}, ctx())
    expect(out).toBe("## t\n\n**A**\n\n**Error:** `ix fail` exited with code 3\n\n```\nline one\nboom: token [REDACTED] leaked\n```\n\nix b")
  })
  test("an aborted call is cancelled and still returns a string", async () => {
    const c = new AbortController()
    const s = spec({ steps: [cli("a", [t("sleep"), t("5000")]), cli("b", [t("b")])] })
    setTimeout(() => c.abort(), 200)
    const out = await runTool(s, {}, {}, ctx({ abort: c.signal }))
    expect(out).toContain("**Error:** `ix sleep` was cancelled")
    expect(out).toEndWith("_Cancelled._")
    expect(calls().length).toBe(1)
  })
  test("a broken spec returns an error string instead of throwing", async () => {
    const s = spec({ steps: [cli("a", [t("a")]), cli("b", [t("b")], { when: { step: "a", matches: "(" } })] })
    expect(await runTool(s, {}, {}, ctx())).toStartWith("## t\n\n**Error:** the ixgen runtime failed: ")
  })
})

describe("runtime route", () => {
  let server: ReturnType<typeof Bun.serve>
  let seen: { method: string; path: string; type: string | null; body: unknown }[] = []
  let reply: (path: string) => Response
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1", port: 0,
      async fetch(req) {
        const text = await req.text()
        seen.push({ method: req.method, path: new URL(req.url).pathname, type: req.headers.get("content-type"), body: text ? JSON.parse(text) : null })
        return reply(new URL(req.url).pathname)
      },
    })
  })
  afterAll(() => server.stop(true))
  beforeEach(() => { seen = [] })
  const rtSpec = (over: Obj = {}, steps = [cli("s", [t("locate"), tpl("{pattern}")])]) => spec({
    heading: tpl("ix-locate: {pattern}"), params: [P("pattern", "string", { required: true }), P("limit", "integer", { default: 20, max: 100, clamp: true })],
    runtime: { url_env: "IXGEN_TEST_RUNTIME_URL", default_url: "http://127.0.0.1:9", timeout_ms: 2000, method: "POST", path: "/v2/ix_query",
      body: { obj: { mode: { lit: "locate" }, pattern: { var: "pattern" }, limit: { var: "limit" }, path: { var: "path" } } }, markdown_field: "preview_markdown", ...over },
    steps,
  })
  test("2xx with the markdown field → redacted markdown, CLI not called, body redacted", async () => {
    process.env.IXGEN_TEST_RUNTIME_URL = `http://127.0.0.1:${server.port}/`
    reply = () => Response.json({ preview_markdown: "Found it: ghp_abcdefghijklmnopqrstuvwxyz0123456789 in a.ts" })
    const out = await runTool(rtSpec(), {}, { pattern: "sk-abcdefghijklmnopqrst1234", limit: "500" }, ctx())
    expect(out).toBe("## ix-locate: [REDACTED]\n\nFound it: [REDACTED] in a.ts")
    expect(calls()).toEqual([])
    expect(seen).toEqual([{ method: "POST", path: "/v2/ix_query", type: "application/json", body: { mode: "locate", pattern: "[REDACTED]", limit: 100 } }])
  })
  test("markdown that starts with # is returned as is; no markdown_field → a JSON block", async () => {
    reply = () => Response.json({ preview_markdown: "# Own heading\n\nx" })
    expect(await runTool(rtSpec(), {}, { pattern: "p" }, ctx())).toBe("# Own heading\n\nx")
    reply = () => Response.json({ nodes: 3 })
    expect(await runTool(rtSpec({ markdown_field: null, method: "GET", body: null }), {}, { pattern: "p" }, ctx())).toBe('## ix-locate: p\n\n```json\n{\n  "nodes": 3\n}\n```')
    expect(seen[1]).toEqual({ method: "GET", path: "/v2/ix_query", type: null, body: null })
  })
  test("left-out route settings are the shared runtime's; a JSON route ignores the shared markdown field", async () => {
    process.env.IXGEN_TEST_RUNTIME_URL = `http://127.0.0.1:${server.port}`
    const shared = { runtime: { url_env: "IXGEN_TEST_RUNTIME_URL", default_url: "http://127.0.0.1:9", timeout_ms: 2000, markdown_field: "preview_markdown" } }
    const bare = (over: Obj = {}) => rtSpec({ url_env: undefined, default_url: undefined, timeout_ms: undefined, markdown_field: undefined, ...over })
    reply = () => Response.json({ preview_markdown: "shared field", nodes: 3 })
    expect(await runTool(bare(), {}, { pattern: "p" }, ctx(), shared)).toBe("## ix-locate: p\n\nshared field")
    expect(await runTool(bare({ json: true }), {}, { pattern: "p" }, ctx(), shared)).toBe(
      '## ix-locate: p\n\n```json\n{\n  "preview_markdown": "shared field",\n  "nodes": 3\n}\n```')
  })
  test("non-2xx, a missing field or an unreachable runtime fall through to the CLI", async () => {
    reply = () => new Response("no", { status: 503 })
    expect(await runTool(rtSpec(), {}, { pattern: "p" }, ctx())).toBe("## ix-locate: p\n\nix locate p")
    reply = () => Response.json({ other: 1 })
    expect(await runTool(rtSpec(), {}, { pattern: "q" }, ctx())).toBe("## ix-locate: q\n\nix locate q")
    delete process.env.IXGEN_TEST_RUNTIME_URL
    expect(await runTool(rtSpec(), {}, { pattern: "r" }, ctx())).toBe("## ix-locate: r\n\nix locate r")
    expect(await runTool(rtSpec({}, []), {}, { pattern: "r" }, ctx())).toStartWith("## ix-locate: r\n\n**Error:** the runtime is unreachable at http://127.0.0.1:9/v2/ix_query (")
  })
  test("why a route failed is in the Rust runtime's words: HTTP status, not JSON, no connection, timed out", async () => {
    process.env.IXGEN_TEST_RUNTIME_URL = `http://127.0.0.1:${server.port}`
    const why = async (over: Obj = {}) => (await runTool(rtSpec(over, []), {}, { pattern: "p" }, ctx())).replace(/^[\s\S]*\(|\)\.$/g, "")
    reply = () => new Response("no", { status: 503 })
    expect(await why()).toBe("HTTP 503")
    reply = () => new Response('{"preview_markdown": ', { headers: { "content-type": "application/json" } })
    expect(await why()).toBe("the answer is not JSON")
    reply = () => new Response("[".repeat(5000) + "]".repeat(5000))
    expect(await why()).toBe("the answer is nested deeper than 100 levels")
    reply = () => new Response(new ReadableStream({ async start(c) { await Bun.sleep(1500); c.close() } }))
    expect(await why({ timeout_ms: 300 })).toBe("timed out after 300 ms")
    delete process.env.IXGEN_TEST_RUNTIME_URL
    expect(await why()).toBe("the connection failed")
  })
  test("a slow runtime times out and falls through", async () => {
    process.env.IXGEN_TEST_RUNTIME_URL = `http://127.0.0.1:${server.port}`
    reply = () => new Response(new ReadableStream({ async start(c) { await Bun.sleep(1500); c.close() } }), { headers: { "content-type": "application/json" } })
    const t0 = performance.now()
    expect(await runTool(rtSpec({ timeout_ms: 300 }), {}, { pattern: "p" }, ctx())).toBe("## ix-locate: p\n\nix locate p")
    expect(performance.now() - t0).toBeLessThan(1400)
    delete process.env.IXGEN_TEST_RUNTIME_URL
  })
})

describe("signal", () => {
  const sig = (process: string | null) => spec({ params: [P("pid", "string")], steps: [{ id: "k", exec: { kind: "signal", pid: tpl("{pid}"), signal: "SIGTERM", process } }] })
  test("signals only a process whose name matches", async () => {
    const child = Bun.spawn(["sleep", "30"])
    waitForName(child.pid, "sleep")
    const wrong = await runTool(sig("nu"), {}, { pid: String(child.pid) }, ctx())
    expect(wrong).toBe(`## t\n\n**Not signalled:** process ${child.pid} is \`sleep\`, not \`nu\`.`)
    expect(child.exitCode).toBeNull()
    expect(await runTool(sig("sleep"), {}, { pid: String(child.pid) }, ctx())).toBe(`## t\n\nSent SIGTERM to process ${child.pid}.`)
    await child.exited
    expect(child.signalCode).toBe("SIGTERM")
    expect(await runTool(sig("sleep"), {}, { pid: String(child.pid) }, ctx())).toContain("is not running")
  })
  test("refuses pids 0, 1, negative and non-numeric", async () => {
    for (const pid of ["0", "1", "-1", "12; rm", ""]) expect(await runTool(sig(null), {}, { pid }, ctx())).toContain("is not a process id that can be signalled")
  })
})
