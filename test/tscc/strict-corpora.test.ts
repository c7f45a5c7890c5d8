// Strict corpora: Debian's zlib and Lua built with `make CC=tscc` and TSCC_STRICT=1, so
// that a tsopt failure on any file fails the build instead of hiding behind tscc's fallback to
// clang; then the projects' own tests. (bzip2 is built the same way, with its `make test`, in
// make-bzip2.test.ts.) Lua's tarball has no test suite: `make test` prints the version, and a
// script exercising the interpreter (tables, strings, closures, coroutines, integer and float
// arithmetic, sorting) must print what the same script prints under a clang-14 -O2 build.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { tempDir } from '../support/tools';
import { tsccOnPath } from './support';
import { LUA_MAKEFILE } from '../../bench/compile-time-sources';

const work = tempDir('tscc-strict-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const { env } = tsccOnPath({ TSCC_STRICT: '1' });

function sh(cmd: string, args: readonly string[], cwd: string, extra: NodeJS.ProcessEnv = {}) {
  return spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** The build's lines naming a file tsopt failed on (strict: `tscc: error: tsopt failed on FILE: …`). */
const failures = (log: string) => log.split('\n').filter((l) => /tsopt failed on/.test(l));

test('zlib: make CC=tscc with TSCC_STRICT=1, then its own test (minigzip round trip, example)', () => {
  const src = path.join(work, 'zlib');
  fs.cpSync(debianSource('zlib'), src, { recursive: true });
  const configure = sh('sh', ['./configure', '--static'], src, { CC: 'tscc' });
  expect(configure.status).toBe(0);
  const build = sh('make', ['-j2', 'CC=tscc', 'libz.a', 'example', 'minigzip'], src);
  expect(failures(build.stderr)).toEqual([]);
  expect(build.status).toBe(0);
  expect(build.stdout).toMatch(/tscc .*-O3.*-c -o deflate\.o .*deflate\.c/);
  const check = sh('make', ['CC=tscc', 'teststatic'], src);
  expect(failures(check.stderr)).toEqual([]);
  expect(check.status).toBe(0);
  expect(check.stdout).toContain('*** zlib test OK ***');
}, 1_200_000);

const LUA_SCRIPT = `
local t = {}
for i = 1, 2000 do t[i] = (i * 7919) % 1009 end
table.sort(t)
local s = 0
for i, v in ipairs(t) do s = s + i * v end
print("sorted sum", s, t[1], t[#t])
local words = {}
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do words[#words + 1] = w:upper():reverse() end
print(table.concat(words, ","), #words, string.format("%5.3f %d %x", math.pi, 1 << 40, 48879))
local function counter() local n = 0; return function() n = n + 1; return n end end
local c = counter(); c(); c()
print("closure", c())
local co = coroutine.wrap(function(a) for i = 1, 3 do a = coroutine.yield(a * i) end return "done" end)
print("coroutine", co(2), co(5), co(7), co(0))
local f, x = 0.0, 1
for i = 1, 60 do f = f + 1 / i; x = x * 3 % 1000003 end
print("numbers", string.format("%.12f", f), x, 7 // 2, -7 // 2, 7 % -3, 2^53 + 1.0, math.maxinteger + 1 == math.mininteger)
local ok, err = pcall(function() error({code = 42}) end)
print("pcall", ok, type(err), err.code)
print("utf8", utf8.len("häßlich"), utf8.char(72, 228, 8364))
`;

// Lua's Debian build goes through libtool; LUA_MAKEFILE is the same set of objects, compiled by `make`.
function buildLua(dir: string, cc: string): string {
  fs.cpSync(path.join(debianSource('lua5.4'), 'src'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'tsopt.mk'), LUA_MAKEFILE);
  // Debian's build generates this header; a one-line stand-in does here.
  fs.writeFileSync(path.join(dir, 'lua5.4-deb-multiarch.h'), '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n');
  const build = sh('make', ['-j2', '-f', 'tsopt.mk', `CC=${cc}`, 'test'], dir);
  expect(failures(build.stderr)).toEqual([]);
  expect({ cc, status: build.status, stderr: build.status === 0 ? '' : build.stderr.slice(-2000) }).toEqual({ cc, status: 0, stderr: '' });
  expect(build.stdout).toContain('Lua 5.4');
  return path.join(dir, 'lua');
}

test('Lua 5.4: make CC=tscc with TSCC_STRICT=1, then a script prints what the clang-14 build prints', () => {
  const lua = buildLua(path.join(work, 'lua-tscc'), 'tscc');
  const reference = buildLua(path.join(work, 'lua-clang'), 'clang-14');
  const script = path.join(work, 'check.lua');
  fs.writeFileSync(script, LUA_SCRIPT);
  const expected = sh(reference, [script], work);
  expect(expected.status).toBe(0);
  expect(expected.stdout).toMatch(/^sorted sum\t[\s\S]*utf8\t7\t/);
  const got = sh(lua, [script], work);
  expect({ status: got.status, stdout: got.stdout, stderr: got.stderr }).toEqual({ status: 0, stdout: expected.stdout, stderr: '' });
}, 1_200_000);
