#!/usr/bin/env node
// Usage: node scripts/dist.mjs [--binary PATH] [--out DIR]
//
// Packages this machine's ixgen build for distribution, into DIR (default target/dist-pkg):
//
//   ixgen-<rust target>.tar.gz and .sha256   the release archive the GitHub Action downloads
//   npm/ixgen-<version>.tgz                  the npm package `ixgen`: a launcher, and one
//                                            optional dependency per platform (esbuild's and
//                                            Biome's pattern)
//   npm/ixgen-<platform>-<version>.tgz       the platform package `@ixgen/<platform>` holding
//                                            the binary, for this machine's platform
//
// Without --binary it builds the binary with the `dist` profile (fat LTO; statically linked on
// Linux with glibc, as scripts/install.sh does, so it runs on any Linux). A release runs this
// once per platform and publishes every platform package before `ixgen` itself.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const out = resolve(arg("--out") ?? join(root, "target/dist-pkg"));

// npm's platform names → Rust's target triples. Every one is an optional dependency of
// `ixgen`; npm installs only the one whose os/cpu match.
const PLATFORMS = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
};
const platform = `${process.platform}-${process.arch}`;
const triple = PLATFORMS[platform];
if (!triple) {
  console.error(`dist.mjs: ${platform} is not a platform ixgen ships for (${Object.keys(PLATFORMS).join(", ")})`);
  process.exit(2);
}
const exe = process.platform === "win32" ? "ixgen.exe" : "ixgen";

function build() {
  const args = ["build", "--locked", "--profile", "dist", "--bin", "ixgen", "--target", triple];
  if (triple.endsWith("-linux-gnu")) {
    // Static, at a fixed address: what scripts/install.sh builds, and why.
    args.push("--config", `target.${triple}.rustflags = ['-C', 'target-feature=+crt-static', '-C', 'relocation-model=static']`);
  }
  console.error(`dist.mjs: cargo ${args.join(" ")}`);
  execFileSync("cargo", args, { cwd: root, stdio: "inherit" });
  return join(root, "target", triple, "dist", exe);
}

const binary = resolve(arg("--binary") ?? build());
const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim().split(/\s+/).pop();
if (!/^\d+\.\d+\.\d+/.test(version)) {
  console.error(`dist.mjs: ${binary} --version gave no version: ${version}`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
const stage = join(out, "stage");
mkdirSync(join(out, "npm"), { recursive: true });

const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
const pack = (dir) => {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", join(out, "npm")], {
    cwd: dir,
    encoding: "utf8",
  });
  return join(out, "npm", name.trim().split("\n").pop());
};

// The release archive: the binary at the archive's root, and its checksum in sha256sum's format.
const archiveDir = join(stage, "archive");
mkdirSync(archiveDir, { recursive: true });
copyFileSync(binary, join(archiveDir, exe));
chmodSync(join(archiveDir, exe), 0o755);
const archive = `ixgen-${triple}.tar.gz`;
execFileSync("tar", ["-czf", join(out, archive), "-C", archiveDir, exe]);
writeFileSync(join(out, `${archive}.sha256`), `${sha256(join(out, archive))}  ${archive}\n`);

// The platform package.
const [os, cpu] = platform.split("-");
const platformDir = join(stage, "platform");
mkdirSync(join(platformDir, "bin"), { recursive: true });
copyFileSync(binary, join(platformDir, "bin", exe));
chmodSync(join(platformDir, "bin", exe), 0o755);
const main = JSON.parse(readFileSync(join(root, "npm/ixgen/package.json"), "utf8"));
writeFileSync(
  join(platformDir, "package.json"),
  JSON.stringify(
    {
      name: `@ixgen/${platform}`,
      version,
      description: `The ixgen binary for ${platform} (installed by the \`ixgen\` package)`,
      license: main.license,
      repository: main.repository,
      os: [os],
      cpu: [cpu],
      files: [`bin/${exe}`],
      preferUnplugged: true,
    },
    null,
    2,
  ) + "\n",
);
const platformTgz = pack(platformDir);

// The main package: the launcher, every platform as an optional dependency at this version.
const mainDir = join(stage, "ixgen");
mkdirSync(join(mainDir, "bin"), { recursive: true });
copyFileSync(join(root, "npm/ixgen/bin/ixgen.js"), join(mainDir, "bin/ixgen.js"));
chmodSync(join(mainDir, "bin/ixgen.js"), 0o755);
copyFileSync(join(root, "npm/ixgen/README.md"), join(mainDir, "README.md"));
main.version = version;
main.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`@ixgen/${p}`, version]));
writeFileSync(join(mainDir, "package.json"), JSON.stringify(main, null, 2) + "\n");
const mainTgz = pack(mainDir);

rmSync(stage, { recursive: true, force: true });
console.log(JSON.stringify({ version, target: triple, archive: join(out, archive), npm: [mainTgz, platformTgz] }, null, 2));
