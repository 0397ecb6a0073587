#!/usr/bin/env node
// Usage: node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] -- <command> [args...]
//        node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] [--token <bearer>] --url <http-url>
//   (--url: the server is already listening for Streamable HTTP there; --token is sent as a bearer token)
//   --elicit accept|decline: the client offers elicitation and answers every request so
//   (the requests' messages are printed as "elicited": [...])
//   --elicit-modes <m,...>: the modes the elicitation capability names (`form`, `url`); without it, `{}`
//   --cancel-after <ms>: the call is aborted after <ms> (the client sends notifications/cancelled);
//   the abort is printed as "call": {"aborted": <message>} instead of a result
//
// A real MCP client (@modelcontextprotocol/sdk 1.32.2 `Client` +
// `StdioClientTransport`): spawns <command>, initializes, calls listTools().
//   without --call: prints the listTools() result ({"tools": [...]}) as JSON on stdout
//   with --call:    prints {"list": <listTools() result>, "call": <callTool() result>}
// Exit 0 on success (a tool result with isError: true is still a success here:
// it is printed for the caller to judge), 1 when the server cannot be started
// or initialized, or when listTools()/callTool() throws (the SDK rejects the
// whole tools/list if one tool's inputSchema lacks type "object", and
// callTool() throws when a tool with an outputSchema returns no
// structuredContent), 2 on bad usage.
//
// The server gets this process's whole environment (the SDK alone would pass
// only HOME, LOGNAME, PATH, SHELL, TERM, USER) and its working directory; its
// stderr goes to this process's stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

function usage(msg) {
  if (msg) console.error(`mcp-list: ${msg}`);
  console.error("usage: node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] -- <command> [args...]");
  process.exit(2);
}

const argv = process.argv.slice(2);
let call = null;
let timeout = 30000;
let url = null;
let elicit = null;
let elicitModes = null;
let cancelAfter = null;
const elicited = [];
let token = null;
let i = 0;
for (; i < argv.length && argv[i] !== "--"; i++) {
  if (argv[i] === "--call") {
    if (i + 2 >= argv.length) usage("--call needs <tool> <json-args>");
    let args;
    try {
      args = JSON.parse(argv[i + 2]);
    } catch (err) {
      usage(`--call arguments are not JSON: ${err.message}`);
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) usage("--call arguments must be a JSON object");
    call = { name: argv[i + 1], arguments: args };
    i += 2;
  } else if (argv[i] === "--url") {
    url = argv[++i];
  } else if (argv[i] === "--cancel-after") {
    cancelAfter = Number(argv[++i]);
  } else if (argv[i] === "--elicit") {
    elicit = argv[++i];
  } else if (argv[i] === "--elicit-modes") {
    elicitModes = argv[++i].split(",");
  } else if (argv[i] === "--token") {
    token = argv[++i];
  } else if (argv[i] === "--timeout") {
    timeout = Number(argv[++i]);
    if (!Number.isFinite(timeout) || timeout <= 0) usage("--timeout needs a positive number of milliseconds");
  } else {
    usage(`unknown option ${argv[i]}`);
  }
}
const command = argv.slice(i + 1);
if (url === null && (i >= argv.length || command.length === 0)) usage("missing -- <command> [args...] or --url <http-url>");
if (url !== null) command.splice(0, command.length, url);

const fail = (what, err) => {
  console.error(`mcp-list: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
};

const timer = setTimeout(() => fail("timed out", `no answer within ${timeout} ms from ${command.join(" ")}`), timeout);

const transport = url !== null
  ? new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: token === null ? {} : { Authorization: `Bearer ${token}` } } })
  : new StdioClientTransport({
  command: command[0],
  args: command.slice(1),
  env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
  cwd: process.cwd(),
  stderr: "inherit",
});
// The SDK sends `notifications/cancelled` without waiting for it (protocol.js: `send(...).catch`), and
// close() aborts every request still in flight over HTTP: exiting right after an abort could drop the
// cancellation. A real client keeps running; this one waits for what it sent before it closes.
const inFlight = new Set();
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  const p = send(message, options);
  inFlight.add(p);
  p.then(() => inFlight.delete(p), () => inFlight.delete(p));
  return p;
};
const client = new Client({ name: "ixgen-mcp-list", version: "0.0.0" }, { capabilities: elicit === null ? {} : { elicitation: elicitModes === null ? {} : Object.fromEntries(elicitModes.map((m) => [m, {}])) } });
if (elicit !== null) {
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    elicited.push(req.params.message);
    return elicit === "accept" ? { action: "accept", content: {} } : { action: elicit };
  });
}

try {
  await client.connect(transport, { timeout });
} catch (err) {
  fail(`cannot start or initialize \`${command.join(" ")}\``, err);
}

let list;
try {
  list = await client.listTools(undefined, { timeout });
} catch (err) {
  fail("tools/list failed", err);
}

let out = list;
if (call) {
  try {
    if (cancelAfter !== null) {
      const signal = AbortSignal.timeout(cancelAfter);
      out = { list, call: await client.callTool(call, undefined, { timeout, signal }).catch((err) => ({ aborted: String(err?.message ?? err) })) };
    } else out = { list, call: await client.callTool(call, undefined, { timeout }) };
    if (elicit !== null) out.elicited = elicited;
  } catch (err) {
    fail(`tools/call ${call.name} failed`, err);
  }
}

clearTimeout(timer);
await Promise.allSettled([...inFlight]);
process.stdout.write(JSON.stringify(out, null, 2) + "\n", () => {
  client.close().finally(() => process.exit(0));
});
