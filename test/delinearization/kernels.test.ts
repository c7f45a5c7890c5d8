// Delinearization end to end: our C kernels (test/kernels) compiled by
// clang-14 -O3 -fno-vectorize -fno-slp-vectorize, SCoP detection, then
// delinearization of every base pointer with a polynomial access. Conditions are
// compared with isl (equal wherever the accesses run), never as text.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Ctx } from 'isl-wasm';
import { parseModule } from '../../ir/parser';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import type { ArrayReport, ScopDelinearization } from '../../polyhedral/delinearization/scop-adapter';
import { delinearizationAnalysis } from '../../passes/delinearize';
import { compileToIr, kernelsDir } from '../support/tools';
import { declaredShapes } from './support';

const flags = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-discard-value-names', `-I${kernelsDir}`];

/** Every SCoP of `kernel` in `file`, delinearized. */
function delinearizeKernel(file: string, kernel: string, vla = false): ScopDelinearization[] {
  const text = compileToIr(path.join(kernelsDir, file), [...flags, ...(vla ? ['-DTSOPT_VLA'] : [])], true).toString();
  const module = parseModule(text, file);
  const fn = module.functions.find((f) => f.name === kernel);
  if (!fn) throw new Error(`no @${kernel} in ${file}`);
  // As print<delinearization> sees it: the cached analysis, with the facts known at each SCoP's entry.
  const am = new AnalysisManager();
  const results = am.get(delinearizationAnalysis, fn);
  return am.get(scopDetectionAnalysis, fn).scops.map((s) => results.get(s)!);
}

/** The arrays recovered anywhere in the function, by name (the first SCoP that has it). */
function arraysOf(scops: readonly ScopDelinearization[]): Map<string, ArrayReport> {
  const out = new Map<string, ArrayReport>();
  for (const s of scops) for (const a of s.arrays) if (a.shape && !out.has(a.name)) out.set(a.name, a);
  return out;
}

let ctx: Ctx;
beforeAll(() => {
  ctx = new Ctx();
});
afterAll(() => ctx.dispose());

/** The isl condition `actual` equals `expected` wherever `where` holds (both over the same parameters). */
function equivalentWhere(actual: string | undefined, expected: string, where: string): boolean {
  return ctx.scope(() => {
    const w = ctx.set(where);
    const a = actual === undefined ? w : ctx.set(actual);
    return a.intersect(w).isEqual(ctx.set(expected).intersect(w));
  });
}

describe.each([false, true])('set_subarray (Listing 4), VLA build: %s', (vla) => {
  test('A[i+o0][j+o1][k+o2] in [*][n1][n2], condition o1 <= n1 - s1 && o2 <= n2 - s2 (with o1, o2 >= 0: they are signed here)', () => {
    const scops = delinearizeKernel('delin-set-subarray.c', 'set_subarray', vla);
    expect(scops).toHaveLength(1);
    const A = arraysOf(scops).get('A')!;
    expect(A.shape).toEqual(['*', 'n1', 'n2']);
    // The inner loop is unrolled by two: its counter counts pairs.
    expect(A.accesses).toContain('write A[i0 + o0][i1 + o1][2 * i2 + o2]');
    expect(A.accesses).toContain('write A[i0 + o0][i1 + o1][2 * i2 + o2 + 1]');
    const params = '[n1, n2, o0, o1, o2, s0, s1, s2]';
    expect(equivalentWhere(
      scops[0]!.conditionIsl,
      `${params} -> { : 0 <= o1 <= n1 - s1 and 0 <= o2 <= n2 - s2 }`,
      `${params} -> { : s0 > 0 and s1 > 0 and s2 > 0 }`,
    )).toBe(true);
    expect(scops[0]!.condition).toMatch(/n1 >= s1 \+ o1|n1 >= o1 \+ s1/);
  });
});

describe.each([false, true])('Listing 5 pattern, VLA build: %s', (vla) => {
  test('every access as written, one shape [*][m][p], statically valid', () => {
    const scops = delinearizeKernel('delin-listing5.c', 'kernel_listing5', vla);
    const arrays = arraysOf(scops);
    expect(arrays.get('A')!.shape).toEqual(['*', 'm', 'p']);
    expect(arrays.get('B')!.shape).toEqual(['*', 'm', 'p']);
    const A = arrays.get('A')!.accesses.join('\n');
    for (const x of ['[0][0][p - 1]', '[i0][m - 1]', '[i0][i1][p - 1]', '[0][i1]']) expect(A).toContain(x);
    // Never the naive division of a size parameter: [1][-1] or [i0 + 1][-1].
    expect(A).not.toMatch(/\]\[-1\]|\]\[-/);
    expect(scops.every((s) => s.status === 'true')).toBe(true);
  });
});

describe.each([false, true])('[Q+2][R+2][S+2] stencil (Listing 7 pattern), VLA build: %s', (vla) => {
  test('§4 finds α = 2 in each inner dimension', () => {
    const arrays = arraysOf(delinearizeKernel('delin-stencil-alpha.c', 'kernel_stencil_alpha', vla));
    for (const name of ['in', 'out']) {
      expect(arrays.get(name)!.shape).toEqual(['*', 'R + 2', 'S + 2']);
      expect(arrays.get(name)!.condition).toBeUndefined();
    }
    if (!vla) expect(arrays.get('in')!.method).toBe('4');
    expect(arrays.get('in')!.accesses).toContain('read in[i0][i1 + 1][i2 + 1]');
  });
});

describe('a [2N][2M] image resize', () => {
  test('flat build: rows of 2M through the gcd step (§3.4)', () => {
    const arrays = arraysOf(delinearizeKernel('delin-resize.c', 'kernel_resize'));
    expect(arrays.get('in')!.shape).toEqual(['*', '2 * M']);
    expect(arrays.get('in')!.method).toBe('3.4');
    expect(arrays.get('big')!.shape).toEqual(['*', '2 * M']);
    expect(arrays.get('out')!.shape).toEqual(['*', 'M']);
    expect(arrays.get('in')!.accesses).toContain('read in[2 * i0 + 1][2 * i1 + 1]');
    expect(arrays.get('in')!.condition).toBeUndefined();
  });
});

describe('edge detection with row pointers advanced by NN', () => {
  test('[*][NN]; the condition cols <= NN holds for the kernel\'s real parameters', () => {
    const scops = delinearizeKernel('delin-edge-detect.c', 'kernel_edge_detect');
    const arrays = arraysOf(scops);
    expect(arrays.get('image')!.shape).toEqual(['*', 'NN']);
    expect(arrays.get('edges')!.shape).toEqual(['*', 'NN']);
    const condition = scops.find((s) => s.arrays.some((a) => a.name === 'image'))!.conditionIsl!;
    const params = '[rows, cols, NN]';
    expect(equivalentWhere(condition, `${params} -> { : cols <= NN }`, `${params} -> { : rows >= 3 and cols >= 3 }`)).toBe(true);
    // main() runs it with rows=16, cols=20, NN=24 (args=16,20,24,300).
    expect(ctx.scope(() => ctx.set(condition).intersect(ctx.set(`${params} -> { : rows = 16 and cols = 20 and NN = 24 }`)).isEmpty())).toBe(false);
  });
});

describe('reg_detect', () => {
  test('sum_diff[j][i][length-1] (§3.3) gives the condition length > 0', () => {
    const scops = delinearizeKernel('delin-reg-detect.c', 'kernel_reg_detect');
    const withSumDiff = scops.find((s) => s.arrays.some((a) => a.name === 'sum_diff' && a.shape));
    expect(withSumDiff).toBeDefined();
    expect(withSumDiff!.arrays.find((a) => a.name === 'sum_diff')!.accesses.join('\n')).toContain('[length - 1]');
    const params = '[maxgrid, length]';
    expect(equivalentWhere(withSumDiff!.conditionIsl, `${params} -> { : length > 0 }`, `${params} -> { : maxgrid > 0 }`)).toBe(true);
  });
});

const polybench = fs.readdirSync(kernelsDir)
  .filter((f) => f.endsWith('.c') && /category=polybench/.test(fs.readFileSync(path.join(kernelsDir, f), 'utf8')))
  .map((f) => [f, /KERNEL\s+void\s+(kernel_\w+)/.exec(fs.readFileSync(path.join(kernelsDir, f), 'utf8'))![1]!] as const);

describe('PolyBench-style kernels with C99 VLA parameters: every array gets its true shape', () => {
  test('the kernels are there', () => {
    expect(polybench.length).toBeGreaterThanOrEqual(20);
  });

  test.each(polybench)('%s', (file, kernel) => {
    const expected = declaredShapes(file, kernel);
    const arrays = arraysOf(delinearizeKernel(file, kernel, true));
    // adi included: its SCoPs sit inside the time and row loops, whose counters are parameters.
    for (const [name, shape] of expected) expect({ name, shape: arrays.get(name)?.shape }).toEqual({ name, shape });
    // No array comes out with a shape its declaration does not have.
    for (const [name, a] of arrays) if (expected.has(name)) expect(a.shape).toEqual(expected.get(name));
  });
});
