// The one-thread order of time tiles in wavefronts (codegen/one-thread.ts): tscc -O3 -fopenmp
// with TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats and small caches
// (--l2-cache-size=262144):
//   - fixtures/omp-one-thread.c's 2-D Jacobi stencil, run once from main and once in each thread
//     of the program's own `omp parallel for`: the report names the one-thread order and its
//     tiles; under OMP_NUM_THREADS=1 every run takes it (one-thread=3, no team), under 2 and 4
//     the runs inside the program's region take it (one-thread=2) and main's runs its wavefronts
//     on teams; the output is clang-14 -O3 -fopenmp's under 1, 2 and 4 threads;
//   - fixtures/omp-heat.c shaped for 2 threads: wavefront tiles 5 high, the one-thread order's 4
//     (the single-thread height); under one thread the one-thread order runs, and with
//     --time-tile-one-thread-order=false there is none (the report says so, no counter); the
//     output is clang's either way.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-one-thread-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const fixture = (name: string): string => path.join(__dirname, 'fixtures', name);
const flags = '--verify-each --parallel-min-work=0 --rtc-stats --l1-cache-size=32768 --l2-cache-size=262144 --time-tile-wavefront-threads=2';

interface Scop { ompOneThreadOrder?: string; ompParallelLoops?: string[]; schedule?: { timeTiled: false | { sizes: number[]; tileWavefront?: boolean; oneThreadSizes?: number[] } } }
type Report = { functions: { name: string; scops: Scop[] }[] };

/** The output under OMP_NUM_THREADS=`threads`, and the --rtc-stats counters of `fn`'s first SCoP. */
function run(exe: string, threads: number, fn: string): { out: string; counters: Record<string, number> } {
  const r = spawnSync(exe, [], { env: { ...process.env, OMP_NUM_THREADS: String(threads) }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith(`tsopt-rtc: ${fn} `));
  if (!line) throw new Error(`no --rtc-stats line for ${fn}: ${r.stderr}`);
  const counters = Object.fromEntries([...line.matchAll(/ ([a-z-]+)=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return { out: r.stdout, counters };
}

function build(source: string, name: string, extra = ''): { exe: string; scop: Scop; fn: string } {
  const exe = path.join(work, name);
  const report = path.join(work, `${name}.json`);
  tsccWith(['-O3', '-fopenmp', source, '-o', exe], `${flags} --report=${report} ${extra}`);
  const fn = path.basename(source) === 'omp-heat.c' ? 'heat' : 'jacobi';
  return { exe, fn, scop: (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === fn)!.scops[0]! };
}

function reference(source: string): string {
  const exe = path.join(work, `ref-${path.basename(source, '.c')}`);
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', exe]);
  return spawnSync(exe, [], { env: { ...process.env, OMP_NUM_THREADS: '2' }, encoding: 'utf8' }).stdout;
}

test('a Jacobi stencil: the one-thread order under one thread and inside the program\'s parallel region, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const source = fixture('omp-one-thread.c');
  const want = reference(source);
  expect(want).toMatch(/^jacobi [0-9a-f]{16} [0-9a-f]{16}\ninside [0-9a-f]{16} [0-9a-f]{16}\n$/);
  const { exe, scop, fn } = build(source, 'jacobi');
  const tiled = scop.schedule!.timeTiled;
  if (tiled === false) throw new Error('jacobi is not time-tiled');
  expect(tiled.tileWavefront).toBe(true);
  expect(scop.ompParallelLoops).toEqual(['c1']);
  expect(scop.ompOneThreadOrder).toBe(`the tiles in time band order, ${tiled.oneThreadSizes!.join(' x ')}, when the runtime gives one thread`);
  const one = run(exe, 1, fn);
  expect(one.out).toBe(want);
  expect(one.counters).toMatchObject({ fast: 3, parallel: 0, 'one-thread': 3 });
  for (const threads of [2, 4]) {
    const r = run(exe, threads, fn);
    expect(r.out).toBe(want);
    expect(r.counters).toMatchObject({ fast: 3, 'one-thread': 2 });
    expect(r.counters.parallel).toBeGreaterThan(0);
  }
}, 300_000);

test('heat shaped for 2 threads: wavefront tiles 5 high, the one-thread order 4; --time-tile-one-thread-order=false keeps none; output as clang\'s', () => {
  const source = fixture('omp-heat.c');
  const want = reference(source);
  const both = build(source, 'heat');
  const tiled = both.scop.schedule!.timeTiled;
  if (tiled === false) throw new Error('heat is not time-tiled');
  expect(tiled.sizes).toEqual([5, 8, 8, 64]);
  expect(tiled.oneThreadSizes).toEqual([4, 8, 8, 64]);
  expect(both.scop.ompOneThreadOrder).toBe('the tiles in time band order, 4 x 8 x 8 x 64, when the runtime gives one thread');
  const one = run(both.exe, 1, both.fn);
  expect(one.out).toBe(want);
  expect(one.counters).toMatchObject({ fast: 1, parallel: 0, 'one-thread': 1 });
  const two = run(both.exe, 2, both.fn);
  expect(two.out).toBe(want);
  // One team for the 15 wavefronts (--omp-tile-sync=point).
  expect(two.counters).toMatchObject({ fast: 1, parallel: 1, 'one-thread': 0 });

  const wavefrontsOnly = build(source, 'heat-wavefronts', '--time-tile-one-thread-order=false');
  expect(wavefrontsOnly.scop.ompOneThreadOrder).toBe('none: not asked for (--time-tile-one-thread-order=false)');
  const alone = run(wavefrontsOnly.exe, 1, wavefrontsOnly.fn);
  expect(alone.out).toBe(want);
  expect(alone.counters).toMatchObject({ fast: 1, parallel: 0 });
  expect(alone.counters['one-thread']).toBeUndefined();
}, 300_000);
