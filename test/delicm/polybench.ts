// The PolyBench-style kernels' DeLICM expectations as jest tests (used by two test files,
// so that jest runs the cheap and the costly kernels in parallel).
import type { PolybenchExpectation } from './polybench-table';
import { carriedByDepth, delicmKernel, parallelDepths } from './support';

export function describeKernels(title: string, table: readonly PolybenchExpectation[]): void {
  describe(title, () => {
    test.each(table.map((e) => [e.kernel, e] as const))('%s', (_name, e) => {
      const k = delicmKernel(e.kernel);
      try {
        expect(k.results.map((r) => r.counters.scalarWritesBefore)).toEqual(e.before);
        expect(k.results.map((r) => r.counters.scalarWritesAfter)).toEqual(e.after);
        expect(k.results.map((r) => parallelDepths(r.model))).toEqual(e.parallel);
        expect(k.results.map((r) => r.counters.forwards)).toEqual(e.forwards ?? e.before.map(() => 0));
        for (const r of k.results) {
          // Never fewer parallel loops than before.
          expect(parallelDepths(r.model).length).toBeGreaterThanOrEqual(parallelDepths(r.original).length);
          // With no scalar written in a loop, no loop carries a scalar dependence: what an array-only source has.
          if (r.counters.scalarWritesAfter === 0) {
            expect(Object.values(carriedByDepth(r.model)).flat().filter((kind) => kind.includes('scalar'))).toEqual([]);
          }
          if (r.unchanged) expect(e.why).toMatch(/quota/);
        }
        if (e.after.some((n) => n > 0)) expect(e.why).toBeDefined();
      } finally {
        k.dispose();
      }
    });
  });
}
