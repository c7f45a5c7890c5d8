// The time tile height of wavefronts on threads (transform/wavefront-shape.ts): on
// fixtures/omp-heat.c's 3-D heat stencil (24 steps over 40^3, --l2-cache-size=262144: the cache
// rule's tiles 4 x 8 x 8 x 64 skewed by 2, taller ones up to 7 still fit), tscc -O3 -fopenmp
// with TSOPT_FLAGS=--verify-each --parallel-min-work=0 --rtc-stats --omp-tile-sync=barrier (a
// team per wavefront, which counts them):
//   - shaped for 2 threads, the height is 5 (its wavefronts count a bound of 1.658 on two threads,
//     1.606 at height 4), and the report says so; shaped for 1 thread, it stays 4;
//   - one team per wavefront: 15 at height 5 against 16 at height 4;
//   - the program prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { runThreads, tsccWith } from './omp-run';

const work = tempDir('tsopt-parallel-height-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-heat.c');

interface Scop { ompParallelLoops?: string[]; schedule?: { timeTiled: false | { sizes: number[]; wavefrontHeight?: string; tileWavefront?: boolean } } }
type Report = { functions: { name: string; scops: Scop[] }[] };

test('wavefronts shaped for 2 threads: height 5, one team per wavefront (15), output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const reference = path.join(work, 'ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = runThreads(reference, 2).out;
  expect(want).toMatch(/^heat [0-9a-f]{16} [0-9a-f]{16}\n$/);
  const teams: Record<number, number> = {};
  for (const threads of [1, 2]) {
    const exe = path.join(work, `shaped${threads}`);
    const report = path.join(work, `shaped${threads}.json`);
    tsccWith(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --parallel-min-work=0 --rtc-stats --omp-tile-sync=barrier --l1-cache-size=32768 --l2-cache-size=262144 --time-tile-wavefront-threads=${threads} --report=${report}`);
    for (const run of [1, 2, 4]) expect(runThreads(exe, run).out).toBe(want);
    const heat = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).functions.find((f) => f.name === 'heat')!.scops[0]!;
    const tiled = heat.schedule!.timeTiled;
    if (tiled === false) throw new Error('heat is not time-tiled');
    expect(tiled.tileWavefront).toBe(true);
    expect(heat.ompParallelLoops).toEqual(['c1']);
    if (threads === 2) {
      expect(tiled.sizes).toEqual([5, 8, 8, 64]);
      expect(tiled.wavefrontHeight).toContain('wavefronts on 2 threads counted: height 5: 15 wavefronts of at most 3 columns, bound 1.658 against height 4: 16 wavefronts');
    } else {
      expect(tiled.sizes).toEqual([4, 8, 8, 64]);
      expect(tiled.wavefrontHeight).toBeUndefined();
    }
    teams[tiled.sizes[0]!] = runThreads(exe, 2).forks.heat!;
  }
  expect(teams).toEqual({ 4: 16, 5: 15 });
}, 300_000);
