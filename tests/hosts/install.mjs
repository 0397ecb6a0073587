#!/usr/bin/env node
// Usage: node tests/hosts/install.mjs [--root DIR] [npm option ...]
//
// Installs the pinned real hosts into the three npm folders of tests/hosts (this folder,
// opencode-seed/ and next/), then checks that every pinned package, and every platform
// binary package it brought, is installed at exactly its pinned version. Exit 1, with the
// list, on any mismatch. Extra arguments go to every `npm install` (the tests pass
// `--registry URL` and `--cache DIR`).
//
// Why `npm install --no-save` and not `npm ci`: the hosts ship their binaries as optional
// platform packages (opencode-darwin-arm64, @nushell/windows-x64, ...), and which of them a
// registry serves varies: the public registry serves all, a partial mirror some. npm writes a
// lockfile with only the ones its registry served, and `npm ci` then refuses that lockfile on
// a registry that serves more ("Missing: X@ from lock file") or fewer. `npm install` with the
// same lockfile installs every locked version exactly, resolves a platform package the
// lockfile lacks (and skips it, being for another platform), and with --no-save leaves the
// committed lockfile as it is. The version check below is what makes "exactly the pinned
// version" a fact rather than a hope.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

let root = dirname(fileURLToPath(import.meta.url));
const npmArgs = [];
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === "--root") root = resolve(process.argv[++i]);
  else npmArgs.push(process.argv[i]);
}

// Folder, and whether its install scripts run (opencode-seed is copied into OpenCode test
// projects as OpenCode itself would install it: without scripts).
const FOLDERS = [
  ["", true],
  ["opencode-seed", false],
  ["next", true],
];

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

// Where Node would find `name` when required from the package folder `from`, looking no
// higher than the npm folder `top` (the folders nest: next/ is inside this one, whose
// node_modules holds another version of the same host).
function locate(top, from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name, "package.json");
    if (existsSync(candidate)) return candidate;
    if (dir === top || dir === dirname(dir)) return null;
  }
}

// Whether a lockfile entry's package is for this machine (npm installs only those).
const glibc = process.report?.getReport().header.glibcVersionRuntime !== undefined;
const forThisMachine = (entry) =>
  (!entry.os || entry.os.includes(process.platform)) &&
  (!entry.cpu || entry.cpu.includes(process.arch)) &&
  (!entry.libc || entry.libc.includes(glibc ? "glibc" : "musl"));

// The locked platform packages for this machine that are not in `dir`'s node_modules. npm
// drops an optional package whose download failed and still exits 0 (it logs the failure
// only at --loglevel verbose), so a host's binary can be missing after a "successful" install.
function missingPlatformPackages(dir) {
  const lock = readJson(join(dir, "package-lock.json")).packages ?? {};
  return Object.entries(lock)
    .filter(([, entry]) => entry.optional && (entry.os || entry.cpu || entry.libc) && forThisMachine(entry))
    .map(([path]) => path)
    .filter((path) => !existsSync(join(dir, path, "package.json")));
}

const problems = [];
const report = [];
for (const [sub, scripts] of FOLDERS) {
  const dir = join(root, sub);
  const args = ["install", "--no-save", "--no-audit", "--no-fund", ...npmArgs];
  if (!scripts) args.push("--ignore-scripts");
  for (let attempt = 1; ; attempt++) {
    console.error(`install.mjs: npm ${args.join(" ")}  (in ${dir})`);
    const run = spawnSync("npm", args, { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
    if (run.status !== 0) {
      console.error(`install.mjs: npm install failed in ${dir} (${run.error ?? "exit " + run.status})`);
      process.exit(1);
    }
    const missing = missingPlatformPackages(dir);
    if (missing.length === 0) break;
    if (attempt === 3) {
      console.error(`install.mjs: npm left out ${missing.join(", ")} three times; its verbose log says why:`);
      spawnSync("npm", [...args, "--loglevel", "verbose"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
      break; // the check below names what is missing
    }
    // Another install fetches only what is missing.
    console.error(`install.mjs: npm exited 0 without ${missing.join(", ")} (an optional download failed); installing again`);
  }
  const pins = readJson(join(dir, "package.json")).dependencies ?? {};
  for (const [name, pinned] of Object.entries(pins)) {
    const manifest = locate(dir, dir, name);
    const got = manifest && readJson(manifest).version;
    if (got !== pinned) {
      problems.push(`${sub || "."}: ${name} is ${got ?? "missing"}, pinned ${pinned}`);
      continue;
    }
    report.push(`${sub || "."}: ${name} ${got}`);
    // The platform binary packages it brought (the ones for this machine are installed).
    const optional = readJson(manifest).optionalDependencies ?? {};
    for (const [dep, want] of Object.entries(optional)) {
      const depManifest = locate(dir, dirname(manifest), dep);
      if (!depManifest) continue; // another platform's package
      const depGot = readJson(depManifest).version;
      if (/^\d+\.\d+\.\d+/.test(want) && depGot !== want) {
        problems.push(`${sub || "."}: ${dep} (from ${name}) is ${depGot}, wants ${want}`);
      }
    }
  }
  for (const path of missingPlatformPackages(dir)) {
    problems.push(`${sub || "."}: ${path.slice("node_modules/".length)} is missing, locked for this machine`);
  }
}
for (const line of report) console.error(`install.mjs: ${line}`);
if (problems.length > 0) {
  console.error(`install.mjs: installed versions differ from the pins:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.error("install.mjs: every pinned host is at its pinned version");
