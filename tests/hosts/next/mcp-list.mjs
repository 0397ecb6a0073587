#!/usr/bin/env node
// Usage: node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] -- <command> [args...]
//        node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] [--token <bearer>] --url <http-url>
//   (--url: the server is already listening for Streamable HTTP there; --token is sent as a bearer token)
//
// A real MCP client for protocol revision 2026-07-28 (@modelcontextprotocol/client
// 2.4.0 `Client` + `StdioClientTransport`, pinned to 2026-07-28: no fallback to
// the 2025 `initialize` handshake, so a server that cannot speak 2026-07-28
// fails here). Spawns <command>, negotiates, calls listTools(), and prints
//   {"protocolVersion": <negotiated>, "list": <listTools() result>, "call": <callTool() result or null>}
// as JSON on stdout. Exit 0 on success (a tool result with isError: true is
// still a success: it is printed for the caller to judge), 1 when the server
// cannot be started or negotiated with, or when listTools()/callTool() throws
// (the client rejects the whole tools/list if one tool's inputSchema lacks
// type "object"), 2 on bad usage.
//
// The server gets this process's whole environment and working directory; its
// stderr goes to this process's stderr.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
const REVISION = "2026-07-28";

function usage(msg) {
  if (msg) console.error(`mcp-list: ${msg}`);
  console.error("usage: node mcp-list.mjs [--call <tool> <json-args>] [--timeout <ms>] -- <command> [args...]");
  process.exit(2);
}

const argv = process.argv.slice(2);
let call = null;
let timeout = 30000;
let url = null;
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
const client = new Client(
  { name: "ixgen-mcp-list", version: "0.0.0" },
  { capabilities: {}, versionNegotiation: { mode: { pin: REVISION } } },
);

try {
  await client.connect(transport, { timeout });
} catch (err) {
  fail(`cannot start or negotiate ${REVISION} with \`${command.join(" ")}\``, err);
}

const out = { protocolVersion: client.getNegotiatedProtocolVersion() ?? null, list: null, call: null };
try {
  out.list = await client.listTools(undefined, { timeout });
} catch (err) {
  fail("tools/list failed", err);
}
if (call) {
  try {
    out.call = await client.callTool(call, { timeout });
  } catch (err) {
    fail(`tools/call ${call.name} failed`, err);
  }
}

clearTimeout(timer);
process.stdout.write(JSON.stringify(out, null, 2) + "\n", () => {
  client.close().finally(() => process.exit(0));
});
