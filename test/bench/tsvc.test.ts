// TSVC_2 in the bench (bench/tsvc.ts), on a three-loop stand-in with TSVC_2's layout
// (fixtures/tsvc-mini: the lines the bench patches, main's calls, the name-time-checksum lines):
// the copy is patched (iterations divided, CPU-time timer, microseconds, loops chosen on the
// command line, a loop that division would skip run once), every loop is a program of the suite
// with its checksum checked against clang -O3's, and --tsvc-loops picks loops. No test here
// asserts a time.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { patchTsvc, parseTsvcOutput, tsvcLoops, tsvcPlannedLoops } from '../../bench/tsvc';
import { repoRoot, tempDir } from '../support/tools';

const runJs = path.join(repoRoot, 'dist', 'bench', 'run.js');
const mini = path.join(__dirname, 'fixtures', 'tsvc-mini');
const out = tempDir('tsopt-bench-tsvc-');
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

const read = (f: string) => fs.readFileSync(path.join(mini, 'src', f), 'utf8');

test('the patch divides the iterations, times by CPU time in microseconds and runs only the loops named', () => {
  expect(tsvcLoops(read('tsvc.c'))).toEqual(['s000', 's111', 's176']);
  const p = patchTsvc(read('tsvc.c'), read('common.h'), 5);
  expect(p.commonH).toMatch(/^#define iterations \(2000\/5\)$/m);
  expect(p.tsvcC).toContain('#define gettimeofday tsvc_cpu_time');
  expect(p.tsvcC).toContain('CLOCK_PROCESS_CPUTIME_ID');
  expect(p.tsvcC).toContain('printf("%10.6f\\t%f\\n", taken, result);');
  expect(p.tsvcC).toContain('if (tsvc_selected(argc, argv, "s111")) time_function(&s111, NULL);');
  expect(p.tsvcC).toContain('(iterations/LEN_1D > 0 ? iterations/LEN_1D : 1)');
  expect(() => patchTsvc('int main() {}', read('common.h'), 5)).toThrow(/not the expected version/);
  expect(() => tsvcPlannedLoops(path.join(mini, 'src'))).toThrow(/not a TSVC_2 checkout/);
  expect(() => tsvcPlannedLoops(mini, new Set(['s999']))).toThrow(/no such TSVC loop: s999/);
  expect(parseTsvcOutput('Loop \tTime(sec) \tChecksum\n s000\t  0.012345\t7040.000000\n')).toEqual(new Map([['s000', { seconds: 0.012345, checksum: '7040.000000' }]]));
});

interface Results {
  sizes: Record<string, Record<string, string>>;
  tolerances: Record<string, unknown>;
  suites: { name: string; programs: { name: string; variants: Record<string, { status: string; times: number[]; speedup?: number }> }[]; sameCode?: Record<string, { same: string[] }> }[];
}

test('every loop is a program of the tsvc suite, checked by its checksum and timed in every round', () => {
  const dir = path.join(out, 'all');
  const r = spawnSync(process.execPath, [runJs, '--tsvc', mini, '--tsvc-divide', '4', '--only-variants', 'tscc', '--repeat', '2', '--out', dir], { encoding: 'utf8' });
  expect(r.stderr).toMatch(/\[tsvc\] building tscc/);
  expect(r.status).toBe(0);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results;
  expect(results.suites.map((s) => s.name)).toEqual(['tsvc']);
  expect(results.sizes.tsvc).toEqual({ s000: 'iterations/4', s111: 'iterations/4', s176: 'iterations/4' });
  expect(results.tolerances.tsvc).toEqual({ relative: 0, absolute: 0 });
  const programs = results.suites[0]!.programs;
  expect(programs.map((p) => p.name)).toEqual(['s000', 's111', 's176']);
  for (const p of programs) {
    expect(Object.keys(p.variants)).toEqual(['clang', 'tscc']);
    for (const v of Object.values(p.variants)) expect(v).toMatchObject({ status: 'ok', times: [expect.any(Number), expect.any(Number)] });
  }
  expect(r.stdout).toMatch(/^tsvc$/m);
  expect(fs.readFileSync(path.join(dir, 'results.csv'), 'utf8')).toMatch(/^tsvc,s111,tscc,ok,/m);
  // The control group: the loops tscc built to clang -O3's machine code (bench/same-code.ts).
  const same = results.suites[0]!.sameCode?.tscc;
  expect(same).toBeDefined();
  for (const name of same!.same) expect(['s000', 's111', 's176']).toContain(name);
  expect(r.stdout).toMatch(new RegExp(`^tscc: ${same!.same.length} of 3 compile to clang -O3's machine code \\(geomean `, 'm'));
}, 300_000);

test('--tsvc-loops times only the loops named', () => {
  const dir = path.join(out, 'some');
  const r = spawnSync(process.execPath, [runJs, '--tsvc', mini, '--tsvc-loops', 's111', '--only-variants', 'polly', '--repeat', '1', '--out', dir], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results;
  const programs = results.suites[0]!.programs;
  expect(programs.map((p) => p.name)).toEqual(['s111']);
  expect(programs[0]!.variants.polly).toMatchObject({ status: 'ok', times: [expect.any(Number)] });
}, 300_000);
