# A stand-in for the ralph loop (mark3labs/ralph.nu at 19983b4), as a Nushell module, with
# ixgen generating the session tools. It keeps the real loop's layout and store protocol, so
# the tests read the store exactly as the loop does:
#
#   use examples/ralph/ralph.nu
#   ralph build --name my-feature --spec specs/my-feature.md     # the loop
#   ralph message --name my-feature "Please cover the README"     # a message to the agent
#
# - The store is `.ralph/store` under the project (the directory the loop runs in).
# - Topics: `ralph.<name>.task`, `.note`, `.inbox`, `.control`, `.iteration`.
# - The one change from the real loop: `generate-tools` calls
#   `ixgen opencode --session <name> --iteration <n>` at every iteration, which writes the
#   session tools to `.opencode/tool/ralph.ts` (the loop's own path) with the context baked in.
#
# Written for this repository (not copied from ralph.nu); see docs/ralph.md.

# The loop's store, relative to the project root (the real loop hard-codes it).
export const STORE = ".ralph/store"

# Frames of one topic, in store order.
def frames [store: path, topic: string] {
  ^xs cat $store | lines | where {|l| $l != "" } | each {|l| $l | from json } | where topic == $topic
}

# The id of the first key of `state` that equals `want` or starts with it (the loop's rule for
# status changes and mark_read: the first match wins), or null.
def first-match [state: record, want: string] {
  let hits = ($state | columns | where {|id| $id == $want or ($id | str starts-with $want) })
  if ($hits | is-empty) { null } else { $hits | first }
}

# The session's tasks by status: a frame without `action` or with `action: add` adds a task
# (status defaults to `remaining`); `action: status` changes the first task whose id equals or
# starts with `meta.id`; every other frame is ignored.
export def task-state [store: path, name: string] {
  let tasks = (frames $store $"ralph.($name).task" | reduce --fold {} {|f, state|
    let action = ($f.meta.action? | default "add")
    if $action == "add" {
      $state | upsert $f.id {
        id: $f.id
        content: (^xs cas $store $f.hash)
        status: ($f.meta.status? | default "remaining")
        iteration: ($f.meta.iteration? | default null)
      }
    } else if $action == "status" {
      let hit = (first-match $state ($f.meta.id? | default "" | into string))
      if $hit == null { $state } else {
        $state | update $hit {|s| $s | get $hit | merge {status: $f.meta.status, iteration: ($f.meta.iteration? | default null)} }
      }
    } else { $state }
  })
  let list = ($tasks | values)
  let grouped = if ($list | is-empty) { {} } else { $list | group-by status }
  {
    completed: ($grouped | get -o completed | default [])
    in_progress: ($grouped | get -o in_progress | default [])
    blocked: ($grouped | get -o blocked | default [])
    remaining: ($grouped | get -o remaining | default [])
  }
}

# Every note of the session: type (default `note`), iteration and content.
export def note-state [store: path, name: string] {
  frames $store $"ralph.($name).note" | each {|f|
    {id: $f.id, type: ($f.meta.type? | default "note"), iteration: ($f.meta.iteration? | default null), content: (^xs cas $store $f.hash)}
  }
}

# The unread messages: a frame with `action: add` (or no action) or `status: unread` is a
# message; `action: mark_read` marks the first message whose id equals or starts with
# `meta.id` as read; anything else leaves a message unread.
export def inbox-state [store: path, name: string] {
  let messages = (frames $store $"ralph.($name).inbox" | reduce --fold {} {|f, state|
    let action = ($f.meta.action? | default "add")
    if $action == "mark_read" {
      let hit = (first-match $state ($f.meta.id? | default "" | into string))
      if $hit == null { $state } else { $state | update $hit {|s| $s | get $hit | merge {status: "read"} } }
    } else if $action == "add" or ($f.meta.status? == "unread") {
      $state | upsert $f.id {id: $f.id, content: (^xs cas $store $f.hash), status: "unread", timestamp: ($f.meta.timestamp? | default "")}
    } else { $state }
  })
  $messages | values | where status == "unread"
}

# Whether the agent ended the session: a `session_complete` frame on the control topic whose
# `ts` (milliseconds since the epoch) is within the last 5 minutes. A frame without `ts` is
# never seen.
export def completed [store: path, name: string] {
  let cutoff = (((date now) - 5min | into int) / 1_000_000)
  frames $store $"ralph.($name).control"
  | where {|f| ($f.meta.action? | default "") == "session_complete" }
  | any {|f| ($f.meta.ts? | default 0) > $cutoff }
}

# The largest iteration number logged, 0 for a new session (the loop continues after it).
export def last-iteration [store: path, name: string] {
  let ns = (frames $store $"ralph.($name).iteration" | each {|f| $f.meta.n? } | compact)
  if ($ns | is-empty) { 0 } else { $ns | math max }
}

# Sends a message to a running session, as `ralph.nu message` does: status unread, a
# timestamp, no action.
export def message [text: string, --name (-n): string, --store: path = $STORE] {
  let ts = (date now | format date "%Y-%m-%dT%H:%M:%S%z")
  let topic = $"ralph.($name).inbox"
  let out = ($text | ^xs append $store $topic --meta ({status: "unread", timestamp: $ts} | to json -r))
  if ($out | str trim | is-not-empty) { return ($out | from json | get id) }
  # xs 0.13.4 sometimes exits 0 without printing the frame it stored (its stdout is not
  # flushed): the newest frame on the topic with this meta is the one just sent.
  frames $store $topic | where {|f| $f.meta.status? == "unread" and $f.meta.timestamp? == $ts } | last | get id
}

# Logs an iteration event on `ralph.<name>.iteration`.
def log-iteration [store: path, name: string, meta: record] {
  let meta = ($meta | merge {timestamp: (date now | format date "%Y-%m-%dT%H:%M:%S%z")} | to json -r)
  "" | ^xs append $store $"ralph.($name).iteration" --meta $meta | ignore
}

# The loop's `generate-tools` step, changed to call ixgen at every iteration: ixgen bakes the
# store (`.ralph/store` under the project, made absolute), the session and the iteration into
# `.opencode/tool/ralph.ts` and leaves every other file alone. Exit 2 (nothing written) on a
# session name that cannot be part of a store topic.
export def generate-tools [name: string, iteration: int] {
  ^ixgen opencode --session $name --iteration $iteration --quiet
}

# The loop: an `xs` store, an OpenCode server, one agent run per iteration until the agent
# calls session_complete or the iterations run out.
export def build [
  --name (-n): string
  --spec (-s): path = "./specs/SPEC.md"
  --iterations (-i): int = 0
  --model (-m): string = "anthropic/claude-sonnet-4-5"
  --port: int = 4096
] {
  let store = $STORE
  mkdir $store
  let xs_job = (job spawn { ^xs serve $store })
  let oc_job = (job spawn { ^opencode serve --port $port })
  let spec = (open --raw $spec)
  mut n = (last-iteration $store $name) + 1
  loop {
    generate-tools $name $n
    let tasks = (task-state $store $name | to json)
    let inbox = (inbox-state $store $name | to json)
    let prompt = $"## Context\nSession: ($name) | Iteration: #($n)\nSpec: ($spec)\nInbox: ($inbox)\n\n## Task State\n($tasks)\n\n## Tools - all take session_name=\"($name)\"\n- inbox_list / inbox_mark_read\(id\)\n- task_add\(content, status?\) / task_status\(id, status\) / task_list\n- note_add\(content, type\) / note_list\(type?\)\n- session_complete - call when ALL tasks are done\n"
    log-iteration $store $name {action: "start", n: $n}
    ^opencode run --attach $"http://localhost:($port)" --title $"($name) - Iteration #($n)" -m $model $prompt
    let status = if $env.LAST_EXIT_CODE == 0 { "success" } else { "failure" }
    log-iteration $store $name {action: "complete", n: $n, status: $status}
    if (completed $store $name) { break }
    $n += 1
    if $iterations > 0 and $n > $iterations { break }
  }
  job kill $oc_job
  job kill $xs_job
}
