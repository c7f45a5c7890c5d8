// A Gram-Schmidt-style kernel's later columns run on threads in blocks (issue 20), with
// --omp-block-interchanged: fixtures/omp-column-blocks.c. Its k loop carries everything; inside
// it, the columns j carry nothing, but the fast path interchanges each walk down the rows (j
// innermost, along the rows, vectorized), which leaves the parallel j loop innermost with one
// column's work a run: by default nothing runs on threads. With the flag the interchanged nest's
// outer loop runs in blocks of 64 columns, each block's rows-then-columns walks on one thread
// (blockOuterLoops in transform/interchange.ts; off by default: one thread runs the blocks with
// more instructions, README "Interchanged nests in blocks"; by default the nest runs in one range
// of columns per thread instead, parallel-column-ranges.test.ts). Checked (tscc -O3 -fopenmp,
// TSOPT_FLAGS=--verify-each --rtc-stats and a minimum work the fixture's sizes pass):
//   - with neither the flag nor ranges no loop of the kernel runs on threads;
//   - with it the nest is interchanged and its block loop is the SCoP's one parallel loop;
//   - under 2 threads a team starts for every k with a later column (N - 1), none under 1;
//   - the output equals clang-14 -O3 -fopenmp's under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-column-blocks-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-column-blocks.c');
const N = 520;

interface Scop { interchangedLoops?: string[]; ompParallelLoops?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('with --omp-block-interchanged, the columns of a Gram-Schmidt-style kernel run on threads in blocks around the interchanged walks; output as clang -O3 -fopenmp\'s', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference, '-lm']);
  const want = runThreads(reference, 1).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(3);

  const plain = path.join(work, 'column-plain');
  const plainReport = path.join(work, 'column-plain.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', plain, '-lm'], `--verify-each --omp-column-ranges=false --parallel-min-work=10000 --report=${plainReport}`);
  const plainFn = (JSON.parse(fs.readFileSync(plainReport, 'utf8')) as Report).functions.find((f) => f.name === 'column_blocks')!;
  expect(plainFn.scops[0]!.ompParallelLoops).toEqual([]);
  expect(runThreads(plain, 2).out).toBe(want);

  const exe = path.join(work, 'column-blocks');
  const report = path.join(work, 'column-blocks.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe, '-lm'], `--verify-each --rtc-stats --omp-block-interchanged --parallel-min-work=10000 --report=${report}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'column_blocks')!;
  expect(fn.scops).toHaveLength(1);
  const scop = fn.scops[0]!;
  expect(scop.interchangedLoops).toHaveLength(1);
  expect(scop.ompParallelLoops).toHaveLength(1);

  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  expect(runThreads(exe, 2).forks.column_blocks).toBe(N - 1);
  expect(runThreads(exe, 1).forks.column_blocks).toBe(0);
}, 300_000);
