// tscc's short way for modules without loops (issue 16): ir/cycle-scan.ts on clang-14's own
// text, and tscc's object for a loop-free source, which must be clang-14's own object for the
// same command, byte for byte (tsopt would leave the module as it is), and print what tsopt's full
// run's object prints (forced here by TSOPT_FLAGS, which turn the short way off).
// Also the TSCC_TIME_STAGES records bench/compile-time.ts reads (their names; never their times).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mayHaveLoops } from '../../ir/cycle-scan';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const LOOP_FREE = `#include <stdio.h>
#include <stdlib.h>
struct acc { long sum; int n; };
static int classify(int x) {
  switch (x % 5) { case 0: return 3; case 1: return x > 10 ? 7 : 1; case 2: return -2; default: return x & 3; }
}
void add(struct acc *a, int x) { a->sum += classify(x) * (long)x; a->n++; }
double mean(const struct acc *a) { return a->n ? (double)a->sum / a->n : 0.0; }
int main(int argc, char **argv) {
  struct acc a = { 0, 0 };
  add(&a, argc * 13); add(&a, 42); add(&a, argc > 1 ? atoi(argv[1]) : -9); add(&a, 1000003);
  printf("%ld %d %.6f\\n", a.sum, a.n, mean(&a));
  return 0;
}
`;

/** Loops of several shapes: a counted loop, a goto back edge, a do-while, a loop only in one of two functions. */
const LOOPS: Record<string, string> = {
  counted: 'void f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 2.0 + 1.0; }',
  gotoBack: 'int g(int x) { again: if (x > 100) { x = x / 3 + 1; goto again; } return x; }',
  doWhile: 'unsigned h(unsigned x) { unsigned s = 0; do { s += x & 1; x >>= 1; } while (x); return s; }',
  secondFunction: 'int k(int x) { return x + 1; }\nlong m(const int *a, long n) { long s = 0; while (n-- > 0) s += a[n]; return s; }',
};

function irText(dir: string, name: string, source: string, flags: string[]): string {
  const file = path.join(dir, `${name}.c`);
  fs.writeFileSync(file, source);
  return compileToIr(file, flags, true).toString();
}

describe('mayHaveLoops on clang-14 -O3 text', () => {
  const dir = tempDir('cycle-scan-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a file of branches, a switch and calls has no loop', () => {
    expect(mayHaveLoops(irText(dir, 'free', LOOP_FREE, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']))).toBe(false);
  });

  test.each(Object.entries(LOOPS))('%s: may loop', (name, source) => {
    expect(mayHaveLoops(irText(dir, name, source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']))).toBe(true);
  });

  test('named blocks (-O0 with value names) are followed too', () => {
    const flags = ['-O0', '-Xclang', '-disable-O0-optnone', '-fno-discard-value-names'];
    expect(irText(dir, 'named', LOOPS.counted!, flags)).toMatch(/^for\.cond:/m);
    expect(mayHaveLoops(irText(dir, 'named', LOOPS.counted!, flags))).toBe(true);
    expect(mayHaveLoops(irText(dir, 'namedFree', LOOP_FREE, flags))).toBe(false);
  });

  test('a self loop and a declaration-only module', () => {
    const selfLoop = 'define void @f(i1 %c) {\nentry:\n  br label %"a b"\n\n"a b":\n  br i1 %c, label %"a b", label %out\n\nout:\n  ret void\n}\n';
    expect(mayHaveLoops(selfLoop)).toBe(true);
    expect(mayHaveLoops(selfLoop.replace('label %"a b", label %out', 'label %out, label %out'))).toBe(false);
    expect(mayHaveLoops('declare void @g()\n')).toBe(false);
  });
});

describe('tscc on a loop-free source', () => {
  const dir = tempDir('tscc-loop-free-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const src = path.join(dir, 'free.c');
  fs.writeFileSync(src, LOOP_FREE);

  const tscc = (out: string, extraEnv: NodeJS.ProcessEnv, flags: string[] = ['-O3']) => {
    const { env } = tsccOnPath({ TSCC_STRICT: '1', ...extraEnv });
    const r = spawnSync('tscc', [...flags, '-c', src, '-o', path.join(dir, out)], { env, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    return fs.readFileSync(path.join(dir, out));
  };

  test.each([[['-O3']], [['-O2', '-g']], [['-O3', '-fno-vectorize', '-fno-slp-vectorize']]])('%j: clang-14\'s own object, which prints what tsopt\'s full run prints', (flags) => {
    const stages = path.join(dir, `stages-${flags.join('')}.jsonl`);
    const short = tscc('short.o', { TSCC_TIME_STAGES: stages }, flags);
    runOk('clang-14', [...flags, '-c', src, '-o', path.join(dir, 'clang.o')]);
    expect(short.equals(fs.readFileSync(path.join(dir, 'clang.o')))).toBe(true);
    const names = JSON.parse(fs.readFileSync(stages, 'utf8').trim()).stages.map((s: { stage: string }) => s.stage);
    expect(names).toEqual(['tscc start (node)', 'front end (clang-14)', 'loop scan', 'loop-free: clang-14 -O3']);

    // TSOPT_FLAGS (here the default pipeline, spelled out) send every source through tsopt.
    tscc('full.o', { TSOPT_FLAGS: '--passes=versioning' }, flags);
    runOk('clang-14', [path.join(dir, 'short.o'), '-o', path.join(dir, 'short')]);
    runOk('clang-14', [path.join(dir, 'full.o'), '-o', path.join(dir, 'full')]);
    for (const args of [[], ['17']]) {
      expect(runOk(path.join(dir, 'short'), args).toString()).toBe(runOk(path.join(dir, 'full'), args).toString());
    }
  }, 120_000);

  test('a loop-free source on stdin, and one whose clang run fails: clang\'s error and status, no tsopt fallback', () => {
    const { env } = tsccOnPath({ TSCC_STRICT: '1' });
    const r = spawnSync('tscc', ['-O2', '-x', 'c', '-c', '-', '-o', path.join(dir, 'stdin.o')], { env, input: LOOP_FREE, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    runOk('clang-14', ['-O2', '-c', src, '-o', path.join(dir, 'clang-O2.o')]);
    // The same code (the object's file symbol names the source, `-` here).
    expect(runOk('objdump', ['-d', '--no-show-raw-insn', path.join(dir, 'stdin.o')]).toString().split('\n').slice(3))
      .toEqual(runOk('objdump', ['-d', '--no-show-raw-insn', path.join(dir, 'clang-O2.o')]).toString().split('\n').slice(3));
    // The front end succeeds; writing the object fails (its directory does not exist).
    const bad = spawnSync('tscc', ['-O2', '-c', src, '-o', path.join(dir, 'missing', 'x.o')], { env, encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/error/);
    expect(bad.stderr).not.toMatch(/tscc: (warning|error): tsopt failed/);
  }, 120_000);

  test('a source with loops still goes through tsopt, whose stages are recorded and whose JSON stays off stderr', () => {
    const loops = path.join(dir, 'loops.c');
    fs.writeFileSync(loops, `${LOOPS.counted}\n${LOOPS.secondFunction}\n`);
    const stages = path.join(dir, 'stages-loops.jsonl');
    const { env } = tsccOnPath({ TSCC_STRICT: '1', TSCC_TIME_STAGES: stages });
    const r = spawnSync('tscc', ['-O3', '-c', loops, '-o', path.join(dir, 'loops.o')], { env, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const line = JSON.parse(fs.readFileSync(stages, 'utf8').trim()) as { source: string; stages: { stage: string; cpuMs: number }[] };
    expect(line.source).toBe(loops);
    const names = line.stages.map((s) => s.stage);
    // tsopt keeps nothing of its own there, so clang-14 writes its object (cli/outcome.ts).
    for (const n of ['tscc start (node)', 'front end (clang-14)', 'tsopt', 'tsopt: process start (node and modules)', 'tsopt: parsed', 'tsopt: versioning', 'tsopt: post pipeline (opt-14)', 'unchanged: clang-14 -O3']) {
      expect(names).toContain(n);
    }
    expect(names).not.toContain('back end (clang-14)');
    expect(line.stages.every((s) => typeof s.cpuMs === 'number' && s.cpuMs >= 0)).toBe(true);
  }, 120_000);
});
