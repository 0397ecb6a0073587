#!/usr/bin/env node
// Usage: node mcp-serve.mjs <tools.json>
//
// A dumb stdio MCP server built on the real SDK (low-level `Server` +
// `StdioServerTransport`, @modelcontextprotocol/sdk 1.32.2).
//   tools/list -> { tools: <the "tools" array of the file, as is> }
//   tools/call -> { content: [{ type: "text", text: JSON.stringify({ name, arguments }) }] }
// The file is read once at start; it must be a tools/list result ({"tools": [...]}).
// Nothing is validated here on purpose: this serves what ixgen generated, so
// that a real client (mcp-list.mjs, Claude Code) is the one that judges it.
// Diagnostics go to stderr; stdout carries only the protocol.
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error("usage: node mcp-serve.mjs <tools.json>");
  process.exit(2);
}

let doc;
try {
  doc = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  console.error(`mcp-serve: cannot read ${file}: ${err.message}`);
  process.exit(2);
}
if (doc === null || typeof doc !== "object" || !Array.isArray(doc.tools)) {
  console.error(`mcp-serve: ${file} is not a tools/list result: it needs a "tools" array`);
  process.exit(2);
}
const tools = doc.tools;

const server = new Server({ name: "ixgen-mcp-serve", version: "0.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [
    {
      type: "text",
      text: JSON.stringify({ name: request.params.name, arguments: request.params.arguments ?? {} }),
    },
  ],
}));

const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
process.stdin.on("end", () => process.exit(0));
await server.connect(transport);
