// tscc in the hands of build systems and their users: CMake C and C++ projects configured with
// tscc and tscc++ (includes passed in response files, as CMake does for long command lines),
// `@file` arguments, TSOPT_FLAGS with quoted values, a bad TSOPT_FLAGS failing the compile, and
// tscc's own --help and --version.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tokenizeGnu } from '../../cli/response-files';
import { tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const { env } = tsccOnPath();
const dir = tempDir('tscc-build-systems-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function sh(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = dir) {
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
}

function ok(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = dir) {
  const r = sh(cmd, args, extraEnv, cwd);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

const STAT = /^tsopt: stat: versioning\.versioned = [1-9]\d*$/gm;
// y[i] = 1000 - i + 0.5 * i over i < 1000: the sum is 1e6 - 0.5 * 499500.
const SUM = '7.502500e+05\n';

const AXPY_C = 'void axpy(double *y, const double *x, int n, double a) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }\n';
const MAIN_C = `#include <stdio.h>
#include "axpy.h"
int main(void) {
  double x[1000], y[1000];
  for (int i = 0; i < 1000; i++) { x[i] = i; y[i] = 1000 - i; }
  axpy(y, x, 1000, 0.5);
  double s = 0;
  for (int i = 0; i < 1000; i++) s += y[i];
  printf("%.6e\\n", s);
  return 0;
}
`;
const DEMO_CPP = `#include <cstdio>
#include <vector>
static void scale(std::vector<double> &y, const std::vector<double> &x, double a) {
  for (std::size_t i = 0; i < y.size(); i++) y[i] += a * x[i];
}
int main() {
  std::vector<double> x(1000), y(1000);
  for (int i = 0; i < 1000; i++) { x[i] = i; y[i] = 1000 - i; }
  scale(y, x, 0.5);
  double s = 0;
  for (double v : y) s += v;
  std::printf("%.6e\\n", s);
  return 0;
}
`;

beforeAll(() => {
  fs.mkdirSync(path.join(dir, 'src', 'inc'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'inc', 'axpy.h'), 'void axpy(double *y, const double *x, int n, double a);\n');
  fs.writeFileSync(path.join(dir, 'src', 'axpy.c'), `#include "axpy.h"\n${AXPY_C}`);
  fs.writeFileSync(path.join(dir, 'src', 'main.c'), MAIN_C);
  fs.writeFileSync(path.join(dir, 'src', 'demo.cpp'), DEMO_CPP);
});

test('a CMake project of C and C++ configured with tscc and tscc++ builds, runs tsopt on every source, and runs', () => {
  fs.writeFileSync(path.join(dir, 'src', 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.13)
project(demo C CXX)
# CMake's own way of keeping long command lines short: the include flags in a response file.
set(CMAKE_C_USE_RESPONSE_FILE_FOR_INCLUDES ON)
set(CMAKE_CXX_USE_RESPONSE_FILE_FOR_INCLUDES ON)
include_directories(inc)
add_executable(cdemo axpy.c main.c)
add_executable(cxxdemo demo.cpp)
`);
  const build = path.join(dir, 'cmake-build');
  ok('cmake', ['-S', path.join(dir, 'src'), '-B', build, '-DCMAKE_C_COMPILER=tscc', '-DCMAKE_CXX_COMPILER=tscc++', '-DCMAKE_BUILD_TYPE=Release']);
  const r = ok('cmake', ['--build', build, '--', 'VERBOSE=1'], { TSOPT_FLAGS: '--stats' });
  expect(r.stdout).toMatch(/tscc +@CMakeFiles\/cdemo\.dir\/includes_C\.rsp /);
  expect(`${r.stdout}${r.stderr}`.match(STAT)).toHaveLength(3); // axpy.c, main.c, demo.cpp
  expect(ok(path.join(build, 'cdemo'), []).stdout).toBe(SUM);
  expect(ok(path.join(build, 'cxxdemo'), []).stdout).toBe(SUM);
}, 240_000);

test('tscc @file: expanded as clang expands it (quotes, nested files), and tsopt runs', () => {
  fs.writeFileSync(path.join(dir, 'msg.c'), `#include <stdio.h>\n#include "axpy.h"\n${AXPY_C}int main(void) { puts(MSG); return 0; }\n`);
  fs.writeFileSync(path.join(dir, 'inner.rsp'), '-Isrc/inc\n');
  fs.writeFileSync(path.join(dir, 'args.rsp'), `-O2 -DMSG='"one two"' @inner.rsp\n-c msg.c -o "msg 1.o"\n`);
  const r = ok('tscc', ['@args.rsp'], { TSOPT_FLAGS: '--stats' });
  expect(r.stderr.match(STAT)).toHaveLength(1);
  ok('tscc', ['msg 1.o', '-o', 'msg']);
  expect(ok(path.join(dir, 'msg'), []).stdout).toBe('one two\n');
});

test("response files are split by clang's GNU rules", () => {
  // What clang-14 -E makes of the same file: A, B, C, D defined as x y, q"r, a b, xy; "" is no word.
  expect(tokenizeGnu(`-DA='x y' -DB="q\\"r"\n\t-DC=a\\ b "" -DD='x\\y' 'it''s'`)).toEqual(['-DA=x y', '-DB=q"r', '-DC=a b', '-DD=xy', 'its']);
});

test('TSOPT_FLAGS: quoted values reach tsopt whole', () => {
  const flags = `--report="report 1.txt" --report-format='text'`;
  ok('tscc', ['-O2', '-c', 'src/axpy.c', '-Isrc/inc', '-o', 'axpy.o'], { TSOPT_FLAGS: flags });
  expect(fs.readFileSync(path.join(dir, 'report 1.txt'), 'utf8')).toMatch(/^pipeline: /m);
});

test.each([
  ['--bogus', 'tscc: error: TSOPT_FLAGS: unknown option --bogus (see tsopt --help)\n'],
  ['--report-format=xml', /^tscc: error: TSOPT_FLAGS: .*report-format.*\n$/],
  ['--passes=no-such-pass', /^tscc: error: TSOPT_FLAGS: unknown pass 'no-such-pass' in --passes \(known: .*\)\n$/],
  ['--help', 'tscc: error: TSOPT_FLAGS: --help asks tsopt a question instead of compiling (run tsopt --help)\n'],
  ['--stats | tee x', "tscc: error: TSOPT_FLAGS: '|' is a shell operator, not a flag (quote it)\n"],
])('a bad TSOPT_FLAGS (%s) fails the compile with one line and no object', (flags, message) => {
  const r = sh('tscc', ['-O2', '-c', 'src/axpy.c', '-o', 'bad.o'], { TSOPT_FLAGS: flags });
  expect(r.status).toBe(1);
  if (typeof message === 'string') expect(r.stderr).toBe(message);
  else expect(r.stderr).toMatch(message);
  expect(fs.existsSync(path.join(dir, 'bad.o'))).toBe(false);
});

test('--help: tscc\'s own section with its variables, then clang\'s; --version: clang\'s, then tsopt, LLVM and isl', () => {
  for (const name of ['tscc', 'tscc++']) {
    const help = ok(name, ['--help']).stdout;
    expect(help.startsWith(`Usage: ${name} [clang options] file...\n`)).toBe(true);
    const clangPart = help.indexOf('OVERVIEW: clang LLVM compiler');
    expect(clangPart).toBeGreaterThan(0);
    for (const variable of ['TSOPT_FLAGS', 'TSCC_STRICT', 'TSCC_DRIVER']) {
      expect(help.indexOf(variable)).toBeGreaterThan(0);
      expect(help.indexOf(variable)).toBeLessThan(clangPart);
    }
  }
  const version = ok('tscc', ['--version']).stdout;
  expect(version.split('\n')[0]).toBe(ok('clang-14', ['--version']).stdout.split('\n')[0]);
  expect(version).toMatch(/\ntscc: tsopt \d+\.\d+\.\d+ \(LLVM 14\.\d+\.\d+, isl 0\.\d+[.\d]*\)\n$/);
});
