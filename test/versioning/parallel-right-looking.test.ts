// The right-looking order of an LU factorization (transform/right-looking.ts): Doolittle's
// row-by-row nest, whose row loop carries everything, runs with its reduction loop k outermost
// and the trailing updates tiled inside each step, on the threads with -fopenmp. What the test pins:
//   tscc -O3 [-fopenmp] omp-lu.c   (TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats)
// chooses that order from DeLICM's model (every sum mapped onto the element it updates), runs
// parallel loops inside k (a team per loop and step), and prints what clang-14 -O3's build prints,
// bit for bit (a hash of the matrix), under 1, 2 and 4 threads and without -fopenmp.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-right-looking-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-lu.c');
const SIZES = '--l1-cache-size=32768 --l2-cache-size=1048576';

interface Scop { ompParallelLoops?: string[]; ompSerialLoops?: string[]; schedule?: { taken: boolean; why: string; rightLooking?: string; tiledBands: number } }
type Report = { functions: { name: string; scops: Scop[] }[] };

function luScop(report: string): Scop {
  return (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'lu')!.scops[0]!;
}

test('lu takes the right-looking order, runs its updates on the threads, and prints clang -O3\'s bits under 1, 2 and 4 threads', () => {
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
  expect(lu.schedule).toMatchObject({ taken: true, tiledBands: 2 });
  expect(lu.schedule!.why).toMatch(/^right-looking order taken: /);
  expect(lu.schedule!.rightLooking).toMatch(/^the reduction loop outermost \(.*: i2, .*: i1, .*: i2\)/);
  // The loops inside k run on the threads: the divisions' rows, and the tile loops of both updates.
  expect(lu.ompParallelLoops!.length).toBeGreaterThanOrEqual(3);
  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  // Teams inside k: about one per step and parallel loop, two calls; none on one thread.
  expect(runThreads(exe, 2).forks.lu).toBeGreaterThan(160);
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
