#!/usr/bin/env bash
# Installs ixgen from this checkout with `cargo install` (into ~/.cargo/bin, or wherever the
# arguments say: `scripts/install.sh --root DIR`, `--debug`, …).
#
# On Linux with glibc it links the C library statically, at a fixed address (not a PIE). A
# ralph loop starts ixgen at every iteration. A process that needs the dynamic loader to map libc
# and libgcc_s and bind their symbols takes about 0.3 ms longer to start on the benchmark
# machine; a static PIE still relocates its 32,000 pointers at every start, copying 122 pages of
# constants (0.3-0.5 ms more, and 1 MB more memory). Together that is a third of the
# per-iteration run (README, "Speed"). The trade: the executable's own image is not randomised
# (its stack, heap and other mappings still are), as with Go's static binaries. A plain
# `cargo install --locked --path .` builds the position-independent, dynamically linked binary.
# Cargo cannot link statically by default: the flag would also reach the proc-macros it builds
# for the host, which must be shared libraries. With `--target` named, it reaches only what is
# built for the target.
# Elsewhere this is a plain `cargo install`. Either way with the `dist` profile (fat LTO), unless
# the arguments name a profile (`--debug`, `--profile NAME`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
host=$(rustc -vV | sed -n 's/^host: //p')
profile=(--profile dist)
for a in "$@"; do
  case $a in --debug | --profile | --profile=*) profile=() ;; esac
done
install() { cargo install --locked --path "$root" "${profile[@]}" "$@"; }
case $host in
  *-linux-gnu)
    if ! install --target "$host" --config "target.$host.rustflags = ['-C', 'target-feature=+crt-static', '-C', 'relocation-model=static']" "$@"; then
      # glibc's static library is a package of its own on some systems.
      echo "install.sh: linking statically failed (glibc's static library: libc6-dev on Debian, glibc-static on Fedora); installing the dynamically linked build instead" >&2
      install "$@"
    fi
    ;;
  *)
    install "$@"
    ;;
esac
