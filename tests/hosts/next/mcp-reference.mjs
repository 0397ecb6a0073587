#!/usr/bin/env node
// Usage: node mcp-reference.mjs
//
// The reference answer to a request a client gets wrong: a stdio MCP server on the real SDK
// (@modelcontextprotocol/server 2.4.0, low-level `Server` over `StdioServerTransport`, a
// 2025-era `initialize`) with one tool, `search`, that answers its arguments. `ixgen serve`
// is held to the error codes it gives the same raw lines (tests/host_serve.rs).
// Diagnostics go to stderr; stdout carries only the protocol.
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const server = new Server({ name: "ixgen-mcp-reference", version: "0.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler("tools/list", async () => ({
  tools: [{ name: "search", inputSchema: { type: "object", properties: { pattern: { type: "string" } } } }],
}));
server.setRequestHandler("tools/call", async (request) => ({
  content: [{ type: "text", text: JSON.stringify(request.params.arguments ?? {}) }],
}));
server.onerror = (err) => console.error(`mcp-reference: ${err.message}`);
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
