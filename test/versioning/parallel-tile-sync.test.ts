// Point-to-point synchronisation of time tiles in wavefronts (--omp-tile-sync=point, the default;
// codegen/ast-to-ir.ts, generatePointSync): one team runs all the wavefronts, each column of
// tiles claimed in wavefront order and started once the columns isl's dependences name are done
// (transform/wavefront.ts, wavefrontColumnDeltas), instead of a team (and its join) per wavefront.
// On fixtures/omp-fdtd.c (three fields, one along a boundary row; 23 steps over 45 x 57, tiles
// 4 x 8 x 16 skewed by 1: wavefronts -1..13) and fixtures/omp-tiles.c's Jacobi stencil (skew 2),
// tscc -O3 -fopenmp with TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats:
//   - the report names the synchronisation and the offsets each column waits for;
//   - one team per call with point, one per wavefront (15) with barrier;
//   - the point build's outlined band spins with `pause` and yields (sched_yield); the barrier
//     build has neither;
//   - the program prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads,
//     also with --time-tile-one-thread-order=false, where one thread runs the synchronised band;
//   - at --time-tile-wavefront-depth=3 the offsets isl gives are five, not three.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-sync-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const fixtures = path.join(__dirname, 'fixtures');
const FLAGS = '--verify-each --parallel-min-work=0 --rtc-stats --time-tile-sizes=4,8,16';

interface Scop { ompParallelLoops?: string[]; ompSchedules?: string[]; ompTileSync?: string[]; schedule?: { timeTiled: false | { tileWavefront?: boolean } } }
type Report = { functions: { name: string; scops: Scop[] }[] };

function scopOf(report: string, fn: string): Scop {
  return (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === fn)!.scops.find((s) => s.ompParallelLoops !== undefined && s.ompParallelLoops.length > 0)!;
}

/** The instructions of `symbol`'s function in `exe`'s disassembly. */
function disassembly(exe: string, symbol: string): string {
  const text = runOk('objdump', ['-d', '--no-show-raw-insn', exe]).toString('utf8');
  const at = text.indexOf(`<${symbol}>:`);
  expect(at).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n\n', at);
  return text.slice(at, end < 0 ? undefined : end);
}

test.each([
  ['omp-fdtd.c', 'fields', 15, 'c1: point to point: one team for wavefronts -1..13, each column (w, t) waits for (w - 1, t), (w - 1, t - 1), (w - 2, t - 1)'],
  ['omp-tiles.c', 'jacobi', 12, 'c1: point to point: one team for wavefronts 0..11, each column (w, t) waits for (w - 1, t), (w - 1, t - 1), (w - 2, t - 1)'],
])('%s: the columns of %s wait point to point (one team against %i), output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', (file, fn, fronts, sync) => {
  const source = path.join(fixtures, file);
  const reference = path.join(work, `${fn}.ref`);
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want.length).toBeGreaterThan(0);
  const teams: Record<string, number> = {};
  for (const mode of ['point', 'barrier', 'point-one-thread'] as const) {
    const exe = path.join(work, `${fn}.${mode}`);
    const report = path.join(work, `${fn}.${mode}.json`);
    const extra = mode === 'point-one-thread' ? '--time-tile-one-thread-order=false' : `--omp-tile-sync=${mode}`;
    tsccWith(['-O3', '-fopenmp', source, '-o', exe], `${FLAGS} ${extra} --report=${report}`);
    for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
    const scop = scopOf(report, fn);
    expect(scop.ompParallelLoops).toEqual(['c1']);
    expect(scop.ompSchedules).toEqual(['dynamic']);
    expect(scop.schedule!.timeTiled).toMatchObject({ tileWavefront: true });
    if (mode === 'barrier') expect(scop.ompTileSync).toBeUndefined();
    else expect(scop.ompTileSync).toEqual([sync]);
    teams[mode] = runThreads(exe, 2).forks[fn]!;
    const outlined = disassembly(exe, `tsopt.par.${fn}.scop${fn === 'fields' ? 0 : 1}.0`);
    expect(/\bpause\b/.test(outlined)).toBe(mode !== 'barrier');
    expect(/sched_yield/.test(outlined)).toBe(mode !== 'barrier');
  }
  expect(teams).toEqual({ point: 1, barrier: fronts, 'point-one-thread': 1 });
}, 300_000);

// The offsets are isl's, not assumed: with wavefronts of three tile coordinates
// (--time-tile-wavefront-depth=3, w = T0 + T1 + T2) a column (w, T1) also depends on columns two
// and three wavefronts back.
test('omp-tiles.c at --time-tile-wavefront-depth=3: five offsets, one team, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const source = path.join(fixtures, 'omp-tiles.c');
  const reference = path.join(work, 'depth3.ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  const exe = path.join(work, 'depth3');
  const report = path.join(work, 'depth3.json');
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `${FLAGS} --time-tile-wavefront-depth=3 --report=${report}`);
  for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
  expect(scopOf(report, 'jacobi').ompTileSync).toEqual(['c1: point to point: one team for wavefronts 0..15, each column (w, t) waits for (w - 1, t), (w - 1, t - 1), (w - 2, t), (w - 2, t - 1), (w - 3, t - 1)']);
  expect(runThreads(exe, 2).forks.jacobi).toBe(1);
}, 300_000);
