// The schedule optimizer (transform/schedule-optimizer.ts): isl's scheduler on the SCoP's ordered
// conflicts, permutable bands tiled with sizes from the caches, the arrays and the SIMD width,
// the original order kept where the cost model says so; the fast path prints what clang -O3's
// build prints.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --l1-cache-size=32768 --l2-cache-size=1048576 [--tile-sizes=…]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { buildKernel, runKernel } from '../support/kernels';
import { compileToIr, kernelsDir, runOk, tempDir } from '../support/tools';

// tscc's front end (runtime unrolling deferred), a fixed AVX-512 target and fixed caches: the tile sizes do not depend on the machine.
const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512', `-I${kernelsDir}`];
const CACHES = ['--l1-cache-size=32768', '--l2-cache-size=1048576'];
const work = tempDir('tsopt-schedule-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ScheduleField {
  taken: boolean;
  why: string;
  tiledBands: number;
  tileSizes: number[][];
  fused: boolean;
  skewed: boolean;
  matmul: boolean;
}
interface ScopFields {
  versioned?: boolean;
  schedule?: ScheduleField;
  islOperationsBySteps?: Record<string, number>;
}
type Report = { functions: { name: string; scops: ScopFields[] }[] };

const bitcode = new Map<string, Buffer>();
function ir(name: string): Buffer {
  let b = bitcode.get(name);
  if (!b) bitcode.set(name, (b = compileToIr(path.join(kernelsDir, `${name}.c`), IR_FLAGS)));
  return b;
}

async function tsoptOn(name: string, flags: readonly string[]): Promise<{ kernel: ScopFields[]; bitcode: Buffer }> {
  const out = path.join(work, `${name}-${flags.join('_').replace(/[^\w=-]/g, '')}.report`);
  const r = await tsoptAsync(['--verify-each', `--report=${out}`, '--keep-unprofitable', ...CACHES, ...flags], ir(name));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
  return { kernel: report.functions.filter((f) => f.name.startsWith('kernel_')).flatMap((f) => f.scops), bitcode: r.stdout };
}

/** Links tsopt's output and runs it at each size; each output must be clang -O3's. */
function expectClangOutput(name: string, out: Buffer, sizes: readonly string[][], tag: string): void {
  const obj = path.join(work, `${name}-${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], out);
  const exe = path.join(work, `${name}-${tag}`);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const reference = buildKernel(name, { flags: ['-O3'] });
  for (const args of sizes) expect([name, args, runKernel(exe, args)]).toEqual([name, args, runKernel(reference, args)]);
}

// test/kernels/gemm.c has run-time sizes: --matmul-parametric=false keeps it off the matmul path (transform/matmul-rows.ts), on the generic tiling these tests are about.
const GENERIC = '--matmul-parametric=false';

describe('gemm', () => {
  test('print<schedule>: the i, k, j band tiled 84 x 8 x 256, from the caches, three arrays of doubles, 8 lanes of AVX-512 and B[k][j]\'s 8 x 256 plane in L1', async () => {
    const r = await tsoptAsync(['--passes=print<schedule>', '-o', '/dev/null', ...CACHES, GENERIC], ir('gemm'));
    expect(r.status).toBe(0);
    const text = r.stderr.toString();
    const kernel = text.slice(text.indexOf('Function: kernel_gemm'), text.indexOf('Function: main'));
    expect(kernel).toContain("isl's schedule taken: 1 band(s) tiled");
    expect(kernel).toContain(
      'sizes 84 x 8 x 256: 3 array(s) of 8-byte elements, 8 per 64-byte vector: innermost 256 (3x256x8 B <= L1 32 KiB / 2), others 84 (3x84x256x8 B <= L2 1024 KiB / 2), second innermost 8 (1x8x256x8 B <= L1 32 KiB / 2: the plane the members outside walk again)',
    );
    // The tree isl builds: tile loops then point loops, one mark per member; the point loop j innermost and parallel.
    expect(kernel).toMatch(/mark: "tsopt_sequential"/);
    expect(kernel).toMatch(/mark: "tsopt_parallel_point", child: \{ schedule: "[^"]*-> \[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(\(i2\) mod 256\)\] \}\]"/);
  }, 120_000);

  test('the report says what was tiled, the budget has a schedule step, and the fast path prints what clang -O3 prints across tile edges', async () => {
    const { kernel, bitcode: out } = await tsoptOn('gemm', [GENERIC]);
    expect(kernel).toHaveLength(1);
    expect(kernel[0]!.schedule).toEqual({ taken: true, why: "isl's schedule taken: 1 band(s) tiled", tiledBands: 1, tileSizes: [[84, 8, 256]], fused: false, skewed: false, timeTiled: false, matmul: false });
    expect(kernel[0]!.islOperationsBySteps!.schedule).toBeGreaterThan(0);
    // 90 x 260 x 85: partial tiles in every member (84, 8, 256).
    expectClangOutput('gemm', out, [['20', '25', '30'], ['90', '260', '85'], ['1', '1', '1']], 'auto');
  }, 180_000);

  test('--tile-sizes=3,5,8: small tiles, many partial ones, the same output; --schedule=false: no schedule field', async () => {
    const { kernel, bitcode: out } = await tsoptOn('gemm', ['--tile-sizes=3,5,8', GENERIC]);
    expect(kernel[0]!.schedule).toMatchObject({ taken: true, tileSizes: [[3, 5, 8]] });
    expectClangOutput('gemm', out, [['20', '25', '30'], ['21', '25', '30'], ['7', '11', '13']], 'small');
    const off = await tsoptOn('gemm', ['--schedule=false']);
    expect(off.kernel[0]!.schedule).toBeUndefined();
    expect(off.kernel[0]!.islOperationsBySteps!.schedule).toBeUndefined();
  }, 180_000);

  test('a quota of one operation keeps the original order and says so', async () => {
    const { kernel } = await tsoptOn('gemm', ['--schedule-max-operations=1']);
    expect(kernel[0]).toMatchObject({ versioned: true, schedule: { taken: false, tiledBands: 0 } });
    expect(kernel[0]!.schedule!.why).toMatch(/^the original order is kept: isl ran out of its quota for the schedule/);
  }, 120_000);
});

test('atax: the original order is kept where isl\'s schedule tiles nothing (x[j] reused along i is a vector) and walks no fewer rows; syrk: tiled, j innermost (coincident), 32 x 32 x 32 since A[j][k] is walked across rows along j (transform/column-walk-tiles.ts)', async () => {
  const atax = await tsoptOn('atax', []);
  expect(atax.kernel).toHaveLength(1);
  expect(atax.kernel[0]!.schedule).toEqual({ taken: false, why: "the original order is kept: isl's schedule has no band to tile and walks no fewer rows", tiledBands: 0, tileSizes: [], fused: false, skewed: false, timeTiled: false, matmul: false });
  // At run-time sizes syrk takes the matmul path (A[j][k] packed); off it, the generic tiling.
  const syrk = await tsoptOn('syrk', [GENERIC]);
  expect(syrk.kernel[0]!.schedule).toMatchObject({ taken: true, tileSizes: [[32, 32, 32]], matmul: false });
  expectClangOutput('syrk', syrk.bitcode, [['30', '24'], ['31', '24'], ['130', '150']], 'auto');
}, 180_000);

test('covariance: the i, k, j-i band tiled 128 x 8 x 256, data[k][j] walked along both innermost members (a plane kept in L1); the fast path prints what clang -O3 prints across tile edges', async () => {
  const cov = await tsoptOn('covariance', []);
  expect(cov.kernel).toHaveLength(1);
  expect(cov.kernel[0]!.schedule).toMatchObject({ taken: true, tiledBands: 1, tileSizes: [[128, 8, 256]] });
  // m = 300: partial tiles of i (128) and of j - i (256); n = 21: a partial k tile (8).
  expectClangOutput('covariance', cov.bitcode, [['28', '32'], ['300', '21']], 'plane');
}, 180_000);
