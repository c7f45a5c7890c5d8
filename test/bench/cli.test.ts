// The bench's command line (yargs, like tsopt's) and what results.json records about a run: the
// dataset only when a suite uses one, --tiny, the size of each program, the load average and the
// tools' versions; the chart on a log axis with 1x (clang -O3) marked.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadWarning } from '../../bench/run-facts';
import { formatSeconds } from '../../bench/results-files';
import { kernelsDir, repoRoot, tempDir } from '../support/tools';

const runJs = path.join(repoRoot, 'dist', 'bench', 'run.js');
const out = tempDir('tsopt-bench-cli-');
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

function bench(args: string[]) {
  return spawnSync(process.execPath, [runJs, ...args], { encoding: 'utf8' });
}

test('--help prints the usage and exits 0; a bad option is one line and exit 1', () => {
  const help = bench(['--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run bench -- /);
  for (const flag of ['--polybench', '--ublas', '--kernels-dir', '--dataset', '--tiny', '--repeat', '--variant', '--no-vla', '--check-cost', '--tsvc', '--tsvc-divide', '--tsvc-loops', '--limit', '--min-repeat']) {
    expect(help.stdout).toContain(flag.replace('--no-', '--'));
  }
  const bad = bench(['--kernels-dir', kernelsDir, '--bogus']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/^bench: error: .*bogus.*\(see --help\)\n$/);
  const none = bench([]);
  expect(none.status).toBe(1);
  expect(none.stderr).toBe('bench: error: nothing to run: give --polybench DIR, --ublas, --kernels-dir DIR or --tsvc DIR (see --help)\n');
  expect(bench(['--tsvc', kernelsDir, '--tsvc-divide', '0']).stderr).toBe('bench: error: --tsvc-divide wants a positive integer\n');
  expect(bench(['--kernels-dir', kernelsDir, '--min-repeat', '0']).stderr).toBe('bench: error: --min-repeat wants a positive integer\n');
});

test('a --tiny run records --tiny, the sizes, the load and the tools, and charts on a log axis', () => {
  const dir = path.join(out, 'tiny');
  const r = bench(['--kernels-dir', kernelsDir, '--tiny', '--kernels', 'jacobi-1d', '--only-variants', 'tscc', '--repeat', '1', '--out', dir]);
  expect(r.stderr).toMatch(/jacobi-1d: clang \d[\d.]*(s|ms|us), tscc \d[\d.]*(s|ms|us)\n/);
  expect(r.status).toBe(0);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
  expect(results.dataset).toBeNull(); // no PolyBench or uBLAS in this run
  expect(results.tiny).toBe(true);
  expect(results.sizes.kernels['jacobi-1d']).toMatch(/^\d+( \d+)*$/);
  expect(results.load.cores).toBeGreaterThan(0);
  expect(results.load.start).toHaveLength(3);
  expect(results.load.end).toHaveLength(3);
  expect(results.tools).toMatchObject({ tsopt: expect.any(String), isl: expect.any(String) });
  expect(results.tools.llvm).toMatch(/^14\./);
  expect(results.tools['clang-14']).toMatch(/clang version 14\./);
  const svg = fs.readFileSync(path.join(dir, 'chart.svg'), 'utf8');
  expect(svg).toContain('log scale');
  expect(svg).toContain('1x = clang -O3');
  expect(svg).toMatch(/>1\/2x</);
  expect(svg).toMatch(/>2x</);
}, 300_000);

test('times in units a person reads; the load warning only for a busy machine', () => {
  expect([formatSeconds(2.061), formatSeconds(0.0413), formatSeconds(0.00085)]).toEqual(['2.06s', '41.3ms', '850us']);
  expect(loadWarning([0.5, 0.4, 0.3], 'start', 2)).toBeUndefined();
  expect(loadWarning([1.8, 1, 1], 'end', 2)).toBeUndefined(); // the bench's own process counts at the end
  expect(loadWarning([3.2, 3, 3], 'start', 2)).toMatch(/^load average 3\.2 on 2 cores at the start of the run .*timings are doubtful/);
});
