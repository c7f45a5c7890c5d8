#!/usr/bin/env bash
# Builds isl-wasm; idempotent and cached outside the repository, so a second
# run (or a fresh clone on the same machine) with nothing changed takes
# seconds. Called by bin/setup; prints what it did and what it skipped.
#
#   isl-wasm/setup.sh            (TSOPT_CACHE overrides ~/.cache/tsopt)
#
# 1. isl 0.25 source: `apt-get source isl` into $CACHE/src (never into the repo)
# 2. libisl.a, generated TS layer, wasm link: CMakeLists.txt at the top level;
#    libisl.a lives in $CACHE keyed by its configure flags, and the linked
#    module + generated layer are cached under a hash of everything they are
#    made from (CMakeLists.txt, native/, tools/, the hand-written src/*.ts)
# 3. the package's TypeScript (isl-wasm/tsconfig.json → isl-wasm/dist)
set -euo pipefail

PKG="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$PKG")"
CACHE="${TSOPT_CACHE:-$HOME/.cache/tsopt}"
ISL_SRC="$CACHE/src/isl-0.25"
say() { printf 'isl-wasm setup: %s\n' "$*"; }

# ---------------------------------------------------------------- 1. source
if [[ -f "$ISL_SRC/configure" ]]; then
  say "skipped: isl source (cached in $ISL_SRC)"
else
  mkdir -p "$CACHE/src"
  say "fetching isl source with apt-get source isl"
  (cd "$CACHE/src" && apt-get source isl >/dev/null)
  [[ -f "$ISL_SRC/configure" ]] || { say "apt-get source isl did not give isl-0.25 in $CACHE/src"; exit 1; }
fi

# ---------------------------------------------------------------- 2. wasm + generated layer
KEY="$(cd "$ROOT" && cat CMakeLists.txt isl-wasm/native/* isl-wasm/tools/* isl-wasm/src/*.ts | sha256sum | cut -c1-16)"
LINKED="$CACHE/isl-wasm-link/$KEY"
OUT_WASM="$PKG/dist/wasm"
OUT_GEN="$PKG/src/generated"
if [[ -f "$LINKED/isl.wasm" && -f "$LINKED/isl.js" && -f "$LINKED/isl.ts" ]]; then
  mkdir -p "$OUT_WASM" "$OUT_GEN"
  for f in isl.js isl.wasm; do cmp -s "$LINKED/$f" "$OUT_WASM/$f" || cp "$LINKED/$f" "$OUT_WASM/$f"; done
  cmp -s "$LINKED/isl.ts" "$OUT_GEN/isl.ts" || cp "$LINKED/isl.ts" "$OUT_GEN/isl.ts"
  say "skipped: libisl build, header generation and wasm link (cached as $KEY)"
else
  BUILD="$CACHE/cmake/$(printf '%s' "$ROOT" | sha256sum | cut -c1-16)"
  say "building with cmake in $BUILD (a fresh libisl build takes about a minute on 2 cores)"
  cmake -S "$ROOT" -B "$BUILD" -DISL_SOURCE_DIR="$ISL_SRC" -DTSOPT_CACHE="$CACHE" >/dev/null
  cmake --build "$BUILD" -j2
  mkdir -p "$LINKED"
  cp "$OUT_WASM/isl.js" "$OUT_WASM/isl.wasm" "$OUT_GEN/isl.ts" "$LINKED/"
  say "built and cached as $KEY"
fi

# ---------------------------------------------------------------- 3. TypeScript
TSC="$ROOT/node_modules/.bin/tsc"
[[ -x "$TSC" ]] || { say "no $TSC: run npm install at the repository root first"; exit 1; }
if [[ -f "$PKG/dist/index.js" ]] && [[ -z "$(find "$PKG/src" "$PKG/tsconfig.json" -newer "$PKG/dist/index.js" -print -quit)" ]]; then
  say "skipped: tsc (isl-wasm/dist is up to date)"
else
  "$TSC" -p "$PKG/tsconfig.json"
  touch "$PKG/dist/index.js"
  say "compiled the TypeScript API into isl-wasm/dist"
fi

# npm workspaces link node_modules/isl-wasm → ../isl-wasm; make sure it is there.
if [[ -d "$ROOT/node_modules" && ! -e "$ROOT/node_modules/isl-wasm" ]]; then
  ln -s ../isl-wasm "$ROOT/node_modules/isl-wasm"
  say "linked node_modules/isl-wasm → ../isl-wasm"
fi
