// What the interpreter does around the steps (spec version 4): exit codes, streams, output caps, timeouts,
// temp-file arguments, rules across parameters, confirmation through ctx.ask, keep_empty and redaction scope.
// Specs are written in the shape src/spec.rs serializes; programs are small scripts run by this Bun.
import { beforeAll, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fakeProgram, loadRuntime, tempDir, type RunTool } from "./harness"

type Obj = Record<string, unknown>
let runTool: RunTool
const work = tempDir("around")
const bin = join(work, "bin")
const ctx = (extra: Obj = {}) => ({ worktree: work, directory: work, abort: new AbortController().signal, ...extra })
const v = (name: string) => ({ var: name })
const spec = (over: Obj): Obj => ({ version: 4, name: "t", heading: ["t"], params: [], steps: [], ...over })
const run = (argv: unknown[], exec: Obj = {}, step: Obj = {}): Obj => ({ exec: { kind: "cli", program: join(bin, "prog"), argv, ...exec }, ...step })

beforeAll(async () => {
  ;({ runTool } = await loadRuntime())
  // prog <stdout text> <stderr text> <exit code> [sleep ms] — or `prog --cat <file>` prints a file and where it was.
  fakeProgram(bin, "prog", `
const [a, b, c, d] = process.argv.slice(2)
if (a === "--cat") { process.stdout.write(require("node:fs").readFileSync(b, "utf8") + "|" + b); process.exit(0) }
process.stdout.write(a ?? ""); process.stderr.write(b ?? "")
setTimeout(() => process.exit(Number(c ?? 0)), Number(d ?? 0))
`)
})

describe("exit codes and output", () => {
  test("an exit code in ok_exit is an answer; if_empty replaces empty output", async () => {
    const s = spec({ steps: [run(["", "", "1"], { ok_exit: [0, 1], if_empty: ["No results."] })] })
    expect(await runTool(s, {}, {}, ctx())).toBe("## t\n\nNo results.")
  })
  test("an exit code not listed is still an error", async () => {
    const s = spec({ steps: [run(["", "boom", "2"], { ok_exit: [0, 1] })] })
    const out = await runTool(s, {}, {}, ctx())
    expect(out).toContain("exited with code 2")
    expect(out).toContain("boom")
  })
  test("output: stderr and both", async () => {
    const err = spec({ steps: [run(["out\n", "findings\n", "0"], { output: "stderr" })] })
    expect(await runTool(err, {}, {}, ctx())).toBe("## t\n\nfindings")
    const both = spec({ steps: [run(["out\n", "findings\n", "0"], { output: "both" })] })
    expect(await runTool(both, {}, {}, ctx())).toBe("## t\n\nout\nfindings")
  })
  test("max_output from a clamped parameter cuts the output and says so", async () => {
    const s = spec({
      params: [{ name: "max", type: "integer", default: 5, min: 3, max: 10, clamp: true }],
      steps: [run(["abcdefghijklmnop", "", "0"], { max_output: v("max") })],
    })
    expect(await runTool(s, {}, { max: 1 }, ctx())).toBe("## t\n\nabc\n\n_(cut at 3 of 16 characters)_")
    expect(await runTool(s, {}, {}, ctx())).toBe("## t\n\nabcde\n\n_(cut at 5 of 16 characters)_")
  })
  test("timeout_ms from seconds stops the program", async () => {
    const s = spec({
      params: [{ name: "secs", type: "number", default: 0.2 }],
      steps: [run(["", "", "0", "5000"], { timeout_ms: { var: "secs", scale: 1000 } })],
    })
    const started = Date.now()
    const out = await runTool(s, {}, {}, ctx())
    expect(out).toContain("timed out after 200 ms")
    expect(Date.now() - started).toBeLessThan(4000)
  })
  // A script whose child outlives it: the child holds the pipes and would touch the marker after 2 s.
  const orphan = (marker: string) => ({ exec: { kind: "cli", program: "sh", argv: ["-c", `(sleep 2; touch '${marker}') & sleep 3`] } })
  test("a timeout stops the program's children too (its process group), and the call ends at the timeout", async () => {
    const marker = join(work, "timeout-child-ran")
    const s = spec({ steps: [{ ...orphan(marker), exec: { ...orphan(marker).exec, timeout_ms: 300 } }] })
    const started = Date.now()
    expect(await runTool(s, {}, {}, ctx())).toBe("## t\n\n**Error:** `sh -c` timed out after 300 ms")
    expect(Date.now() - started).toBeLessThan(1500)
    await Bun.sleep(2500)
    expect(existsSync(marker)).toBe(false)
  })
  test("a cancelled call stops the program's children too", async () => {
    const marker = join(work, "cancel-child-ran"), c = new AbortController()
    setTimeout(() => c.abort(), 300)
    const started = Date.now()
    const out = await runTool(spec({ steps: [orphan(marker)] }), {}, {}, ctx({ abort: c.signal }))
    expect(out).toBe("## t\n\n**Error:** `sh -c` was cancelled\n\n_Cancelled._")
    expect(Date.now() - started).toBeLessThan(1500)
    await Bun.sleep(2500)
    expect(existsSync(marker)).toBe(false)
  })
})

describe("file arguments", () => {
  test("multi-line text reaches the program as a private file that is removed afterwards", async () => {
    const text = "line 1\nline \"2\" `x` $(y)\n"
    const s = spec({ params: [{ name: "msg", type: "string", required: true }], steps: [run(["--cat", { file: [v("msg")] }])] })
    const out = await runTool(s, {}, { msg: text }, ctx())
    const [content, path] = out.slice("## t\n\n".length).split("|") as [string, string]
    expect(content).toBe(text)
    expect(path).toMatch(/ixgen-[^/]+\/arg-1\.txt$/)
    expect(existsSync(path)).toBe(false)
  })
})

describe("rules across parameters", () => {
  const params = [
    { name: "from", type: "string" }, { name: "to", type: "string" },
    { name: "start", type: "integer" }, { name: "end", type: "integer" },
    { name: "action", type: "enum", values: ["add", "update"], default: "add" }, { name: "index", type: "integer" },
  ]
  const rules = [
    { rule: "default", when: { param: "from", set: true }, values: { to: { lit: "HEAD" } } },
    { rule: "forbid", when: { param: "from", set: false }, params: ["to"], message: "`to` needs `from`" },
    { rule: "default", values: { end: { var: "start" } } },
    { rule: "compare", left: "end", op: ">=", right: "start", message: "`end` must be at least `start`" },
    { rule: "require", when: { param: "action", equals: "update" }, params: ["index"], message: "`index` is required when `action` is `update`" },
  ]
  const s = spec({ heading: [v("from"), "..", v("to"), " ", v("start"), "-", v("end")], params, rules, steps: [run(["ok", "", "0"])] })
  test("a default that depends on another parameter", async () => {
    expect(await runTool(s, {}, { from: "main" }, ctx())).toStartWith("## main..HEAD")
    expect(await runTool(s, {}, {}, ctx())).toStartWith("## ..")
    expect(await runTool(s, {}, { start: 4 }, ctx())).toStartWith("## .. 4-4")
  })
  test("forbid, compare and require fail with their messages, and nothing runs", async () => {
    expect(await runTool(s, {}, { to: "v1" }, ctx())).toEndWith("\n\n**Invalid arguments:** `to` needs `from`")
    expect(await runTool(s, {}, { start: 5, end: 2 }, ctx())).toContain("`end` must be at least `start` (got 2 and 5)")
    expect(await runTool(s, {}, { action: "update" }, ctx())).toContain("`index` is required when `action` is `update`")
    expect(await runTool(s, {}, { action: "update", index: 0 }, ctx())).toEndWith("\n\nok")
  })
})

describe("confirmation", () => {
  const confirm = { permission: "run_command", subject: [v("command")], allow: ["npm *", "git status *"], deny: ["*sudo *"] }
  const s = spec({ params: [{ name: "command", type: "string", required: true }], confirm, steps: [run(["ran", "", "0"])] })
  const asker = (answer: "yes" | "no") => {
    const asked: unknown[] = []
    const ask = async (input: unknown) => { asked.push(input); if (answer === "no") throw new Error("The user rejected permission to use this specific tool call.\nmore") }
    return { asked, ctx: ctx({ ask }) }
  }
  test("deny-listed: refused without asking; allow-listed: runs without asking", async () => {
    const a = asker("yes")
    expect(await runTool(s, {}, { command: "ls && sudo rm x" }, a.ctx)).toBe("## t\n\n**Refused:** `ls && sudo rm x` matches the blocked pattern `*sudo *`. Nothing was run.")
    expect(await runTool(s, {}, { command: "git status" }, a.ctx)).toBe("## t\n\nran")
    expect(await runTool(s, {}, { command: "npm test" }, a.ctx)).toBe("## t\n\nran")
    expect(a.asked).toEqual([])
  })
  test("anything else is asked through ctx.ask with the tool's permission; both answers", async () => {
    const yes = asker("yes")
    expect(await runTool(s, {}, { command: "make" }, yes.ctx)).toBe("## t\n\nran")
    expect(yes.asked).toEqual([{ permission: "run_command", patterns: ["make"], always: ["make"], metadata: { subject: "make" } }])
    const no = asker("no")
    expect(await runTool(s, {}, { command: "make" }, no.ctx)).toBe("## t\n\n**Not run:** permission for `make` was refused (The user rejected permission to use this specific tool call).")
  })
  test("a host without ask: a tool that asks does not run", async () => {
    expect(await runTool(s, {}, { command: "make" }, ctx())).toContain("**Not run:** this tool asks before it runs")
  })
  test("OpenCode's wildcard: a trailing ' *' also matches nothing, '?' is one character", async () => {
    const w = spec({ params: [{ name: "command", type: "string", required: true }], confirm: { permission: "p", subject: [v("command")], deny: ["git status *", "rm ?"] }, steps: [run(["ran", "", "0"])] })
    expect(await runTool(w, {}, { command: "git status" }, ctx())).toContain("**Refused:**")
    expect(await runTool(w, {}, { command: "rm x" }, ctx())).toContain("**Refused:**")
    expect(await runTool(w, {}, { command: "rm xy" }, ctx())).toContain("**Not run:**")
  })
})

describe("empty strings and redaction", () => {
  test("keep_empty: \"\" is a value (templates and file arguments count it as set)", async () => {
    const s = spec({
      params: [{ name: "content", type: "string", required: true, keep_empty: true }],
      steps: [run(["--cat", { file: [v("content")] }])],
    })
    const out = await runTool(s, {}, { content: "" }, ctx())
    expect(out).toMatch(/^## t\n\n\|.*arg-1\.txt$/)
    const strict = spec({ params: [{ name: "content", type: "string", required: true }], steps: [run(["x", "", "0"])] })
    expect(await runTool(strict, {}, { content: "" }, ctx())).toContain("`content` is required")
  })
  test("redact: errors keeps source text, still redacts error sections; all redacts both", async () => {
    const src = "const password: string = 'hunter2'"
    const ok = (redact?: string) => spec({ ...(redact ? { redact } : {}), steps: [run([src, "", "0"])] })
    const bad = (redact?: string) => spec({ ...(redact ? { redact } : {}), steps: [run(["", "password: hunter2", "3"])] })
    expect(await runTool(ok("errors"), {}, {}, ctx())).toContain(src)
    expect(await runTool(ok(), {}, {}, ctx())).toContain("password: [REDACTED]")
    expect(await runTool(bad("errors"), {}, {}, ctx())).toContain("password: [REDACTED]")
    expect(await runTool(bad("none"), {}, {}, ctx())).toContain("password: hunter2")
  })
})
