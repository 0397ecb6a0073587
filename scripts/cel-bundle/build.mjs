#!/usr/bin/env node
// Usage: node scripts/cel-bundle/build.mjs [--check]
//
// Bundles @bufbuild/cel (and what it imports: @bufbuild/protobuf, @bufbuild/re2, @bufbuild/cel-spec)
// into one ES module, templates/opencode/cel.js, which ixgen writes beside the OpenCode runtime
// file when a catalog has compute steps: a tool runs with no network and no install. The versions
// are the lockfile's (npm ci here first); the license's text is the file's last comment.
// --check rebuilds in memory and exits 1 when the committed file differs (tests/cel_bundle.rs).
import { build } from "esbuild"
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const out = join(here, "..", "..", "templates", "opencode", "cel.js")
const pkg = (name) => JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8"))
const version = (name) => pkg(name).version
const packages = ["@bufbuild/cel", "@bufbuild/cel-spec", "@bufbuild/protobuf", "@bufbuild/re2"]
const banner = [
  "// The CEL evaluator of ixgen's OpenCode runtime: a bundle of",
  ...packages.map((p) => `//   ${p} ${version(p)}, license ${pkg(p).license} (${pkg(p).repository?.url ?? pkg(p).repository})`),
  "// Apache-2.0: https://www.apache.org/licenses/LICENSE-2.0 (the packages ship no copy of the text); the",
  "// one license text a package ships (@bufbuild/re2's) is the last comment of this file.",
  `// built with esbuild ${version("esbuild")} by scripts/cel-bundle/build.mjs. Do not edit: rebuild it.`,
].join("\n")
const result = await build({
  entryPoints: [join(here, "entry.js")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  minify: true,
  banner: { js: banner },
  footer: { js: "/* @bufbuild/re2 LICENSE:\n" + readFileSync(join(here, "node_modules", "@bufbuild", "re2", "LICENSE"), "utf8").replaceAll("*/", "* /") + "*/" },
  write: false,
  logLevel: "warning",
})
const text = result.outputFiles[0].text
if (process.argv.includes("--check")) {
  const committed = readFileSync(out, "utf8")
  if (committed !== text) {
    console.error(`build.mjs: ${out} differs from a fresh build (${committed.length} vs ${text.length} bytes): run node scripts/cel-bundle/build.mjs`)
    process.exit(1)
  }
  console.error(`build.mjs: ${out} is a fresh build (${text.length} bytes)`)
} else {
  writeFileSync(out, text)
  console.error(`build.mjs: wrote ${out} (${text.length} bytes)`)
}
