# The ralph loop's own way of writing its session tools (seed 003): Nushell string
# interpolation into a file. `benches/run.sh` times it beside ixgen in the same run.
#
# The seed's text is kept, but its `$'…'` string does not parse in Nushell 0.108 (`\(` is no
# escape there: "unclosed delimiter"), so it is written as the `$"…"` string that Nushell's
# interpolation does escape that way; the file it writes is the same.
def generate-tools [
  store_path: string
  name: string
  iteration: int
  pid: int
] {
  let abs_store = ($store_path | path expand)

  let content = $"import { tool } from \"@opencode-ai/plugin\"

const STORE_PATH = \"($abs_store)\"
const SESSION_NAME = \"($name)\"
const ITERATION = ($iteration)
const PARENT_PID = ($pid)
const TOPIC = `ralph.${SESSION_NAME}.task`

export const task_add = tool\({
  description: \"Add a new task to the ralph session task list\",
  args: {
    content: tool.schema.string\().describe\(\"Task description\"),
    status: tool.schema.enum\([\"remaining\", \"blocked\"]).default\(\"remaining\").describe\(\"Initial status\"),
  },
  async execute\(args) {
    const meta = JSON.stringify\({ action: \"add\", status: args.status })
    const result = await Bun.$`echo ${args.content} | xs append ${STORE_PATH} ${TOPIC} --meta ${meta}`.text\()
    return result.trim\()
  },
})

export const task_status = tool\({
  description: \"Update a task status by ID. Use IDs from task_list output.\",
  args: {
    id: tool.schema.string\().describe\(\"Task ID \(full or 8+ char prefix)\"),
    status: tool.schema.enum\([\"in_progress\", \"completed\", \"blocked\"]).describe\(\"New status\"),
  },
  async execute\(args) {
    const meta = JSON.stringify\({ action: \"status\", id: args.id, status: args.status, iteration: ITERATION })
    const result = await Bun.$`xs append ${STORE_PATH} ${TOPIC} --meta ${meta}`.text\()
    return `Task ${args.id} marked as ${args.status}`
  },
})

export const task_list = tool\({
  description: \"Get current task list grouped by status. Shows task IDs needed for task_status.\",
  args: {},
  async execute\() {
    const cmd = `xs cat ${STORE_PATH} | from json --objects | where topic == \"${TOPIC}\" | each {|f| {id: $f.id, status: $f.meta.status, content: \(xs cas ${STORE_PATH} $f.hash)}} | group-by status | to json`
    const result = await Bun.$`nu -c ${cmd}`.text\()
    return result.trim\() || \"No tasks yet\"
  },
})

export const session_complete = tool\({
  description: \"Signal that ALL tasks are complete and terminate the ralph session. Only call when every task is done.\",
  args: {},
  async execute\() {
    await Bun.$`kill -TERM ${PARENT_PID}`
    return \"Session terminated\"
  },
})
"

  mkdir .opencode/tool
  $content | save -f .opencode/tool/ralph.ts
}
