// uBLAS kernels as the bench builds them (issue 22), through the bare pipe:
//   clang++-14 -O3 -march=native -DNDEBUG -DBOOST_UBLAS_NDEBUG -DUBLAS_DUMP -fno-vectorize -fno-slp-vectorize
//     (unrolling deferred, as tscc does) | tsopt --verify-each | llc-14 -O3 | clang++-14
// Every SCoP of main gets a fast path and the program prints what clang++ -O3's build prints.
// correlation: the first SCoP's entry follows the invoke of `operator new` for the matrix storage
// (a funnel block takes that edge). (Without -march=native, -O3 leaves the corr nest's outer loop
// an unsigned exit test, and its inner loops are a SCoP with that counter as a varying parameter.)
// syrk: -O3 hoists `alpha * A(i, k)` out of the j loop; forwarding it (DeLICM's model) lets the
// schedule optimizer put the nest on the matmul path, A(j, k) packed into a buffer sized at run time. trmm: the size n is known to lie in [1, 20000] (a PHI of 60
// and strtol's checked value), so the unsigned guard `i + 1 < n` of the k loop is affine and the
// whole nest is one SCoP.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, run, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-ublas-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; depth: number; versioned?: boolean; notVersioned?: string; fastPathFrom?: string; schedule?: { taken: boolean; tiledBands: number; matmul?: false | { packed: string[] }[] } }
interface Report { functions: { name: string; scops: Scop[] }[] }

/** The SCoPs of main, after checking that each is versioned and that the program prints what clang++ -O3's build prints. */
function versionedMain(kernel: string): Scop[] {
  const source = path.join(repoRoot, 'bench', 'ublas', `${kernel}.cpp`);
  const defines = ['-march=native', '-DNDEBUG', '-DBOOST_UBLAS_NDEBUG', '-DUBLAS_DUMP'];
  const bitcode = compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', ...defines]);
  const reportFile = path.join(work, `${kernel}.json`);
  const optimized = runOk('node', [path.join(repoRoot, 'bin', 'tsopt.js'), '--verify-each', `--report=${reportFile}`], bitcode);
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report;
  const scops = report.functions.find((f) => f.name === 'main')!.scops;
  expect(scops.filter((s) => s.versioned !== true).map((s) => `${s.location}: ${s.notVersioned}`)).toEqual([]);
  const obj = path.join(work, `${kernel}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, kernel);
  runOk('clang++-14', [obj, '-o', exe]);
  const reference = path.join(work, `${kernel}.ref`);
  runOk('clang++-14', ['-O3', ...defines, source, '-o', reference]);
  const ours = run(exe, ['60']);
  expect(ours.status).toBe(0);
  expect(ours.stdout.toString()).toBe(run(reference, ['60']).stdout.toString());
  return scops;
}

test('uBLAS correlation: every SCoP of main versioned, output as clang++ -O3', () => {
  const scops = versionedMain('correlation');
  expect(scops.length).toBeGreaterThanOrEqual(3);
  // The kernel's nest, with the loops of means, deviations and normalization before it, is tiled.
  expect(scops.some((s) => s.depth === 3 && s.schedule?.taken === true && s.schedule.tiledBands === 1)).toBe(true);
}, 180_000);

test('uBLAS syrk: the nest on the matmul path from DeLICM\'s model (alpha * A(i, k) forwarded), A(j, k) packed at run-time n, output as clang++ -O3', () => {
  const nest = versionedMain('syrk').filter((s) => s.depth === 3);
  expect(nest).toHaveLength(1);
  expect(nest[0]!.fastPathFrom).toBe('delicm');
  expect(nest[0]!.schedule).toMatchObject({ taken: true, tiledBands: 1, matmul: [{ packed: [expect.any(String)] }] });
}, 180_000);

test('uBLAS trmm: the whole nest one SCoP behind its unsigned guards, output as clang++ -O3', () => {
  expect(versionedMain('trmm').filter((s) => s.depth === 3)).toHaveLength(1);
}, 180_000);
