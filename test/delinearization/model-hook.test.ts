// The polyhedral model with delinearization plugged in (its `delinearize` hook):
// linearized accesses become multi-dimensional access relations.
import * as path from 'node:path';
import type { IrFunction, Module } from '../../ir';
import { parseModule } from '../../ir/parser';
import type { FunctionScopModels } from '../../polyhedral/model';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { scopModelAnalysis, scopModelAnalysisWith } from '../../polyhedral/analysis';
import { delinearizationAnalysis } from '../../passes/delinearize';
import { buildReport } from '../../passes/scop-report';
import { defaultMaxOperations, type Delinearizer } from '../../polyhedral/build';
import { scopDelinearizer } from '../../polyhedral/delinearization/scop-adapter';
import { compileToIr, kernelsDir } from '../support/tools';

test('gemm with VLA parameters: every array delinearized, every access a 2-d must access', () => {
  const text = compileToIr(path.join(kernelsDir, 'gemm.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-discard-value-names', '-DTSOPT_VLA', `-I${kernelsDir}`], true).toString();
  const fn = parseModule(text, 'gemm.c').functions.find((f) => f.name === 'kernel_gemm')!;
  const delinearize: Delinearizer = scopDelinearizer({ maxShift: 1 });
  const models = new AnalysisManager().get(scopModelAnalysisWith({ maxOperations: defaultMaxOperations, delinearize }), fn);
  try {
    expect(models.models).toHaveLength(1);
    const m = models.models[0]!;
    const arrays = Object.fromEntries(m.arrays.filter((a) => a.kind === 'array').map((a) => [a.name, { shape: a.shape, delinearized: a.delinearized }]));
    expect(arrays).toEqual({
      C: { shape: ['*', 'nj'], delinearized: true },
      A: { shape: ['*', 'nk'], delinearized: true },
      B: { shape: ['*', 'nj'], delinearized: true },
    });
    for (const s of m.statements) {
      for (const a of s.accesses) {
        if (a.array.kind !== 'array') continue;
        expect({ access: a.relation.toString(), certainty: a.certainty }).toEqual({ access: a.relation.toString(), certainty: 'must' });
        expect(a.relation.toString()).toMatch(/MemRef_[ABC]\[[^,\]]+, [^,\]]+\]/);
      }
    }
  } finally {
    models.dispose();
  }
});

/** A kernel function at -O3 (vectorizers off) with `flags`, its models and the analysis manager they are cached in. */
function modelled(file: string, fnName: string, flags: readonly string[]): { module: Module; fn: IrFunction; am: AnalysisManager; models: FunctionScopModels } {
  const text = compileToIr(path.join(kernelsDir, file), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', ...flags, `-I${kernelsDir}`], true).toString();
  const module = parseModule(text, file);
  const fn = module.functions.find((f) => f.name === fnName)!;
  const am = new AnalysisManager();
  return { module, fn, am, models: am.get(scopModelAnalysis, fn) };
}

test('the model, print<delinearization> and the report share one delinearization: the cached analysis, with the entry facts', () => {
  // atax's SCoP sits under `if (n > 0)`-style guards: with the entry facts the shape [*][n] needs no condition.
  const { module, fn, am, models } = modelled('atax.c', 'kernel_atax', ['-g']);
  try {
    const m = models.models[0]!;
    const shared = am.get(delinearizationAnalysis, fn).get(m.scop)!;
    expect(shared.status).toBe('true');
    const delinearized = m.arrays.filter((a) => a.delinearized);
    expect(delinearized.map((a) => a.name)).toEqual(['A']);
    // The very polynomials of the cached result, not a second computation.
    for (const a of delinearized) expect(a.sizes).toBe(shared.shapes.get(a.value)!.sizes);
    expect(m.assumptions.filter((a) => a.kind === 'delinearization')).toEqual([]);
    const report = buildReport(module, am).functions.find((f) => f.name === 'kernel_atax')!.scops[0]!;
    expect(report.arrays.find((a) => a.name === 'A')!.shape).toEqual(['*', 'n']);
  } finally {
    models.dispose();
  }
});

test.each(['-g', '-fno-discard-value-names', 'no names'])('edge detection built with %s: delinearization names parameters and arrays as the model does, so their conditions are one set', (flag) => {
  const { fn, am, models } = modelled('delin-edge-detect.c', 'kernel_edge_detect', flag.startsWith('-') ? [flag] : []);
  try {
    const m = models.models[0]!;
    const d = am.get(delinearizationAnalysis, fn).get(m.scop)!;
    // Array names: the model's, for the same base pointers (`%5` without names, as LLVM prints it).
    const modelNames = new Map(m.arrays.map((a) => [a.value, a.name]));
    for (const a of d.arrays) expect(a.name).toBe(modelNames.get(a.base));
    expect(d.conditionIsl).toBeDefined();
    // Read in the model's context, the printer's condition is the model's delinearization assumption.
    const condition = m.ctx.set(d.conditionIsl!).intersect(m.context);
    const assumed = m.assumptions.find((a) => a.kind === 'delinearization')!;
    expect(condition.isEqual(assumed.set.intersect(m.context))).toBe(true);
  } finally {
    models.dispose();
  }
});
