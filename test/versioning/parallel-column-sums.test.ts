// A symm-style kernel's rows run on threads (issue 20): fixtures/omp-column-sums.c. Its sum is
// one scalar per (i, j), so isl's scheduler, which orders the scalar's every write and read,
// marked neither i nor j coincident and the whole nest ran on one thread, but for the update of
// C's earlier rows the matmul path takes apart. A loop on threads gets a slot per thread for
// every scalar it writes (codegen/parallel-loop.ts), so only the scalars' flow, with the
// arrays' dependences, decides which members run on threads (threadDependences in
// transform/schedule-optimizer.ts). Checked (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each --rtc-stats):
//   - the SCoP's outermost loop (the rows i of the sums, once the matmul path moved the update
//     of C's earlier rows after them) is one of the report's ompParallelLoops;
//   - teams start under 2 threads, none under 1;
//   - the output equals clang-14 -O3 -fopenmp's under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-column-sums-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-column-sums.c');

interface Scop { location: string; ompParallelLoops?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('the rows of a symm-style kernel with a scalar sum per (i, j) run on threads; output as clang -O3 -fopenmp\'s', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 1).out;
  expect(want).toMatch(/^c [0-9a-f]{16}\n$/);

  const exe = path.join(work, 'column-sums');
  const report = path.join(work, 'column-sums.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --rtc-stats --report=${report}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'column_sums')!;
  expect(fn.scops).toHaveLength(1);
  const scop = fn.scops[0]!;
  // The location names the SCoP's outermost loop by its header (`column_sums:%4`).
  const outermost = scop.location.slice(scop.location.indexOf(':') + 1);
  expect(scop.ompParallelLoops).toContain(outermost);

  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  expect(runThreads(exe, 2).forks.column_sums).toBeGreaterThan(0);
  expect(runThreads(exe, 1).forks.column_sums).toBe(0);
}, 300_000);
