// What bench/compile-time.ts builds besides PolyBench: Debian's source trees (fetched by the
// tests' `apt-get source` into the cache; never committed), Lua's objects through a plain
// Makefile, and a C file without loops.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The unpacked tree of a Debian source package in tsopt's cache (test/support/debian-sources.ts fetches it). */
export function debianSourceTree(pkg: string): string {
  const dir = path.join(process.env.TSOPT_CACHE ?? path.join(os.homedir(), '.cache', 'tsopt'), 'debian-src', pkg);
  const tree = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).find((e) => e.isDirectory()) : undefined;
  if (!tree) throw new Error(`no source tree of ${pkg} in ${dir} (run the tests that fetch it, e.g. npx jest test/tscc/make-bzip2.test.ts)`);
  return path.join(dir, tree.name);
}

/**
 * Lua 5.4's interpreter from its src/ directory: Debian's build goes through libtool; this is the
 * same set of objects, compiled by `make` (-O2). Also test/tscc/strict-corpora.test.ts's build.
 */
export const LUA_MAKEFILE = `CFLAGS = -O2 -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
CORE = lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o lobject.o lopcodes.o lparser.o lstate.o lstring.o ltable.o ltm.o lundump.o lvm.o lzio.o
LIB = lauxlib.o lbaselib.o lcorolib.o ldblib.o liolib.o lmathlib.o loadlib.o loslib.o lstrlib.o ltablib.o lutf8lib.o linit.o
lua: lua.o $(CORE) $(LIB)
\t$(CC) -o $@ lua.o $(CORE) $(LIB) -lm -ldl -Wl,-E
%.o: %.c
\t$(CC) $(CFLAGS) -c -o $@ $<
test: lua
\t./lua -v
`;

/** A C file without loops, of the kind a project has many of: option handling, dispatch, error paths. */
export const NO_LOOPS_C = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options { int verbose; int level; const char *name; double scale; };

static int parse_level(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*end != '\\0' || v < 0 || v > 9) return -1;
  return (int)v;
}

int apply_option(struct options *o, const char *key, const char *value) {
  if (strcmp(key, "verbose") == 0) { o->verbose = value ? atoi(value) : 1; return 0; }
  if (strcmp(key, "level") == 0) {
    int l = value ? parse_level(value) : -1;
    if (l < 0) { fprintf(stderr, "bad level %s\\n", value ? value : "(none)"); return -1; }
    o->level = l;
    return 0;
  }
  if (strcmp(key, "name") == 0) { o->name = value; return 0; }
  if (strcmp(key, "scale") == 0) { o->scale = value ? strtod(value, NULL) : 1.0; return 0; }
  return -2;
}

const char *describe(int code) {
  switch (code) {
  case 0: return "ok";
  case -1: return "bad value";
  case -2: return "unknown option";
  default: return "?";
  }
}

double scaled(const struct options *o, double x) {
  double y = x * o->scale;
  if (o->verbose > 1) printf("%s: %g -> %g (level %d)\\n", o->name ? o->name : "-", x, y, o->level);
  return o->level > 5 ? y * 2 : y;
}
`;
