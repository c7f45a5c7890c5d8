// The polyhedral model with delinearization plugged in (its `delinearize` hook):
// linearized accesses become multi-dimensional access relations.
import * as path from 'node:path';
import { parseModule } from '../../ir/parser';
import { AnalysisManager } from '../../passes/analysis-manager';
import { scopModelAnalysisWith } from '../../polyhedral/analysis';
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
