#!/usr/bin/env python3
"""Benchmark of `ixgen serve` against the reference MCP git server (PyPI `mcp-server-git`), in one run.

    cargo build --profile dist && python3 benches/serve.py --ixgen target/dist/ixgen --reference /path/to/mcp-server-git [--runs 50]

One client for both servers: this script, speaking newline-delimited JSON-RPC over stdio (what both
transports are), so that neither server gets a faster client than the other. Measured:

- time to the `initialize` answer, from spawning the server (median of fresh processes);
- `tools/list` (median of requests in one session);
- `git_status` on a small repository (median of calls in one session): ixgen runs the git-iris
  catalog's `git_status` (two `git` runs), the reference server its own (GitPython);
- the overhead of a call above the program it runs: a catalog whose one tool runs `true`, its call's
  median minus the median of running `true` from here;
- idle memory: the server's resident set after `initialize` and `tools/list`, a second later.

Prints a markdown table; every figure comes from this one run on this machine.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NOOP_CATALOG = """version: 1
product: {name: noop, version: 1.0.0, description: One tool that runs true, license: MIT}
toolsets: {all: {tools: [noop]}}
targets: {mcp: {toolset: all}}
tools:
  - name: noop
    description: Runs true and answers its empty output.
    steps:
      - program: "true"
        run: []
"""


class Session:
    def __init__(self, argv, cwd):
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"{method}: the server closed its output")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def notify(self, method):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def initialize(self):
        result = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "bench", "version": "0"}})
        elapsed = time.perf_counter() - self.t0
        self.notify("notifications/initialized")
        return elapsed, result

    def rss_kb(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def timed(f, runs):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def measure(argv, cwd, call, runs):
    inits = []
    for _ in range(max(5, runs // 5)):
        s = Session(argv, cwd)
        inits.append(s.initialize()[0])
        s.close()
    s = Session(argv, cwd)
    s.initialize()
    tools = s.request("tools/list")["tools"]
    list_s = timed(lambda: s.request("tools/list"), runs)
    name, args = call
    result = s.request("tools/call", {"name": name, "arguments": args})
    if result.get("isError"):
        raise RuntimeError(f"{name} failed: {result}")
    call_s = timed(lambda: s.request("tools/call", {"name": name, "arguments": args}), runs)
    time.sleep(1)
    rss = s.rss_kb()
    s.close()
    return {"init": statistics.median(inits), "list": list_s, "call": call_s, "rss": rss, "tools": len(tools)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ixgen", default=os.path.join(ROOT, "target/dist/ixgen"))
    ap.add_argument("--reference", required=True, help="the mcp-server-git program")
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args()
    a.ixgen, a.reference = os.path.abspath(a.ixgen), os.path.abspath(a.reference)
    work = tempfile.mkdtemp(prefix="ixgen-serve-bench-")
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "config", "user.email", "b@example.com"],
                ["git", "config", "user.name", "bench"]):
        subprocess.run(cmd, cwd=repo, check=True)
    for i in range(20):
        with open(os.path.join(repo, f"f{i}.txt"), "w") as f:
            f.write(f"line {i}\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=repo, check=True)
    with open(os.path.join(repo, "f0.txt"), "a") as f:
        f.write("changed\n")
    subprocess.run(["git", "add", "f0.txt"], cwd=repo, check=True)
    noop = os.path.join(work, "noop.yaml")
    with open(noop, "w") as f:
        f.write(NOOP_CATALOG)

    iris = os.path.join(ROOT, "tests/fixtures/git-iris/catalog.yaml")
    ix = measure([a.ixgen, "serve", "--catalog", iris], repo, ("git_status", {}), a.runs)
    ref = measure([a.reference, "--repository", repo], repo, ("git_status", {"repo_path": repo}), a.runs)
    nop = measure([a.ixgen, "serve", "--catalog", noop], repo, ("noop", {}), a.runs)
    true_s = timed(lambda: subprocess.run(["true"]), a.runs)
    overhead = nop["call"] - true_s

    ms = lambda s: f"{s * 1000:.2f} ms"
    ratio = lambda x, y: f"{x / y:.3f}×"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Machine: {os.cpu_count()} cores; load average {load} at the end of the run; {a.runs} timed requests per case.\n")
    print("| case | ixgen serve | mcp-server-git | ratio | target | met |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| time to the `initialize` answer | {ms(ix['init'])} | {ms(ref['init'])} | {ratio(ix['init'], ref['init'])} | ≤ 10 ms | {'yes' if ix['init'] <= 0.010 else 'no'} |")
    print(f"| `tools/list` ({ix['tools']} and {ref['tools']} tools) | {ms(ix['list'])} | {ms(ref['list'])} | {ratio(ix['list'], ref['list'])} | ≤ 1 ms | {'yes' if ix['list'] <= 0.001 else 'no'} |")
    print(f"| `git_status` call | {ms(ix['call'])} | {ms(ref['call'])} | {ratio(ix['call'], ref['call'])} | | |")
    print(f"| call overhead above the program (`true`: call {ms(nop['call'])}, `true` alone {ms(true_s)}) | {ms(overhead)} | | | ≤ 1 ms | {'yes' if overhead <= 0.001 else 'no'} |")
    print(f"| idle memory (resident) | {ix['rss'] / 1024:.1f} MB | {ref['rss'] / 1024:.1f} MB | {ratio(ix['rss'], ref['rss'])} | ≤ 15 MB | {'yes' if ix['rss'] <= 15 * 1024 else 'no'} |")


if __name__ == "__main__":
    sys.exit(main())
