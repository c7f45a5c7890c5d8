#!/usr/bin/env bash
# Builds isl-wasm; idempotent and cached outside the repository, so a second
# run (or a fresh clone on the same machine) with nothing changed takes
# seconds. Called by bin/setup; prints what it did and what it skipped.
#
#   isl-wasm/setup.sh            (TSOPT_CACHE overrides ~/.cache/tsopt)
#
# 1. isl 0.25 source: `apt-get source isl` into $CACHE/src (never into the repo)
# 2. libisl.a, generated TS layer, wasm link: CMakeLists.txt at the top level;
#    libisl.a lives in $CACHE keyed by its configure flags
# 3. the package's TypeScript (isl-wasm/tsconfig.json → isl-wasm/dist)
# The results of 2 and 3 (dist/ and the generated layer) are cached under a
# hash of everything they are made from (CMakeLists.txt, tsconfig.json,
# native/, tools/, the hand-written src/*.ts).
set -euo pipefail

PKG="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$PKG")"
CACHE="${TSOPT_CACHE:-$HOME/.cache/tsopt}"
ISL_SRC="$CACHE/src/isl-0.25"
say() { printf 'isl-wasm setup: %s\n' "$*"; }

# One set-up at a time per cache: two at once (two clones, or two bin/test runs) would unpack,
# configure and build libisl in the same $CACHE directories (`mv: cannot stat .deps/…Tpo`).
# The lock is fd 9, held until this script and the builds it starts have exited.
mkdir -p "$CACHE"
exec 9>"$CACHE/isl-wasm-setup.lock"
if ! flock -n 9; then
  say "waiting for another isl-wasm set-up using $CACHE"
  flock 9
fi

# ---------------------------------------------------------------- 1. source
if [[ -f "$ISL_SRC/configure" ]]; then
  say "skipped: isl source (cached in $ISL_SRC)"
else
  mkdir -p "$CACHE/src"
  say "fetching isl source with apt-get source isl"
  # (apt warns that it downloads unsandboxed as root; that is expected here)
  (cd "$CACHE/src" && apt-get source -qq isl 2>&1 | grep -v 'unsandboxed as root' || true)
  [[ -f "$ISL_SRC/configure" ]] || { say "apt-get source isl did not give isl-0.25 in $CACHE/src"; exit 1; }
fi

# ---------------------------------------------------------------- 2. + 3. build, or reuse a cached build
# Everything the package's dist/ and generated layer are made from goes into the key.
KEY="$(cd "$ROOT" && cat CMakeLists.txt isl-wasm/tsconfig.json isl-wasm/native/* isl-wasm/tools/* isl-wasm/src/*.ts | sha256sum | cut -c1-16)"
CACHED="$CACHE/isl-wasm-build/$KEY"
TSC="$ROOT/node_modules/.bin/tsc"
if [[ -f "$CACHED/complete" ]]; then
  mkdir -p "$PKG/src/generated" "$PKG/dist"
  cmp -s "$CACHED/isl.ts" "$PKG/src/generated/isl.ts" || cp "$CACHED/isl.ts" "$PKG/src/generated/isl.ts"
  if ! diff -rq "$CACHED/dist" "$PKG/dist" >/dev/null 2>&1; then
    rm -rf "$PKG/dist" && cp -r "$CACHED/dist" "$PKG/dist"
    say "restored isl-wasm/dist from the cache"
  fi
  say "skipped: libisl build, header generation, wasm link and tsc (cached as $KEY)"
else
  [[ -x "$TSC" ]] || { say "no $TSC: run npm install at the repository root first"; exit 1; }
  BUILD="$CACHE/cmake/$(printf '%s' "$ROOT" | sha256sum | cut -c1-16)"
  say "building with cmake in $BUILD (a fresh libisl build takes 1-4 minutes on 2 cores)"
  cmake -S "$ROOT" -B "$BUILD" -DISL_SOURCE_DIR="$ISL_SRC" -DTSOPT_CACHE="$CACHE" >/dev/null
  cmake --build "$BUILD" -j2
  "$TSC" -p "$PKG/tsconfig.json"
  say "compiled the TypeScript API into isl-wasm/dist"
  rm -rf "$CACHED" && mkdir -p "$CACHED"
  cp -r "$PKG/dist" "$CACHED/dist"
  cp "$PKG/src/generated/isl.ts" "$CACHED/isl.ts"
  touch "$CACHED/complete"
  say "built and cached as $KEY"
fi

# npm workspaces link node_modules/isl-wasm → ../isl-wasm; make sure it is there.
if [[ -d "$ROOT/node_modules" && ! -e "$ROOT/node_modules/isl-wasm" ]]; then
  ln -s ../isl-wasm "$ROOT/node_modules/isl-wasm"
  say "linked node_modules/isl-wasm → ../isl-wasm"
fi
