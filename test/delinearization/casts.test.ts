// Flat `int`-subscript kernels end to end: -O3 writes their 32-bit i*n + j as a sign
// extension with no nsw; delinearization reads it through, the model assumes the 32-bit
// value does not wrap (`no-wrap`), and the run-time check tests that. Through the pipe
//   clang-14 -O3 -g -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --verify-each
//     | llc-14 -O3 -relocation-model=pic | clang-14 (link)
// every array gets its declared shape, the SCoPs are versioned, and the programs print
// what clang -O3 prints; values that make the 32-bit arithmetic wrap take the original code.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, findKernel, runKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, run, runOk, tempDir } from '../support/tools';
import { declaredShapes } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-delin-casts-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ScopFields {
  location: string;
  arrays: { name: string; shape: string[] }[];
  versioned?: boolean;
  notVersioned?: string;
  runtimeCheckParts?: { label: string; c: string }[];
}
type Report = { functions: { name: string; scops: ScopFields[] }[] };

/** `source` through the pipe (with `cflags`); the executable and tsopt's report. */
function pipeBuild(source: string, name: string, cflags: readonly string[], tsoptFlags: readonly string[] = []): { exe: string; report: Report } {
  const bitcode = compileToIr(source, ['-O3', '-g', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`, ...cflags]);
  const report = path.join(work, `${name}.json`);
  const optimized = runOk('node', [tsopt, '--verify-each', `--report=${report}`, ...tsoptFlags], bitcode);
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  return { exe, report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report };
}

const scopsOf = (r: Report, fn: string): ScopFields[] => r.functions.find((f) => f.name === fn)?.scops ?? [];

describe('flat int-subscript kernels: every array delinearized through the sign extension, versioned under the no-wrap check', () => {
  test.each([
    ['jacobi-2d', 'kernel_jacobi_2d'],
    ['heat-3d', 'kernel_heat_3d'],
    ['fdtd-2d', 'kernel_fdtd_2d'],
    ['correlation', 'kernel_correlation'],
    ['adi', 'kernel_adi'],
  ])('%s', (name, fn) => {
    const k = findKernel(name);
    const { exe, report } = pipeBuild(k.path, name, []);
    const scops = scopsOf(report, fn);
    const shapes = new Map<string, string[]>();
    for (const s of scops) for (const a of s.arrays) if (a.shape.length > 1 && !shapes.has(a.name)) shapes.set(a.name, a.shape);
    for (const [array, shape] of declaredShapes(`${name}.c`, fn)) expect({ array, shape: shapes.get(array) }).toEqual({ array, shape });
    // The SCoPs that access them are versioned with a no-wrap part, or left alone for a
    // reason that is not theirs (values live after the SCoP).
    const withShapes = scops.filter((s) => s.arrays.some((a) => a.shape.length > 1));
    for (const s of withShapes) {
      if (s.versioned) continue;
      expect({ location: s.location, why: s.notVersioned }).toEqual({ location: s.location, why: expect.stringMatching(/used after it/) });
    }
    const versioned = withShapes.filter((s) => s.versioned);
    expect(versioned.length).toBeGreaterThan(0);
    expect(versioned.flatMap((s) => s.runtimeCheckParts ?? []).map((p) => p.label)).toContain('no-wrap');
    const reference = buildKernel(name, { flags: ['-O3'] });
    for (const args of [k.args, k.altArgs]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));
  }, 300_000);
});

describe('checks with products of more than two factors (exact in i128 under guards, codegen/exact-product.ts)', () => {
  test('heat-3d: the no-wrap condition names n * n * n, and n * n is guarded to lie within ±2^63', () => {
    const { report } = pipeBuild(findKernel('heat-3d').path, 'heat-3d-products', []);
    const [scop] = scopsOf(report, 'kernel_heat_3d');
    expect(scop!.versioned).toBe(true);
    const parts = new Map(scop!.runtimeCheckParts!.map((p) => [p.label, p.c]));
    expect(parts.get('no-wrap')).toContain('(n * n * n)');
    expect(parts.get('product-range')).toBe('-2^63 <= n * n && n * n <= 2^63');
  }, 300_000);

  test("delin-set-subarray's main: the loop over n0*n1*n2 elements is versioned and the program prints what clang prints", () => {
    const k = findKernel('delin-set-subarray');
    const { exe, report } = pipeBuild(k.path, 'set-subarray-main', []);
    const guarded = scopsOf(report, 'main').filter((s) => s.runtimeCheckParts?.some((p) => p.label === 'product-range'));
    expect(guarded.length).toBeGreaterThan(0);
    expect(guarded.every((s) => s.versioned)).toBe(true);
    const reference = buildKernel(k.name, { flags: ['-O3'] });
    for (const args of [k.args, k.altArgs]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));
  }, 300_000);
});

describe('a row sweep whose int row offset i*ld + j wraps (fixtures/int-row-stride.c, -fwrapv)', () => {
  const source = path.join(__dirname, 'fixtures', 'int-row-stride.c');
  let built: { exe: string; report: Report };
  let reference: string;
  beforeAll(() => {
    built = pipeBuild(source, 'int-row-stride', ['-fwrapv'], ['--rtc-stats']);
    reference = path.join(work, 'int-row-stride.ref');
    runOk('clang-14', ['-O3', '-fwrapv', source, '-o', reference]);
  }, 300_000);

  /** stdout and the --rtc-stats line of kernel_rows. */
  function runRows(args: string[]): [string, string] {
    const stats = path.join(work, 'int-row-stride.rtc');
    fs.rmSync(stats, { force: true });
    const r = spawnSync(built.exe, args, { env: { ...process.env, TSOPT_RTC_STATS: stats } });
    if (r.status !== 0) throw new Error(`int-row-stride ${args.join(' ')} failed: ${r.stderr.toString()}`);
    return [r.stdout.toString(), fs.readFileSync(stats, 'utf8').split('\n').find((l) => l.includes('kernel_rows')) ?? ''];
  }

  test('[*][ld] under a no-wrap condition over rows, m and ld', () => {
    const [scop] = scopsOf(built.report, 'kernel_rows');
    expect(scop!.arrays.map((a) => `${a.name}${a.shape.map((d) => `[${d}]`).join('')}`)).toEqual(['A[*][ld]', 'B[*][ld]']);
    expect(scop!.versioned).toBe(true);
    const noWrap = scop!.runtimeCheckParts!.find((p) => p.label === 'no-wrap')!;
    expect(noWrap.c).toMatch(/\(rows \* ld\)|\(ld \* rows\)/);
    expect(noWrap.c).toMatch(/2147483648|2147483647/);
  });

  test.each([
    ['small sizes: the fast path', ['6', '9', '11'], /fast=1 slow=0 no-wrap-failed=0 /],
    ['row 2 starts at 2^31: the offset wraps, the original code runs', ['4', '9', String(2 ** 30)], /fast=0 slow=1 no-wrap-failed=1 delinearization-failed=0 /],
    ['the largest offset, 2 * ld + 8, is 2^31 - 2: no wrap, the fast path', ['4', '9', String(2 ** 30 - 5)], /fast=1 slow=0 no-wrap-failed=0 /],
  ])('%s', (_, args, stats) => {
    const [out, line] = runRows(args);
    expect(out).toBe(runOk(reference, args).toString());
    expect(line).toMatch(stats);
  });
});

test('a subscript that wraps wherever the loop runs (fixtures/int-stride-always-wraps.c, -fwrapv): the contradiction leaves the array linear, as before casts were read', () => {
  // -fno-unroll-loops: runtime unrolling by 2 puts the trip count in a parameter of its own (p_n) that isl
  // does not relate to n, so the contradiction is no longer visible ("... || n == 1"); the model stays
  // sound (the cast's no-wrap condition joins the check), only less precise.
  const bitcode = compileToIr(path.join(__dirname, 'fixtures', 'int-stride-always-wraps.c'), ['-O3', '-g', '-fwrapv', '-fno-unroll-loops', '-fno-vectorize', '-fno-slp-vectorize']);
  const report = path.join(work, 'always-wraps.json');
  runOk('node', [tsopt, '--passes=none', '--verify-each', `--report=${report}`], bitcode);
  const [scop] = scopsOf(JSON.parse(fs.readFileSync(report, 'utf8')) as Report, 'kernel_far') as (ScopFields & { assumptions: string[] })[];
  expect(scop!.arrays.map((a) => a.shape)).toEqual([['*']]);
  expect(scop!.assumptions).toEqual([]);
});

test('print<delinearization> on jacobi-2d names the sign extension it reads through', () => {
  const bitcode = compileToIr(findKernel('jacobi-2d').path, ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]);
  const r = run('node', [tsopt, '--passes=print<delinearization>', '-o', '/dev/null'], bitcode);
  expect(r.status).toBe(0);
  const out = r.stdout.toString() + r.stderr;
  const kernel = out.slice(out.indexOf('@kernel_jacobi_2d'), out.indexOf('@main'));
  expect(kernel).toMatch(/shape \[\*\]\[p_1\]/);
  expect(kernel).toMatch(/reads \(sext i32 \{\{%1,\+,%1\}<%\d+>,\+,1\}<%\d+> to i64\) as its operand: the model assumes it does not wrap/);
});
