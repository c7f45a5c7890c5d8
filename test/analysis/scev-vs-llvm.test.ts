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
import { printScalarEvolution } from '../../passes/analysis-printers';
import { compileToIr, kernelsDir, run, tempDir } from '../support/tools';

const stripFlags = (s: string): string => s.replace(/<(nuw|nsw|nw)>/g, '');

const sources = [
  path.join(fixturesDir, 'loops.c'),
  path.join(fixturesDir, 'statements.c'),
  ...['gemm', 'jacobi-2d', 'seidel-2d', 'covariance', 'detect-triangular', 'detect-unsigned'].map((k) => path.join(kernelsDir, `${k}.c`)),
  // The flat int-subscript kernels: A[i*n + j-1] leaves a sext of a 32-bit value (see below).
  ...['heat-3d', 'fdtd-2d', 'correlation', 'adi'].map((k) => path.join(kernelsDir, `${k}.c`)),
];

/** Closed forms by `@function %value`, LLVM's (opt-14) and ours, flags kept. */
function bothClosedForms(text: string): { llvm: Map<string, string>; ours: Map<string, string> } {
  const dir = tempDir();
  const file = path.join(dir, 'loops.ll');
  fs.writeFileSync(file, text);
  const opt = run('opt-14', ['-passes=print<scalar-evolution>', '-disable-output', file]);
  fs.rmSync(dir, { recursive: true });
  expect(opt.status).toBe(0);
  const llvm = new Map<string, string>();
  let fnName = '';
  let inst = '';
  for (const line of opt.stderr.split('\n')) {
    const f = /^Classifying expressions for: @(\S+)/.exec(line);
    if (f) fnName = f[1]!;
    const i = /^ {2}(%\S+) = /.exec(line);
    if (i) inst = i[1]!;
    const e = /^ {2}--> {2}(.*?) U: /.exec(line);
    if (e && fnName !== 'main') llvm.set(`@${fnName} ${inst}`, e[1]!);
  }
  const m = parseModule(text, 'loops.ll');
  const ours = new Map<string, string>();
  for (const f of m.functions) {
    // main() is the kernels' harness (argument parsing, allocation): not what we analyse.
    if (f.isDeclaration || f.name === 'main') continue;
    for (const line of printScalarEvolution(f, analyses()).split('\n')) {
      const e = /^ {2}(%\S+) --> (.*)$/.exec(line);
      if (e) ours.set(`@${f.name} ${e[1]}`, e[2]!);
    }
  }
  return { llvm, ours };
}

test.each(sources.map((s) => [path.relative(path.join(kernelsDir, '..'), s), s]))('%s: the same closed forms as LLVM, or a more precise one where LLVM stops at an unrolled loop', (_name, source) => {
  const text = compileToIr(source, [...pipelineFlags, '-fno-discard-value-names', `-I${kernelsDir}`], true).toString();
  const both = bothClosedForms(text);
  const strip = (m: Map<string, string>): Map<string, string> => new Map([...m].map(([k, v]) => [k, stripFlags(v)]));
  const llvm = strip(both.llvm);
  const ours = strip(both.ours);
  // Values LLVM leaves opaque and we do not: any expression mentioning one may differ.
  const resolved = [...llvm].filter(([key, theirs]) => key.endsWith(` ${theirs}`) && ours.get(key) !== theirs).map(([key]) => key.split(' ')[1]!);
  const mentionsResolved = (e: string): boolean => resolved.some((v) => e.includes(v) && new RegExp(`${v.replace(/[.$]/g, '\\$&')}(?![\\w.])`).test(e));
  let same = 0;
  let compared = 0;
  const unexplained: string[] = [];
  for (const [key, theirs] of llvm) {
    compared++;
    const mine = ours.get(key);
    if (mine === theirs) same++;
    else if (mentionsResolved(theirs)) continue;
    // Low-bit masks: LLVM's zext of a narrow truncation, our x - 2^k * (x /u 2^k).
    else if (/\(zext i[1-7] /.test(theirs) || (/\(zext i\d+ \{/.test(theirs) && /\/u 4294967296/.test(mine ?? ''))) continue;
    // Products of recurrences: LLVM folds {0,+,1} * {0,+,1} into {0,+,1,+,2}; we keep the product
    // (the polynomial expansion reads it directly).
    else if (/\{[^{}]*,\+,[^{}]*,\+,/.test(theirs) || /,\+,\{/.test(theirs)) continue;
    // A constant times a sum: LLVM 14 distributes only over sums with a constant operand, we always
    // do (linear forms stay flat); the same value.
    else if (/\(-?\d+ \* \((?!(sext|zext|trunc) )/.test(theirs)) continue;
    // The extension of an IR `mul nsw` / `add nsw`: we push it inside (the instruction's value is
    // poison otherwise); LLVM keeps it unless poison there is also UB (getNoWrapFlagsFromUB).
    else if (/\((sext|zext) i\d+ \((?:[^(){}]|\([^(){}]*\))* [*+] (?:[^(){}]|\([^(){}]*\))*\) to i\d+\)/.test(theirs)) continue;
    else unexplained.push(`${key}: llvm ${theirs} / ours ${mine}`);
  }
  expect(unexplained).toEqual([]);
  // Most values are plain recurrences and sums, where we must print exactly what LLVM prints.
  expect(same).toBeGreaterThan(compared / 2);
});

// Extensions of add recurrences. LLVM folds `sext {a,+,b}<nsw>` into `{sext a,+,sext b}<nsw>`
// (and zext with nuw, and through nsw/nuw sums and products); so do we (scev.ts). What stays
// in our output as `(sext i32 {…})` in the flat int-subscript kernels is A[i*n + j-1]: -O3
// computes it as `ashr exact (shl x, 32) + (-1 << 32), 32` on the widened 64-bit i*n+j, with no
// nsw left on the 32-bit value; LLVM 14 cannot even read that (an opaque value), and no IR fact
// proves the 32-bit value does not wrap (it does for n > 46341). Reading it as i*n+j-1 needs a
// run-time assumption, as Polly's SCEVAffinator makes: `toPolynomialThroughCasts` gives the
// expansion and the casts to assume about.
const flatIntSubscripts = ['jacobi-2d', 'heat-3d', 'fdtd-2d', 'correlation', 'adi'];

test.each(flatIntSubscripts.flatMap((k) => [[k, false], [k, true]] as const))('%s (vla %s): every extension of a recurrence we keep, LLVM keeps too or cannot compute at all', (kernel, vla) => {
  const flags = [...pipelineFlags, '-fno-discard-value-names', `-I${kernelsDir}`, ...(vla ? ['-DTSOPT_VLA'] : [])];
  const { llvm, ours } = bothClosedForms(compileToIr(path.join(kernelsDir, `${kernel}.c`), flags, true).toString());
  const extensionOfRecurrence = /\((sext|zext) i\d+ \{/;
  const behind: string[] = [];
  let kept = 0;
  for (const [key, mine] of ours) {
    if (!extensionOfRecurrence.test(mine)) continue;
    kept++;
    const theirs = llvm.get(key);
    if (theirs === undefined || extensionOfRecurrence.test(theirs)) continue;
    // LLVM gives no closed form: the value itself, or an expression over such opaque values.
    const opaque = [...llvm].some(([k, t]) => k.endsWith(` ${t}`) && theirs.includes(t));
    if (!opaque) behind.push(`${key}: llvm ${theirs} / ours ${mine}`);
  }
  expect(behind).toEqual([]);
  if (!vla && kernel !== 'correlation') expect(kept).toBeGreaterThan(0);
});
