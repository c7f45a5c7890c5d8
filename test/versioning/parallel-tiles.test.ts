// --parallel with the optimizer's tiles: which loops of BLIS's loops (transform/matmul.ts) and of
// time tiles (transform/time-tiling.ts, transform/wavefront.ts) run on OpenMP's threads, through
// the loop marks (transform/schedule-optimizer.ts: tile loops may, point loops never). What the
// test pins:
//   tscc -O3 -fopenmp omp-tiles.c   (TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats
//                                    --time-tile-sizes=4,8,16, fixed caches; wavefronts by default)
// prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads; the matrix product
// of constant sizes takes the matmul path and forks at its jr loops (the micro-panels of C, in
// contiguous blocks per thread: the report's ompSchedules), not inside the micro-kernel, whose outlined copy is compiled for the caller's target; its two
// calls from the program's own parallel region fork nothing;
// the Jacobi stencil is time-tiled, its tiles in wavefronts, and forks once (its columns wait point to point).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-tiles-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-tiles.c');
// No --time-tile-wavefront: with --parallel, time tiles run in wavefronts by default.
const SIZES = '--l1-cache-size=32768 --l2-cache-size=1048576 --time-tile-sizes=4,8,16';

interface Scop { location: string; ompParallelLoops?: string[]; ompSchedules?: string[]; ompSerialLoops?: string[]; schedule?: { taken: boolean; matmul: false | unknown[]; timeTiled: false | object } }
type Report = { functions: { name: string; scops: Scop[] }[] };

const tscc = tsccWith;
const run = runThreads;

test('the matmul path forks at its jr loops, time tiles once, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads; calls inside the program\'s parallel region fork nothing', () => {
  const exe = path.join(work, 'tiles');
  const report = path.join(work, 'tiles.json');
  tscc(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats ${SIZES} --report=${report}`);
  const reference = path.join(work, 'tiles-ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = run(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(4);
  for (const threads of [1, 2, 4]) expect(run(exe, threads).out).toBe(want);

  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions;
  const gemm = functions.find((f) => f.name === 'gemm')!.scops[0]!;
  expect(gemm.schedule).toMatchObject({ taken: true });
  expect(gemm.schedule!.matmul).not.toBe(false);
  // The scaling loop (its i), and the jr loops of BLIS's nest: the full micro-tiles' and the
  // partial ones' (NJ = 101 is not a multiple of Nr), whose jr runs once, so that isl emits no
  // loop for it and ir (i) is the loop under the mark there. jc, kc and ic each run once at these
  // sizes (no loop either). With alpha * A[i][k] packed below ic (transform/packed-product.ts),
  // isl's AST has one more jr loop: four marked loops and four teams per call (three with
  // --matmul-pack=false, which reads A in place).
  expect(gemm.ompParallelLoops).toEqual(['%6', 'c3', 'c3', '%6']);
  expect(gemm.ompSerialLoops).toEqual([]);
  // How each shares its iterations out: jr's micro-panels are a rectangle below (C's 808-byte
  // rows are not line-aligned, so neighbouring panels share lines: contiguous blocks keep them
  // on one thread); the partial tiles' ir loop has a last row tile of 3 rows (min bounds that
  // use ir: a zigzag, t, 2T - 1 - t, 2T + t, ...); the scaling loop's rows are a block each.
  expect(gemm.ompSchedules).toEqual(['block', 'block', 'block', 'zigzag']);
  // --rtc-stats counts teams: four per call of the top-level product; none from the two calls
  // inside the program's own region (their counts add to the same SCoP's), none with one thread.
  expect(run(exe, 2).forks.gemm).toBe(4);
  expect(run(exe, 1).forks.gemm).toBe(0);

  // The triangle's rows (j >= i) run in a zigzag, one team; its output above is clang's under
  // 1, 2 and 4 threads.
  const tri = functions.find((f) => f.name === 'tri')!.scops[0]!;
  expect(tri.ompSchedules).toEqual(['zigzag']);
  expect(run(exe, 2).forks.tri).toBe(1);

  // Jacobi, 9 steps over 61 x 61, tiles 4 x 8 x 16 skewed by 2: time tiles T0 0..2, the first
  // space tiles T1 0..9; wavefronts w = T0 + T1, 0..11, each running its tiles' T1 loop on the
  // threads (a tile's rows stay vectorized, on one thread).
  const jacobi = functions.find((f) => f.name === 'jacobi')!.scops[0]!;
  expect(jacobi.schedule).toMatchObject({ taken: true, timeTiled: { skew: 2, sizes: [4, 8, 16], tileWavefront: true } });
  expect(jacobi.ompParallelLoops).toEqual(['c1']);
  // A wavefront's tiles are skewed (bounds that use the tile loop's iterator) and differ from one
  // wavefront to the next (its bounds use w): claimed dynamically, one at a time.
  expect(jacobi.ompSchedules).toEqual(['dynamic']);
  // One team for all 12 wavefronts, its columns synchronised point to point (--omp-tile-sync=point;
  // a team per wavefront with =barrier: parallel-tile-sync.test.ts).
  expect(run(exe, 2).forks.jacobi).toBe(1);
  expect(run(exe, 1).forks.jacobi).toBe(0);
}, 300_000);

// The matmul path's copies (codegen/packing.ts) on the threads: syrk's two B-like copies of A
// per kc block sit outside ic's mark, under a mark of their own (transform/matmul.ts), and their
// work counts the copied rows and k (codegen/parallel-loop.ts, withCopyExtents). Before, the copy
// loops were no candidates, and a copy's work read as 1 where one was (gemm's A below ic): both
// copies ran on one thread between the teams of jr.
test('the copies of the matmul path run on the threads; output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const copies = path.join(__dirname, 'fixtures', 'omp-copies.c');
  const exe = path.join(work, 'copies');
  const report = path.join(work, 'copies.json');
  // --parallel-min-work=1: a loop whose work reads as 1 stays serial with two threads.
  tscc(['-O3', '-fopenmp', copies, '-o', exe], `--verify-each --parallel-min-work=1 --rtc-stats ${SIZES} --report=${report}`);
  const reference = path.join(work, 'copies-ref');
  runOk('clang-14', ['-O3', '-fopenmp', copies, '-o', reference]);
  const want = run(reference, 2).out;
  expect(want).toMatch(/^syrk [0-9a-f]{16} /);
  for (const threads of [1, 2, 4]) expect(run(exe, threads).out).toBe(want);
  const syrk = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'syrk')!.scops[0]!;
  // On threads, A's block takes half of L2 (1 MiB here; SSE2's 6 x 4 micro-tile, Kc 768): Mc 84
  // rows (84 x 768 doubles), not 168 (transform/matmul.ts, matmulSizes), so that ic runs twice.
  expect(syrk.schedule!.matmul).toMatchObject([{ packed: ['%3', '%3'], blocks: { mc: 84, kc: 768 } }]);
  // The scaling rows (a triangle: zigzag), the copies' rows (one loop for both: block), jr
  // (block), the partial tiles' ir (its bounds use ic, and the loops inside use ir: claimed
  // dynamically, codegen/ast-to-ir.ts shareOf). kc runs once (M = 70), ic twice (two teams each
  // for jr and ir): six teams per call. With one thread's Mc (168: ic once) four; before the
  // copies ran on the threads, two.
  expect(syrk.ompParallelLoops).toEqual(['%5', 'c2', 'c3', '%5']);
  expect(syrk.ompSchedules).toEqual(['zigzag', 'block', 'block', 'dynamic']);
  expect(run(exe, 2).forks.syrk).toBe(6);
  expect(run(exe, 1).forks.syrk).toBe(0);
}, 300_000);

// --omp-dynamic=false keeps the static zigzag for the wavefront's tiles (codegen/ast-to-ir.ts,
// shareOf), and the output is the same.
test('with --omp-dynamic=false the wavefront\'s tiles take the zigzag; output as clang -O3 -fopenmp\'s under 2 threads', () => {
  const exe = path.join(work, 'tiles-static');
  const report = path.join(work, 'tiles-static.json');
  tscc(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --omp-dynamic=false ${SIZES} --report=${report}`);
  const reference = path.join(work, 'tiles-static-ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  expect(run(exe, 2).out).toBe(run(reference, 2).out);
  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions;
  expect(functions.find((f) => f.name === 'jacobi')!.scops[0]!.ompSchedules).toEqual(['zigzag']);
  expect(functions.find((f) => f.name === 'gemm')!.scops[0]!.ompSchedules).toEqual(['block', 'block', 'block', 'zigzag']);
}, 300_000);
