#!/usr/bin/env node
// A fake `ix` 0.9.3 that answers `--format json` with the JSON shapes of ../shared/IX-CLI.md.
// It logs its argv (one JSON array per line) to $IX_ARGV_LOG. Knobs:
//   IX_SCENARIO=notfound   targets resolve to nothing (exit 0; locate prints resolvedTarget null, others print nothing)
//   IX_SCENARIO=ambiguous  locate lists candidates
//   IX_SCENARIO=empty      lists come back empty
//   IX_SCENARIO=down       the backend is unreachable: stderr and exit 1 (as the real CLI)
//   IX_RISK=low-few|low-many|high   ix impact's answer (default: from the name: core/payment high, api medium, else low)
//   IX_STATUS_FAILS=1  `ix status` exits 1;  IX_STALE=n  stale files;  IX_PRO=1  Ix Pro is installed
//   IX_ANSWER_LOG=file  also logs each answer, one JSON line {argv, stdout, stderr, code} (tests/ix_facts.rs
//                       counts the facts of the answers a tool received)
const fs = require("node:fs")
const args = process.argv.slice(2)
if (process.env.IX_ARGV_LOG) fs.appendFileSync(process.env.IX_ARGV_LOG, JSON.stringify(args) + "\n")
const env = process.env, scenario = env.IX_SCENARIO ?? ""
const answered = (stdout, stderr, code) => {
  if (env.IX_ANSWER_LOG) fs.appendFileSync(env.IX_ANSWER_LOG, JSON.stringify({ argv: args, stdout, stderr, code }) + "\n")
  process.stdout.write(stdout); process.stderr.write(stderr); process.exit(code)
}
const out = (v) => answered(JSON.stringify(v) + "\n", "", 0)
const fail = (msg) => answered("", msg + "\n", 1)
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def }
const dd = args.indexOf("--")
const name = dd >= 0 ? args[dd + 1] : args[1]
const cmd = args[0]
if (cmd === "--version") { console.log("0.9.3"); process.exit(0) }
const pro = ["briefing", "decide", "decisions", "bug", "goal", "goals", "plan", "plans", "task", "tasks"]
if (pro.includes(cmd) && !env.IX_PRO) fail(`The '${cmd}' command requires Ix Pro.`)
if (scenario === "down" && cmd !== "text") fail("Ix backend not reachable at http://localhost:8090.\nNext: ix docker start, then ix status")
const notfound = scenario === "notfound", empty = scenario === "empty"
const kindOf = (n) => (/^[a-z]/.test(n) ? "function" : n.includes("/") ? "file" : "class")
const target = { id: "n-" + name, kind: kindOf(name), name, path: "src/services/user.ts" }
const names = ["CheckoutService", "RefundHandler", "WebhookDispatcher", "PaymentRouter", "AdminBillingController", "InvoiceBuilder", "LedgerWriter", "TaxCalculator", "CartController", "OrderService", "ShippingQuote", "CouponEngine", "FraudCheck", "ReceiptMailer", "AuditLog", "SessionRouter", "UserRouter", "MetricsSink"]
const node = (n, i) => ({ name: n, kind: i % 3 === 2 ? "function" : "class", id: "id-" + i, path: `src/${["billing", "api", "webhooks"][i % 3]}/${n.toLowerCase()}.ts` })
const edges = (total) => {
  const limit = Number(opt("--limit", "50")), all = empty ? [] : names.slice(0, total).map(node)
  return { results: all.slice(0, limit), resultSource: "graph", resolvedTarget: target, summary: { total: all.length, resolved: all.length, unresolved: 0 } }
}
const unresolved = () => { if (notfound) answered("", "", 0) }
const regions = [["auth", 48, 0.71, 0.22], ["api", 61, 0.68, 0.31], ["models", 82, 0.34, 0.58], ["services", 55, 0.62, 0.28], ["utils", 33, 0.81, 0.09], ["billing", 33, 0.74, 0.35]]
switch (cmd) {
  case "locate":
    if (scenario === "ambiguous") out({ resolvedTarget: null, resolutionMode: "ambiguous", candidates: [{ id: "a1", name, kind: "class", path: "src/services/user.ts", score: 0.92, rank: 1 }, { id: "a2", name, kind: "function", path: "src/legacy/user.ts", score: 0.61, rank: 2 }], systemPath: null, diagnostics: [] })
    if (notfound) out({ resolvedTarget: null, resolutionMode: "none", systemPath: null, diagnostics: [] })
    out({ resolvedTarget: { ...target, kind: opt("--kind", target.kind) }, resolutionMode: "scored", lineRange: { start: 12, end: 240 }, systemPath: [{ name: "auth", kind: "subsystem" }], diagnostics: [] })
  case "explain":
    unresolved()
    out({ resolvedTarget: { kind: target.kind, name }, facts: { id: target.id, name, kind: opt("--kind", target.kind), path: target.path, subsystemName: "auth", callerCount: 14, calleeCount: 7, dependentCount: 18, importerCount: 3, memberCount: 9, topCallers: [{ name: "UserRouter", kind: "class" }], topDependents: [{ name: "UserRouter", kind: "class" }, { name: "SessionRouter", kind: "class" }] }, role: { role: "orchestrator", confidence: 0.82, reasons: ["many callees"] }, importance: { level: "high", category: "shared", reasons: ["18 dependents"] }, rendered: { explanation: `${name} manages the user lifecycle: creation, authentication state and session binding.`, context: "", usedBy: "routers", whyItMatters: "Central to the auth subsystem.", notes: [] } })
  case "callers": unresolved(); out(edges(18))
  case "callees": unresolved(); out(edges(8))
  case "imported-by": unresolved(); out(edges(4))
  case "depends":
    unresolved()
    out({ resolvedTarget: target, semantics: "downstream_dependents", tree: empty ? [] : names.slice(0, 2 + 2 * Number(opt("--depth", "1"))).map((n, i) => ({ ...node(n, i), rel: "calls" })), traversal: { nodesVisited: 9, maxDepthReached: Number(opt("--depth", "1")), truncated: false } })
  case "impact": {
    unresolved()
    const risk = env.IX_RISK ?? (/core|payment/i.test(name) ? "high" : /api/i.test(name) ? "medium-some" : "low-few")
    const [level, dependents] = { "low-few": ["low", 1], "low-many": ["low", 5], "medium-some": ["medium", 4], high: ["high", 18] }[risk]
    out({ resolvedTarget: { kind: target.kind, name }, riskLevel: level, riskCategory: level === "low" ? "local" : "shared", riskSummary: `${dependents} direct dependent(s) across ${level === "high" ? 3 : 1} subsystem(s).`,
      atRiskBehavior: level === "high" ? ["payment state transitions", "idempotency key validation"] : [],
      summary: { members: 3, directImporters: 2, directDependents: dependents, memberLevelCallers: 4 }, callerList: names.slice(0, 3).map((n) => ({ kind: "class", name: n })),
      propagationBuckets: level === "high" ? [{ region: "billing", regionKind: "subsystem", count: 9, members: [] }, { region: "api", regionKind: "subsystem", count: 6, members: [] }, { region: "webhooks", regionKind: "subsystem", count: 3, members: [] }] : [{ region: "billing", regionKind: "subsystem", count: dependents, members: [] }] })
  }
  case "subsystems":
    if (args.includes("--list")) out({ scores: regions.map(([n, f], i) => ({ name: n, level: 1, health: [0.9, 0.85, 0.41, 0.8, 0.95, 0.88][i], files: f, chunks_per_file: 3.2, smell_files: i === 2 ? 7 : 0 })) })
    {
      const scope = args[1] && !args[1].startsWith("-") ? args[1] : null
      const rs = empty ? [] : regions.filter(([n]) => !scope || n === scope)
      out({ file_count: 312, region_count: rs.length, levels: 2, map_rev: 42, regions: rs.map(([label, files, cohesion, coupling]) => ({ label, label_kind: "subsystem", level: 1, files, cohesion, coupling, confidence: 0.9 })) })
    }
  case "stats":
    out({ nodes: { total: 4821, byKind: [{ kind: "file", count: 312 }, { kind: "class", count: 410 }, { kind: "function", count: 3101 }, { kind: "module", count: 998 }] }, edges: { total: 18432, byPredicate: [{ predicate: "calls", count: 12001 }, { predicate: "imports", count: 5210 }, { predicate: "contains", count: 1221 }] } })
  case "status":
    if (env.IX_STATUS_FAILS) fail("Ix backend not reachable at http://localhost:8090.\nNext: ix docker start, then ix status")
    out({ backend: "ok", currentRev: 4821, lastIngestAt: "2026-04-09T14:32:00Z", staleFiles: Number(env.IX_STALE ?? 0), sampleChangedFiles: [] })
  case "doctor":
    out({ healthy: false, hasWarnings: true, checks: [{ name: "backend", ok: false, detail: "not reachable at http://localhost:8090" }, { name: "config", ok: true, detail: "~/.ix/config.yaml" }] })
  case "text": {
    const limit = Number(opt("--limit", "20")), pool = empty ? 0 : 30
    out(Array.from({ length: Math.min(limit, pool) }, (_, i) => ({ path: `${opt("--path", "src")}/mod${i}.ts`, line_start: 10 + i, line_end: 10 + i, snippet: `export const ${name} = ${i}`, engine: "ripgrep", score: 1 - i / 100, language: opt("--language", "typescript") })))
  }
  case "rank": {
    const top = Number(opt("--top", "10")), pool = names.concat(names.map((n) => n + "Impl"), names.map((n) => n + "V2"))
    const results = pool.slice(0, top).map((n, i) => ({ name: n, kind: opt("--kind"), score: 60 - i }))
    out({ metric: opt("--by"), kind: opt("--kind"), ...(opt("--path") ? { scope: opt("--path") } : {}), results, summary: { evaluated: pool.length, returned: results.length } })
  }
  case "inventory": {
    const p = opt("--path", "."), k = opt("--kind")
    out({ kind: k, scope: p, total: 5, byFile: [{ path: `${p}/router.ts`, items: ["Router", "RouteTable"] }, { path: `${p}/handlers.ts`, items: ["getUser", "putUser", "deleteUser"] }] })
  }
  case "trace":
    unresolved()
    if (opt("--to")) out({ mode: "path", from: { name, kind: "function" }, to: { name: opt("--to"), kind: "class" }, path: empty ? null : [{ name, kind: "function" }, { name: "PostingService", kind: "class" }, { name: opt("--to"), kind: "class" }] })
    out({ mode: "directional", target: { name, kind: "function" }, direction: "both", upstream: { tree: names.slice(0, 3).map(node), summary: { nodes: 3 } }, downstream: { tree: names.slice(5, 7).map(node), summary: { nodes: 2 } } })
  case "smells":
    out({ rev: 42, run_at: "2026-04-09T14:32:00Z", count: empty ? 0 : 60, candidates: empty ? [] : Array.from({ length: 60 }, (_, i) => ({ file: `src/m${i}.ts`, smell: ["orphan", "god-module", "weak-component"][i % 3], confidence: Math.round((0.95 - i / 100) * 100) / 100, signals: { fan: i } })) })
  case "overview":
    unresolved()
    out({ resolvedTarget: { id: target.id, kind: "subsystem", name }, path: `src/${name}`, systemPath: [{ name: "app", kind: "system" }], childrenByKind: { file: 33, class: 12 }, keyItems: ["PaymentProcessor", "SubscriptionManager", "InvoiceBuilder", "StripeAdapter", "BillingRepository", "TaxCalculator", "CouponEngine"].map((n) => ({ name: n, kind: "class" })), containedIn: { kind: "system", name: "app" } })
  case "map":
    out({ file_count: 312, region_count: 6, levels: 2, map_rev: 43, outcome: "updated", regions: [] })
  case "briefing":
    out({ revision: "rev-4821", decisions: [{ title: "Move session storage to Redis", date: "2026-03-15", rationale: "sessions must be stateless to scale out" }, { title: "Deprecate legacy token format", date: "2026-02-28", rationale: "new tokens use JWT" }], bugs: [{ title: "Session expires early on mobile", severity: "high", affects: "SessionManager" }], goals: [{ statement: "Stateless sessions by v3" }] })
  case "decisions":
    out({ decisions: [{ title: `Keep ${opt("--topic")} behind an interface`, date: "2026-03-01", rationale: "two storage backends" }] })
  case "patches":
    out(Array.from({ length: Number(opt("--limit", "50")) > 3 ? 3 : 1 }, (_, i) => ({ rev: 4821 - i, patch_id: "p" + i, intent: ["Refactor checkout", "Add coupon engine", "Fix tax rounding"][i], timestamp: `2026-04-0${9 - i}T10:00:00Z`, source: "cli" })))
  case "history":
    unresolved()
    out({ resolvedTarget: target, patches: [{ rev: 4800, intent: `Split ${name}`, timestamp: "2026-04-01T10:00:00Z", source: "cli" }] })
  default:
    fail(`error: unknown command '${cmd}'`)
}
