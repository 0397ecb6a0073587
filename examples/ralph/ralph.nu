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

# The session's tasks grouped by status, folded from the store the way the loop reads it and
# the way the `task_list` tool does: an `add` frame creates a task, a later `status` frame
# changes its status when its `id` is the task's full id or an 8+ character prefix (any case)
# of exactly one task added before it. A prefix that matches several tasks changes nothing.
export def tasks [store: path, session: string] {
  let topic = $"ralph.($session).task"
  let frames = (^xs cat $store | lines | where {|l| $l != "" } | each {|l| $l | from json } | where topic == $topic)
  let folded = ($frames | reduce --fold [] {|f, acc|
    let action = ($f.meta?.action? | default "")
    if $action == "add" {
      $acc | append {id: $f.id, hash: $f.hash, status: $f.meta.status}
    } else if $action == "status" and ($f.meta?.id? | describe) == "string" {
      let want = ($f.meta.id | str trim | str downcase)
      let exact = ($acc | enumerate | where {|t| ($t.item.id | str downcase) == $want })
      let hits = if ($exact | is-not-empty) { $exact } else if ($want | str length) >= 8 {
        $acc | enumerate | where {|t| $t.item.id | str downcase | str starts-with $want }
      } else { [] }
      if ($hits | length) == 1 { $acc | update ($hits | first | get index) {|t| $t | merge {status: $f.meta.status} } } else { $acc }
    } else { $acc }
  })
  $folded | each {|t| {id: $t.id, status: $t.status, content: (^xs cas $store $t.hash)} } | group-by status
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
