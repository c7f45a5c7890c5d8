// The schedule optimizer's matmul path (transform/matmul.ts): which statements it recognizes,
// the BLIS sizes it picks for AVX-512, and, end to end under --verify-each, that gemm and a
// variant with both operands transposed get the micro-kernel and print what clang -O3's builds
// print, also at sizes that are not multiples of the micro-tile (8 x 24) or of Kc (128); that
// 2mm's product over DeLICM's model keeps its C tile in registers; and that a small gemm whose
// j loop -O3 unrolls fully is versioned within the check's quota; that packing's buffer is
// malloc'd per run of the fast path, so two threads running syrk at once print what clang -O3's
// build prints; that gemm's alpha * A[i][k] is packed, computed by the copy, so that its
// micro-kernel multiplies nothing but its FMAs; that C's tile stays in registers when ic runs
// several blocks; and that test/kernels' parametric gemm gets the path within the codegen quota
// (--matmul-parametric, the default; syrk at run-time sizes, its operand packed into a buffer
// sized at run time, is test/versioning/matmul-rows.test.ts's).
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --l1-cache-size=32768 --l2-cache-size=1048576 | llc-14 -O3
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import type { ScopModel, ScopStatementModel } from '../../polyhedral/model';
import { matmulRoles, matmulSizes } from '../../transform/matmul';
import { compileKernelToIr } from '../support/kernels';
import { compileToIr, disassemble, kernelsDir, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const CACHES = ['--l1-cache-size=32768', '--l2-cache-size=1048576'];
const work = tempDir('tsopt-matmul-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * gemm at compile-time sizes NI x NJ x NK (the matmul path takes constant sizes only, as PolyBench's
 * plain build has them), as PolyBench writes it (arrays passed as parameters: -O3 cannot hoist
 * alpha * A[i][k] out of the j loop, as it does over distinct globals), or with TRANSPOSED both operands transposed and k
 * outermost: C[i][j] += alpha * A[k][i] * B[j][k]. Prints C's checksum and two elements exactly.
 */
const GEMM = `#include <stdio.h>
static double C[NI][NJ];
#ifdef TRANSPOSED
static double A[NK][NI], B[NJ][NK];
__attribute__((noinline)) void kernel_gemm(double alpha, double beta, double C[NI][NJ], double A[NK][NI], double B[NJ][NK]) {
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[i][j] *= beta;
  for (int k = 0; k < NK; k++)
    for (int i = 0; i < NI; i++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += alpha * A[k][i] * B[j][k];
}
#define AT(i, k) A[k][i]
#define BT(k, j) B[j][k]
#else
static double A[NI][NK], B[NK][NJ];
__attribute__((noinline)) void kernel_gemm(double alpha, double beta, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++) C[i][j] *= beta;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
#define AT(i, k) A[i][k]
#define BT(k, j) B[k][j]
#endif
int main(void) {
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++) for (int k = 0; k < NK; k++) AT(i, k) = (double)(i * (k + 1) % NK) / NK - 0.25;
  for (int k = 0; k < NK; k++) for (int j = 0; j < NJ; j++) BT(k, j) = (double)(k * (j + 2) % NJ) / NJ;
  kernel_gemm(1.5, 1.2, C, A, B);
  double sum = 0;
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) sum = sum * 1.0000001 + C[i][j];
  printf("%.17g %.17g %.17g\\n", sum, C[0][0], C[NI - 1][NJ - 1]);
  return 0;
}
`;

/**
 * 2mm's first product as PolyBench writes it (NI x NJ x NK): heap arrays through row pointers,
 * tmp[i][j] set to 0, then summed over k. -O3 keeps the sum in a register and DeLICM maps it
 * back onto tmp[i][j], so the micro-kernel's read of the accumulator is DeLICM's mapped read.
 */
const PRODUCT = `#include <stdio.h>
#include <stdlib.h>
/* 2mm's first product as PolyBench writes it: heap arrays seen through row pointers, tmp[i][j]
   set to 0 and then summed over k (-O3 keeps the sum in a register; DeLICM maps it back). */
__attribute__((noinline)) void kernel_mm(double alpha, double (*tmp)[NJ], double (*A)[NK], double (*B)[NJ]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0;
      for (int k = 0; k < NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
}
int main(void) {
  double (*tmp)[NJ] = malloc(sizeof(double[NI][NJ]));
  double (*A)[NK] = malloc(sizeof(double[NI][NK]));
  double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));
  for (int i = 0; i < NI; i++) for (int k = 0; k < NK; k++) A[i][k] = (double)(i * (k + 1) % NK) / NK - 0.25;
  for (int k = 0; k < NK; k++) for (int j = 0; j < NJ; j++) B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
  kernel_mm(1.5, tmp, A, B);
  double sum = 0;
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) sum = sum * 1.0000001 + tmp[i][j];
  printf("%.17g %.17g %.17g\\n", sum, tmp[0][0], tmp[NI - 1][NJ - 1]);
  return 0;
}
`;

interface MatmulField { statement: string; microTile: number[]; blocks: { mc: number; kc: number; nc: number }; packed: string[] }
type Report = { functions: { name: string; scops: { versioned: boolean; islOperationsBySteps: Record<string, number>; schedule?: { taken: boolean; matmul: false | MatmulField[] } }[] }[] };

/** tsopt on `bitcode` with --verify-each and a report: its output and the kernel function's SCoPs' `schedule` fields. */
async function optimize(bitcode: Buffer, kernel: string, flags: readonly string[] = [], caches: readonly string[] = CACHES): Promise<{ out: Buffer; schedules: Report['functions'][number]['scops'][number]['schedule'][]; scops: Report['functions'][number]['scops'] }> {
  const report = path.join(work, `${kernel}-${flags.join('_').replace(/\W/g, '')}.json`);
  const r = await tsoptAsync(['--verify-each', `--report=${report}`, '--keep-unprofitable', ...caches, ...flags], bitcode);
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
  const scops = parsed.functions.filter((f) => f.name === kernel).flatMap((f) => f.scops);
  return { out: r.stdout, schedules: scops.map((s) => s.schedule), scops };
}

/** tsopt's output linked into an executable. */
function link(out: Buffer, tag: string): string {
  const obj = path.join(work, `${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], out);
  const exe = path.join(work, tag);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  return exe;
}

/** Each statement of kernel_<name> (test/kernels, as tscc compiles it) with matmulRoles' answer. */
function rolesIn(name: string): { name: string; loops: number; roles: ReturnType<typeof matmulRoles> }[] {
  const module = parseModule(disassemble(compileKernelToIr(name, IR_FLAGS)), `${name}.ll`);
  const fn = module.functions.find((f) => f.name === `kernel_${name.replace(/-/g, '_')}`)!;
  const models = buildFunctionModels(fn, new AnalysisManager(), { maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer });
  try {
    return models.models.flatMap((m: ScopModel) => m.statements.map((st: ScopStatementModel) => ({ name: st.name, loops: st.loops.length, roles: matmulRoles(m, st) })));
  } finally {
    models.dispose();
  }
}

describe('recognition', () => {
  test.each([
    ['gemm', { i: 0, j: 2, k: 1 }],
    ['syrk', { i: 0, j: 2, k: 1 }],
    ['syr2k', { i: 0, j: 2, k: 1 }],
  ])('%s: its statement of three loops is a matrix multiplication with roles %p, no other statement is', (name, roles) => {
    const statements = rolesIn(name);
    expect(statements.filter((s) => s.roles !== undefined).map((s) => s.roles)).toEqual([roles]);
  }, 120_000);

  test.each(['lu', 'jacobi-2d', 'doitgen', 'trmm'])('%s: it has statements of three loops or more, none a matrix multiplication', (name) => {
    const statements = rolesIn(name);
    expect(statements.some((s) => s.loops >= 3)).toBe(true);
    expect(statements.filter((s) => s.roles !== undefined).map((s) => s.name)).toEqual([]);
  }, 120_000);

  test('AVX-512 doubles: an 8 x 24 micro-tile, B micro-panels in L1 (Kc 128), A blocks in L2 (Mc 1024); AVX2: 6 x 8', () => {
    const caches = { l1: 32768, l2: 1048576 };
    expect(matmulSizes(caches, 64, 8)).toMatchObject({ mr: 8, nr: 24, kc: 128, mc: 1024, nc: 2040 });
    expect(matmulSizes(caches, 32, 8)).toMatchObject({ mr: 6, nr: 8 });
    // On threads (--parallel) the A-like blocks take half of L2 together: syr2k reads two.
    expect(matmulSizes(caches, 64, 8, { aBlocks: 1 })).toMatchObject({ kc: 128, mc: 512 });
    expect(matmulSizes(caches, 64, 8, { aBlocks: 2 })).toMatchObject({ kc: 128, mc: 256 });
  });
});

/** The GEMM program at sizes [NI, NJ, NK] (and TRANSPOSED): tsopt's build, its report's schedules, and clang -O3's build. */
async function gemmAt(sizes: readonly number[], transposed: boolean, flags: readonly string[] = []): Promise<{ exe: string; reference: string } & Omit<Awaited<ReturnType<typeof optimize>>, 'out'>> {
  const tag = `gemm-${transposed ? 'tt' : 'nn'}-${sizes.join('x')}${flags.join('').replace(/\W/g, '')}`;
  const source = path.join(work, `${tag}.c`);
  fs.writeFileSync(source, GEMM);
  const defines = [`-DNI=${sizes[0]}`, `-DNJ=${sizes[1]}`, `-DNK=${sizes[2]}`, ...(transposed ? ['-DTRANSPOSED'] : [])];
  const { out, schedules, scops } = await optimize(compileToIr(source, [...IR_FLAGS, ...defines]), 'kernel_gemm', flags);
  const reference = path.join(work, `${tag}-clang`);
  runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference]);
  return { exe: link(out, tag), reference, schedules, scops };
}

/** The blocks of `fn` in the IR text `ll` with at least `min` vector fmuladds: their vector fmuladds, vector stores and fmuls. */
function fmaBlocks(ll: string, fn: string, min: number): { fmas: number; stores: number; fmuls: number }[] {
  const body = ll.slice(ll.indexOf(`@${fn}(`));
  const text = body.slice(0, body.indexOf('\n}\n'));
  return text.split(/\n(?=[\w.]+:)/)
    .map((block) => ({
      fmas: (block.match(/@llvm\.fmuladd\.v\d+f64/g) ?? []).length,
      stores: (block.match(/\bstore <\d+ x double>/g) ?? []).length,
      fmuls: (block.match(/= fmul /g) ?? []).length,
    }))
    .filter((b) => b.fmas >= min);
}

describe('end to end', () => {
  // Partial micro-tiles in i and j and three Kc blocks of k, the last partial; the same transposed.
  test.each([
    [[50, 53, 300], false],
    [[41, 50, 131], true],
  ])('gemm %p (transposed: %p): the micro-kernel, alpha * A[i][k] packed (transposed: B[j][k] packed, alpha * A[k][i] and B[k][j] read in place), bit for bit clang -O3\'s output', async (sizes, transposed) => {
    const { exe, reference, schedules } = await gemmAt(sizes, transposed);
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24], blocks: { mc: 1024, kc: 128, nc: 2040 }, packed: [expect.any(String)] }] });
    expect(runOk(exe, []).toString()).toBe(runOk(reference, []).toString());
  }, 240_000);

  // The accumulator is DeLICM's mapped read; loaded through the store's own address, LICM sees
  // one element and keeps the tile in registers, else it loads and stores the tile on every k.
  test('2mm\'s product over DeLICM\'s model: the micro-kernel keeps its tile of tmp in registers (no store in its k loop), bit for bit', async () => {
    const source = path.join(work, 'product.c');
    fs.writeFileSync(source, PRODUCT);
    const defines = ['-DNI=50', '-DNJ=53', '-DNK=300'];
    const { out, schedules } = await optimize(compileToIr(source, [...IR_FLAGS, ...defines]), 'kernel_mm');
    expect(schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24] }] });
    // The micro-kernel: 8 rows x 24 columns of fmuladds on vectors of 4 (tscc's -march=skylake-avx512 prefers 256 bits) in one block.
    const kernels = fmaBlocks(disassemble(out), 'kernel_mm', 48);
    expect(kernels).toEqual([{ fmas: 48, stores: 0, fmuls: 0 }]);
    const reference = path.join(work, 'product-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference]);
    expect(runOk(link(out, 'product'), []).toString()).toBe(runOk(reference, []).toString());
  }, 240_000);

  // An L2 of 64 KiB gives Mc = 64: ic runs three blocks of i. The micro-tiles' rows of C are
  // i, i + 1, ... of ir's counter (micro-tiles tiled from the absolute i): alias analysis tells
  // them apart and LICM keeps the tile in registers over k, as with one block.
  test('gemm 150 x 53 x 300 with Mc 64 (ic runs three blocks): the micro-kernel keeps C in registers (no store in its k loop), bit for bit', async () => {
    const source = path.join(work, 'gemm-blocks.c');
    fs.writeFileSync(source, GEMM);
    const defines = ['-DNI=150', '-DNJ=53', '-DNK=300'];
    const { out, schedules } = await optimize(compileToIr(source, [...IR_FLAGS, ...defines]), 'kernel_gemm', [], ['--l1-cache-size=32768', '--l2-cache-size=65536']);
    expect(schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24], blocks: { mc: 64, kc: 128 } }] });
    expect(fmaBlocks(disassemble(out), 'kernel_gemm', 48)).toEqual([{ fmas: 48, stores: 0, fmuls: 0 }]);
    const reference = path.join(work, 'gemm-blocks-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference]);
    expect(runOk(link(out, 'gemm-blocks'), []).toString()).toBe(runOk(reference, []).toString());
  }, 240_000);

  // -O3 unrolls the j loop of 48 fully: 96 accesses to C, one piece each in C's accessed
  // elements, whose stride isl cannot compute as a whole within the check's quota.
  test('gemm 16 x 48 x 128 (j unrolled by -O3): versioned, the check and AST well within their quota, bit for bit', async () => {
    const { exe, reference, scops } = await gemmAt([16, 48, 128], false);
    expect(scops).toHaveLength(1);
    expect(scops[0]).toMatchObject({ versioned: true });
    expect(scops[0]!.islOperationsBySteps['check and AST']).toBeLessThan(500_000);
    expect(runOk(exe, []).toString()).toBe(runOk(reference, []).toString());
  }, 240_000);

  test('--matmul=false: gemm tiled as before; parametric sizes (test/kernels/gemm.c) with --matmul-parametric=false: the generic tiling, not the matmul path', async () => {
    const off = await gemmAt([50, 53, 300], false, ['--matmul=false']);
    expect(off.schedules[0]).toMatchObject({ taken: true, matmul: false, tileSizes: [[84, 8, 256]] });
    expect(runOk(off.exe, []).toString()).toBe(runOk(off.reference, []).toString());
    const parametric = await optimize(compileToIr(path.join(kernelsDir, 'gemm.c'), [...IR_FLAGS, `-I${kernelsDir}`]), 'kernel_gemm', ['--matmul-parametric=false']);
    expect(parametric.schedules[0]).toMatchObject({ taken: true, matmul: false, tileSizes: [[84, 8, 256]] });
  }, 240_000);
});

/** syrk's kernel at compile-time sizes N x M. */
const SYRK_KERNEL = `__attribute__((noinline)) void kernel_syrk(double alpha, double beta, double C[N][N], double A[N][M]) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++) C[i][j] *= beta;
    for (int k = 0; k < M; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
`;

/**
 * syrk at compile-time sizes N x M (C[i][j] += alpha * A[i][k] * A[j][k] for j <= i): its
 * B operand A[j][k] walks a column along the vectorized j. Prints C's checksum and two elements.
 */
const SYRK = `#include <stdio.h>
static double C[N][N], A[N][M];
${SYRK_KERNEL}int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) C[i][j] = (double)((i * j + 2) % N) / N;
  for (int i = 0; i < N; i++) for (int k = 0; k < M; k++) A[i][k] = (double)((i * k + 1) % N) / N - 0.375;
  kernel_syrk(1.5, 1.2, C, A);
  double sum = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) sum = sum * 1.0000001 + C[i][j];
  printf("%.17g %.17g %.17g\\n", sum, C[N - 1][0], C[N - 1][N - 1]);
  return 0;
}
`;

/**
 * SYRK's kernel run by two threads at once, each on arrays of its own filled differently, a
 * few times over: a buffer shared by the two runs of the fast path would mix their blocks.
 * Prints each thread's checksum.
 */
const SYRK_THREADS = `#include <pthread.h>
#include <stdio.h>
${SYRK_KERNEL}static double C[2][N][N], A[2][N][M], sums[2];
static void *run(void *arg) {
  int t = *(int *)arg;
  for (int i = 0; i < N; i++) for (int k = 0; k < M; k++) A[t][i][k] = (double)((i * k + 1 + 7 * t) % N) / N - 0.375 * (t + 1);
  double sum = 0;
  for (int r = 0; r < 20; r++) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) C[t][i][j] = (double)((i * j + 2 + r) % N) / N;
    kernel_syrk(1.5, 1.2, C[t], A[t]);
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) sum = sum * 1.0000001 + C[t][i][j];
  }
  sums[t] = sum;
  return 0;
}
int main(void) {
  pthread_t threads[2];
  int ids[2] = {0, 1};
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], 0, run, &ids[t]);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], 0);
  printf("%.17g %.17g\\n", sums[0], sums[1]);
  return 0;
}
`;

describe('parametric sizes', () => {
  // The full micro-tiles a filter of their own: the AST within the codegen quota (the isolated
  // micro-tiles took 1.08M operations); partial micro-tiles along i, j and k at 37 x 53 x 131.
  test('gemm of test/kernels (--matmul-parametric by default): the matmul path within the codegen quota, bit for bit clang -O3\'s output at sizes not multiples of the tiles', async () => {
    const source = path.join(kernelsDir, 'gemm.c');
    const { out, schedules, scops } = await optimize(compileToIr(source, [...IR_FLAGS, `-I${kernelsDir}`]), 'kernel_gemm');
    expect(schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24], blocks: { mc: 1024, kc: 128, nc: 2040 }, packed: [] }] });
    expect(scops[0]!.islOperationsBySteps['check and AST']).toBeLessThan(1_000_000);
    // The full micro-tiles' kernel: 8 rows x 24 columns of fmuladds on vectors of 4 in one block.
    expect(fmaBlocks(disassemble(out), 'kernel_gemm', 48).length).toBeGreaterThanOrEqual(1);
    const exe = link(out, 'gemm-parametric');
    const reference = path.join(work, 'gemm-parametric-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', `-I${kernelsDir}`, source, '-o', reference, '-lm']);
    for (const args of [['37', '53', '131'], ['20', '25', '30'], ['250', '211', '300']]) {
      expect(runOk(exe, args).toString()).toBe(runOk(reference, args).toString());
    }
  }, 240_000);
});

describe('packing', () => {
  // A triangle of partial micro-tiles and two Kc blocks of k, the last partial.
  test('syrk 61 x 150: A[j][k] copied into a [k][j] buffer malloc\'d per run and freed, the micro-kernel reads it, bit for bit clang -O3\'s output; --matmul-pack=false reads A in place', async () => {
    const source = path.join(work, 'syrk.c');
    fs.writeFileSync(source, SYRK);
    const defines = ['-DN=61', '-DM=150'];
    const bitcode = compileToIr(source, [...IR_FLAGS, ...defines]);
    const reference = path.join(work, 'syrk-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference]);
    const expected = runOk(reference, []).toString();
    const packed = await optimize(bitcode, 'kernel_syrk');
    // A[j][k] (B-like) and alpha * A[i][k] (A-like, the product folded into its copy).
    expect(packed.schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24], packed: [expect.any(String), expect.any(String)] }] });
    const ir = disassemble(packed.out);
    const kernel = ir.slice(ir.indexOf('@kernel_syrk('), ir.indexOf('\n}\n', ir.indexOf('@kernel_syrk(')));
    // No buffer in static storage: one malloc in the block between the check and the fast path
    // (two buffers of 150 rows of k, 61 doubles of j or i padded to 64, plus a line to align), its null running the original code, and one free.
    expect(ir).not.toMatch(/\.pack.* = internal global/);
    expect(kernel).toMatch(/^tsopt\.scop\d+\.pack:[^]*@malloc\(i64 153663\)/m);
    expect(kernel).toMatch(/icmp (ne|eq) i8\* %tsopt\.pack\.raw, null/);
    expect(kernel.match(/call void @free\(i8\* %tsopt\.pack\.raw\)/g)).toHaveLength(1);
    // The function calls free: its attributes no longer say nofree.
    expect(ir).not.toMatch(/; Function Attrs: [^\n]*\bnofree\b[^\n]*\ndefine [^\n]*@kernel_syrk\(/);
    expect(runOk(link(packed.out, 'syrk-packed'), []).toString()).toBe(expected);
    const inPlace = await optimize(bitcode, 'kernel_syrk', ['--matmul-pack=false']);
    expect(inPlace.schedules[0]).toMatchObject({ taken: true, matmul: [{ packed: [] }] });
    expect(disassemble(inPlace.out)).not.toContain('@malloc');
    expect(runOk(link(inPlace.out, 'syrk-in-place'), []).toString()).toBe(expected);
  }, 240_000);

  // A's Mc x Kc block copied below ic into a [k][i] buffer, alpha * A[i][k] computed by the copy
  // (transform/packed-product.ts); partial micro-tiles and a partial Kc block.
  test('gemm 50 x 53 x 300: alpha * A[i][k] packed, the micro-kernel multiplies nothing but its FMAs (B[k][j], stride 1, read in place), bit for bit clang -O3\'s output; --matmul-pack=false multiplies alpha in the micro-kernel', async () => {
    const source = path.join(work, 'gemm-fold.c');
    fs.writeFileSync(source, GEMM);
    const defines = ['-DNI=50', '-DNJ=53', '-DNK=300'];
    const bitcode = compileToIr(source, [...IR_FLAGS, ...defines]);
    const reference = path.join(work, 'gemm-fold-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference]);
    const expected = runOk(reference, []).toString();
    const folded = await optimize(bitcode, 'kernel_gemm');
    expect(folded.schedules[0]).toMatchObject({ taken: true, matmul: [{ microTile: [8, 24], packed: [expect.any(String)] }] });
    // The copy multiplies: fmul of alpha and A's element, stored into the buffer.
    const ir = disassemble(folded.out);
    expect(ir).toMatch(/%tsopt\.pack\.product\d* = fmul double (%0, %[\w.]+|%[\w.]+, %0)\n/);
    expect(ir).toMatch(/store double %tsopt\.pack\.product\d*, /);
    expect(fmaBlocks(ir, 'kernel_gemm', 48)).toEqual([{ fmas: 48, stores: 0, fmuls: 0 }]);
    expect(runOk(link(folded.out, 'gemm-fold'), []).toString()).toBe(expected);
    const inPlace = await optimize(bitcode, 'kernel_gemm', ['--matmul-pack=false']);
    expect(inPlace.schedules[0]).toMatchObject({ taken: true, matmul: [{ packed: [] }] });
    expect(fmaBlocks(disassemble(inPlace.out), 'kernel_gemm', 48)).toEqual([{ fmas: 48, stores: 0, fmuls: 8 }]);
    expect(runOk(link(inPlace.out, 'gemm-in-place'), []).toString()).toBe(expected);
    const packA = await gemmAt([50, 53, 300], false, ['--matmul-pack-a']);
    expect(packA.schedules[0]).toMatchObject({ taken: true, matmul: [{ packed: [expect.any(String)] }] });
    expect(runOk(packA.exe, []).toString()).toBe(expected);
  }, 240_000);

  test('syrk run by two threads at once, 20 times each: each run packs into its own buffer, bit for bit clang -O3\'s output', async () => {
    const source = path.join(work, 'syrk-threads.c');
    fs.writeFileSync(source, SYRK_THREADS);
    const defines = ['-DN=61', '-DM=150'];
    const packed = await optimize(compileToIr(source, [...IR_FLAGS, ...defines]), 'kernel_syrk');
    expect(packed.schedules[0]).toMatchObject({ taken: true, matmul: [{ packed: [expect.any(String), expect.any(String)] }] });
    const obj = path.join(work, 'syrk-threads.o');
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], packed.out);
    const exe = path.join(work, 'syrk-threads');
    runOk('clang-14', [obj, '-o', exe, '-lm', '-pthread']);
    const reference = path.join(work, 'syrk-threads-clang');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, source, '-o', reference, '-pthread']);
    expect(runOk(exe, []).toString()).toBe(runOk(reference, []).toString());
  }, 240_000);
});
