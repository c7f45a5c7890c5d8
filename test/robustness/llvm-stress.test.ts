// Robustness: random modules from llvm-stress-14 (fixed seeds and sizes) go through
// `tsopt --verify-each` with the default pipeline (post pipeline on, as users run it) and with
// every registered pass on its own (--no-post): each run exits 0 — no signal, no internal error,
// no parse error on LLVM's own text — and its output is IR that llvm-as-14 accepts (it verifies).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../support/tools';
import { describeFailure, exec, inParallel, passTable, runTsoptJobs, type Job } from './batch';

/** [seed, size]: small modules and a few large ones. */
const MODULES: ReadonlyArray<readonly [number, number]> = [
  [1, 50], [3, 100], [4, 200], [5, 200], [6, 300], [8, 500], [9, 800], [10, 1500],
];

/** `seed N size S/pipeline` → the bug it hits (see the robustness report); these run as test.failing. */
const KNOWN_BUGS: Record<string, string> = {};

const { passes } = passTable();
const pipelines: Record<string, string[]> = {
  default: ['-S'],
  ...Object.fromEntries(passes.map((p) => [p, ['-S', '--no-post', `--passes=${p}`]])),
};

const root = tempDir('tsopt-stress-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const verdicts = new Map<string, string>();
const idOf = (seed: number, size: number, pipeline: string) => `seed ${seed} size ${size}/${pipeline}`;

beforeAll(async () => {
  const jobs: Job[] = [];
  for (const [seed, size] of MODULES) {
    const input = path.join(root, `stress-${seed}-${size}.ll`);
    const gen = await exec('llvm-stress-14', ['--seed', String(seed), '--size', String(size), '-o', input]);
    if (gen.status !== 0) throw new Error(`llvm-stress-14 failed: ${gen.stderr}`);
    Object.entries(pipelines).forEach(([name, flags], k) => {
      jobs.push({ id: idOf(seed, size, name), args: [input, '-o', path.join(root, `out-${seed}-${size}-${k}.ll`), '--verify-each', ...flags] });
    });
  }
  const outcomes = await runTsoptJobs(jobs, root);
  await inParallel(outcomes, 2, async (o, i) => {
    const failure = describeFailure(o);
    if (failure) return void verdicts.set(o.id, failure);
    const output = jobs[i].args[2];
    const as = await exec('llvm-as-14', [output, '-o', '/dev/null']);
    verdicts.set(o.id, as.status === 0 ? '' : `llvm-as-14 rejects the output: ${as.stderr.trim().split('\n')[0]}`);
  });
}, 600_000);

test('the registry lists the passes this test runs one by one', () => {
  expect(passes).toEqual(expect.arrayContaining(['verify', 'print<scops>', 'print<dependences>', 'print<delinearization>']));
});

for (const [seed, size] of MODULES) {
  for (const name of Object.keys(pipelines)) {
    const id = idOf(seed, size, name);
    const bug = KNOWN_BUGS[id];
    (bug ? test.failing : test)(`llvm-stress ${id}: exit 0 and output that verifies${bug ? ` (known bug: ${bug})` : ''}`, () => {
      expect({ id, verdict: verdicts.get(id) }).toEqual({ id, verdict: '' });
    });
  }
}
