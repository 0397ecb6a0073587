// Store steps (store_append / store_fold / store_update / signal) through the ralph session tools. Runs against the
// real `xs` 0.13.4 when it is built (IXGEN_XS, or ~/.cache/ixgen-hosts/xs-0.13.4/bin/xs), and always against a
// fake `xs` that keeps frames in a JSONL file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { copyFileSync, existsSync, mkdirSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { FAKE_XS, fakeProgram, loadRuntime, sessionSpecs, tempDir, waitForName, type RunTool } from "./harness"

const ralph = sessionSpecs() as Record<string, unknown> & { task_add: unknown; task_list: unknown; task_status: unknown; session_complete: unknown }

const realXs = process.env.IXGEN_XS ?? join(homedir(), ".cache/ixgen-hosts/xs-0.13.4/bin/xs")
// Both: the fake makes failures cheap to read, the real one is the contract. A missing real
// xs is an error, never a quiet fallback (`cargo test` builds it and passes IXGEN_XS).
if (!existsSync(realXs)) throw new Error(`store.test.ts: the pinned xs is not at ${realXs}; run the suite through \`cargo test --test runtime_ts\`, which builds it`)
const modes = [{ mode: "fake xs", real: false }, { mode: "real xs 0.13.4", real: true }]

describe.each(modes)("ralph tools on $mode", ({ real }) => {
  let runTool: RunTool
  const work = tempDir("store")
  const bin = join(work, "bin")
  const store = join(work, "store")
  const oldPath = process.env.PATH
  let server: ReturnType<typeof Bun.spawn> | null = null
  const ctx = { worktree: work, directory: work, abort: new AbortController().signal }
  const context = (extra: Record<string, unknown> = {}) => ({ store, session: "demo", iteration: 3, pid: 0, ...extra })
  const xs = async (...args: string[]) => {
    const p = Bun.spawn([join(bin, "xs"), ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" })
    const [out] = await Promise.all([new Response(p.stdout).text(), p.exited])
    return out
  }
  const frames = async () => (await xs("cat", store)).split("\n").filter(Boolean).map((l) => JSON.parse(l) as { topic: string; id: string; meta: Record<string, unknown> })
  const idOf = (out: string) => /`([0-9a-z]{20,})`/.exec(out)?.[1] ?? ""

  beforeAll(async () => {
    ;({ runTool } = await loadRuntime())
    mkdirSync(store, { recursive: true })
    if (real) {
      mkdirSync(bin, { recursive: true })
      copyFileSync(realXs, join(bin, "xs"))
      Bun.spawnSync(["chmod", "+x", join(bin, "xs")])
      server = Bun.spawn([join(bin, "xs"), "serve", store], { stdout: "pipe", stderr: "pipe" })
      for (let i = 0; i < 100; i++) {
        const v = Bun.spawnSync([join(bin, "xs"), "version", store], { stdout: "pipe", stderr: "pipe" })
        if (v.exitCode === 0) break
        await Bun.sleep(100)
      }
    } else fakeProgram(bin, "xs", FAKE_XS)
    process.env.PATH = `${bin}:${oldPath}`
  })
  afterAll(async () => {
    process.env.PATH = oldPath
    if (server) { server.kill("SIGTERM"); await server.exited }
  })

  test("add, list, ambiguous prefix refused, unique prefix and full id applied", async () => {
    const a = await runTool(ralph.task_add, context(), { content: "first task\nsecond line" }, ctx)
    const b = await runTool(ralph.task_add, context(), { content: "blocked one", status: "blocked" }, ctx)
    const c = await runTool(ralph.task_add, context(), { content: "hostile $(touch pwned) `x` \"q\" 'y'" }, ctx)
    expect(a).toMatch(/^## ralph: task_add\n\nAdded task `[0-9a-z]{20,}` \(remaining\)\.$/)
    expect(b).toMatch(/^## ralph: task_add\n\nAdded task `[0-9a-z]{20,}` \(blocked\)\.$/)
    const [ia, ib, ic] = [idOf(a), idOf(b), idOf(c)]
    expect(new Set([ia, ib, ic]).size).toBe(3)
    expect(existsSync(join(work, "pwned"))).toBe(false)

    const list = await runTool(ralph.task_list, context(), {}, ctx)
    expect(list).toBe(`## ralph: task_list\n\n### remaining (2)\n\n- \`${ia}\` first task\n- \`${ic}\` hostile $(touch pwned) \`x\` "q" 'y'\n\n### blocked (1)\n\n- \`${ib}\` blocked one`)

    // Ids made within a moment share a prefix; a shared prefix of 8+ characters must be refused, listing the matches.
    let common = 0
    while (ia[common] === ic[common]) common++
    const before = (await frames()).length
    if (common >= 8) {
      const amb = await runTool(ralph.task_status, context(), { id: ia.slice(0, common), status: "completed" }, ctx)
      expect(amb).toContain(`matches`)
      expect(amb).toContain("nothing was changed")
      expect(amb).toContain(`- \`${ia}\` first task`)
      expect(amb).toContain(`- \`${ic}\` hostile`)
      expect((await frames()).length).toBe(before)
    } else console.warn(`ids ${ia} / ${ic} share only ${common} characters; ambiguity not exercised on this run`)

    // The shortest prefix (8+) that no other id shares.
    const others = [ib, ic]
    let n = 8
    while (others.some((o) => o.startsWith(ia.slice(0, n)))) n++
    const ok = await runTool(ralph.task_status, context(), { id: ia.slice(0, n), status: "in_progress" }, ctx)
    expect(ok).toBe(`## ralph: task_status\n\nTask \`${ia}\` marked as in_progress.`)
    const last = (await frames()).at(-1)
    expect(last?.topic).toBe("ralph.demo.task")
    expect(last?.meta).toEqual({ action: "status", id: ia, status: "in_progress", iteration: 3 })

    expect(await runTool(ralph.task_status, context(), { id: ib, status: "completed" }, ctx)).toContain(`Task \`${ib}\` marked as completed.`)
    expect(await runTool(ralph.task_list, context(), {}, ctx)).toBe(
      `## ralph: task_list\n\n### in_progress (1)\n\n- \`${ia}\` first task\n\n### remaining (1)\n\n- \`${ic}\` hostile $(touch pwned) \`x\` "q" 'y'\n\n### completed (1)\n\n- \`${ib}\` blocked one`)
  })

  test("unknown ids, short prefixes and bad arguments change nothing", async () => {
    const before = (await frames()).length
    expect(await runTool(ralph.task_status, context(), { id: "zzzzzzzzzz", status: "completed" }, ctx)).toBe("## ralph: task_status\n\n**Error:** no item with id `zzzzzzzzzz` on `ralph.demo.task`. Nothing was changed.")
    expect(await runTool(ralph.task_status, context(), { id: "03", status: "completed" }, ctx)).toBe("## ralph: task_status\n\n**Invalid arguments:** `id` must be at least 8 characters long")
    expect(await runTool(ralph.task_status, context(), { id: "x", status: "done" }, ctx)).toContain('`status` must be one of "in_progress", "completed", "blocked"')
    expect(await runTool(ralph.task_add, context({ session: 'a"b' }), { content: "x" }, ctx)).toBe('## ralph: task_add\n\n**Error:** `ralph.a"b.task` is not a valid store topic.')
    expect((await frames()).length).toBe(before)
  })

  test("an empty topic lists no items", async () => {
    expect(await runTool(ralph.task_list, context({ session: "empty" }), {}, ctx)).toBe("## ralph: task_list\n\n_No items._")
  })

  test("session_complete appends the control frame and signals only a process named nu", async () => {
    const nu = join(work, "nu")
    copyFileSync("/bin/sleep", nu)
    Bun.spawnSync(["chmod", "+x", nu])
    const loop = Bun.spawn([nu, "30"])
    const other = Bun.spawn(["sleep", "30"])
    waitForName(loop.pid, "nu")
    waitForName(other.pid, "sleep")
    const refused = await runTool(ralph.session_complete, context({ pid: other.pid }), {}, ctx)
    expect(refused).toContain(`**Not signalled:** process ${other.pid} is \`sleep\`, not \`nu\`.`)
    expect(refused).not.toContain("Signalled the ralph loop")
    expect(other.exitCode).toBeNull()
    const done = await runTool(ralph.session_complete, context({ pid: loop.pid }), {}, ctx)
    expect(done).toMatch(new RegExp(`^## ralph: session_complete\\n\\nRecorded session completion \\(frame \`[0-9a-z]{20,}\`\\)\\.\\n\\nSignalled the ralph loop \\(pid ${loop.pid}\\) to stop\\.$`))
    await loop.exited
    expect(loop.signalCode).toBe("SIGTERM")
    const control = (await frames()).filter((f) => f.topic === "ralph.demo.control")
    const { ts, ...rest } = control.at(-1)?.meta ?? {}
    expect(rest).toEqual({ action: "session_complete", iteration: 3 })
    // The loop honours a completion frame whose `ts` (milliseconds) is within the last 5 minutes.
    expect(typeof ts).toBe("number")
    expect(Math.abs(Date.now() - (ts as number))).toBeLessThan(60_000)
    other.kill()
  })

  test("without a pid, session_complete records completion and signals nothing", async () => {
    const { pid: _, ...noPid } = context()
    const done = await runTool(ralph.session_complete, noPid, {}, ctx)
    expect(done).toMatch(/^## ralph: session_complete\n\nRecorded session completion \(frame `[0-9a-z]{20,}`\)\.$/)
  })

  test("the inbox follows the loop: messages without an action, mark_read by a unique prefix", async () => {
    const session = "inbox"
    // As `ralph.nu message` appends it: status unread, a timestamp, no action.
    await Bun.spawn([join(bin, "xs"), "append", store, "ralph.inbox.inbox", "--meta", JSON.stringify({ status: "unread", timestamp: "2026-01-21T10:00:00+0000" })], { stdin: new TextEncoder().encode("please cover the README") }).exited
    const listed = await runTool(ralph.inbox_list, context({ session }), {}, ctx)
    const m = idOf(listed)
    expect(listed).toBe(`## ralph: inbox_list\n\n### unread (1)\n\n- \`${m}\` please cover the README`)
    const read = await runTool(ralph.inbox_mark_read, context({ session }), { id: m.slice(0, 20) }, ctx)
    expect(read).toBe(`## ralph: inbox_mark_read\n\nMessage \`${m}\` marked as read.`)
    expect((await frames()).at(-1)?.meta).toEqual({ action: "mark_read", id: m })
    expect(await runTool(ralph.inbox_list, context({ session }), {}, ctx)).toBe(`## ralph: inbox_list\n\n### read (1)\n\n- \`${m}\` please cover the README`)
  })

  test("session_name: the baked session is accepted, another is refused before anything runs", async () => {
    const before = (await frames()).length
    expect(await runTool(ralph.task_list, context({ session: "empty" }), { session_name: "empty" }, ctx)).toBe("## ralph: task_list\n\n_No items._")
    const refused = await runTool(ralph.task_add, context(), { content: "x", session_name: "other" }, ctx)
    expect(refused).toBe('## ralph: task_add\n\n**Invalid arguments:** `session_name` is "other", but these tools were generated for session "demo"; pass "demo" or leave `session_name` out')
    expect((await frames()).length).toBe(before)
  })

  test("the store being down is an error section, not a crash", async () => {
    const out = await runTool(ralph.task_list, context({ store: join(work, "nope") }), {}, ctx)
    expect(out).toStartWith("## ralph: task_list\n\n**Error:** `xs cat` exited with code")
  })
})
