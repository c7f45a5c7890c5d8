// Issue 7, the DeLICM paper's sums of products: Listing 1 keeps the sum in C[i]
// (array only), Listings 2-4 keep it in a scalar (LICM's promotion, a local
// accumulator, a separately initialized one). At clang -O3 all four leave scalar
// writes in the k loop (GVN forwards C[i]'s store to the next load as a PHI in
// Listing 1 too); after DeLICM none is left, and the dependences are those of the
// array-only Listing 1: the i loop parallel, the k loop carrying the sum through C[i].
import type { DelicmScopResult } from '../../transform/delicm';
import { type KernelDelicm, carriedByDepth, delicmKernel, parallelDepths } from './support';

const kernels: Record<string, KernelDelicm> = {};
const scop = (name: string): DelicmScopResult => {
  kernels[name] ??= delicmKernel(name);
  expect(kernels[name].results).toHaveLength(1);
  return kernels[name].results[0]!;
};
afterAll(() => Object.values(kernels).forEach((k) => k.dispose()));

const arrayOnly = { 1: [], 2: ['RAW (array)', 'WAR (array)', 'WAW (array)'] };

describe('the sums of products at clang -O3', () => {
  test.each([
    // [kernel, scalar writes in loops before, mapped PHIs, mapped values]
    ['delicm-listing1', 5, 2, 1],
    ['delicm-listing2', 10, 5, 0],
    ['delicm-listing3', 10, 5, 0],
    ['delicm-listing4', 10, 5, 0],
  ] as const)('%s: no scalar write left in its loops, dependences of the array-only Listing 1', (name, before, phis, values) => {
    const r = scop(name);
    expect(r.unchanged).toBeUndefined();
    expect(r.counters).toEqual({ forwards: 0, reloads: 0, mappedScalars: values, mappedPhis: phis, scalarWritesBefore: before, scalarWritesAfter: 0 });
    // Every scalar went to the one array the kernel writes: C.
    expect(new Set(r.mappings.map((m) => m.target)).size).toBe(1);
    expect(r.model.statements.flatMap((s) => s.accesses).filter((a) => a.array.kind !== 'array')).toEqual([]);
    expect(carriedByDepth(r.model)).toEqual(arrayOnly);
    expect(parallelDepths(r.model)).toEqual([1]);
  });

  test('before DeLICM the scalar dependences are there: the k loop carries a scalar flow', () => {
    const r = scop('delicm-listing2');
    expect(carriedByDepth(r.original)[2]).toContain('RAW (scalar)');
    expect(carriedByDepth(r.original)[1]).toEqual(['WAR (scalar)', 'WAW (scalar)']);
  });

  test('the mapped accesses say where the value lives: the accumulator PHI of the k loop in C[i]', () => {
    const r = scop('delicm-listing2');
    // The loop PHI (read and written in the unrolled k loop) now reads and writes C[i0].
    const loop = r.model.statements.find((s) => s.loops.length === 2 && s.accesses.some((a) => a.scalar?.kind === 'phi' && a.kind === 'read'))!;
    const read = loop.accesses.find((a) => a.scalar?.kind === 'phi' && a.kind === 'read')!;
    expect(read.array.kind).toBe('array');
    expect(read.relation.toString()).toMatch(new RegExp(`\\{ ${loop.name}\\[i0, i1\\] -> ${read.array.tupleName}\\[o0 = i0\\]`));
  });

  test('a tiny isl quota leaves the SCoP unchanged and says why', () => {
    const k = delicmKernel('delicm-listing2', { maxOperations: 1000 });
    try {
      const r = k.results[0]!;
      expect(r.unchanged).toMatch(/^isl operations quota \(1000\) exceeded/);
      expect(r.model).toBe(r.original);
      expect(r.counters.scalarWritesAfter).toBe(r.counters.scalarWritesBefore);
    } finally {
      k.dispose();
    }
  });
});
