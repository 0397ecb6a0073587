// The interpreter inside the real OpenCode 1.18.33: the files ixgen generates for the ix catalog (product tools, the
// session tools and the one runtime file they import) are type-checked with tsc against @opencode-ai/plugin and run
// with `opencode debug agent build --tool <id> --params <json>`.
// Fails when the pinned hosts are not installed (HOST_MODULES, see harness.ts): run it through
// `cargo test --test runtime_ts`, which installs them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { FAKE_IX, HOST_MODULES, fakeProgram, ixgen, tempDir, waitForName } from "./harness"

const opencodeBin = join(HOST_MODULES, ".bin", "opencode")
const tscBin = join(HOST_MODULES, ".bin", "tsc")
const ready = existsSync(opencodeBin) && existsSync(tscBin) && existsSync(join(HOST_MODULES, "@opencode-ai", "plugin"))
if (!ready) throw new Error(`opencode.test.ts: the pinned hosts are not in ${HOST_MODULES}; run \`cargo test --test runtime_ts\`, which installs them`)

const project = tempDir("oc-project")
const home = tempDir("oc-home")
const bin = join(project, ".fakebin")
const argvLog = join(project, "argv.log")
const store = join(project, ".ralph", "store")
let loop: ReturnType<typeof Bun.spawn>
let xsServer: ReturnType<typeof Bun.spawn> | null = null
// The real xs 0.13.4 when it is built (see store.test.ts), else the fake.
const realXs = process.env.IXGEN_XS ?? join(homedir(), ".cache/ixgen-hosts/xs-0.13.4/bin/xs")

async function opencode(tool: string, params: unknown): Promise<{ output: string; raw: string }> {
  const p = Bun.spawn([opencodeBin, "debug", "agent", "build", "--tool", tool, "--params", JSON.stringify(params)], {
    cwd: project, stdout: "pipe", stderr: "pipe", stdin: "ignore",
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "xdg"), PATH: `${bin}:${process.env.PATH}`, IX_ARGV_LOG: argvLog },
  })
  const [raw, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`opencode exited ${code}: ${err}${raw}`)
  const json = JSON.parse(raw) as { result: { output: string } }
  return { output: json.result.output, raw }
}

describe("real OpenCode 1.18.33", () => {
  beforeAll(() => {
    mkdirSync(join(project, ".opencode", "tools"), { recursive: true })
    mkdirSync(store, { recursive: true })
    Bun.spawnSync(["git", "init", "-q", project])
    fakeProgram(bin, "ix", FAKE_IX)
    if (!existsSync(realXs)) throw new Error(`the pinned xs is not at ${realXs}`)
    {
      copyFileSync(realXs, join(bin, "xs"))
      Bun.spawnSync(["chmod", "+x", join(bin, "xs")])
      xsServer = Bun.spawn([join(bin, "xs"), "serve", store], { stdout: "pipe", stderr: "pipe" })
      for (let i = 0; i < 100 && Bun.spawnSync([join(bin, "xs"), "version", store]).exitCode !== 0; i++) Bun.sleepSync(100)
    }
    const session = "demo"
    // Stands in for the ralph loop: a process whose name is `nu`.
    copyFileSync("/bin/sleep", join(home, "nu"))
    Bun.spawnSync(["chmod", "+x", join(home, "nu")])
    loop = Bun.spawn([join(home, "nu"), "300"])
    waitForName(loop.pid, "nu")
    ixgen(["--out", project, "opencode", "--session", session, "--iteration", "3", "--store", store, "--pid", String(loop.pid)])
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "bundler", allowImportingTsExtensions: true, strict: true, noEmit: true, skipLibCheck: true, noUnusedLocals: true,
        lib: ["ESNext"], types: ["bun"], typeRoots: [join(HOST_MODULES, "@types")], baseUrl: ".", paths: { "@opencode-ai/plugin": [join(HOST_MODULES, "@opencode-ai", "plugin", "dist", "index.d.ts")] } },
      include: [".opencode/tools/*.ts", ".opencode/ixgen/*.ts"],
    }))
  })

  afterAll(async () => {
    if (loop.exitCode === null && loop.signalCode === null) loop.kill()
    if (xsServer) { xsServer.kill(); await xsServer.exited }
  })

  test("the generated files type-check against @opencode-ai/plugin 1.18.33 (tsc --noEmit, strict)", () => {
    if (!existsSync(join(HOST_MODULES, "@types", "bun"))) throw new Error(`${HOST_MODULES} lacks @types/bun, which tsc needs for the Bun globals the runtime uses`)
    const r = Bun.spawnSync([tscBin, "--noEmit", "-p", project], { stdout: "pipe", stderr: "pipe" })
    expect(r.stdout.toString() + r.stderr.toString()).toBe("")
    expect(r.exitCode).toBe(0)
  }, 120_000)

  test("ix_neighbors loads, returns the string, and ix sees the clamped limit", async () => {
    const { output } = await opencode("ix_neighbors", { symbol: "AuthController", limit: 500 })
    expect(output).toBe("## ix-neighbors: AuthController\n\n**Callers** (1):\n\n- `ix callers AuthController --limit 30 --format json` (fake) — p\n\n**Callees** (1):\n\n- `ix callees AuthController --limit 30 --format json` (fake) — p")
    const calls = readFileSync(argvLog, "utf8").trim().split("\n").map((l) => JSON.parse(l)).sort()
    expect(calls).toEqual([["callees", "AuthController", "--limit", "30", "--format", "json"], ["callers", "AuthController", "--limit", "30", "--format", "json"]])
  }, 180_000)

  test("invalid and hostile arguments inside OpenCode", async () => {
    expect((await opencode("ix_neighbors", { direction: "up" })).output).toBe(
      '## ix-neighbors\n\n**Invalid arguments:** `symbol` is required; `direction` must be one of "callers", "callees", "depends", "imported-by", "all"; got "up"')
    const hostile = `$(touch ${join(project, "pwned")}) "q" \`x\`\nnext`
    const { output } = await opencode("ix_neighbors", { symbol: hostile, direction: "depends", depth: "7" })
    expect(output).toContain("ix depends")
    expect(readFileSync(argvLog, "utf8").trim().split("\n").map((l) => JSON.parse(l)).at(-1)).toEqual(["depends", hostile, "--depth", "3", "--format", "json"])
    expect(existsSync(join(project, "pwned"))).toBe(false)
  }, 180_000)

  test("ralph session tools: add, list and update through the store", async () => {
    const added = (await opencode("ralph_task_add", { content: "write the runtime" })).output
    const id = /`([0-9a-z]{20,})`/.exec(added)?.[1] ?? ""
    expect(added).toBe(`## ralph: task_add\n\nAdded task \`${id}\` (remaining).`)
    expect((await opencode("ralph_task_status", { id: id.slice(0, 10), status: "in_progress" })).output).toBe(`## ralph: task_status\n\nTask \`${id}\` marked as in_progress.`)
    expect((await opencode("ralph_task_list", {})).output).toBe(`## ralph: task_list\n\n### in_progress (1)\n\n- \`${id}\` write the runtime`)
  }, 240_000)

  test("ralph session_complete records the control frame and stops the loop process", async () => {
    const { output } = await opencode("ralph_session_complete", {})
    expect(output).toMatch(new RegExp(`^## ralph: session_complete\\n\\nRecorded session completion \\(frame \`[0-9a-z]{20,}\`\\)\\.\\n\\nSignalled the ralph loop \\(pid ${loop.pid}\\) to stop\\.$`))
    await loop.exited
    expect(loop.signalCode).toBe("SIGTERM")
  }, 180_000)
})
