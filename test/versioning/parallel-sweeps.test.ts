// An ADI-style solver's sweeps run on threads (issue 20): fixtures/omp-sweeps.c, PolyBench adi's
// shape at constant sizes. Before, clang -O3's front end versioned each forward-elimination loop
// behind a pointer comparison (loop-load elimination, now deferred to the post pipeline:
// DEFER_LOOP_VERSIONING in cli/tscc.ts) and tested each count-down back substitution with
// `icmp ugt` (now read as signed: it stops at 1), so only the innermost loops were SCoPs and
// nothing ran in parallel. Checked (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each --rtc-stats):
//   - the whole time loop is one SCoP of `sweeps`, whose column-sweep and row-sweep loops are the
//     report's ompParallelLoops, none serial;
//   - under 2 threads each step starts two teams (one per sweep);
//   - the output equals clang-14 -O3 -fopenmp's under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-sweeps-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-sweeps.c');
const STEPS = 3;

interface Scop { location: string; ompParallelLoops?: string[]; ompSerialLoops?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('the column and row sweeps of an ADI-style solver run on threads; output as clang -O3 -fopenmp\'s', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 1).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(2);

  const exe = path.join(work, 'sweeps');
  const report = path.join(work, 'sweeps.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --rtc-stats --report=${report}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'sweeps')!;
  expect(fn.scops).toHaveLength(1);
  const scop = fn.scops[0]!;
  expect(scop.ompParallelLoops).toHaveLength(2);
  expect(scop.ompSerialLoops).toEqual([]);

  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  expect(runThreads(exe, 2).forks.sweeps).toBe(2 * STEPS);
  expect(runThreads(exe, 1).forks.sweeps).toBe(0);
}, 300_000);
