// Bounded compile time: every isl step of a SCoP spends from one budget,
// `--scop-max-operations`; past it the SCoP is left as it was, the report names the step
// that ran out, and `islOperations` says what each SCoP spent.
//
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm k.c | tsopt --passes=delicm,versioning --scop-max-operations=N --report=r.json
//
// Assertions are on counted isl operations, never on time (the machine may be busy).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, kernelsDir, repoRoot, run, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-budget-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`];

interface ScopFields {
  location: string;
  versioned?: boolean;
  notVersioned?: string;
  islOperations?: number;
  islOperationsBySteps?: Record<string, number>;
  fastPathFrom?: string;
  delicm?: { unchanged?: string; scalarWritesBefore?: number; scalarWritesAfter?: number };
}
interface Report {
  functions: { name: string; scops: ScopFields[]; rejected: { location: string; detail: string }[] }[];
}

interface Run {
  report: Report;
  output: string;
}

function bitcodeOf(kernel: string): string {
  const file = path.join(work, `${kernel}.bc`);
  if (!fs.existsSync(file)) fs.writeFileSync(file, compileToIr(path.join(kernelsDir, `${kernel}.c`), IR_FLAGS));
  return file;
}

/** Runs tsopt on a kernel: its report and its text output. */
function tsoptOn(kernel: string, args: readonly string[]): Run {
  const report = path.join(work, `${kernel}-${Math.random().toString(36).slice(2)}.json`);
  const out = path.join(work, `${kernel}.out.ll`);
  const r = spawnSync('node', [tsopt, ...args, '--no-post', '-S', `--report=${report}`, bitcodeOf(kernel), '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsopt ${args.join(' ')} on ${kernel} failed (${r.status}): ${r.stderr}`);
  return { report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report, output: fs.readFileSync(out, 'utf8') };
}

function scopsOf(r: Report, fn: string): ScopFields[] {
  return r.functions.find((f) => f.name === fn)?.scops ?? [];
}


describe('one isl budget per SCoP', () => {
  test('the parametric gemm: a budget that runs out in the AST step leaves the SCoP as it was and says so', () => {
    // First without a limit, to see what each step of kernel_gemm costs. Without the schedule
    // optimizer: its share depends on what the budget has left, so the steps would not cost the same twice.
    const free = tsoptOn('gemm', ['--passes=versioning', '--scop-max-operations=0', '--schedule=false']);
    const [gemm] = scopsOf(free.report, 'kernel_gemm');
    expect(gemm).toMatchObject({ versioned: true });
    const steps = gemm!.islOperationsBySteps!;
    expect(Object.keys(steps)).toEqual(expect.arrayContaining(['delinearization', 'model', 'dependences', 'check and AST']));
    expect(gemm!.islOperations).toBe(Object.values(steps).reduce((a, b) => a + b, 0));

    // Then with a budget that ends halfway through the last step. Each step alone stays
    // well within its own limit (--codegen-max-operations: 1,000,000); only their sum runs out.
    const limit = gemm!.islOperations! - Math.floor(steps['check and AST']! / 2);
    expect(steps['check and AST']!).toBeLessThan(1_000_000);
    const tight = tsoptOn('gemm', ['--passes=versioning', `--scop-max-operations=${limit}`, '--schedule=false']);
    const [left] = scopsOf(tight.report, 'kernel_gemm');
    expect(left).toMatchObject({ versioned: false, notVersioned: expect.stringMatching(new RegExp(`^the SCoP's isl budget of ${limit} operations \\(--scop-max-operations\\) ran out in check and AST`)) });
    // isl checks its quota at its own counted operations; imath's allocations, charged to the quota
    // by isl-wasm (native/glue.c, 4 per operation), are checked at isl's next one, so the SCoP may
    // end a few operations past the limit (5 here after the re-roll's isl work), never a step's worth.
    expect(left!.islOperations).toBeLessThanOrEqual(limit + 1_000);
    expect(tight.output).not.toMatch(/tsopt\.scop0\.check:/);
  }, 300_000);

  test('DeLICM spends at most half of what the budget has left, and is not tried where the dependences alone cost over half its limit: the SCoP is versioned from its plain model', () => {
    // The schedule optimizer, which takes its own share of what DeLICM leaves, is off: the limit below is DeLICM's and the check's.
    const free = tsoptOn('atax', ['--passes=delicm,versioning', '--scop-max-operations=0', '--schedule=false']);
    const [atax] = scopsOf(free.report, 'kernel_atax');
    expect(atax).toMatchObject({ versioned: true, fastPathFrom: 'delicm', delicm: { scalarWritesBefore: 9, scalarWritesAfter: 0 } });
    const steps = atax!.islOperationsBySteps!;
    const before = steps.delinearization! + steps.model! + steps.dependences!;
    // When DeLICM starts, the budget has left twice the dependences' cost plus what DeLICM needs. It may
    // take half of that (enough to be tried: over twice the dependences), gives up, and the other half
    // is enough for the check and the AST of the plain model.
    expect(2 * steps.dependences!).toBeLessThan(steps.delicm!);
    const limit = before + 2 * steps.dependences! + steps.delicm!;
    expect(steps['check and AST']!).toBeLessThan(steps.dependences! + steps.delicm! / 2);
    const tight = tsoptOn('atax', ['--passes=delicm,versioning', `--scop-max-operations=${limit}`, '--schedule=false']);
    const [left] = scopsOf(tight.report, 'kernel_atax');
    expect(left).toMatchObject({
      versioned: true,
      fastPathFrom: 'model',
      delicm: { scalarWritesAfter: 9, unchanged: expect.stringMatching(/^DeLICM's share of the SCoP's isl budget \(half of the \d+ operations left of --scop-max-operations\) ran out .*: the SCoP keeps its plain model$/) },
    });
    expect(left!.islOperationsBySteps!.delicm!).toBeLessThanOrEqual(Math.ceil((limit - before) / 2));
    expect(left!.islOperations!).toBeLessThanOrEqual(limit);

    // A limit under twice the dependences' cost: DeLICM, which recomputes them after mapping, is not tried at all.
    const quota = 2 * steps.dependences! - 1;
    const skipped = tsoptOn('atax', ['--passes=delicm,versioning', `--delicm-max-operations=${quota}`]);
    const [plain] = scopsOf(skipped.report, 'kernel_atax');
    expect(plain).toMatchObject({
      versioned: true,
      fastPathFrom: 'model',
      delicm: { scalarWritesAfter: 9, unchanged: `not tried: the SCoP's dependences cost ${steps.dependences} isl operations, over half of DeLICM's isl quota (--delicm-max-operations=${quota}), and DeLICM recomputes them: the SCoP keeps its plain model` },
    });
    expect(plain!.islOperationsBySteps!.delicm).toBeUndefined();
  }, 300_000);

  test('delinearization runs inside the budget: a budget smaller than its work stops it there and leaves the SCoP as it was', () => {
    const free = tsoptOn('gemm', ['--passes=versioning', '--scop-max-operations=0']);
    const delinearization = scopsOf(free.report, 'kernel_gemm')[0]!.islOperationsBySteps!.delinearization!;
    // gemm's three linearized arrays cost delinearization about 100,000 operations, each candidate shape far below its own quota.
    expect(delinearization).toBeGreaterThan(20_000);
    const limit = Math.floor(delinearization / 2);
    const r = tsoptOn('gemm', ['--passes=versioning', `--scop-max-operations=${limit}`]);
    const f = r.report.functions.find((x) => x.name === 'kernel_gemm')!;
    expect(f.scops).toEqual([]);
    // What it spent is in the reason: the budget, not more (charged after the fact it was the whole work).
    const detail = f.rejected.map((x) => x.detail).find((d) => d.includes('--scop-max-operations'));
    expect(detail).toBe(`the SCoP's isl budget of ${limit} operations (--scop-max-operations) ran out in delinearization (spent: delinearization ${limit})`);
    expect(r.output).not.toMatch(/tsopt\.scop\d+\.check:/);
    const kernel = /define [^\n]*@kernel_gemm\([^]*?\n}\n/.exec(r.output)?.[0];
    expect(kernel).toBeDefined();
    expect(kernel).not.toContain('tsopt');
    // The budget's partial run is not kept for others: print<delinearization> still recovers gemm's shapes.
    const printed = run('node', [tsopt, '--passes=print<scops>,print<delinearization>', `--scop-max-operations=${limit}`, bitcodeOf('gemm'), '-o', '/dev/null']);
    expect(printed.status).toBe(0);
    expect(printed.stderr).toMatch(/Rejected at kernel_gemm:%\d+: other: the SCoP's isl budget of \d+ operations \(--scop-max-operations\) ran out in delinearization/);
    const gemmDelinearization = printed.stderr.split('delinearization for @').find((part) => part.startsWith('kernel_gemm:'))!;
    expect(gemmDelinearization.match(/shape \[\*\]\[/g)?.length).toBe(3);
  }, 300_000);

  test('a budget too small for the model drops the SCoP with the step that ran out', () => {
    const r = tsoptOn('gemm', ['--passes=versioning', '--scop-max-operations=150000']);
    const f = r.report.functions.find((x) => x.name === 'kernel_gemm')!;
    expect(f.scops).toEqual([]);
    expect(f.rejected).toContainEqual(expect.objectContaining({ detail: expect.stringMatching(/^the SCoP's isl budget of 150000 operations \(--scop-max-operations\) ran out in (model|dependences)/) }));
  }, 300_000);

  // The kernels that spend most with the default options (covariance and reg_detect: over
  // 7 million operations each, DeLICM stopped by its own 5,000,000) and detect-unsigned,
  // whose alias check once ran 32 s for 1,000,000 operations of big-integer arithmetic.
  test.each(['covariance', 'delin-reg-detect', 'detect-unsigned'])('%s with --scop-max-operations=1000000 spends at most that per SCoP', (kernel) => {
    const limit = 1_000_000;
    const r = tsoptOn(kernel, ['--passes=delicm,versioning', `--scop-max-operations=${limit}`]);
    const scops = r.report.functions.flatMap((f) => f.scops);
    expect(scops.length).toBeGreaterThan(0);
    for (const s of scops) {
      // isl notices its quota at the next operation it counts: the isl call that crosses it
      // finishes its count first (13 operations over, covariance's check after the interchange plan).
      expect(s.islOperations).toBeLessThanOrEqual(limit + 100);
      if (s.islOperations! >= limit) {
        // Used up: whatever stopped names the budget (a later step, or the versioning report).
        const said = [s.notVersioned ?? '', s.delicm?.unchanged ?? ''].join(' ');
        expect(said).toMatch(/isl budget of 1000000 operations \(--scop-max-operations\) ran out in/);
      }
    }
  }, 300_000);

  test('print<scops> names the budget and the step; a bad value is a one-line error', () => {
    const input = bitcodeOf('gemm');
    const printed = run('node', [tsopt, '--passes=print<scops>', '--scop-max-operations=1000', input, '-o', '/dev/null']);
    expect(printed.status).toBe(0);
    // Delinearization runs first, under the budget.
    expect(printed.stderr).toMatch(/Rejected at kernel_gemm:%\d+: other: the SCoP's isl budget of 1000 operations \(--scop-max-operations\) ran out in delinearization/);
    const bad = run('node', [tsopt, '--passes=versioning', '--scop-max-operations=lots', input, '-o', '/dev/null']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--scop-max-operations wants a non-negative integer, not 'lots'/);
  }, 300_000);
});
