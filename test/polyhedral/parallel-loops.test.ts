// The parallel loops come from the array conflicts (an element one instance writes and another
// touches) and the scalar flow, not from the exact dataflow (polyhedral/dependences.ts): both must
// name the same loops, on our kernels, on what DeLICM makes of them, and on an -O3 runtime-unrolled
// random nest. The exact relations are computed only when read, so versioning does not pay for them:
//
//   node dist/test/robustness/loopgen-cli.js 20 kernel > k.c
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm -c k.c -o k.bc
//   tsopt k.bc --passes=versioning --report=r.json    # dependences: ~0.1M isl operations (7.6M exact)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import { runDelicm } from '../../transform/delicm';
import type { FunctionScopModels, ScopModel } from '../../polyhedral/model';
import { generateKernel } from '../robustness/loopgen';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, disassemble, tempDir } from '../support/tools';
import { O3, modelKernel } from './support';

/** Loop headers the model calls parallel, and those the exact dataflow leaves parallel (no array dependence, no scalar flow carried). */
function verdicts(m: ScopModel): { fromConflicts: string[]; fromDataflow: string[] } {
  const name = (ls: readonly { loop: { headerName: string } }[]): string[] => ls.map((l) => l.loop.headerName);
  const blocking = (k: string): boolean => k.endsWith('(array)') || k.startsWith('RAW');
  return {
    fromConflicts: name(m.loops.filter((l) => m.dependences.parallelLoops.includes(l))),
    fromDataflow: name(m.loops.filter((l) => !(m.dependences.carried.get(l) ?? []).some(blocking))),
  };
}

function expectSameVerdicts(models: readonly ScopModel[]): void {
  for (const m of models) {
    const v = verdicts(m);
    expect({ scop: m.location, ...v }).toEqual({ scop: m.location, fromConflicts: v.fromDataflow, fromDataflow: v.fromDataflow });
  }
}

const work = tempDir('tsopt-parallel-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The random nest of `seed`, -O3 bitcode. */
function seedBitcode(seed: number): string {
  const file = path.join(work, `seed${seed}.bc`);
  if (fs.existsSync(file)) return file;
  const source = path.join(work, `seed${seed}.c`);
  fs.writeFileSync(source, generateKernel(seed).kernel);
  fs.writeFileSync(file, compileToIr(source, [...O3, '-w']));
  return file;
}

const kernels: { name: string; fn?: string }[] = [
  ...['gemm', 'atax', 'lu', 'trmm', 'seidel-2d', 'jacobi-2d', 'doitgen', 'adi'].map((name) => ({ name })),
  { name: 'delin-reg-detect', fn: 'kernel_reg_detect' },
];
test.each(kernels)('$name: the same parallel loops from conflicts as from the exact dataflow', ({ name, fn }) => {
  const k = modelKernel(name, { debug: false, function: fn });
  try {
    const models = [...k.all.values()].flatMap((f) => f.models);
    expect(models.length).toBeGreaterThan(0);
    expectSameVerdicts(models);
  } finally {
    k.dispose();
  }
}, 300_000);

// carriesFlow answers `carried`'s question (a RAW, or a RAW of arrays) without the exact dataflow
// for a parallel loop, or a loop carrying the scalars' flow: the same answers, and on gemm's
// initialisation nest (every loop parallel) no dataflow at all.
test.each(['gemm', 'gesummv', 'lu', 'seidel-2d', 'trmm'])('%s: carriesFlow answers as the exact dataflow does', (name) => {
  const k = modelKernel(name, { debug: false });
  try {
    const models = [...k.all.values()].flatMap((f) => f.models);
    const asked = models.flatMap((m) => m.loops.map((l) => ({ scop: m.location, loop: l.loop.headerName, flow: m.dependences.carriesFlow(l), arrays: m.dependences.carriesFlow(l, 'array') })));
    const exact = models.flatMap((m) => m.loops.map((l) => {
      const kinds = m.dependences.carried.get(l) ?? [];
      return { scop: m.location, loop: l.loop.headerName, flow: kinds.some((c) => c.startsWith('RAW')), arrays: kinds.includes('RAW (array)') };
    }));
    expect(asked).toEqual(exact);
    expect(exact.some((a) => a.flow)).toBe(true);
  } finally {
    k.dispose();
  }
}, 300_000);

test('gemm\'s initialisation nest: carriesFlow on its parallel loops computes no dataflow', () => {
  const k = modelKernel('gemm', { debug: false });
  try {
    const models = [...k.all.values()].flatMap((f) => f.models);
    const init = models.find((m) => m.loops.length > 0 && m.loops.every((l) => m.dependences.parallelLoops.includes(l)));
    expect(init).toBeDefined();
    expect(init!.loops.map((l) => init!.dependences.carriesFlow(l))).toEqual(init!.loops.map(() => false));
    expect(init!.budget.steps.has('dataflow')).toBe(false);
    // Asked the old way, the same SCoP runs isl's dataflow.
    expect(init!.loops.some((l) => (init!.dependences.carried.get(l) ?? []).length > 0)).toBe(false);
    expect(init!.budget.steps.has('dataflow')).toBe(true);
  } finally {
    k.dispose();
  }
}, 300_000);

test.each(['atax', 'gemver', 'bicg'])('%s after DeLICM: the same parallel loops from conflicts as from the exact dataflow', (name) => {
  const k = modelKernel(name, { debug: false });
  try {
    const mapped = k.kernel.models.map((m) => runDelicm(m, { maxOperations: 5_000_000 })).filter((r) => r.unchanged === undefined).map((r) => r.model);
    // DeLICM maps their scalars: the rebuilt models have array accesses the original ones had as scalars.
    expect(mapped.length).toBeGreaterThan(0);
    expectSameVerdicts(mapped);
  } finally {
    k.dispose();
  }
}, 300_000);

test('random nest 29 (29 statements from -O3\'s runtime unrolling): the same parallel loops from conflicts as from the exact dataflow', () => {
  const module = parseModule(disassemble(fs.readFileSync(seedBitcode(29))), 'seed29.ll');
  const am = new AnalysisManager();
  const all: FunctionScopModels[] = module.functions.filter((f) => !f.isDeclaration).map((fn) => buildFunctionModels(fn, am, { maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer }));
  try {
    const models = all.flatMap((f) => f.models);
    expect(models.map((m) => m.statements.length)).toContain(29);
    expectSameVerdicts(models);
  } finally {
    all.forEach((f) => f.dispose());
  }
}, 300_000);

test('random nest 20: versioning spends a fraction of what the exact dataflow cost (7.6M isl operations)', () => {
  const spent = (flags: readonly string[]) => {
    const report = path.join(work, `seed20${flags.join('')}.json`);
    const r = tsopt(['--passes=versioning', ...flags, `--report=${report}`, seedBitcode(20), '-o', '/dev/null']);
    expect(r.status).toBe(0);
    const [scop] = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { scops: { statements: number; islOperations: number; islOperationsBySteps: Record<string, number> }[] }[] }).functions.flatMap((f) => f.scops);
    expect(scop!.statements).toBe(21);
    return scop!;
  };
  // Parallel loops from array conflicts: the exact dataflow is never computed.
  expect(spent(['--schedule=false']).islOperationsBySteps.dependences).toBeLessThan(1_000_000);
  // The schedule optimizer reads the dataflow, within its quota: the SCoP's total stays bounded.
  expect(spent([]).islOperations).toBeLessThan(2_000_000);
}, 300_000);

test('print<dependences> where the exact dataflow outruns --isl-max-operations (random nest 20, 7.6M): the model stays, with its parallel loops', () => {
  const r = tsopt(['--passes=print<dependences>', '--isl-max-operations=2000000', seedBitcode(20), '-o', '/dev/null']);
  expect(r.status).toBe(0);
  const lines = r.stderr.split('\n').map((l) => l.trim());
  expect(lines).toContain('SCoP at kernel:%10');
  expect(lines.find((l) => l.startsWith('Exact dependences'))).toMatch(/^Exact dependences not computed \(isl: .*maximal number of operations exceeded\)$/);
  // Its 11 loops, all sequential (the report of the versioning run says "parallelLoops": []).
  expect(lines.filter((l) => /^Loop %\d+ \(depth \d, %\d+\): not parallel$/.test(l))).toHaveLength(11);
}, 300_000);

// Sums kept in memory (-O3 cannot keep gesummv's `tmp[i]`, `y[i]` in registers past the other arrays' loads):
// the loop of its statement carries the element it reads and writes again, which carriesFlow
// answers without the exact dataflow (rereadAcrossIterations), as the dataflow would.
test('gesummv: a sum kept in memory carries its flow without the exact dataflow', () => {
  const k = modelKernel('gesummv', { debug: false });
  try {
    const models = [...k.all.values()].flatMap((f) => f.models);
    const found = models.flatMap((m) => m.loops.filter((l) => !m.dependences.parallelLoops.includes(l) && m.dependences.carriesFlow(l, 'array')).map((l) => ({ m, l })));
    expect(found.length).toBeGreaterThan(0);
    const { m, l } = found[0]!;
    expect(m.budget.steps.has('dataflow')).toBe(false);
    expect(m.dependences.carried.get(l)).toContain('RAW (array)');
    expect(m.budget.steps.has('dataflow')).toBe(true);
  } finally {
    k.dispose();
  }
}, 300_000);
