#!/usr/bin/env bash
# Benchmarks of ixgen, on whatever machine runs them. Prints a markdown table (also written
# to benches/results.md). Needs hyperfine and GNU time (Debian: apt-get install hyperfine
# time) and the pinned Nushell (node tests/hosts/install.mjs).
#
#   benches/run.sh            # full run (a few minutes)
#   RUNS=50 benches/run.sh    # fewer timed runs per case
#
# Every figure comes from this one run: compare them with each other, not with another
# machine's. The load average is printed with them; on a busy machine they are noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-200}
for tool in hyperfine /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "benches/run.sh needs $tool (apt-get install hyperfine time)" >&2; exit 2; }
done
NU=$ROOT/tests/hosts/node_modules/@nushell/linux-x64/bin/nu
[ -x "$NU" ] || { echo "benches/run.sh needs the pinned nu: node tests/hosts/install.mjs" >&2; exit 2; }

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
J=$W/json
mkdir -p "$J"
# ixgen as a loop runs it: installed by scripts/install.sh (the `dist` profile, linked statically
# on Linux with glibc). Beside it, the per-iteration run of a plain `cargo build --profile dist` (dynamically
# linked), copied out of target/ the way `cargo install` copies: the file the linker wrote
# there starts about 0.2 ms slower on this machine than a copy of the same bytes (more page
# faults when it is mapped), which no installed binary does.
scripts/install.sh --quiet --force --root "$W/install"
cargo build --profile dist -q --bin ixgen --example floor --example yaml_floor
BIN=$W/install/bin/ixgen
DYN=$W/dynamic/ixgen
mkdir -p "$W/dynamic" && cp "$ROOT/target/dist/ixgen" "$DYN"
FLOOR=$ROOT/target/dist/examples/floor
YAML_FLOOR=$ROOT/target/dist/examples/yaml_floor
bench() { # name, hyperfine args...
  local name=$1; shift
  hyperfine -N --style none --warmup 10 --runs "$RUNS" --export-json "$J/$name.json" "$@" >/dev/null
}

# 1. The per-iteration run of a ralph loop, ix catalog: the 17 product tool files, the runtime
#    and opencode.json verified unchanged (by hash, against the run record the previous
#    iteration kept in .ixgen/run.json), the session file rewritten (prepare resets it to
#    iteration 1, the timed run writes iteration 2). Beside it, the loop's own Nushell way
#    (seed 003) in the same run, and the same run without the record (every file rendered).
mkdir -p "$W/iter" && cd "$W/iter"
CTX="--session bench --store $W/iter/store --pid 4242"
$BIN opencode -q $CTX --iteration 1
bench iteration --prepare "$BIN opencode -q $CTX --iteration 1" "$BIN opencode -q $CTX --iteration 2"
mkdir -p "$W/iter-dyn"
DCTX="--session bench --store $W/iter-dyn/store --pid 4242"
$DYN --out "$W/iter-dyn" opencode -q $DCTX --iteration 1
bench iteration-dynamic --prepare "$DYN --out $W/iter-dyn opencode -q $DCTX --iteration 1" \
  "$DYN --out $W/iter-dyn opencode -q $DCTX --iteration 2"
bench iteration-full --prepare "sh -c '$BIN opencode -q $CTX --iteration 1 && rm $W/iter/.ixgen/run.json'" \
  "$BIN opencode -q $CTX --iteration 2"
# The Nushell way writes the loop's own .opencode/tool/ralph.ts: in a folder of its own (ixgen
# refuses to overwrite a session file it did not write).
mkdir -p "$W/nu" && cd "$W/nu"
bench nushell --prepare "$NU -n -c 'source $ROOT/benches/nushell_way.nu; generate-tools store bench 1 4242'" \
  "$NU -n -c 'source $ROOT/benches/nushell_way.nu; generate-tools store bench 2 4242'"

# 2. `generate` of every target for the ix catalog: into an empty folder, and again (no-op).
mkdir -p "$W/gen" && cd "$W/gen"
bench generate-cold --prepare "rm -rf $W/gen/out" "$BIN --out $W/gen/out generate -q"
$BIN --out "$W/gen/out" generate -q
bench generate-noop "$BIN --out $W/gen/out generate -q"
#    The same without the run record (.ixgen/run.json), as the first run of a new ixgen build
#    finds it: every file is rendered and compared.
bench generate-noop-full --prepare "rm -f $W/gen/out/.ixgen/run.json" "$BIN --out $W/gen/out generate -q"

# 3. Synthetic catalogs (benches/gen_catalog.py, with an icon so they load without warnings).
#    The first `generate` into an empty folder, beside the file-system floor (examples/floor.rs:
#    the same files with the same bytes, each through a temp file and a rename, timed inside its
#    loop so that reading them first is not counted), then the no-op `generate`.
#    Creating files on ext4 is much slower while many inodes were deleted in the last minutes
#    (the allocator skips them: `recently_deleted` in the kernel's profile), so each run writes
#    into a fresh folder (nothing is removed until the end) and the two alternate, run by run:
#    both then meet the same file system.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
SIZES="1000 10000"
for n in $SIZES; do
  python3 "$ROOT/benches/gen_catalog.py" "$n" "$W/synth-icon.png" > "$W/synth-$n.yaml"
  runs=$((RUNS / 20 > 5 ? RUNS / 20 : 5)); [ "$n" -ge 10000 ] && runs=5
  : > "$J/synth-$n.txt"; : > "$J/floor-$n.txt"
  "$BIN" --catalog "$W/synth-$n.yaml" --out "$W/synth-$n" generate -q   # warm-up, and the floor's source
  for i in $(seq "$runs"); do
    t0=$(now_ms)
    "$BIN" --catalog "$W/synth-$n.yaml" --out "$W/first-$n-$i" generate -q
    echo $(( $(now_ms) - t0 )) >> "$J/synth-$n.txt"
    "$FLOOR" "$W/synth-$n" "$W/floor-$n-$i" 2>&1 | awk '{print $(NF-1)}' >> "$J/floor-$n.txt"
  done
  hyperfine -N --style none --warmup 2 --runs "$((runs * 4))" --export-json "$J/synth-noop-$n.json" \
    "$BIN --catalog $W/synth-$n.yaml --out $W/synth-$n generate -q" >/dev/null
  hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$J/synth-noop-full-$n.json" \
    --prepare "rm -f $W/synth-$n/.ixgen/run.json" \
    "$BIN --catalog $W/synth-$n.yaml --out $W/synth-$n generate -q" >/dev/null
  # Output size: the bytes of every file written (not the blocks they take).
  find "$W/synth-$n" -type f -printf '%s\n' | awk '{s += $1} END {print s}' > "$J/size-$n.txt"
done

# 3b. The ix catalog scaled to 1,000 and 10,000 tools (benches/scale_ix.py: every ix tool with
#     its steps, output blocks and schemas, names suffixed), with the warnings it prints (its
#     toolsets go over the budget): measured as the synthetic catalogs are, and its peak memory.
for n in $SIZES; do
  mkdir -p "$W/ix-$n" && python3 "$ROOT/benches/scale_ix.py" "$n" "$W/ix-$n" >/dev/null
  cat=$W/ix-$n/ix-$n.yaml
  runs=$((RUNS / 20 > 5 ? RUNS / 20 : 5)); [ "$n" -ge 10000 ] && runs=5
  : > "$J/ix-$n.txt"; : > "$J/ix-floor-$n.txt"; : > "$J/ix-yaml-$n.txt"
  "$BIN" --catalog "$cat" --out "$W/ix-$n/out" generate -q 2>/dev/null
  for i in $(seq "$runs"); do
    t0=$(now_ms)
    "$BIN" --catalog "$cat" --out "$W/ix-first-$n-$i" generate -q 2>/dev/null
    echo $(( $(now_ms) - t0 )) >> "$J/ix-$n.txt"
    "$FLOOR" "$W/ix-$n/out" "$W/ix-floor-$n-$i" 2>&1 | awk '{print $(NF-1)}' >> "$J/ix-floor-$n.txt"
    "$YAML_FLOOR" "$cat" 2>&1 | awk '{print $(NF-1)}' >> "$J/ix-yaml-$n.txt"
  done
  hyperfine -N --style none --warmup 2 --runs "$((runs * 4))" --export-json "$J/ix-noop-$n.json" \
    "sh -c '$BIN --catalog $cat --out $W/ix-$n/out generate -q 2>/dev/null'" >/dev/null
  # The per-iteration run of a ralph loop on it (OpenCode's tools and the session file), as in
  # 1: the record replays, every product tool file is verified by its hash.
  ICTX="--session bench --store $W/ix-iter-$n/store --pid 4242"
  "$BIN" --catalog "$cat" --out "$W/ix-iter-$n" opencode -q $ICTX --iteration 1 2>/dev/null
  hyperfine -N --style none --warmup 2 --runs "$((runs * 4))" --export-json "$J/ix-iter-$n.json" \
    --prepare "sh -c '$BIN --catalog $cat --out $W/ix-iter-$n opencode -q $ICTX --iteration 1 2>/dev/null'" \
    "$BIN --catalog $cat --out $W/ix-iter-$n opencode -q $ICTX --iteration 2" >/dev/null
  /usr/bin/time -f %M "$BIN" --catalog "$cat" --out "$W/ix-mem-$n" generate -q 2>&1 >/dev/null | tail -1 > "$J/ix-mem-first-$n.txt"
  /usr/bin/time -f %M "$BIN" --catalog "$cat" --out "$W/ix-mem-$n" generate -q 2>&1 >/dev/null | tail -1 > "$J/ix-mem-noop-$n.txt"
  # The read-only commands on the same catalog, at both sizes: a lookup that scans every tool
  # for each tool shows as growth well past ×10 (`ixgen list` of 10,000 tools once took 0.6 s).
  for c in validate list "diff --against $cat"; do
    hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$J/ix-${c%% *}-$n.json" \
      "sh -c '$BIN --catalog $cat $c >/dev/null 2>&1'" >/dev/null
  done
done

# 4. Peak memory (maximum resident set size), one run each.
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
cd "$W/iter"
MEM_ITER=$(peak $BIN opencode -q $CTX --iteration 3)
MEM_GEN=$(peak $BIN --out "$W/gen/out" generate -q)
MEM_10K=$(peak $BIN --catalog "$W/synth-10000.yaml" --out "$W/synth-mem" generate -q)
MEM_10K_NOOP=$(peak $BIN --catalog "$W/synth-10000.yaml" --out "$W/synth-mem" generate -q)
rm "$W/synth-mem/.ixgen/run.json"
MEM_10K_NOOP_FULL=$(peak $BIN --catalog "$W/synth-10000.yaml" --out "$W/synth-mem" generate -q)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$J" "$MEM_ITER" "$MEM_GEN" "$MEM_10K" "$MEM_10K_NOOP" "$MEM_10K_NOOP_FULL" "$LOAD" <<'PY' | tee "$ROOT/benches/results.md"
import json, sys, statistics, os, platform
j, mem_iter, mem_gen, mem_10k, mem_10k_noop, mem_10k_noop_full, load = sys.argv[1], *map(int, sys.argv[2:7]), sys.argv[7]
def ms(name):
    r = json.load(open(os.path.join(j, name + ".json")))["results"][0]
    return statistics.median(r["times"]) * 1000
txt = lambda name: statistics.median(float(x) for x in open(os.path.join(j, name + ".txt")).read().split())
floor = lambda n: txt(f"floor-{n}")
size = lambda n: int(open(os.path.join(j, f"size-{n}.txt")).read())
mb = lambda kb: kb / 1024
it, nu = ms("iteration"), ms("nushell")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
ok = lambda good: "yes" if good else "**no**"
print(f"Machine: {os.cpu_count()} cores, {cpu}; load average {load} at the end of the run.")
print("Medians of cold processes (hyperfine; the first writes of synthetic catalogs alternate with the floor, each into a fresh folder), all from this one run.\n")
print("| case | measured | target | met |")
print("| --- | --- | --- | --- |")
print(f"| per-iteration run, ix catalog (`ixgen opencode --session … --iteration N`), installed by `scripts/install.sh` | {it:.2f} ms | ≤ 2.5 ms | {ok(it <= 2.5)} |")
print(f"| the same without the run record (every file rendered and compared) | {ms('iteration-full'):.2f} ms | | |")
print(f"| the Nushell way (seed 003), same run | {nu:.2f} ms | | |")
print(f"| ratio ixgen / Nushell | {it / nu:.3f}× | ≤ 0.10× | {ok(it / nu <= 0.10)} |")
dyn = ms("iteration-dynamic")
print(f"| per-iteration run, `cargo build --profile dist` (dynamically linked) | {dyn:.2f} ms = {dyn / nu:.3f}× Nushell | | |")
print(f"| `generate`, every target, ix catalog, empty folder | {ms('generate-cold'):.2f} ms | | |")
g = ms("generate-noop")
print(f"| `generate`, every target, ix catalog, nothing to do | {g:.2f} ms | ≤ 2.5 ms | {ok(g <= 2.5)} |")
print(f"| the same without the run record (every file rendered and compared) | {ms('generate-noop-full'):.2f} ms | | |")
first = {}
for n in (1000, 10000):
    w, nop, fl = txt(f"synth-{n}"), ms(f"synth-noop-{n}"), floor(n)
    first[n] = (w, nop)
    t = n == 10000
    print(f"| {n:,} tools: first `generate` | {w:.0f} ms | | |")
    print(f"| {n:,} tools: file-system floor (temp file + rename per file, same files) | {fl:.0f} ms | | |")
    print(f"| {n:,} tools: first `generate` / floor | {w / fl:.2f}× | {'≤ 1.5×' if t else ''} | {ok(w / fl <= 1.5) if t else ''} |")
    print(f"| {n:,} tools: `generate`, nothing to do | {nop:.0f} ms | {'≤ 250 ms' if t else ''} | {ok(nop <= 250) if t else ''} |")
    print(f"| {n:,} tools: the same without the run record | {ms(f'synth-noop-full-{n}'):.0f} ms | | |")
for k, name in ((0, "first `generate`"), (1, "no-op `generate`")):
    g = first[10000][k] / first[1000][k] / 10
    print(f"| 1,000 → 10,000 tools, {name}: ×{first[10000][k] / first[1000][k]:.1f} for ×10 tools | {g:.2f}× linear | ≤ 1.15× | {ok(g <= 1.15)} |")
# The file system's own growth, for reading the line above: creating files gets dearer per file
# as a folder (and the count of recently deleted inodes) grows.
print(f"| 1,000 → 10,000 tools, the floor: ×{floor(10000) / floor(1000):.1f} for ×10 files | {floor(10000) / floor(1000) / 10:.2f}× linear | | |")
s = size(10000) / 1e6
print(f"| output of 10,000 tools (bytes of the files written) | {s:.1f} MB | ≤ 30 MB | {ok(s <= 30)} |")
print(f"| peak memory, per-iteration run | {mb(mem_iter):.1f} MB | ≤ 8 MB | {ok(mb(mem_iter) <= 8)} |")
print(f"| peak memory, `generate`, ix catalog, nothing to do | {mb(mem_gen):.1f} MB | | |")
print(f"| peak memory, 10,000 tools, first `generate` | {mb(mem_10k):.1f} MB | ≤ 100 MB | {ok(mb(mem_10k) <= 100)} |")
print(f"| peak memory, 10,000 tools, `generate`, nothing to do | {mb(mem_10k_noop):.1f} MB | ≤ 100 MB | {ok(mb(mem_10k_noop) <= 100)} |")
print(f"| peak memory, 10,000 tools, the same without the run record | {mb(mem_10k_noop_full):.1f} MB | ≤ 100 MB | {ok(mb(mem_10k_noop_full) <= 100)} |")
# The ix catalog scaled (benches/scale_ix.py), warnings and all: the realistic large catalog.
for n in (1000, 10000):
    t = n == 10000
    w, fl, nop = txt(f"ix-{n}"), txt(f"ix-floor-{n}"), ms(f"ix-noop-{n}")
    mf, mn = mb(txt(f"ix-mem-first-{n}")), mb(txt(f"ix-mem-noop-{n}"))
    print(f"| ix catalog scaled to {n:,} tools: first `generate` | {w:.0f} ms = {w / fl:.2f}× the floor's {fl:.0f} ms | {'≤ 1.5×' if t else ''} | {ok(w / fl <= 1.5) if t else ''} |")
    y = txt(f"ix-yaml-{n}")
    print(f"| ix catalog scaled to {n:,} tools: yaml-rust2's events alone (examples/yaml_floor.rs) | {y:.0f} ms = {y / fl:.2f}× the floor | | |")
    iti = ms(f"ix-iter-{n}")
    print(f"| ix catalog scaled to {n:,} tools: per-iteration run | {iti:.1f} ms = {iti / nu:.2f}× Nushell | ≤ 0.10× | {ok(iti / nu <= 0.10)} |")
    print(f"| ix catalog scaled to {n:,} tools: `generate`, nothing to do | {nop:.0f} ms | {'≤ 250 ms' if t else ''} | {ok(nop <= 250) if t else ''} |")
    print(f"| ix catalog scaled to {n:,} tools: peak memory, first / nothing to do | {mf:.1f} / {mn:.1f} MB | {'≤ 100 MB' if t else ''} | {ok(max(mf, mn) <= 100) if t else ''} |")
for c, shown in (("validate", "validate"), ("list", "list"), ("diff", "diff --against itself")):
    a, b = ms(f"ix-{c}-1000"), ms(f"ix-{c}-10000")
    print(f"| ix catalog scaled, `{shown}`: 1,000 / 10,000 tools | {a:.0f} / {b:.0f} ms = ×{b / a:.1f} for ×10 tools | | |")
PY
