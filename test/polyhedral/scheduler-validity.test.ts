// isl's scheduler gets the dependences as validity constraints without what the statements'
// domains and the context imply (transform/schedule-optimizer.ts, `schedulerValidity`): a superset
// of the dependences, equal to them on the domains, so every schedule that respects it is legal,
// and far fewer constraints for the scheduler's Farkas multipliers. On our kernels the scheduler
// makes the same tree from it as from the dependences themselves, with fewer isl operations.
//
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm k.c | tsopt --passes='print<schedule>'
//
// Assertions are on isl's results and counted operations, never on time.
import { ScheduleConstraints, type UnionMap } from 'isl-wasm';
import type { ScopModel } from '../../polyhedral/model';
import { orderedDependences, schedulerValidity } from '../../transform/schedule-optimizer';
import { modelKernel } from './support';

/** isl's schedule of `model` with `validity` (proximity and coincidence the dependences), as the optimizer asks for it: its tree and the operations it cost. */
function scheduleWith(model: ScopModel, ordered: UnionMap, validity: UnionMap): { tree: string; operations: number } {
  const ctx = model.ctx;
  const saved = ctx.getOptions();
  ctx.setOptions({ scheduleSerializeSccs: true, scheduleMaximizeBandDepth: true, scheduleOuterCoincidence: false, scheduleMaxCoefficient: 1, scheduleMaxConstantTerm: 20 });
  try {
    // Under a quota, as in the optimizer (the count starts with it).
    return ctx.withMaxOperations(5_000_000, () => {
      const start = ctx.operations;
      const tree = ScheduleConstraints.onDomain(model.domains).setContext(model.assumedContext).setValidity(validity).setProximity(ordered).setCoincidence(ordered).computeSchedule().toStr();
      return { tree, operations: ctx.operations - start };
    });
  } finally {
    ctx.setOptions(saved);
  }
}

describe('the scheduler\'s validity constraints', () => {
  test.each([
    ['doitgen', 'main'],
    ['gemm', 'kernel_gemm'],
    ['syrk', 'kernel_syrk'],
  ])('%s, %s: a superset of the dependences, equal on the domains, and the same tree', (name, fn) => {
    const k = modelKernel(name, { debug: false, function: fn });
    try {
      expect(k.kernel.models.length).toBeGreaterThan(0);
      for (const m of k.kernel.models) {
        m.ctx.scope(() => {
          const ordered = orderedDependences(m);
          const validity = schedulerValidity(m, ordered);
          expect(ordered.isSubset(validity)).toBe(true);
          expect(validity.intersectDomain(m.domains).intersectRange(m.domains).intersectParams(m.assumedContext).isEqual(ordered)).toBe(true);
          const before = scheduleWith(m, ordered, ordered);
          const after = scheduleWith(m, ordered, validity);
          expect(after.tree).toBe(before.tree);
          expect(after.operations).toBeLessThanOrEqual(before.operations);
        });
      }
    } finally {
      k.dispose();
    }
  }, 300_000);

  test('doitgen\'s nest: the scheduler costs a fraction of what it did with the dependences themselves', () => {
    const k = modelKernel('doitgen', { debug: false, function: 'main' });
    try {
      const costs = k.kernel.models.map((m) => m.ctx.scope(() => {
        const ordered = orderedDependences(m);
        return { before: scheduleWith(m, ordered, ordered).operations, after: scheduleWith(m, ordered, schedulerValidity(m, ordered)).operations };
      }));
      const before = costs.reduce((s, c) => s + c.before, 0);
      const after = costs.reduce((s, c) => s + c.after, 0);
      expect(after * 2).toBeLessThan(before);
    } finally {
      k.dispose();
    }
  }, 300_000);
});
