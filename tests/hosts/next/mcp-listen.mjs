#!/usr/bin/env node
// Usage: node mcp-listen.mjs -- <command> [args...]   (stdio: spawns the server)
//        node mcp-listen.mjs --url <url>              (Streamable HTTP: a server already running)
//
// A real SDK 2.x client (@modelcontextprotocol/client 2.4.0, pinned to revision 2026-07-28)
// that connects to the server, opens a `subscriptions/listen` stream for the tool list's
// changes, and prints one JSON line per event on stdout:
//   {"listening": {<tool name>: <description>, …}}  once the server acknowledged the stream
//   {"changed": {<tool name>: <description>, …}}    for each notifications/tools/list_changed,
//                                                   the tools listed again
// It runs until stdin closes (then it closes the stream and exits 0). Exit 1 with
// `mcp-listen: …` on stderr when the server cannot be reached or refuses the stream.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const argv = process.argv.slice(2);
const http = argv[0] === "--url" && argv.length === 2;
if (!http && (argv[0] !== "--" || argv.length < 2)) {
  console.error("usage: node mcp-listen.mjs -- <command> [args...] | --url <url>");
  process.exit(2);
}
const fail = (what, err) => {
  console.error(`mcp-listen: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
};
const transport = http
  ? new StreamableHTTPClientTransport(new URL(argv[1]))
  : new StdioClientTransport({
      command: argv[1],
      args: argv.slice(2),
      env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
      cwd: process.cwd(),
      stderr: "inherit",
    });
const client = new Client(
  { name: "ixgen-mcp-listen", version: "0.0.0" },
  { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
const names = async () => Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.description]));
const print = (v) => process.stdout.write(JSON.stringify(v) + "\n");
try {
  await client.connect(transport, { timeout: 30000 });
} catch (err) {
  fail("cannot connect or negotiate 2026-07-28", err);
}
client.setNotificationHandler("notifications/tools/list_changed", async () => {
  try {
    print({ changed: await names() });
  } catch (err) {
    fail("tools/list after the change failed", err);
  }
});
let stream;
try {
  stream = await client.listen({ toolsListChanged: true });
} catch (err) {
  fail("subscriptions/listen failed", err);
}
print({ listening: await names() });
process.stdin.resume();
process.stdin.on("end", async () => {
  try {
    await stream.close?.();
  } finally {
    await client.close();
    process.exit(0);
  }
});
