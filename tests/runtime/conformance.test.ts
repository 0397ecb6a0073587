// The shared conformance suite (tests/conformance/README.md): each fixture is a spec, the arguments, what each
// program answers to each argv, and the exact markdown every ixgen runtime must return. This file runs the suite
// against the TypeScript runtime; a runtime in another language runs the same files with its own runner.
import { describe, expect, test, beforeAll } from "bun:test"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ROOT, fakeProgram, loadRuntime, tempDir, type RunTool, type RunToolAnswer } from "./harness"

type Answer = { argv: string[]; stdout?: string; stderr?: string; code?: number }
// `is_error`, when present: whether the call failed (MCP's `isError`; with `answer.errors: "error"`, runTool throws).
// `ask`, when present: the host offers a way to ask the user, who answers `reply` ("reject" throws `message`, as
// OpenCode's DeniedError does); `asked` is every question put, in order, with its subject and preview.
type Asked = { permission: string; subject: string; preview?: string }
type Fixture = {
  description: string; spec: unknown; args: unknown; programs: Record<string, Answer[]>; is_error?: boolean; expected: string
  ask?: { reply: "allow" | "reject"; message?: string }; asked?: Asked[]
}

const DIR = join(ROOT, "tests", "conformance")
const files = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort()
// A program that answers from the fixture by exact argv; any other argv is a failure the output shows.
const ANSWERING = `
const fs = require("node:fs"), path = require("node:path")
const answers = JSON.parse(fs.readFileSync(process.env.CONFORMANCE_ANSWERS, "utf8"))[path.basename(process.argv[1])] ?? []
const argv = process.argv.slice(2)
const a = answers.find((x) => JSON.stringify(x.argv) === JSON.stringify(argv))
if (!a) { process.stderr.write("conformance: no answer for " + JSON.stringify(argv) + "\\n"); process.exit(97) }
if (a.stdout) process.stdout.write(a.stdout)
if (a.stderr) process.stderr.write(a.stderr)
process.exit(a.code ?? 0)
`
let runTool: RunTool, runToolAnswer: RunToolAnswer
beforeAll(async () => { ({ runTool, runToolAnswer } = await loadRuntime()) })

describe("conformance", () => {
  test("the suite is there", () => expect(files.length).toBeGreaterThanOrEqual(8))
  for (const file of files) {
    test(file, async () => {
      const fx = JSON.parse(readFileSync(join(DIR, file), "utf8")) as Fixture
      const work = tempDir("conf"), bin = join(work, "bin"), answers = join(work, "answers.json")
      writeFileSync(answers, JSON.stringify(fx.programs))
      for (const name of Object.keys(fx.programs)) fakeProgram(bin, name, ANSWERING)
      const oldPath = process.env.PATH
      process.env.PATH = `${bin}:${oldPath}`
      process.env.CONFORMANCE_ANSWERS = answers
      try {
        const asked: Asked[] = []
        const ask = async (input: { permission: string; patterns: string[]; always: string[]; metadata: Record<string, unknown> }) => {
          const subject = input.metadata.subject as string
          expect(input.patterns).toEqual([subject])
          asked.push({ permission: input.permission, subject, ...(input.metadata.preview !== undefined ? { preview: input.metadata.preview as string } : {}) })
          if (fx.ask?.reply === "reject") throw new Error(fx.ask.message ?? "")
        }
        const ctx = fx.ask ? { worktree: work, directory: work, ask } : { worktree: work, directory: work }
        const { text: out, isError } = await runToolAnswer(fx.spec, {}, fx.args, ctx)
        if (fx.asked !== undefined) expect(asked).toEqual(fx.asked)
        if (process.env.UPDATE_CONFORMANCE) writeFileSync(join(DIR, file), JSON.stringify({ ...fx, expected: out }, null, 2) + "\n")
        else expect(out).toBe(fx.expected)
        if (fx.is_error !== undefined) expect(isError).toBe(fx.is_error)
        // runTool answers the same text, or throws it when the spec makes failures the host's errors.
        const throws = isError && (fx.spec as { answer?: { errors?: string } }).answer?.errors === "error"
        const again = runTool(fx.spec, {}, fx.args, ctx)
        if (throws) await expect(again).rejects.toThrow(out)
        else expect(await again).toBe(out)
      } finally {
        process.env.PATH = oldPath
      }
    })
  }
})
