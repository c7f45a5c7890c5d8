// Issue 7's acceptance on the sums of products, end to end (see end-to-end.ts for the pipe):
// through `--passes=delicm,versioning`, Listings 1-4 print what clang -O3 prints, their fast
// paths keep no stack slot (every scalar lives in C[i]), every load and store of the fast path
// belongs to the access group of its parallel loop, and Listings 2-4 get exactly the parallel
// loops of the array-only Listing 1. Without DeLICM the sum's slots sit in the parallel loop
// outside its access group, which keeps opt's vectorizer from trusting `parallel_accesses`.
import * as fs from 'node:fs';
import { buildKernel, findKernel, runKernel } from '../support/kernels';
import { tempDir } from '../support/tools';
import { type E2eBuild, buildThrough, fastPathAccesses, functionText, scalarSlots } from './end-to-end';

const work = tempDir('tsopt-delicm-e2e-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const builds = new Map<string, E2eBuild>();
function build(name: string, passes = 'delicm,versioning', flags: readonly string[] = []): E2eBuild {
  const key = `${name} ${passes} ${flags.join(' ')}`;
  if (!builds.has(key)) builds.set(key, buildThrough(name, passes, work, findKernel(name).libs, flags));
  return builds.get(key)!;
}
const kernelFunction = (n: number) => `kernel_listing${n}`;

describe.each([1, 2, 3, 4])('Listing %i through --passes=delicm,versioning', (n) => {
  const name = `delicm-listing${n}`;

  test('prints what clang -O3 prints, at the default and the other sizes', () => {
    const k = findKernel(name);
    const reference = buildKernel(name, { flags: ['-O3'] });
    for (const args of [k.args, k.altArgs]) expect(runKernel(build(name).exe, args)).toBe(runKernel(reference, args));
  }, 300_000);

  test('the fast path comes from DeLICM\'s model, keeps no scalar slot, and every access is in its parallel loop\'s group', () => {
    const b = build(name);
    expect(b.scops(kernelFunction(n))).toEqual([expect.objectContaining({ versioned: true, fastPathFrom: 'delicm' })]);
    const fn = functionText(b.text, kernelFunction(n));
    expect(scalarSlots(fn)).toEqual([]);
    const accesses = fastPathAccesses(fn);
    expect(accesses.length).toBeGreaterThan(0);
    expect(accesses.filter((a) => !/!llvm\.access\.group/.test(a))).toEqual([]);
  }, 300_000);

  // In the original order (--schedule=false): what DeLICM's mappings free is the model's parallel
  // loops; the schedule optimizer then tiles Listing 1's nest and not the others' (their sums now
  // live in C[i], which it keeps in order), so the counts of its loops would differ.
  test('the parallel loops of the array-only Listing 1', () => {
    const loops = (m: number) => build(`delicm-listing${m}`, 'delicm,versioning', ['--schedule=false']).scops(kernelFunction(m)).map((s) => s.fastPathParallelLoops);
    expect(loops(n)).toEqual(loops(1));
    expect(loops(1)).toEqual([1]);
  }, 300_000);
});

test('without DeLICM, Listing 2\'s sum goes through stack slots that the parallel loop\'s access group leaves out', () => {
  const b = build('delicm-listing2', 'versioning');
  expect(b.scops('kernel_listing2')).toEqual([expect.objectContaining({ versioned: true, fastPathFrom: 'model' })]);
  const fn = functionText(b.text, 'kernel_listing2');
  expect(scalarSlots(fn).length).toBe(5);
  expect(fastPathAccesses(fn).filter((a) => /\.phiops/.test(a) && !/!llvm\.access\.group/.test(a)).length).toBeGreaterThan(0);
}, 300_000);
