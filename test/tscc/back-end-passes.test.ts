// Which LLVM passes each of tscc's clang runs executes (issue 16): the middle end must run once
// per source, in the front end (clang -O3 up to the vectorizers) and tsopt's post pipeline (-O3's
// tail from the vectorizers on), never again in the back end, whose clang gets tsopt's output
// with `-Xclang -disable-llvm-passes` and only generates code. A driver wrapper (TSCC_DRIVER)
// logs each clang run's arguments and the new pass manager's list of passes it ran
// (`-Xclang -fdebug-pass-manager`); the program tscc builds must print what clang -O3's prints.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const KERNEL = `#include <stdio.h>
#define N 48
static double A[N][N], B[N][N], C[N][N];
__attribute__((noinline)) void mm(int n, double a[N][N], double b[N][N], double c[N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        c[i][j] += a[i][k] * b[k][j];
}
int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i * 7 + j) % 13 * 0.25; B[i][j] = (i + 3 * j) % 11 * 0.5; C[i][j] = 0; }
  mm(N - argc + 1, A, B, C);
  double s = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += C[i][j] * (i + 1) - j;
  printf("%.6f\\n", s);
  return 0;
}
`;

/** One logged clang run: its arguments and the passes the new pass manager ran. */
interface ClangRun {
  args: string[];
  passes: string[];
}

describe('the passes of tscc clang runs', () => {
  const dir = tempDir('tscc-back-end-passes-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the front end runs the middle end, the back end none of it', () => {
    const src = path.join(dir, 'mm.c');
    fs.writeFileSync(src, KERNEL);
    const log = path.join(dir, 'log');
    fs.mkdirSync(log);
    // -### writes its plan to stderr for tscc to read: that run goes through untouched.
    const driver = path.join(dir, 'clang-logged');
    fs.writeFileSync(driver, `#!/bin/bash
for a in "$@"; do [ "$a" = "-###" ] && exec clang-14 "$@"; done
n=$(ls "${log}" | wc -l)
printf '%s\\n' "$@" > "${log}/$n.args"
exec clang-14 "$@" -Xclang -fdebug-pass-manager 2> "${log}/$n.passes"
`);
    fs.chmodSync(driver, 0o755);
    const stages = path.join(dir, 'stages.jsonl');
    const { env } = tsccOnPath({ TSCC_STRICT: '1', TSCC_DRIVER: driver, TSCC_TIME_STAGES: stages });
    const obj = path.join(dir, 'mm.o');
    const r = spawnSync('tscc', ['-O3', '-c', src, '-o', obj], { env, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });

    const runs: ClangRun[] = fs.readdirSync(log).filter((f) => f.endsWith('.args')).sort().map((f) => ({
      args: fs.readFileSync(path.join(log, f), 'utf8').trimEnd().split('\n'),
      passes: fs.readFileSync(path.join(log, f.replace('.args', '.passes')), 'utf8').split('\n')
        .filter((l) => l.startsWith('Running pass: ')).map((l) => l.replace(/^Running pass: (\S+).*/, '$1')),
    }));
    expect(runs).toHaveLength(2);
    const [front, back] = runs as [ClangRun, ClangRun];
    expect(front.args).toEqual(expect.arrayContaining(['-O3', '-emit-llvm', '-fno-vectorize', '-fno-slp-vectorize', src]));
    // The wrapper sees the passes: -O3's middle end on the source.
    expect(front.passes).toEqual(expect.arrayContaining(['InstCombinePass', 'LICMPass', 'LoopVectorizePass']));
    expect(back.args).toEqual(expect.arrayContaining(['-O3', '-Xclang', '-disable-llvm-passes', '-x', 'ir', '-o', obj]));
    expect(back.passes).toEqual([]);

    // tsopt ran between them, its post pipeline (the vectorizers) once.
    const names = (JSON.parse(fs.readFileSync(stages, 'utf8').trim()) as { stages: { stage: string }[] }).stages.map((s) => s.stage);
    expect(names.filter((n) => n === 'tsopt: versioning')).toHaveLength(1);
    expect(names.filter((n) => n === 'tsopt: post pipeline (opt-14)')).toHaveLength(1);

    runOk('clang-14', [obj, '-o', path.join(dir, 'mm')]);
    runOk('clang-14', ['-O3', src, '-o', path.join(dir, 'mm-clang')]);
    for (const args of [[], ['x', 'y']]) {
      expect(runOk(path.join(dir, 'mm'), args).toString()).toBe(runOk(path.join(dir, 'mm-clang'), args).toString());
    }
  }, 120_000);
});
