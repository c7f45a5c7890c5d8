// --parallel leaves serial, at compile time, a parallel loop whose every run has a constant amount
// of work below what the run-time test asks of two threads (`parallelCandidates` in
// codegen/parallel-loop.ts), on fixtures/omp-small-runs.c (trmm with constant sizes: its column
// loop runs once per row, 160 instances a run). Before, such a loop was outlined and, since the
// run-time test always found too little work, called serially through its outlined function,
// with the runtime's queries, at every run: PolyBench trmm at LARGE ran 39% more instructions on
// one thread with -fopenmp than without. Checked (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each
// --rtc-stats):
//   - by default: no loop of trmm's SCoP runs on threads, the report says why for each, no
//     outlined function is left in the program, and no team starts under 2 threads;
//   - with --parallel-min-work=10 the same loops do run on threads (the rule is the threshold,
//     not a refusal of inner loops);
//   - both programs print what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-small-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-small-runs.c');

interface Scop { location: string; ompParallelLoops?: string[]; ompSerialLoops?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

function build(name: string, flags: string): { exe: string; trmm: Scop } {
  const exe = path.join(work, name);
  const report = path.join(work, `${name}.json`);
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --rtc-stats --report=${report} ${flags}`);
  const fn = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'trmm')!;
  expect(fn.scops).toHaveLength(1);
  return { exe, trmm: fn.scops[0]! };
}

function symbols(exe: string): string[] {
  const r = spawnSync('nm', [exe], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout.split('\n').map((l) => l.split(' ').pop()!).filter((s) => s !== '');
}

test('a parallel loop with constant work a run below the threshold stays inline and serial; a lower threshold threads it; output as clang -O3 -fopenmp\'s', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(2);

  const small = build('small', '');
  expect(small.trmm.ompParallelLoops).toEqual([]);
  expect(small.trmm.ompSerialLoops!.length).toBeGreaterThan(0);
  for (const why of small.trmm.ompSerialLoops!) expect(why).toMatch(/^%\w+: \d+ statement instances a run, below --parallel-min-work on two threads \(200000\)$/);
  expect(symbols(small.exe).filter((s) => s.startsWith('tsopt.par.trmm'))).toEqual([]);
  for (const threads of [1, 2, 4]) expect(runThreads(small.exe, threads).out).toBe(want);
  expect(runThreads(small.exe, 2).forks.trmm).toBe(0);

  const threaded = build('threaded', '--parallel-min-work=10');
  expect(threaded.trmm.ompSerialLoops).toEqual([]);
  expect(threaded.trmm.ompParallelLoops!.length).toBeGreaterThan(0);
  expect(symbols(threaded.exe).filter((s) => s.startsWith('tsopt.par.trmm')).length).toBeGreaterThan(0);
  for (const threads of [1, 2, 4]) expect(runThreads(threaded.exe, threads).out).toBe(want);
  expect(runThreads(threaded.exe, 2).forks.trmm).toBeGreaterThan(0);
}, 300_000);
