#!/usr/bin/env node
// Usage: node fix-lockfile.mjs [dir ...]   (default: this folder and ./opencode-seed)
//
// Makes `npm ci` accept a package-lock.json written by `npm install` on a
// registry that lacks some optional platform packages (opencode-darwin-*,
// @nushell/windows-*, @msgpackr-extract/*-darwin-* ... are not on this
// machine's registry). npm 11.19 leaves such a failed optional dependency out
// of the lockfile, and then `npm ci` refuses the lockfile ("Missing: X@ from
// lock file"). Older npm, and OpenCode's own installer, write a placeholder
// `"<parent>/node_modules/<name>": { "optional": true }` instead; this script
// adds exactly those placeholders. It is idempotent and needs no network.
//
// Run it after every `npm install` that rewrites a lockfile here.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dirs = process.argv.length > 2 ? process.argv.slice(2) : [here, join(here, "opencode-seed")];

// Where Node's resolution would find `name` when required from the package at `loc`.
function resolves(packages, loc, name) {
  let base = loc;
  for (;;) {
    const candidate = (base ? base + "/" : "") + "node_modules/" + name;
    if (candidate in packages) return true;
    if (!base) return false;
    const i = base.lastIndexOf("/node_modules/");
    base = i < 0 ? "" : base.slice(0, i);
  }
}

let failed = false;
for (const dir of dirs) {
  const file = join(dir, "package-lock.json");
  let lock;
  try {
    lock = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    console.error(`fix-lockfile: cannot read ${file}: ${err.message}`);
    failed = true;
    continue;
  }
  const packages = lock.packages ?? {};
  const added = [];
  for (const [loc, entry] of Object.entries(packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolves(packages, loc, name)) {
        const placeholder = (loc ? loc + "/" : "") + "node_modules/" + name;
        added.push(placeholder);
      }
    }
  }
  if (added.length === 0) {
    console.log(`fix-lockfile: ${file}: nothing to add`);
    continue;
  }
  for (const loc of added) packages[loc] = { optional: true };
  // Keep npm's order: the root first, then locations sorted.
  const sorted = Object.keys(packages).sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b, "en")));
  lock.packages = Object.fromEntries(sorted.map((k) => [k, packages[k]]));
  writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
  console.log(`fix-lockfile: ${file}: added ${added.length} placeholder(s):\n  ${added.join("\n  ")}`);
}
process.exit(failed ? 1 : 0);
