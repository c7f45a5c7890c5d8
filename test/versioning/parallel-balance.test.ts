// --parallel counts how evenly a parallel loop of unequal iterations shares out against the
// parallel loops inside it (codegen/parallel-balance.ts, `--parallel-balance-threads`), on
// fixtures/omp-triangle-blocks.c: a syr2k-style update of a 300 x 300 triangle (k = 100) at
// constant sizes, whose matmul path (fixed caches: Mc 42 on threads) cuts the rows into 8 ic
// blocks, the last of 6 rows. Their instances grow down the triangle, and the zigzag share of the
// ic loop leaves one thread blocks 1, 2, 5 and 6: 62.7% of the work (two threads bounded at
// 1.59x one; PolyBench syr2k at LARGE has the same 8 blocks and ran 1.61x). Checked (tscc -O3
// -fopenmp, TSOPT_FLAGS=--verify-each --rtc-stats --parallel-min-work=1000, fixed caches):
//   - counted for 2 threads, the ic loop is in ompSerialLoops with the count (62.7% against
//     50.2% for the micro-panels of each block, claimed one at a time), the jr loop runs on the
//     threads instead, a team per block: 11 teams a call (the scaling, two copies, 8 blocks);
//   - with --parallel-balance-threads=1 (not counted) the ic loop runs on the threads in a
//     zigzag, 4 teams a call, as before the count;
//   - both print what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { busiestThread } from '../../codegen/parallel-balance';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-balance-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-triangle-blocks.c');
const FLAGS = '--verify-each --rtc-stats --parallel-min-work=1000 --l1-cache-size=32768 --l2-cache-size=1048576';

interface Scop { ompParallelLoops?: string[]; ompSchedules?: string[]; ompSerialLoops?: string[]; schedule?: { matmul: false | { blocks: { mc: number } }[] } }
type Report = { functions: { name: string; scops: Scop[] }[] };

function build(name: string, threads: number): { exe: string; scop: Scop } {
  const exe = path.join(work, name);
  const report = path.join(work, `${name}.json`);
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `${FLAGS} --parallel-balance-threads=${threads} --report=${report}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'rank2k')!;
  expect(fn.scops).toHaveLength(1);
  return { exe, scop: fn.scops[0]! };
}

test('the busiest thread of each share, as the generated code deals the iterations out', () => {
  // Work per block of a triangle's rows: 8 blocks, the last one short.
  const blocks = [1, 3, 5, 7, 9, 11, 13, 2];
  // Zigzag on 2 threads: thread 0 runs 0, 3, 4, 7; thread 1 runs 1, 2, 5, 6.
  expect(busiestThread(blocks, 'zigzag', 2)).toBe(3 + 5 + 11 + 13);
  // Blocks of 4: the second half.
  expect(busiestThread(blocks, 'block', 2)).toBe(9 + 11 + 13 + 2);
  // Claimed in order by the first thread free: 0 → t0, 1 → t1, 2 → t0 (6), 3 → t1 (10), 4 → t0 (15), 5 → t1 (21), 6 → t0 (28), 7 → t1 (23).
  expect(busiestThread(blocks, 'dynamic', 2)).toBe(28);
});

test('the triangle\'s blocks of rows leave the threads to their micro-panels where that counts better; output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(2);

  const counted = build('counted', 2);
  expect(counted.scop.schedule!.matmul).not.toBe(false);
  expect((counted.scop.schedule!.matmul as { blocks: { mc: number } }[])[0]!.blocks.mc).toBe(42);
  expect(counted.scop.ompSerialLoops).toEqual([
    'c2: counted on 2 threads, its zigzag share leaves the busiest thread 62.7% of its 4515000 statement instances, the parallel loops inside 50.2%: those run on the threads',
  ]);
  // The scaling's rows, the two copies' rows, then the micro-panels of each block, claimed one at a time.
  expect(counted.scop.ompSchedules).toEqual(['zigzag', 'block', 'block', 'dynamic']);
  for (const threads of [1, 2, 4]) expect(runThreads(counted.exe, threads).out).toBe(want);
  expect(runThreads(counted.exe, 2).forks.rank2k).toBe(11);
  expect(runThreads(counted.exe, 1).forks.rank2k).toBe(0);

  const uncounted = build('uncounted', 1);
  expect(uncounted.scop.ompSerialLoops).toEqual([]);
  expect(uncounted.scop.ompSchedules).toEqual(['zigzag', 'block', 'block', 'zigzag']);
  for (const threads of [1, 2, 4]) expect(runThreads(uncounted.exe, threads).out).toBe(want);
  expect(runThreads(uncounted.exe, 2).forks.rank2k).toBe(4);
}, 300_000);
