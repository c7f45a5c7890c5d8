// --parallel with private arrays (codegen/privatize.ts, on by default): an outermost loop that carries
// nothing but the dependences on an array each iteration writes before reading it runs on
// OpenMP's threads, each thread with its own copy. What the test pins, on
// fixtures/omp-private.c (tscc -O3 -fopenmp, TSOPT_FLAGS=--verify-each --parallel-min-work=0
// --rtc-stats):
//   - the program prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads
//     (doitgen's A, and sum's last values: the last iteration writes sum itself);
//   - doitgen's r loop runs on the threads with its sum private (the report's ompPrivatized),
//     one team per call; without the copies only the p loops inside (q, r) are parallel,
//     a team per (r, q) and p loop;
//   - `carry`, which reads s[p] before writing it (the value of the previous r), keeps r serial.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-private-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-private.c');

interface Scop { ompParallelLoops?: string[]; ompSerialLoops?: string[]; ompPrivatized?: string[] }
type Report = { functions: { name: string; scops: Scop[] }[] };

const tscc = tsccWith;
const run = runThreads;

test('doitgen\'s r loop runs on the threads with sum private, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads; a loop reading the array before writing it stays serial', () => {
  const exe = path.join(work, 'private');
  const report = path.join(work, 'private.json');
  tscc(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats --report=${report}`);
  const reference = path.join(work, 'private-ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = run(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(4);
  for (const threads of [1, 2, 4]) expect(run(exe, threads).out).toBe(want);

  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions;
  const doit = functions.find((f) => f.name === 'doit')!.scops[0]!;
  // One loop on the threads, the outermost (r), with the one array it writes first (sum, the
  // third argument) private to it.
  expect(doit.ompParallelLoops).toHaveLength(1);
  expect(doit.ompPrivatized).toEqual([`%2 in ${doit.ompParallelLoops![0]}`]);
  expect(run(exe, 2).forks.doit).toBe(1);
  expect(run(exe, 1).forks.doit).toBe(0);

  const carry = functions.find((f) => f.name === 'carry')!.scops[0]!;
  expect(carry.ompPrivatized).toBeUndefined();
  expect(carry.ompParallelLoops).toEqual([]);
  expect(run(exe, 2).forks.carry).toBe(0);
}, 300_000);

// fixtures/omp-private-slot.c: doitgen at PolyBench's SMALL sizes inlined into main, where -O3
// hoists (double *)sum and &sum[1..29] between the set-up loops and the kernel, and the kernel
// reads (double *)sum from a scalar slot. Every access to sum in the threads' loop must reach
// the thread's copy (before 7718e2c the slot's was not rebased: A printed -nan, as PolyBench's
// doitgen at SMALL did).
test('doitgen inlined at SMALL\'s sizes: sum private, output as clang -O3\'s under 1, 2 and 4 threads; a loop reading the array first stays serial', () => {
  const slotSource = path.join(__dirname, 'fixtures', 'omp-private-slot.c');
  const exe = path.join(work, 'slot');
  const report = path.join(work, 'slot.json');
  tscc(['-O3', '-fopenmp', slotSource, '-o', exe], `--verify-each --parallel-min-work=0 --report=${report}`);
  const reference = path.join(work, 'slot-ref');
  runOk('clang-14', ['-O3', '-fopenmp', slotSource, '-o', reference]);
  const want = run(reference, 1).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(4);
  for (const threads of [1, 2, 4]) expect(run(exe, threads).out).toBe(want);

  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions;
  const kernel = functions.find((f) => f.name === 'main')!.scops.find((s) => (s.ompPrivatized ?? []).length > 0);
  expect(kernel?.ompPrivatized).toHaveLength(1);
  const carry = functions.find((f) => f.name === 'carry')!.scops[0]!;
  expect(carry.ompPrivatized).toBeUndefined();
  expect(carry.ompParallelLoops).toEqual([]);
}, 300_000);
