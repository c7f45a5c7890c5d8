#!/bin/sh
# configure-isl.sh SOURCE_DIR CONFIGURE_ARGS… — run in the libisl build
# directory by CMakeLists.txt; configures once (keeps an existing Makefile).
set -e
src="$1"; shift
[ -f Makefile ] && exit 0
if ! NODE_PATH=/usr/share/nodejs emconfigure "$src/configure" "$@" > configure.log 2>&1; then
  tail -30 configure.log
  rm -f Makefile
  exit 1
fi
