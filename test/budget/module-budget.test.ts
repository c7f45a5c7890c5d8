// The module budget (polyhedral/module-budget.ts, --module-max-operations): isl operations for
// modelling all SCoPs of a module together. Past it, functions not modelled yet keep their SCoPs as
// they are; the report lists them as rejected regions and counts them, the output is still written
// and the program prints what clang -O3's build prints. The same for transforming the modelled SCoPs
// (--module-max-transform-operations: interchange plans, the schedule optimizer, check and AST). Six loop functions and main
// (fixtures/many-loops.c); the limit is set from what an unlimited run reports each SCoP spent.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, runOk, tempDir } from '../support/tools';
import { tsopt } from '../cli/tsopt-binary';

const fixture = path.join(__dirname, 'fixtures', 'many-loops.c');
const work = tempDir('tsopt-module-budget-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const bitcode = compileToIr(fixture, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);

interface Scop { location: string; versioned?: boolean; notVersioned?: string; islOperationsBySteps?: Record<string, number> }
interface Report {
  functions: { name: string; scops: Scop[]; rejected: { cause: string; location: string; detail: string }[] }[];
  pipeline: {
    stats: Record<string, number>;
    moduleBudget: {
      operationsLimit: number; modellingOperations: number; operationsSpent: number; transformOperationsLimit: number; transformOperations: number;
      exhaustedBy?: string; untouchedScops: number; untouchedFunctions: number;
    };
  };
}

const MODELLING = ['delinearization', 'model', 'dependences'];
const modelling = (s: Scop) => MODELLING.reduce((n, step) => n + (s.islOperationsBySteps?.[step] ?? 0), 0);
const TRANSFORMING = ['interchange', 'schedule', 'check and AST'];
const transforming = (s: Scop) => TRANSFORMING.reduce((n, step) => n + (s.islOperationsBySteps?.[step] ?? 0), 0);

/** tsopt with `args` on the fixture: its report, and the output file. */
function run(name: string, args: readonly string[]): { report: Report; output: string; stderr: string } {
  const output = path.join(work, `${name}.bc`);
  const report = path.join(work, `${name}.json`);
  const r = tsopt(['-', '-o', output, `--report=${report}`, '--verify-each', '--stats', ...args], bitcode);
  expect({ name, status: r.status, stderr: r.stderr.replace(/^tsopt: stat: .*\n/gm, '').replace(/^tsopt: warning: module budget ran out.*\n/gm, '') }).toEqual({ name, status: 0, stderr: '' });
  return { report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report, output, stderr: r.stderr };
}

function runProgram(object: string, name: string): string {
  const exe = path.join(work, name);
  runOk('clang-14', [object, '-o', exe, '-lm']);
  return runOk(exe, []).toString();
}

const unlimited = run('unlimited', []);
const withSCoPs = unlimited.report.functions.filter((f) => f.scops.length > 0);

test('under the default budget every SCoP is modelled, and the report says what the module spent', () => {
  expect(withSCoPs.map((f) => f.name)).toEqual(['saxpy', 'matvec', 'stencil', 'transpose', 'lower', 'strided', 'main']);
  const b = unlimited.report.pipeline.moduleBudget;
  expect(b).toMatchObject({ operationsLimit: 100_000_000, transformOperationsLimit: 100_000_000, untouchedScops: 0, untouchedFunctions: 0 });
  expect(b.exhaustedBy).toBeUndefined();
  const scops = withSCoPs.flatMap((f) => f.scops);
  expect(b.modellingOperations).toBe(scops.reduce((n, s) => n + modelling(s), 0));
  expect(b.transformOperations).toBe(scops.reduce((n, s) => n + transforming(s), 0));
  expect(b.transformOperations).toBeGreaterThan(0);
  expect(b.operationsSpent).toBeGreaterThan(b.modellingOperations + b.transformOperations);
});

test('cheap rejection: an over-approximated aliased array costs no run-time check or AST', () => {
  const [strided] = withSCoPs.find((f) => f.name === 'strided')!.scops;
  expect(strided.versioned).toBe(false);
  expect(strided.notVersioned).toMatch(/have no bound \(over-approximated accesses\): no alias check possible/);
  expect(strided.islOperationsBySteps?.['check and AST']).toBeUndefined();
});

describe('past the budget', () => {
  // The first three functions' models cost exactly this much: the fourth finds the budget used up.
  const limit = withSCoPs.slice(0, 3).flatMap((f) => f.scops).reduce((n, s) => n + modelling(s), 0);
  const limited = run('limited', [`--module-max-operations=${limit}`]);

  test('the functions not modelled yet keep their SCoPs as they are, listed and counted in the report', () => {
    const { report } = limited;
    const byName = new Map(report.functions.map((f) => [f.name, f]));
    for (const name of ['saxpy', 'matvec', 'stencil']) expect({ name, versioned: byName.get(name)!.scops.map((s) => s.versioned) }).toEqual({ name, versioned: [true] });
    const untouched = withSCoPs.slice(3);
    for (const f of untouched) {
      const r = byName.get(f.name)!;
      expect({ name: f.name, scops: r.scops }).toEqual({ name: f.name, scops: [] });
      const left = r.rejected.filter((x) => x.detail.includes('module budget ran out'));
      expect(left.map((x) => x.location)).toEqual(f.scops.map((s) => s.location));
      for (const x of left) {
        expect(x.cause).toBe('other');
        expect(x.detail).toBe(`left as it was: the module budget ran out (${limit} isl operations for modelling, --module-max-operations) before this function was modelled`);
      }
    }
    const scopsLeft = untouched.reduce((n, f) => n + f.scops.length, 0);
    expect(report.pipeline.moduleBudget).toMatchObject({ operationsLimit: limit, modellingOperations: limit, exhaustedBy: 'isl operations', untouchedScops: scopsLeft, untouchedFunctions: untouched.length });
    expect(limited.stderr).toContain(`tsopt: stat: module-budget.untouched-scops = ${scopsLeft}\n`);
    expect(limited.stderr).toContain(`tsopt: warning: module budget ran out (isl operations): ${scopsLeft} SCoPs in ${untouched.length} functions left as they were; the report lists them\n`);
  });

  test('the output is written, the same with and without --report, and prints what clang -O3 prints', () => {
    const plain = path.join(work, 'limited-no-report.bc');
    const r = tsopt(['-', '-o', plain, `--module-max-operations=${limit}`], bitcode);
    expect(r.status).toBe(0);
    expect(fs.readFileSync(plain).equals(fs.readFileSync(limited.output))).toBe(true);
    const reference = path.join(work, 'reference');
    runOk('clang-14', ['-O3', fixture, '-o', reference, '-lm']);
    const expected = runOk(reference, []).toString();
    expect(expected).toMatch(/^-?\d+\.\d{6}\n$/);
    expect(runProgram(limited.output, 'limited')).toBe(expected);
    expect(runProgram(unlimited.output, 'unlimited')).toBe(expected);
  });

  test('--module-max-operations=0 means no limit; a bad value is a one-line error', () => {
    expect(run('zero', ['--module-max-operations=0']).report.pipeline.moduleBudget).toMatchObject({ operationsLimit: 0, untouchedScops: 0 });
    const bad = tsopt(['-', '-o', path.join(work, 'bad.bc'), '--module-max-operations=lots'], bitcode);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^tsopt: error: [^\n]*module-max-operations[^\n]*\n$/);
  });
});

/** The object `output` links to prints what clang -O3's build of the fixture prints. */
function printsWhatClangPrints(output: string, name: string): void {
  const reference = path.join(work, `${name}-reference`);
  runOk('clang-14', ['-O3', fixture, '-o', reference, '-lm']);
  const expected = runOk(reference, []).toString();
  expect(expected).toMatch(/^-?\d+\.\d{6}\n$/);
  expect(runProgram(output, name)).toBe(expected);
}

describe('past the transform budget', () => {
  // The first two functions' schedule optimizer, interchange plans and check and AST cost exactly this much.
  const limit = withSCoPs.slice(0, 2).flatMap((f) => f.scops).reduce((n, s) => n + transforming(s), 0);
  const limited = run('transform-limited', [`--module-max-transform-operations=${limit}`]);

  test('the functions not transformed yet keep their SCoPs as they are, each reported as not versioned, and counted', () => {
    const { report } = limited;
    const byName = new Map(report.functions.map((f) => [f.name, f]));
    for (const name of ['saxpy', 'matvec']) expect({ name, versioned: byName.get(name)!.scops.map((s) => s.versioned) }).toEqual({ name, versioned: [true] });
    const untouched = withSCoPs.slice(2);
    const detail = `left as it was: the module budget ran out (${limit} isl operations for transforming, --module-max-transform-operations) before this function was transformed`;
    for (const f of untouched) {
      const r = byName.get(f.name)!;
      // Modelled for the report, but neither scheduled nor versioned, and not rejected.
      expect({ name: f.name, scops: r.scops.map((s) => [s.location, s.versioned, s.notVersioned]) }).toEqual({ name: f.name, scops: f.scops.map((s) => [s.location, false, detail]) });
      expect(r.scops.some((s) => transforming(s) > 0)).toBe(false);
    }
    const scopsLeft = untouched.reduce((n, f) => n + f.scops.length, 0);
    expect(report.pipeline.moduleBudget).toMatchObject({ transformOperationsLimit: limit, transformOperations: limit, exhaustedBy: 'isl operations for transforming', untouchedScops: scopsLeft, untouchedFunctions: untouched.length });
    expect(limited.stderr).toContain(`tsopt: warning: module budget ran out (isl operations for transforming): ${scopsLeft} SCoPs in ${untouched.length} functions left as they were; the report lists them\n`);
  });

  test('the output is written, the same with and without --report, and prints what clang -O3 prints', () => {
    const plain = path.join(work, 'transform-limited-no-report.bc');
    const r = tsopt(['-', '-o', plain, `--module-max-transform-operations=${limit}`], bitcode);
    expect(r.status).toBe(0);
    expect(fs.readFileSync(plain).equals(fs.readFileSync(limited.output))).toBe(true);
    expect(fs.readFileSync(plain).equals(fs.readFileSync(unlimited.output))).toBe(false);
    printsWhatClangPrints(limited.output, 'transform-limited');
  });
});
