// --min-repeat end to end: a program stops timing once the verdicts its planned rounds would
// give are decided, and not before. The rounds come from a fixture whose printed kernel time
// is fixed at compile time (fixtures/fixed-times/fixed.c), so what the run decides is known in
// advance whatever the machine's load: clang -O3's build prints 1 s, the extra variant 0.5 s
// (faster every round) or 2 s (slower every round). The curtailed verdicts themselves are tested
// against every way of finishing the rounds in noise.test.ts; this checks that runSuite stops
// where they say and that results.json records the rounds taken and the verdict.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from '../support/tools';

const runJs = path.join(repoRoot, 'dist', 'bench', 'run.js');
const fixtures = path.join(__dirname, 'fixtures', 'fixed-times');
const out = tempDir('tsopt-bench-min-repeat-');

interface Variant { status: string; times: number[]; verdict?: string; roundsBelow?: number; roundsAbove?: number }

function run(name: string, seconds: string): { stderr: string; clang: Variant; other: Variant } {
  const dir = path.join(out, name);
  const r = spawnSync(process.execPath, [
    runJs, '--kernels-dir', fixtures, '--variant', `${name}=clang-14 -O3 -DFAKE_SECONDS=${seconds}`,
    '--only-variants', name, '--repeat', '6', '--min-repeat', '2', '--out', dir,
  ], { encoding: 'utf8' });
  expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as {
    suites: { programs: { name: string; variants: Record<string, Variant> }[] }[];
  };
  const program = results.suites[0].programs[0];
  expect(program.name).toBe('fixed');
  return { stderr: r.stderr, clang: program.variants.clang, other: program.variants[name] };
}

test('a variant faster in every round stops at --min-repeat: slower is out of reach', () => {
  const { stderr, clang, other } = run('fast', '0.5');
  expect(stderr).toMatch(/fixed: settled after 2 rounds \(--min-repeat\)/);
  expect(stderr).not.toMatch(/timing round 3\/6/);
  expect(clang.times).toEqual([1, 1]);
  expect(other.times).toEqual([0.5, 0.5]);
  // Six rounds could still make it faster or leave it within noise, never slower.
  expect(other).toMatchObject({ status: 'ok', roundsAbove: 2, roundsBelow: 0, verdict: 'not-slower' });
}, 120_000);

test('a variant slower in every round runs every planned round: slower is decided only at the last', () => {
  const { stderr, clang, other } = run('slow', '2.0');
  expect(stderr).not.toMatch(/settled after/);
  expect(stderr).toMatch(/timing round 6\/6/);
  expect(clang.times).toHaveLength(6);
  expect(other.times).toEqual([2, 2, 2, 2, 2, 2]);
  // One comparison: P(6 of 6 below by chance) = 1/64 < 0.05, while 5 of 6 (7/64) would not do.
  expect(other).toMatchObject({ status: 'ok', roundsBelow: 6, verdict: 'slower' });
}, 120_000);
