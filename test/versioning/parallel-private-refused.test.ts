// --parallel's refusal to privatize (codegen/privatize.ts, `privatizeRegion`), on
// fixtures/omp-private-refused.c (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each
// --parallel-min-work=0 --rtc-stats): doitgen's r loop, whose sum the model finds private to its
// iterations, also copies a pointer each iteration (out[r] = in[r]). An address loaded from
// memory other than a scalar slot may be one of sum's that the thread's copy would have to
// replace, so privatization is refused:
//   - the report lists r among ompSerialLoops with that reason, and no ompPrivatized;
//   - no loop of the SCoP runs on the threads (no team under 2 threads, --rtc-stats' parallel=0);
//   - the program prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-refused-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-private-refused.c');

interface Scop { location: string; ompParallelLoops?: string[]; ompSerialLoops?: string[]; ompPrivatized?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('a pointer loaded in the loop refuses privatization: r stays serial, the report says why, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const exe = path.join(work, 'refused');
  const report = path.join(work, 'refused.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats --report=${report}`);
  const reference = path.join(work, 'refused-ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(3);
  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);

  const doit = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'doit')!.scops[0]!;
  // The SCoP's outermost loop (r, the SCoP's location) is the one refused; sum is the third argument.
  const r = doit.location.replace(/^doit:/, '');
  expect(doit.ompSerialLoops).toEqual([`${r}: its private arrays: %2: the loop loads an address from memory other than a scalar slot`]);
  expect(doit.ompPrivatized).toBeUndefined();
  expect(doit.ompParallelLoops).toEqual([]);
  expect(runThreads(exe, 2).forks.doit).toBe(0);
}, 300_000);
