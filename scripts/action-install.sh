#!/usr/bin/env bash
# Installs ixgen for the GitHub Action (action.yml) into "$IXGEN_ROOT/bin":
#
#  1. When the action's ref is a release tag (v1.2.3), the release's archive for this runner
#     (ixgen-<rust target>.tar.gz, made by scripts/dist.mjs), verified against its .sha256.
#     A checksum that does not match fails the step: it is never retried or built around.
#  2. Otherwise (a branch, a commit, or a release without this runner's archive), a build of
#     the action's own checkout with the `dist` profile. The action caches "$IXGEN_ROOT"
#     keyed by the sources, and a restored build (its stamp matches) is used as it is.
#
# Environment: IXGEN_ROOT, ACTION_PATH (the action's checkout, by default the one holding this
# script), ACTION_REF and
# ACTION_REPOSITORY (github.action_ref / github.action_repository); IXGEN_RELEASE_BASE
# replaces https://github.com/$ACTION_REPOSITORY/releases/download (the tests use file://).
set -euo pipefail
ACTION_PATH=${ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}

sha256() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi | cut -d' ' -f1; }
# What a build depends on, hashed: the cache key of the build and the stamp beside it.
sources_hash() {
  local paths=()
  for p in Cargo.toml Cargo.lock build.rs askama.toml src crates catalog templates; do
    if [[ -e $ACTION_PATH/$p ]]; then paths+=("$p"); fi
  done
  (cd "$ACTION_PATH" && find "${paths[@]}" -type f | LC_ALL=C sort | xargs cat | sha256)
}
if [[ ${1:-} == --sources-hash ]]; then
  sources_hash
  exit 0
fi

: "${IXGEN_ROOT:?}"
ref=${ACTION_REF:-}
base=${IXGEN_RELEASE_BASE:-https://github.com/${ACTION_REPOSITORY:-}/releases/download}
bin="$IXGEN_ROOT/bin"
mkdir -p "$bin"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu exe=ixgen ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-gnu exe=ixgen ;;
  Darwin-x86_64) target=x86_64-apple-darwin exe=ixgen ;;
  Darwin-arm64) target=aarch64-apple-darwin exe=ixgen ;;
  MINGW* | MSYS* | CYGWIN*) target=x86_64-pc-windows-msvc exe=ixgen.exe ;;
  *) target="" exe=ixgen ;;
esac

# 1. The released binary.
if [[ $ref =~ ^v[0-9]+\.[0-9]+\.[0-9]+ && -n $target ]]; then
  archive="ixgen-$target.tar.gz"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if curl -fsSL --retry 3 -o "$tmp/$archive" "$base/$ref/$archive" &&
    curl -fsSL --retry 3 -o "$tmp/$archive.sha256" "$base/$ref/$archive.sha256"; then
    want=$(cut -d' ' -f1 <"$tmp/$archive.sha256")
    got=$(sha256 "$tmp/$archive")
    if [[ $want != "$got" ]]; then
      echo "::error::ixgen $ref: $archive has sha256 $got, its release says $want; not installing it" >&2
      exit 1
    fi
    tar -xzf "$tmp/$archive" -C "$tmp"
    version=$("$tmp/$exe" --version)
    if [[ $version != "ixgen ${ref#v}" ]]; then
      echo "::error::ixgen $ref: the released binary says '$version'" >&2
      exit 1
    fi
    install -m 755 "$tmp/$exe" "$bin/$exe"
    echo "ixgen: installed the released binary of $ref ($target, sha256 $got)"
    exit 0
  fi
  echo "ixgen: no released $archive for $ref; building it"
fi

# 2. A build of the checkout, unless the cache restored the same one.
stamp=$(sources_hash)
if [[ -x $bin/$exe && "$(cat "$IXGEN_ROOT/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "ixgen: using the cached build of these sources"
  exit 0
fi
cargo install --locked --quiet --profile dist --force --path "$ACTION_PATH" --root "$IXGEN_ROOT"
echo "$stamp" >"$IXGEN_ROOT/.stamp"
echo "ixgen: built from the action's checkout"
