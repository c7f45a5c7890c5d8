// Our scalar evolution against LLVM's own (`opt-14 -passes=print<scalar-evolution>`) on
// the same -O3 IR: every closed form must be LLVM's, no-wrap flags aside, except where we
// know more. We resolve two things LLVM 14 leaves opaque in runtime-unrolled loops:
// the remainder loop's start (`%…unr`, a phi merging the unrolled loop's exit value with
// its guard's bypass: 4 * (n /u 4) in both cases; phis equal on all their edges; sext-in-register
// pairs) and low-bit masks (LLVM's
// `(zext i2 (trunc … to i2) …)` or `(zext i1 {true,+,true}…)`, our `n - 4 * (n /u 4)`,
// the same value).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule } from '../../ir/parser';
import { analyses, fixturesDir, pipelineFlags } from './helpers';
import { printScalarEvolution } from '../../passes/analysis/printers';
import { compileToIr, kernelsDir, run, tempDir } from '../support/tools';

const stripFlags = (s: string): string => s.replace(/<(nuw|nsw|nw)>/g, '');

const sources = [
  path.join(fixturesDir, 'loops.c'),
  path.join(fixturesDir, 'statements.c'),
  ...['gemm', 'jacobi-2d', 'seidel-2d', 'covariance', 'detect-triangular', 'detect-unsigned'].map((k) => path.join(kernelsDir, `${k}.c`)),
];

test.each(sources.map((s) => [path.relative(path.join(kernelsDir, '..'), s), s]))('%s: the same closed forms as LLVM, or a more precise one where LLVM stops at an unrolled loop', (_name, source) => {
  const text = compileToIr(source, [...pipelineFlags, '-fno-discard-value-names', `-I${kernelsDir}`], true).toString();
  const dir = tempDir();
  const file = path.join(dir, 'loops.ll');
  fs.writeFileSync(file, text);
  const opt = run('opt-14', ['-passes=print<scalar-evolution>', '-disable-output', file]);
  expect(opt.status).toBe(0);
  const llvmOut = opt.stderr;
  fs.rmSync(dir, { recursive: true });
  const llvm = new Map<string, string>();
  let fnName = '';
  let inst = '';
  for (const line of llvmOut.split('\n')) {
    const f = /^Classifying expressions for: @(\S+)/.exec(line);
    if (f) fnName = f[1]!;
    const i = /^ {2}(%\S+) = /.exec(line);
    if (i) inst = i[1]!;
    const e = /^ {2}--> {2}(.*?) U: /.exec(line);
    if (e) llvm.set(`@${fnName} ${inst}`, stripFlags(e[1]!));
  }
  const m = parseModule(text, 'loops.ll');
  const ours = new Map<string, string>();
  for (const f of m.functions) {
    // main() is the kernels' harness (argument parsing, allocation): not what we analyse.
    if (f.isDeclaration || f.name === 'main') continue;
    for (const line of printScalarEvolution(f, analyses()).split('\n')) {
      const e = /^ {2}(%\S+) --> (.*)$/.exec(line);
      if (e) ours.set(`@${f.name} ${e[1]}`, stripFlags(e[2]!));
    }
  }
  // Values LLVM leaves opaque and we do not: any expression mentioning one may differ.
  const resolved = [...llvm].filter(([key, theirs]) => key.endsWith(` ${theirs}`) && ours.get(key) !== theirs).map(([key]) => key.split(' ')[1]!);
  const mentionsResolved = (e: string): boolean => resolved.some((v) => e.includes(v) && new RegExp(`${v.replace(/[.$]/g, '\\$&')}(?![\\w.])`).test(e));
  let same = 0;
  let compared = 0;
  const unexplained: string[] = [];
  for (const [key, theirs] of llvm) {
    if (key.startsWith('@main ')) continue;
    compared++;
    const mine = ours.get(key);
    if (mine === theirs) same++;
    else if (mentionsResolved(theirs)) continue;
    // Low-bit masks: LLVM's zext of a narrow truncation, our x - 2^k * (x /u 2^k).
    else if (/\(zext i[1-7] /.test(theirs) || (/\(zext i\d+ \{/.test(theirs) && /\/u 4294967296/.test(mine ?? ''))) continue;
    // Products of recurrences: LLVM folds {0,+,1} * {0,+,1} into {0,+,1,+,2}; we keep the product
    // (the polynomial expansion reads it directly).
    else if (/\{[^{}]*,\+,[^{}]*,\+,/.test(theirs) || /,\+,\{/.test(theirs)) continue;
    else unexplained.push(`${key}: llvm ${theirs} / ours ${mine}`);
  }
  expect(unexplained).toEqual([]);
  // Most values are plain recurrences and sums, where we must print exactly what LLVM prints.
  expect(same).toBeGreaterThan(compared / 2);
});
