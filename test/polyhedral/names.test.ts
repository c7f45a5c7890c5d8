// Parameters never clash with the model's own dimension names: set_subarray
// (ICS'15 Listing 4) has parameters o0, o1, o2, and a source variable may be
// called i0 like a statement counter.
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import type { FunctionScopModels } from '../../polyhedral/model';
import { compileToIr, disassemble } from '../support/tools';
import { O3, modelKernel } from './support';

function modelFixture(fn: string): FunctionScopModels {
  const module = parseModule(disassemble(compileToIr(path.join(__dirname, 'fixtures', 'dimension-names.c'), [...O3, '-g'])));
  return buildFunctionModels(module.functions.find((f) => f.name === fn)!, new AnalysisManager(), { maxOperations: defaultMaxOperations });
}

test('set_subarray: the parameters o0, o1, o2 stay parameters in the access relations (every block element written)', () => {
  const k = modelKernel('delin-set-subarray', { function: 'set_subarray' });
  try {
    const m = k.kernel.models[0]!;
    expect(m.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['o0', 'o1', 'o2']));
    for (const s of m.statements) {
      for (const a of s.accesses) {
        if (a.array.kind !== 'array') continue;
        // Each write touches elements where its statement runs: not `: false`, not a single point.
        expect(a.relation.intersectDomain(s.domain).isEmpty()).toBe(false);
        expect(a.relation.toString()).not.toContain('i0 = 0');
      }
    }
    const names = m.parameters.map((p) => p.name).join(', ');
    const block = m.ctx.unionSet(`[${names}] -> { MemRef_A[a, b, c] : o0 <= a < o0 + s0 and o1 <= b < o1 + s1 and o2 <= c < o2 + s2 }`);
    expect(m.mustWrites.range().intersectParams(m.assumedContext).isEqual(block.intersectParams(m.assumedContext))).toBe(true);
  } finally {
    k.dispose();
  }
});

test('parameters named i0 and o0: renamed for isl where they meet a counter, exact relations, C keeps the source name', () => {
  const f = modelFixture('shifted');
  try {
    const m = f.models[0]!;
    const byC = Object.fromEntries(m.parameters.map((p) => [p.c, p.name]));
    expect(byC).toEqual({ n: 'n', i0: 'i0_', o0: 'o0' });
    // -O3 unrolled the loop by two (a main and a remainder statement): compare the elements touched.
    const names = m.parameters.map((p) => p.name).join(', ');
    const written = m.mustWrites.range().intersectParams(m.assumedContext);
    const read = m.reads.range().intersectParams(m.assumedContext);
    expect(written.isEqual(m.ctx.unionSet(`[${names}] -> { MemRef_A[e] : o0 <= e < n + o0 }`).intersectParams(m.assumedContext))).toBe(true);
    expect(read.isEqual(m.ctx.unionSet(`[${names}] -> { MemRef_B[e] : i0_ <= e < n + i0_ }`).intersectParams(m.assumedContext))).toBe(true);
    for (const s of m.statements) expect(s.domain.isEmpty()).toBe(false);
  } finally {
    f.dispose();
  }
  const g = modelFixture('shifted_unsigned');
  try {
    const m = g.models[0]!;
    expect(m.parameters.find((p) => p.c === 'i0')?.name).toBe('i0_');
    expect(m.assumptions.map((a) => [a.kind, a.c])).toEqual([['unsigned', 'i0 >= 0']]);
  } finally {
    g.dispose();
  }
});
