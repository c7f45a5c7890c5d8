// --time-tile-wavefront-depth=3 (transform/wavefront.ts): time tiles run in wavefronts
// w = T0 + T1 + T2 instead of T0 + T1, which puts more tiles in each wavefront for the threads
// to share (heat-3d at PolyBench LARGE, 4 x 8 x 8: at most 16 tiles instead of 8, counted bound
// on two threads 1.99 against 1.85, bench/probes/wavefront-balance.c). On fixtures/omp-tiles.c's
// Jacobi stencil (9 steps over 61 x 61, tiles 4 x 8 x 16 skewed by 2: T0 0..2, T1 0..9, T2 0..4),
// tscc -O3 -fopenmp with TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats
// --omp-tile-sync=barrier (a team per wavefront, which counts them):
//   - the program prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads;
//   - the report names the deeper wavefronts, T1 still the loop on the threads, claimed dynamically;
//   - one team per wavefront: 16 (w = 0..15) against 12 (w = T0 + T1 = 0..11) at depth 2.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-depth-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-tiles.c');
const SIZES = '--l1-cache-size=32768 --l2-cache-size=1048576 --time-tile-sizes=4,8,16';

interface Scop { ompParallelLoops?: string[]; ompSchedules?: string[]; schedule?: { why: string; timeTiled: false | object } }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('wavefronts of T0 + T1 + T2: one team per wavefront (16), output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(4);
  const teams: Record<number, number> = {};
  for (const depth of [2, 3]) {
    const exe = path.join(work, `depth${depth}`);
    const report = path.join(work, `depth${depth}.json`);
    tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats --omp-tile-sync=barrier ${SIZES} --time-tile-wavefront-depth=${depth} --report=${report}`);
    for (const threads of [1, 2, 4]) expect(runThreads(exe, threads).out).toBe(want);
    const jacobi = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'jacobi')!.scops[0]!;
    expect(jacobi.schedule!.timeTiled).toMatchObject({ sizes: [4, 8, 16], tileWavefront: true });
    expect(jacobi.schedule!.why.endsWith(depth === 3 ? 'the tiles in wavefronts of 3 tile coordinates' : 'the tiles in wavefronts')).toBe(true);
    expect(jacobi.ompParallelLoops).toEqual(['c1']);
    expect(jacobi.ompSchedules).toEqual(['dynamic']);
    teams[depth] = runThreads(exe, 2).forks.jacobi!;
    expect(runThreads(exe, 1).forks.jacobi).toBe(0);
  }
  expect(teams).toEqual({ 2: 12, 3: 16 });
}, 300_000);
