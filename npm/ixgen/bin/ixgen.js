#!/usr/bin/env node
// The `ixgen` command of the npm package: runs the native binary from this platform's package
// (@ixgen/linux-x64, @ixgen/darwin-arm64, ...), which npm installed as an optional dependency
// and skipped for every other platform — the pattern esbuild and Biome use. Nothing is
// downloaded at install or run time. IXGEN_BINARY names another binary to run instead.
"use strict";
const { spawnSync } = require("node:child_process");
const { version } = require("../package.json");

function fail(message) {
  process.stderr.write(`ixgen: ${message}\n`);
  process.exit(2);
}

function binary() {
  if (process.env.IXGEN_BINARY) return process.env.IXGEN_BINARY;
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@ixgen/${platform}`;
  const exe = process.platform === "win32" ? "ixgen.exe" : "ixgen";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `no ixgen binary for ${platform}: the optional package ${pkg}@${version} is not installed. ` +
        `Reinstall without --omit=optional (or --no-optional); if ${platform} has no package, ` +
        `build it with cargo: cargo install --locked ixgen`,
    );
  }
}

const run = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (run.error) fail(`cannot run ${run.error.path ?? "the binary"}: ${run.error.message}`);
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
