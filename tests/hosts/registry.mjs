#!/usr/bin/env node
// Usage: node registry.mjs --upstream URL --mode none|all [--lockfile FILE ...] [--drop-once NAME ...]
//
// A local npm registry for testing the host install (tests/host_install.rs) against the two
// ends of what a registry may serve of the hosts' optional platform packages. It forwards
// every request to the upstream registry, except:
//
//   --mode none  answers 404 for every platform package that is not for this machine (a
//                package whose os, cpu or libc excludes it), as a mirror that lacks them does;
//   --mode all   serves every optional dependency the upstream lacks, as the public registry
//                does: a one-file package at the version a parent wants (read from the
//                lockfiles given, and from every packument served), its os/cpu/libc read
//                from its name (opencode-darwin-arm64 → darwin, arm64), so npm skips it here.
//
//   --drop-once NAME  answers 404 to the first download of NAME's tarball, as a download
//                that fails does: npm then leaves an optional package out and exits 0, which
//                install.mjs must notice (repeatable).
//
// It prints its URL on the first line of stdout, and serves until killed. It binds to
// 127.0.0.1 only.
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const upstream = (arg("--upstream") ?? "").replace(/\/?$/, "/");
const mode = arg("--mode");
if (!upstream.startsWith("http") || !["none", "all"].includes(mode)) {
  console.error("usage: node registry.mjs --upstream URL --mode none|all");
  process.exit(2);
}

// name -> version wanted by a parent's optionalDependencies, seen in packuments served.
const optionalWanted = new Map();
// "name@version" -> tarball bytes of synthesized packages.
const synthesized = new Map();
let self = "";
const dropOnce = new Set(process.argv.flatMap((a, i) => (a === "--drop-once" ? [process.argv[i + 1]] : [])));
process.argv.forEach((a, i) => {
  if (a !== "--lockfile") return;
  const lock = JSON.parse(readFileSync(process.argv[i + 1], "utf8"));
  for (const entry of Object.values(lock.packages ?? {})) {
    for (const [dep, want] of Object.entries(entry.optionalDependencies ?? {})) optionalWanted.set(dep, want);
  }
});

const glibc = process.report?.getReport().header.glibcVersionRuntime !== undefined;
const forThisMachine = (m) =>
  (!m.os || m.os.includes(process.platform)) &&
  (!m.cpu || m.cpu.includes(process.arch)) &&
  (!m.libc || m.libc.includes(glibc ? "glibc" : "musl"));

// A ustar archive holding package/package.json, gzipped: what `npm pack` makes of it.
function tarball(manifest) {
  const body = Buffer.from(JSON.stringify(manifest, null, 2) + "\n");
  const header = Buffer.alloc(512);
  const put = (s, off, len) => header.write(s, off, len, "ascii");
  put("package/package.json", 0, 100);
  put("0000644\0", 100, 8);
  put("0000000\0", 108, 8);
  put("0000000\0", 116, 8);
  put(body.length.toString(8).padStart(11, "0") + "\0", 124, 12);
  put("00000000000\0", 136, 12);
  put("        ", 148, 8);
  put("0", 156, 1);
  put("ustar\0" + "00", 257, 8);
  let sum = 0;
  for (const b of header) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  return gzipSync(Buffer.concat([header, body, pad, Buffer.alloc(1024)]));
}

function platformOf(name) {
  const os = ["darwin", "linux", "win32", "windows", "freebsd"].find((o) => name.includes(o));
  const cpu = ["arm64", "x64", "riscv64", "arm", "ia32"].find((c) => name.includes(c));
  const m = {};
  if (os) m.os = [os === "windows" ? "win32" : os];
  if (cpu) m.cpu = [cpu];
  if (name.includes("musl")) m.libc = ["musl"];
  return m;
}

function synthesize(name) {
  const version = optionalWanted.get(name);
  const manifest = { name, version, description: "stand-in served by tests/hosts/registry.mjs", ...platformOf(name) };
  const tgz = tarball(manifest);
  const file = `${name.split("/").pop()}-${version}.tgz`;
  synthesized.set(`${name}/-/${file}`, tgz);
  const dist = {
    tarball: `${self}${name}/-/${file}`,
    integrity: "sha512-" + createHash("sha512").update(tgz).digest("base64"),
    shasum: createHash("sha1").update(tgz).digest("hex"),
  };
  return {
    name,
    "dist-tags": { latest: version },
    versions: { [version]: { ...manifest, dist } },
  };
}

const send = (res, status, body, type = "application/json") => {
  res.writeHead(status, { "content-type": type });
  res.end(body);
};

createServer(async (req, res) => {
  try {
    const path = decodeURIComponent(req.url.slice(1).split("?")[0]);
    if (path.includes("/-/")) {
      const tgz = synthesized.get(path);
      if (tgz) return send(res, 200, tgz, "application/octet-stream");
      const name = path.slice(0, path.indexOf("/-/"));
      if (dropOnce.delete(name)) {
        console.error(`registry.mjs: dropped the first download of ${name}`);
        return send(res, 404, '{"error":"Not found"}');
      }
      // Streamed, not buffered: a host's binary package is 175 MB, and the two install tests
      // fetch several at once. A download cut short reaches npm as one, which it retries.
      const up = await fetch(upstream + path);
      const length = up.headers.get("content-length");
      res.writeHead(up.status, { "content-type": "application/octet-stream", ...(length && { "content-length": length }) });
      return await pipeline(Readable.fromWeb(up.body), res);
    }
    const up = await fetch(upstream + path.replace("/", "%2f"), {
      headers: { accept: req.headers.accept ?? "application/json" },
    });
    if (up.status === 404 && mode === "all" && optionalWanted.has(path)) {
      console.error(`registry.mjs: served a stand-in for ${path}`);
      return send(res, 200, JSON.stringify(synthesize(path)));
    }
    if (up.status === 404 && optionalWanted.has(path)) console.error(`registry.mjs: lacks ${path}`);
    if (up.status !== 200) return send(res, up.status, await up.text());
    const doc = await up.json();
    for (const v of Object.values(doc.versions ?? {})) {
      for (const [dep, want] of Object.entries(v.optionalDependencies ?? {})) optionalWanted.set(dep, want);
      if (v.dist?.tarball) v.dist.tarball = self + v.dist.tarball.slice(v.dist.tarball.indexOf(doc.name + "/-/"));
    }
    if (mode === "none") {
      const versions = Object.values(doc.versions ?? {});
      const platform = versions.some((v) => v.os || v.cpu || v.libc);
      if (platform && !versions.some(forThisMachine)) {
        console.error(`registry.mjs: lacks ${path} (withheld)`);
        return send(res, 404, '{"error":"Not found"}');
      }
    }
    send(res, 200, JSON.stringify(doc));
  } catch (err) {
    console.error(`registry.mjs: ${req.url}: ${err}`);
    if (res.headersSent) res.destroy();
    else send(res, 502, JSON.stringify({ error: String(err) }));
  }
}).listen(0, "127.0.0.1", function () {
  self = `http://127.0.0.1:${this.address().port}/`;
  console.log(self);
});
