# The loop side of ralph's session tools: a Nushell module.
#
#   use examples/ralph/ralph.nu
#   ralph run my-session --spec SPEC.md
#
# At every iteration the loop calls ixgen, which rewrites `.opencode/tools/ralph.ts` with the
# loop's context baked in (store, session, iteration, the loop's pid) and leaves every other
# generated file alone. The agent then uses the session tools (task_add, task_status, ...);
# the loop reads the same store with `ralph tasks`.

# Regenerates the session tools for one iteration. Fails (exit 2, nothing written) on a
# session name that is not a valid store topic part.
export def regenerate [session: string, iteration: int, store: path, --pid: int] {
  let pid = ($pid | default $nu.pid)
  ^ixgen opencode --session $session --iteration $iteration --store $store --pid $pid --quiet
}

# The session's tasks grouped by status, folded from the store the way the loop reads it:
# an `add` frame creates a task, a `status` frame (whose `id` may be an 8+ character prefix)
# changes its status.
export def tasks [store: path, session: string] {
  let topic = $"ralph.($session).task"
  let frames = (^xs cat $store | lines | where {|l| $l != "" } | each {|l| $l | from json } | where topic == $topic)
  let adds = ($frames | where {|f| ($f.meta?.action? | default "") == "add" })
  let updates = ($frames | where {|f| ($f.meta?.action? | default "") == "status" })
  $adds | each {|f|
    let mine = ($updates | where {|u| $f.id | str starts-with $u.meta.id })
    let status = if ($mine | is-empty) { $f.meta.status } else { $mine | last | get meta.status }
    {id: $f.id, status: $status, content: (^xs cas $store $f.hash)}
  } | group-by status
}

# Whether the agent called session_complete.
export def completed [store: path, session: string] {
  ^xs cat $store | lines | where {|l| $l != "" } | each {|l| $l | from json }
  | where topic == $"ralph.($session).control"
  | any {|f| ($f.meta?.action? | default "") == "session_complete" }
}

# The loop: an `xs` store, an OpenCode server, one agent run per iteration.
export def run [
  session: string
  --spec: path = "SPEC.md"
  --store: path = ".ralph/store"
  --iterations: int = 20
  --model: string = "anthropic/claude-sonnet-4-5"
  --port: int = 4096
] {
  let store = ($store | path expand)
  mkdir $store
  let xs_job = (job spawn { ^xs serve $store })
  let oc_job = (job spawn { ^opencode serve --port $port })
  for n in 1..$iterations {
    regenerate $session $n $store
    let state = (tasks $store $session | to json)
    let prompt = $"## Context\n- Spec: ($spec)\n- Iteration: #($n)\n\n## Current Task State\n($state)\n\nPick ONE task, mark it in_progress with task_status, do it, mark it completed, commit. Call session_complete when ALL tasks are done."
    ^opencode run --attach $"http://127.0.0.1:($port)" --title $"($session) - Iteration #($n)" -m $model $prompt
    if (completed $store $session) { break }
  }
  job kill $oc_job
  job kill $xs_job
}
