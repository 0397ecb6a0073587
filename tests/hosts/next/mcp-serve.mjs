#!/usr/bin/env node
// Usage: node mcp-serve.mjs <tools.json>
//
// A dumb stdio MCP server for protocol revision 2026-07-28, built on the real
// split SDK (@modelcontextprotocol/server 2.4.0: low-level `Server` behind
// `serveStdio`, which decides the era of the connection from its opening).
//   tools/list -> the file's whole object, as is (2026-07-28's ListToolsResult
//                 carries `ttlMs`, `cacheScope` and `resultType` beside `tools`)
//   tools/call -> { content: [{ type: "text", text: JSON.stringify({ name, arguments }) }] }
// A 2025-era opening (`initialize`) is refused (`legacy: "reject"`), so a
// client that lists anything here spoke 2026-07-28. Nothing is validated here
// on purpose: the client judges what ixgen generated. Diagnostics go to
// stderr; stdout carries only the protocol.
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error("usage: node mcp-serve.mjs <tools.json>");
  process.exit(2);
}

let doc;
try {
  doc = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  console.error(`mcp-serve (2026-07-28): cannot read ${file}: ${err.message}`);
  process.exit(2);
}
if (doc === null || typeof doc !== "object" || !Array.isArray(doc.tools)) {
  console.error(`mcp-serve (2026-07-28): ${file} is not a tools/list result: it needs a "tools" array`);
  process.exit(2);
}

serveStdio(
  () => {
    const server = new Server({ name: "ixgen-mcp-serve", version: "0.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => doc);
    server.setRequestHandler("tools/call", async (request) => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({ name: request.params.name, arguments: request.params.arguments ?? {} }),
        },
      ],
    }));
    return server;
  },
  { legacy: "reject", onerror: (err) => console.error(`mcp-serve (2026-07-28): ${err.message}`) },
);
process.stdin.on("end", () => process.exit(0));
