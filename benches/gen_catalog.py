#!/usr/bin/env python3
"""Writes a synthetic catalog of N tools (for benches/run.sh): each tool has four typed
parameters, a runtime route and two CLI steps, as the ix tools do.

    gen_catalog.py N [ICON]

With ICON (a path beside where the catalog will be saved), also writes a 512×512 PNG there and
names it as the product's icon, so that the catalog loads without a warning, as a real
product's does (a run that raised warnings always loads the catalog again, to show them)."""
import struct
import sys
import zlib

n = int(sys.argv[1])
icon = sys.argv[2] if len(sys.argv) > 2 else None
if icon:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes(512) for _ in range(512))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 512, 512, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    open(icon, "wb").write(png)
    name = icon.rsplit("/", 1)[-1]
    product = f"product: {{name: synth, version: 1.0.0, license: MIT, icon: {name}, description: Synthetic catalog for benchmarks}}"
else:
    product = "product: {name: synth, version: 1.0.0, description: Synthetic catalog for benchmarks}"
out = [
    "version: 1",
    product,
    "cli: {binary: synth, fallback: synth is not installed}",
    "runtime: {url_env: SYNTH_URL, default_url: 'http://127.0.0.1:9', markdown_field: preview_markdown}",
    "server: {name: synth, command: synth, args: [mcp], toolset: all}",
    "lint: {toolset_budget: 100000000}",
    "toolsets:",
    "  all:",
    "    tools: [" + ", ".join(f"tool-{i}" for i in range(n)) + "]",
    "targets:",
    "  opencode: {toolset: all}",
    "  mcp: {toolset: all}",
    "  claude: {}",
    "tools:",
]
for i in range(n):
    out += [
        f"  - name: tool-{i}",
        f"    description: Synthetic tool number {i}, with a description of a usual length for a tool.",
        "    params:",
        "      symbol: {type: string, required: true, description: Symbol to look up}",
        "      limit: {type: integer, default: 10, min: 1, max: 50, description: Max results}",
        "      kind: {type: enum, values: [class, function, file], description: Narrow to a kind}",
        "      path: {type: path, description: Narrow to a folder}",
        f"    runtime: {{method: POST, path: /v1/tool/{i}, body: {{q: '{{symbol}}', limit: '{{limit}}'}}}}",
        "    steps:",
        f"      - id: first",
        f"        run: [tool{i}, '{{symbol}}', --limit, '{{limit}}', {{opt: --kind, value: '{{kind}}'}}, {{opt: --path, value: '{{path}}'}}]",
        "      - run: [explain, '{symbol}']",
        "        when: {step: first, matches: high, flags: i}",
    ]
print("\n".join(out))
