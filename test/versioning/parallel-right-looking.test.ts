// The right-looking order of an LU factorization (transform/right-looking.ts): Doolittle's
// row-by-row nest, whose row loop carries everything, runs with its reduction loop k outermost
// and the trailing updates tiled inside each step, on the threads with -fopenmp. What the test pins:
//   tscc -O3 [-fopenmp] omp-lu.c   (TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats)
// chooses that order from DeLICM's model (every sum mapped onto the element it updates), runs the
// rows of each step k on the threads, the divisions and both updates of a row in one team (one
// team per step), and prints what clang-14 -O3's build prints, bit for bit (a hash of the
// matrix), under 1, 2 and 4 threads and without -fopenmp. omp-lu-solve.c: the same with the sums
// in a scalar and a forward substitution in the nest (PolyBench ludcmp's shape), also called
// from inside the program's own parallel region.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-right-looking-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-lu.c');
const SIZES = '--l1-cache-size=32768 --l2-cache-size=1048576';

interface Scop { ompParallelLoops?: string[]; ompSerialLoops?: string[]; schedule?: { taken: boolean; why: string; rightLooking?: string; tiledBands: number; tileSizes: number[][] } }
type Report = { functions: { name: string; scops: Scop[] }[] };

function luScop(report: string, name = 'lu'): Scop {
  return (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === name)!.scops[0]!;
}

test('lu takes the right-looking order, runs each step\'s rows in one team, and prints clang -O3\'s bits under 1, 2 and 4 threads', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', source, '-o', reference]);
  const want = runThreads(reference, 1).out;
  expect(want).toMatch(/^lu [0-9a-f]{16}\nlu again [0-9a-f]{16} /);

  const exe = path.join(work, 'omp');
  const report = path.join(work, 'omp.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats ${SIZES} --report=${report}`);
  const lu = luScop(report);
  // k outermost: the reduction statements at their innermost counter (i2), the divisions at
  // their column j (i1), the sums' first reads at step 0.
  expect(lu.schedule).toMatchObject({ taken: true, tiledBands: 1, tileSizes: [[32]] });
  expect(lu.schedule!.why).toMatch(/^right-looking order taken: /);
  expect(lu.schedule!.rightLooking).toMatch(/^the reduction loop outermost \(.*: i2, .*: i1, .*: i2\)/);
  // Every statement runs at the row of its first other counter, in one band: a single loop on
  // the threads, over blocks of 32 rows.
  expect(lu.schedule!.rightLooking).toMatch(/; (Stmt_\d+, ){5}Stmt_\d+ share a band$/);
  expect(lu.ompParallelLoops).toHaveLength(1);
  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  // One team per step k < N - 1 and call (N = 160, two calls); none on one thread.
  expect(runThreads(exe, 2).forks.lu).toBe(2 * 159);
  expect(runThreads(exe, 4).forks.lu).toBe(2 * 159);
  expect(runThreads(exe, 1).forks.lu).toBe(0);
}, 300_000);

test('without -fopenmp lu takes the same order on one thread, and prints clang -O3\'s bits', () => {
  const reference = path.join(work, 'ref1');
  runOk('clang-14', ['-O3', source, '-o', reference]);
  const exe = path.join(work, 'one');
  const report = path.join(work, 'one.json');
  tsccWith(['-O3', source, '-o', exe], `--verify-each ${SIZES} --report=${report}`);
  expect(luScop(report).schedule!.rightLooking).toMatch(/^the reduction loop outermost/);
  expect(runThreads(exe, 1).out).toBe(runThreads(reference, 1).out);
}, 300_000);

test('a solve with its sums in a scalar shares each step\'s rows in one team, serially inside the program\'s own parallel region, and prints clang -O3\'s bits', () => {
  const solve = path.join(__dirname, 'fixtures', 'omp-lu-solve.c');
  const reference = path.join(work, 'solve-ref');
  runOk('clang-14', ['-O3', solve, '-o', reference]);
  const want = runThreads(reference, 1).out;
  expect(want).toMatch(/^lu [0-9a-f]{16} y [0-9a-f]{16} /);

  const exe = path.join(work, 'solve-omp');
  const report = path.join(work, 'solve-omp.json');
  // Enough work for a step's rows (about N² / 2 instances), not for a loop along one row (N).
  tsccWith(['-O3', '-fopenmp', solve, '-o', exe], `--verify-each --parallel-min-work=1000 --rtc-stats ${SIZES} --report=${report}`);
  const scop = luScop(report, 'solve');
  expect(scop.schedule!.why).toMatch(/^right-looking order taken: /);
  // The division, both updates and b's first read (step 0) share the rows; the step's row of U
  // stored and the substitution's column (N instances each) stay apart, serial.
  expect(scop.schedule!.rightLooking).toMatch(/; (Stmt_\d+, ){3}Stmt_\d+ share a band/);
  expect(scop.ompSerialLoops!.length).toBeGreaterThanOrEqual(2);
  for (const threads of [1, 2, 4]) {
    const run = runThreads(exe, threads);
    expect(run.out).toBe(want);
    // One team per step with rows (k < N - 1 = 287) and one for the sums' starts at step 0.
    expect(run.forks.solve).toBe(threads === 1 ? 0 : 288);
  }
  // Inside the program's own parallel region: no team, the same bits.
  const inside = runThreads(exe, 2, ['inside']);
  expect(inside.out).toBe(want);
  expect(inside.forks.solve).toBe(0);

  const one = path.join(work, 'solve-one');
  tsccWith(['-O3', solve, '-o', one], `--verify-each ${SIZES}`);
  expect(runThreads(one, 1).out).toBe(want);
}, 300_000);
