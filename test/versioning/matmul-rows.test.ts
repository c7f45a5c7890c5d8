// The matmul path at run-time sizes (transform/matmul-rows.ts, codegen/matmul-rows.ts): a gemm
// whose sizes and C's row length (ldc) are run-time values gets the micro-kernel, whose rows of C
// carry alias scopes of their own, so opt keeps the micro-tile of C in registers across k (no load
// or store of C in the k loop); its output is clang -O3's at sizes that are and are not multiples
// of the micro-tile (8 x 24) and of Kc (128); with C's rows overlapping (ldc < n) the check fails
// and the original code runs, still printing clang -O3's output. The same with B transposed (an
// operand to pack) takes the path with a packing buffer sized at run time
// (--matmul-parametric-pack, on by default; =false keeps it off the path). A syrk written as
// uBLAS's (its triangle, A[j][k] packed, fixtures/syrk-rows.c) takes the path too: its full
// micro-tiles keep their tile of C in registers, the diagonal's partial ones run plain loops, and
// every element is clang -O3's. Where the path's AST runs over the codegen quota, the fast path
// gets the generic tiling instead (codegen/versioning.ts, genericPlan).
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --rtc-stats --l1-cache-size=32768 --l2-cache-size=1048576 | llc-14 -O3
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, disassemble, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const fixtures = path.join(__dirname, 'fixtures');
const work = tempDir('tsopt-matmul-rows-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The metadata nodes of `ll` by number: each node's operands (`!N` references and strings). */
function metadataNodes(ll: string): Map<string, string[]> {
  const nodes = new Map<string, string[]>();
  for (const m of ll.matchAll(/^(![0-9]+) = (?:distinct )?!\{(.*)\}$/gm)) nodes.set(m[1]!, m[2]!.split(', '));
  return nodes;
}

/**
 * Per block of `fn` in `ll` with at least `min` vector fmuladds: how many, and its loads and
 * stores of the array whose alias scope is named `array` (its `!alias.scope` list holds that scope).
 */
function kernelBlocks(ll: string, fn: string, array: string, min: number): { fmas: number; accesses: number }[] {
  const nodes = metadataNodes(ll);
  const scope = [...nodes].find(([, ops]) => ops[ops.length - 1] === `!${JSON.stringify(array)}`)?.[0];
  expect(scope).toBeDefined();
  const body = ll.slice(ll.indexOf(`@${fn}(`));
  const text = body.slice(0, body.indexOf('\n}\n'));
  return text.split(/\n(?=[\w.]+:)/)
    .map((block) => ({
      fmas: (block.match(/@llvm\.fmuladd\.v\d+f64/g) ?? []).length,
      accesses: [...block.matchAll(/^\s*(?:%\S+ = load|store) .*!alias\.scope (![0-9]+)/gm)].filter((m) => (nodes.get(m[1]!) ?? []).includes(scope!)).length,
    }))
    .filter((b) => b.fmas >= min);
}

/** The size operands of the packing buffers' mallocs in `fn` (a run-time value `%..`, or a constant). */
function packingMallocs(ll: string, fn: string): string[] {
  const body = ll.slice(ll.indexOf(`@${fn}(`));
  return [...body.slice(0, body.indexOf('\n}\n')).matchAll(/%tsopt\.pack\.raw\S* = call i8\* @malloc\(i64 (\S+)\)/g)].map((m) => m[1]!);
}

type Scop = { versioned: boolean; schedule?: { taken: boolean; tileSizes: number[][]; matmul: false | { microTile: number[]; packed: string[] }[] } };

/** tsopt on the fixture `name` (--verify-each, --rtc-stats): its output, the kernels' SCoPs by function, and the output linked and checked against clang -O3's build at `sizes` (each run's rtc statistics). */
async function build(flags: readonly string[], tag: string, name = 'gemm-rows'): Promise<{ out: Buffer; scops: Map<string, Scop[]>; runs: (args: readonly string[]) => string }> {
  const fixture = path.join(fixtures, `${name}.c`);
  const report = path.join(work, `${tag}.json`);
  const r = await tsoptAsync(['--verify-each', '--rtc-stats', `--report=${report}`, '--l1-cache-size=32768', '--l2-cache-size=1048576', ...flags], compileToIr(fixture, IR_FLAGS));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions;
  const obj = path.join(work, `${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
  const exe = path.join(work, tag);
  runOk('clang-14', [obj, '-o', exe]);
  const reference = path.join(work, `${name}-clang`);
  if (!fs.existsSync(reference)) runOk('clang-14', ['-O3', '-march=skylake-avx512', fixture, '-o', reference]);
  const stats = path.join(work, `${tag}.rtc`);
  const runs = (args: readonly string[]): string => {
    fs.rmSync(stats, { force: true });
    expect(runOk('env', [`TSOPT_RTC_STATS=${stats}`, exe, ...args]).toString()).toBe(runOk(reference, args).toString());
    return fs.readFileSync(stats, 'utf8');
  };
  return { out: r.stdout, scops: new Map(functions.map((f) => [f.name, f.scops] as const)), runs };
}

// m x n x p, ldc: multiples of the micro-tile and of Kc; partial micro-tiles along i, j and k with ldc > n; fewer than one micro-tile.
const APART = [['16', '48', '256', '48'], ['37', '53', '131', '60'], ['5', '7', '3', '7']];
// ldc < n: C's rows overlap.
const OVERLAPPING = ['20', '30', '40', '25'];

test('gemm at run-time sizes: the micro-kernel keeps its tile of C in registers across k, bit for bit clang -O3\'s output; rows overlapping: the original code', async () => {
  const { out, scops, runs } = await build([], 'gemm-rows');
  expect(scops.get('kernel_gemm_rows')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: [{ microTile: [8, 24], packed: [] }] } }]);
  // B transposed needs packing: its buffer sized at run time.
  expect(scops.get('kernel_gemm_rows_t')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: [{ microTile: [8, 24], packed: ['%7'] }] } }]);
  // The full micro-tiles' k loop: 8 rows x 24 columns of fmuladds on vectors of 4 (-march=skylake-avx512 prefers 256 bits), C neither loaded nor stored.
  expect(kernelBlocks(disassemble(out), 'kernel_gemm_rows', '%5', 48)).toEqual([{ fmas: 48, accesses: 0 }]);
  for (const args of APART) expect(runs(args)).toMatch(/^tsopt-rtc: kernel_gemm_rows \S+ scop\d+: fast=1 slow=0 /m);
  // The delinearization check fails and the original code runs.
  expect(runs(OVERLAPPING)).toMatch(/^tsopt-rtc: kernel_gemm_rows \S+ scop\d+: fast=0 slow=1 delinearization-failed=1 /m);
}, 300_000);

test('B transposed packed into a buffer sized at run time, bit for bit clang -O3\'s output; rows overlapping: the original code; --matmul-parametric-pack=false: off the path', async () => {
  const { out, scops, runs } = await build([], 'gemm-rows-t');
  expect(scops.get('kernel_gemm_rows_t')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: [{ microTile: [8, 24], packed: ['%7'] }] } }]);
  expect(packingMallocs(disassemble(out), 'kernel_gemm_rows_t')).toEqual([expect.stringMatching(/^%/)]);
  for (const args of APART) expect(runs([...args, 't'])).toMatch(/^tsopt-rtc: kernel_gemm_rows_t \S+ scop\d+: fast=1 slow=0 /m);
  expect(runs([...OVERLAPPING, 't'])).toMatch(/^tsopt-rtc: kernel_gemm_rows_t \S+ scop\d+: fast=0 slow=1 delinearization-failed=1 /m);
  const off = await build(['--matmul-parametric-pack=false'], 'gemm-rows-t-off');
  expect(off.scops.get('kernel_gemm_rows_t')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: false } }]);
  expect(off.runs([...APART[1]!, 't'])).toMatch(/^tsopt-rtc: kernel_gemm_rows_t \S+ scop\d+: fast=1 slow=0 /m);
}, 300_000);

// n x m: multiples of the micro-tile (8 x 24) and of Kc (128); neither, with partial micro-tiles
// along i, j and k; a triangle of fewer than one micro-tile; one micro-tile's rows.
const SYRK_SIZES = [['48', '256'], ['61', '131'], ['5', '3'], ['24', '128']];

test('syrk at run-time sizes (A[j][k] packed): the full micro-tiles keep their tile of C in registers across k, the diagonal\'s partial tiles run plain loops, bit for bit clang -O3\'s output', async () => {
  const { out, scops, runs } = await build([], 'syrk-rows', 'syrk-rows');
  expect(scops.get('kernel_syrk_rows')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: [{ microTile: [8, 24], packed: ['%5'] }] } }]);
  // C is the fifth argument: the full micro-tiles' k loop holds the 8 x 24 tile's fmuladds, C neither loaded nor stored.
  const ll = disassemble(out);
  expect(kernelBlocks(ll, 'kernel_syrk_rows', '%4', 48)).toEqual([{ fmas: 48, accesses: 0 }]);
  // The buffer's size is computed from n and m at run time. (Sized by the context's bounds of the
  // int parameters, it was a constant that overflowed; malloc refused it and the fast path ran
  // the original code, with the same output.)
  expect(packingMallocs(ll, 'kernel_syrk_rows')).toEqual([expect.stringMatching(/^%/)]);
  for (const args of SYRK_SIZES) expect(runs(args)).toMatch(/^tsopt-rtc: kernel_syrk_rows \S+ scop\d+: fast=1 slow=0 /m);
}, 300_000);

// The path's check and AST take about 0.96M operations here, the generic tiling's about 0.07M.
test('the matmul path\'s AST over the codegen quota: the generic tiling instead of the original order, bit for bit', async () => {
  const { scops, runs } = await build(['--codegen-max-operations=300000'], 'gemm-rows-quota');
  expect(scops.get('kernel_gemm_rows')).toMatchObject([{ versioned: true, schedule: { taken: true, matmul: false, tileSizes: [[84, 8, 256]] } }]);
  expect(runs(APART[1]!)).toMatch(/^tsopt-rtc: kernel_gemm_rows \S+ scop\d+: fast=1 slow=0 /m);
}, 300_000);
