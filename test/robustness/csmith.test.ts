// Robustness: random C programs from csmith (fixed seeds) print the same checksum through
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm -c | tsopt --verify-each | llc-14 -O3 … + link
// as through clang-14 -O3 alone — with tsopt's default pipeline and with the versioning pass.
// A program clang cannot build, or whose -O3 build does not finish in time, is skipped with
// its reason; the test fails when more than a quarter are skipped, so it cannot test nothing.
// Needs csmith and its headers (Debian's csmith and libcsmith-dev).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../support/tools';
import { describeFailure, exec, inParallel, linkBitcode, PIPE_CLANG_FLAGS, runTsoptJobs, type Job } from './batch';

const SEEDS = Array.from({ length: 16 }, (_, i) => 1000 + i);
const CSMITH_INCLUDE = '/usr/include/csmith';
const RUN_TIMEOUT_MS = 5000;
const PIPELINES: Record<string, string[]> = { default: [], versioning: ['--passes=versioning'] };

/** `seed N/pipeline` → the bug it hits (see the robustness report); these run as test.failing. */
const KNOWN_BUGS: Record<string, string> = {};

interface Program {
  seed: number;
  dir: string;
  skipped?: string;
  expected?: string;
  bitcode?: string;
}

const root = tempDir('tsopt-csmith-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const programs: Program[] = SEEDS.map((seed) => ({ seed, dir: path.join(root, `s${seed}`) }));
/** `seed N/pipeline` → what went wrong, or '' when the output matched. */
const verdicts = new Map<string, string>();

async function prepare(p: Program): Promise<void> {
  fs.mkdirSync(p.dir);
  const source = path.join(p.dir, 'p.c');
  const gen = await exec('csmith', ['--seed', String(p.seed), '--max-funcs', '3', '--no-volatiles', '-o', source]);
  if (gen.status !== 0) throw new Error(`csmith --seed ${p.seed} failed: ${gen.stderr}`);
  const cflags = ['-w', `-I${CSMITH_INCLUDE}`];
  const ref = await exec('clang-14', ['-O3', ...cflags, source, '-o', path.join(p.dir, 'ref')], 60_000);
  if (ref.timedOut) return void (p.skipped = 'clang -O3 build timed out');
  if (ref.status !== 0) return void (p.skipped = `clang -O3 cannot build it: ${ref.stderr.split('\n')[0]}`);
  const run = await exec(path.join(p.dir, 'ref'), [], RUN_TIMEOUT_MS);
  if (run.timedOut) return void (p.skipped = 'the clang -O3 build runs too long');
  if (run.status !== 0) return void (p.skipped = `the clang -O3 build exits ${run.status ?? run.signal}`);
  p.expected = run.stdout;
  p.bitcode = path.join(p.dir, 'p.bc');
  const ir = await exec('clang-14', [...PIPE_CLANG_FLAGS, ...cflags, source, '-o', p.bitcode], 60_000);
  if (ir.status !== 0) throw new Error(`clang-14 -emit-llvm failed on seed ${p.seed}: ${ir.stderr}`);
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(CSMITH_INCLUDE, 'csmith.h'))) {
    throw new Error(`${CSMITH_INCLUDE}/csmith.h is missing: install libcsmith-dev (bin/setup)`);
  }
  await inParallel(programs, 2, prepare);
  const built = programs.filter((p) => p.bitcode);
  const jobs: Job[] = built.flatMap((p) =>
    Object.entries(PIPELINES).map(([name, flags]) => ({
      id: `seed ${p.seed}/${name}`,
      args: [p.bitcode as string, '-o', path.join(p.dir, `${name}.bc`), '--verify-each', ...flags],
    })),
  );
  const outcomes = await runTsoptJobs(jobs, root);
  await inParallel(outcomes, 2, async (o) => {
    const failure = describeFailure(o);
    if (failure) return void verdicts.set(o.id, failure);
    const [seedPart, name] = o.id.split('/');
    const p = built.find((b) => `seed ${b.seed}` === seedPart) as Program;
    const exe = path.join(p.dir, `${name}.exe`);
    const linkProblem = await linkBitcode(path.join(p.dir, `${name}.bc`), exe);
    if (linkProblem) return void verdicts.set(o.id, linkProblem);
    const run = await exec(exe, [], RUN_TIMEOUT_MS * 4);
    if (run.timedOut) return void verdicts.set(o.id, 'the piped build runs too long');
    if (run.stdout !== p.expected) {
      return void verdicts.set(o.id, `printed ${JSON.stringify(run.stdout.trim())}, clang -O3 printed ${JSON.stringify(p.expected?.trim())}`);
    }
    verdicts.set(o.id, '');
  });
}, 600_000);

test('most csmith programs are built and run by clang -O3 (skips are few and explained)', () => {
  const skipped = programs.filter((p) => p.skipped).map((p) => `seed ${p.seed}: ${p.skipped}`);
  expect(skipped.length).toBeLessThanOrEqual(SEEDS.length / 4);
});

for (const seed of SEEDS) {
  for (const name of Object.keys(PIPELINES)) {
    const id = `seed ${seed}/${name}`;
    const bug = KNOWN_BUGS[id];
    (bug ? test.failing : test)(`csmith ${id}: same output as clang -O3${bug ? ` (known bug: ${bug})` : ''}`, () => {
      const p = programs.find((q) => q.seed === seed) as Program;
      if (p.skipped) return; // counted by the test above
      expect({ id, verdict: verdicts.get(id) }).toEqual({ id, verdict: '' });
    });
  }
}
