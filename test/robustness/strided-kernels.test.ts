// Robustness of the stride-aware alias checks: the random affine kernels of
// loopgen.ts in their strided variant (every subscript S * (subscript) + r, one residue r per
// array but now and then another), called as affine-kernels.test.ts calls them and twice more
// with every array at a random base offset below two strides into one buffer, so that arrays
// interleave or meet. Through the README's pipe with the versioning pass and --rtc-stats they
// print the same hashes as clang-14 -O3 alone, and the stride test lets some fast path run
// where the ranges overlap. Reproduce a seed with
// `node dist/test/robustness/loopgen-cli.js SEED kernel strided > kernel.c` (and `main`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../support/tools';
import { describeFailure, exec, inParallel, linkBitcode, PIPE_CLANG_FLAGS, runTsoptJobs } from './batch';
import { generateKernel } from './loopgen';

const SEEDS = Array.from({ length: 10 }, (_, i) => i + 101);
const root = tempDir('tsopt-strided-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const verdicts = new Map<number, string>();
const stats: string[] = [];
const dirOf = (seed: number) => path.join(root, `k${seed}`);

beforeAll(async () => {
  const expected = new Map<number, string>();
  await inParallel(SEEDS, 2, async (seed) => {
    fs.mkdirSync(dirOf(seed));
    const generated = generateKernel(seed, { strided: true });
    const kernel = path.join(dirOf(seed), 'kernel.c');
    const main = path.join(dirOf(seed), 'main.c');
    fs.writeFileSync(kernel, generated.kernel);
    fs.writeFileSync(main, generated.main);
    const mainObj = await exec('clang-14', ['-O3', '-w', '-c', main, '-o', path.join(dirOf(seed), 'main.o')]);
    if (mainObj.status !== 0) throw new Error(`clang-14 -O3 rejects generated seed ${seed}: ${mainObj.stderr}`);
    const exe = path.join(dirOf(seed), 'ref');
    const ref = await exec('clang-14', ['-O3', '-w', kernel, path.join(dirOf(seed), 'main.o'), '-o', exe]);
    if (ref.status !== 0) throw new Error(`clang-14 -O3 rejects generated seed ${seed}: ${ref.stderr}`);
    const run = await exec(exe, [], 10_000);
    if (run.status !== 0) throw new Error(`the clang -O3 build of seed ${seed} fails: ${run.stderr}`);
    expected.set(seed, run.stdout);
    const ir = await exec('clang-14', [...PIPE_CLANG_FLAGS, '-w', kernel, '-o', path.join(dirOf(seed), 'k.bc')]);
    if (ir.status !== 0) throw new Error(`clang-14 -emit-llvm rejects seed ${seed}: ${ir.stderr}`);
  });
  const jobs = SEEDS.map((seed) => ({
    id: `seed ${seed}`,
    args: [path.join(dirOf(seed), 'k.bc'), '-o', path.join(dirOf(seed), 'v.bc'), '--verify-each', '--passes=versioning', '--isl-max-operations=2000000', '--rtc-stats'],
  }));
  const outcomes = await runTsoptJobs(jobs, root, 2, 45_000);
  await inParallel(outcomes, 2, async (o) => {
    const seed = Number(/seed (\d+)/.exec(o.id)?.[1]);
    const failure = describeFailure(o);
    if (failure) return void verdicts.set(seed, failure);
    const exe = path.join(dirOf(seed), 'v.exe');
    const linkProblem = await linkBitcode(path.join(dirOf(seed), 'v.bc'), exe, [path.join(dirOf(seed), 'main.o')]);
    if (linkProblem) return void verdicts.set(seed, linkProblem);
    const statsFile = path.join(dirOf(seed), 'v.rtc');
    const run = await exec('env', [`TSOPT_RTC_STATS=${statsFile}`, exe], 10_000);
    if (run.status !== 0) return void verdicts.set(seed, `the piped build fails (${run.timedOut ? 'timeout' : run.status ?? run.signal})`);
    if (fs.existsSync(statsFile)) stats.push(...fs.readFileSync(statsFile, 'utf8').trim().split('\n'));
    const want = (expected.get(seed) ?? '').split('\n');
    const got = run.stdout.split('\n');
    const firstDiff = want.findIndex((line, i) => got[i] !== line);
    verdicts.set(seed, firstDiff < 0 ? '' : `line ${firstDiff + 1}: printed ${JSON.stringify(got[firstDiff])}, clang -O3 printed ${JSON.stringify(want[firstDiff])}`);
  });
}, 600_000);

for (const seed of SEEDS) {
  test(`strided affine kernel seed ${seed}: same output as clang -O3`, () => {
    expect({ seed, verdict: verdicts.get(seed) }).toEqual({ seed, verdict: '' });
  });
}

test('the stride test held where the range test did not, in some run', () => {
  // Per pair: runs its range test passed, runs its stride test passed; more of the second
  // means some run passed on the stride test alone.
  const pairs = stats.flatMap((line) => [...line.matchAll(/(alias\(\S+\))-range-passed=(\d+) \1-stride-passed=(\d+)/g)].map((m) => [Number(m[2]), Number(m[3])]));
  expect(pairs.some(([range, stride]) => stride! > range!)).toBe(true);
});
