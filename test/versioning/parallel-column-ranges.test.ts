// A Gram-Schmidt-style kernel's later columns run on threads in one range per thread (issue 20):
// fixtures/omp-column-blocks.c. Its k loop carries everything; inside it the columns j carry
// nothing, but the fast path interchanges each walk down the rows (j innermost, vectorized), so
// the parallel j loop is innermost. By default (--omp-column-ranges) the walks of one k run under
// a range loop whose values are j's: each thread runs them once over its own columns
// (codegen/column-ranges.ts). Checked (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each --rtc-stats):
//   - the report: the nest interchanged, its outer loop the SCoP's one loop on the threads, in blocks;
//   - a team per k whose later columns pass the run-time work test: each column counts 241
//     statement instances (R[k][j] = 0, 120 products, 120 updates), against T x 10,000 (none under 1);
//   - the output equals clang-14 -O3 -fopenmp's under 1, 2 and 4 threads;
//   - with a minimum work no run reaches, no range loop is made (as a plain loop it would run the
//     walks once per column) and nothing runs on threads, the output still clang's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-column-ranges-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-column-blocks.c');
const N = 520;
const perColumn = 241;
const minWork = 10_000;

interface Scop { interchangedLoops?: string[]; ompParallelLoops?: string[]; ompSchedules?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

function build(name: string, flags: string): Scop {
  const exe = path.join(work, name);
  const report = path.join(work, `${name}.json`);
  tsccWith(['-O3', '-fopenmp', source, '-o', exe, '-lm'], `--verify-each --rtc-stats ${flags} --report=${report}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'column_blocks')!;
  expect(fn.scops).toHaveLength(1);
  return fn.scops[0]!;
}

/** The k whose later columns' work reaches `threads` x the minimum. */
function teams(threads: number): number {
  let n = 0;
  for (let k = 0; k < N; k++) if ((N - 1 - k) * perColumn >= threads * minWork) n++;
  return n;
}

test('the columns of a Gram-Schmidt-style kernel run in one range per thread around the interchanged walks; output as clang -O3 -fopenmp\'s', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference, '-lm']);
  const want = runThreads(reference, 1).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(3);

  const scop = build('column-ranges', `--parallel-min-work=${minWork}`);
  expect(scop.interchangedLoops).toHaveLength(1);
  const outer = scop.interchangedLoops![0]!.split(' <-> ')[0];
  expect(scop.ompParallelLoops).toEqual([outer]);
  expect(scop.ompSchedules).toEqual(['block']);
  const exe = path.join(work, 'column-ranges');
  for (const threads of [1, 2, 4]) {
    const run = runThreads(exe, threads);
    expect(run.out).toBe(want);
    expect(run.forks.column_blocks).toBe(threads === 1 ? 0 : teams(threads));
  }
  expect(teams(2)).toBeGreaterThan(teams(4));

  const none = build('column-none', '--parallel-min-work=1000000');
  expect(none.ompParallelLoops).toEqual([]);
  const small = runThreads(path.join(work, 'column-none'), 2);
  expect(small.out).toBe(want);
  expect(small.forks.column_blocks).toBe(0);
}, 300_000);
