#!/usr/bin/env bash
# Benchmarks of ixgen, on whatever machine runs them. Prints a markdown table (also written
# to benches/results.md). Needs hyperfine and GNU time (Debian: apt-get install hyperfine
# time) and the pinned Nushell (npm ci --prefix tests/hosts).
#
#   benches/run.sh            # full run (a few minutes)
#   RUNS=50 benches/run.sh    # fewer timed runs per case
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-200}
for tool in hyperfine /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "benches/run.sh needs $tool (apt-get install hyperfine time)" >&2; exit 2; }
done
NU=$ROOT/tests/hosts/node_modules/@nushell/linux-x64/bin/nu
[ -x "$NU" ] || { echo "benches/run.sh needs the pinned nu: npm ci --prefix tests/hosts" >&2; exit 2; }

cargo build --release -q
BIN=$ROOT/target/release/ixgen
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
J=$W/json
mkdir -p "$J"
bench() { # name, hyperfine args...
  local name=$1; shift
  hyperfine -N --style none --warmup 10 --runs "$RUNS" --export-json "$J/$name.json" "$@" >/dev/null
}

# 1. The per-iteration run of a ralph loop, ix catalog: 17 product tool files compared and
#    left alone, opencode.json merged and left alone, the session file rewritten (prepare
#    resets it to iteration 1, the timed run writes iteration 2). Beside it, the loop's own
#    Nushell way (seed 003) in the same run.
mkdir -p "$W/iter" && cd "$W/iter"
CTX="--session bench --store $W/iter/store --pid 4242"
$BIN opencode -q $CTX --iteration 1
bench iteration --prepare "$BIN opencode -q $CTX --iteration 1" "$BIN opencode -q $CTX --iteration 2"
bench nushell --prepare "$NU -n -c 'source $ROOT/benches/nushell_way.nu; generate-tools store bench 1 4242'" \
  "$NU -n -c 'source $ROOT/benches/nushell_way.nu; generate-tools store bench 2 4242'"

# 2. `generate` of every target for the ix catalog: into an empty folder, and again (no-op).
mkdir -p "$W/gen" && cd "$W/gen"
bench generate-cold --prepare "rm -rf $W/gen/out" "$BIN --out $W/gen/out generate -q"
$BIN --out "$W/gen/out" generate -q
bench generate-noop "$BIN --out $W/gen/out generate -q"

# 3. Synthetic catalogs: how the cost grows with the number of tools.
SIZES="100 1000 10000"
for n in $SIZES; do
  python3 "$ROOT/benches/gen_catalog.py" "$n" > "$W/synth-$n.yaml"
  runs=$RUNS; [ "$n" -ge 10000 ] && runs=10; [ "$n" -eq 1000 ] && runs=$((RUNS / 4 > 10 ? RUNS / 4 : 10))
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$J/synth-$n.json" \
    --prepare "rm -rf $W/synth-$n" "$BIN --catalog $W/synth-$n.yaml --out $W/synth-$n generate -q" >/dev/null
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$J/synth-noop-$n.json" \
    "$BIN --catalog $W/synth-$n.yaml --out $W/synth-$n generate -q" >/dev/null
done

# 4. Peak memory (maximum resident set size).
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
cd "$W/iter"
MEM_ITER=$(peak $BIN opencode -q $CTX --iteration 3)
MEM_GEN=$(peak $BIN --out "$W/gen/out2" generate -q)
MEM_10K=$(peak $BIN --catalog "$W/synth-10000.yaml" --out "$W/synth-mem" generate -q)

python3 - "$J" "$MEM_ITER" "$MEM_GEN" "$MEM_10K" "$SIZES" <<'PY' | tee "$ROOT/benches/results.md"
import json, sys, statistics, os, platform
j, mem_iter, mem_gen, mem_10k, sizes = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5].split()
def load(name):
    r = json.load(open(os.path.join(j, name + ".json")))["results"][0]
    return statistics.median(r["times"]) * 1000, r
ms = lambda name: load(name)[0]
it, nu = ms("iteration"), ms("nushell")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
print(f"Machine: {os.cpu_count()} cores, {cpu}. Medians of hyperfine runs (cold processes).\n")
print("| case | median | target |")
print("| --- | --- | --- |")
print(f"| per-iteration run, ix catalog (`ixgen opencode --session … --iteration N`) | {it:.2f} ms | ≤ 4 ms |")
print(f"| the Nushell way (seed 003), same run | {nu:.2f} ms | |")
print(f"| ratio ixgen / Nushell | {it / nu:.3f}× | ≤ 0.15× |")
print(f"| `generate`, every target, ix catalog, empty folder | {ms('generate-cold'):.2f} ms | |")
print(f"| `generate`, every target, ix catalog, nothing to do | {ms('generate-noop'):.2f} ms | ≤ 4 ms |")
prev = None
for n in sizes:
    w, nop = ms(f"synth-{n}"), ms(f"synth-noop-{n}")
    growth = f", ×{w / prev[1]:.1f} for ×{int(n) // prev[0]} tools" if prev else ""
    print(f"| synthetic, {int(n):,} tools: `generate` into an empty folder | {w:.1f} ms{growth} | {'< 1 s' if n == '10000' else ''} |")
    print(f"| synthetic, {int(n):,} tools: `generate`, nothing to do | {nop:.1f} ms | |")
    prev = (int(n), w)
print(f"| peak memory, per-iteration run | {mem_iter / 1024:.1f} MB | < 20 MB |")
print(f"| peak memory, `generate` of every target | {mem_gen / 1024:.1f} MB | < 20 MB |")
print(f"| peak memory, 10,000 tools | {mem_10k / 1024:.1f} MB | |")
PY
