// After the post pipeline tsopt keeps a fast path only where it can pay (passes/profitability.ts):
// opt vectorized it, or its check rules out aliasing. lu's SCoPs in their source's loop order
// have checks that rule out nothing and fast paths opt does not vectorize, while opt vectorizes
// the original code of main's initialization (a select per element; the fast path's AST splits
// it into guarded statements): all three run their original code, without a check. With its
// second nest interchanged (the default), kernel_lu's fast path is vectorized and kept. 2mm keeps both kernel SCoPs;
// syrk keeps its fast path now that opt can count its loops. 2mm is built with the original
// loop order (--interchange=false): interchanged, opt vectorizes both of its kernel's fast paths,
// which are then kept for that (last test here; test/versioning/interchange.test.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { buildKernel, findKernel, runKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-profitability-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; versioned?: boolean; vectorized?: boolean; fastPathKept?: boolean; profitability?: string }
type Report = { functions: { name: string; scops: Scop[] }[] };

/** AVX2: without it opt's cost model vectorizes lu's initialization in neither path. */
const MARCH = '-march=haswell';

/** tscc's front end, then tsopt (post pipeline included) with `extra`; the IR text and the report. */
function throughTsopt(kernel: string, extra: readonly string[] = []): { text: string; report: Report; bitcode: Buffer } {
  const ir = compileToIr(findKernel(kernel).path, ['-O3', MARCH, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`]);
  const report = path.join(work, `${kernel}.json`);
  const text = runOk('node', [tsopt, '-S', '--verify-each', `--report=${report}`, ...extra], ir).toString();
  const bitcode = runOk('node', [tsopt, '--verify-each', ...extra], ir);
  return { text, report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report, bitcode };
}

/** The loop order of the source: what the rules below are pinned on. */
// The source's loop order: no interchange, no right-looking order (transform/right-looking.ts).
const ORIGINAL_ORDER = ['--interchange=false', '--right-looking=false'];

const scops = (r: Report, fn: string) => r.functions.find((f) => f.name === fn)?.scops ?? [];

function run(bitcode: Buffer, name: string, args: readonly string[]): string {
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], bitcode);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  return runKernel(exe, args);
}

test("lu in its source's loop order: no fast path pays, each SCoP's original code runs, without check, and prints what clang -O3's build prints", () => {
  const { text, report, bitcode } = throughTsopt('lu', ORIGINAL_ORDER);
  const all = [...scops(report, 'kernel_lu'), ...scops(report, 'main')];
  expect(all).toHaveLength(3);
  for (const s of all) expect(s).toMatchObject({ versioned: true, vectorized: false, fastPathKept: false });
  expect(scops(report, 'kernel_lu')[0].profitability).toMatch(/^opt vectorized neither path and the check rules out no aliasing/);
  expect(scops(report, 'main').map((s) => s.profitability)).toContainEqual(expect.stringMatching(/^opt vectorized the original code but not the fast path/));
  // The fast paths and their flags are gone; main's original initialization is vector code.
  expect(text).not.toMatch(/tsopt\.keep|!"tsopt kernel_lu |!"tsopt main /);
  const main = text.slice(text.indexOf('define dso_local i32 @main('));
  expect(main.slice(0, main.indexOf('\n}\n'))).toMatch(/<\d+ x double>/);
  const k = findKernel('lu');
  const reference = buildKernel('lu', { flags: ['-O3', MARCH] });
  for (const args of [k.args, k.altArgs]) expect(run(bitcode, 'lu', args)).toBe(runKernel(reference, args));
}, 300_000);

test("lu: kernel_lu's second nest interchanged (its sum alone mapped onto A[i][j]) is vectorized and its fast path kept; main's are not; prints what clang -O3's build prints", () => {
  const { text, report, bitcode } = throughTsopt('lu');
  const [kernel] = scops(report, 'kernel_lu');
  expect(kernel).toMatchObject({ versioned: true, vectorized: true, fastPathKept: true, profitability: 'opt vectorized the fast path' });
  expect(text).toContain(`!"tsopt kernel_lu ${kernel!.location}"`);
  for (const s of scops(report, 'main')) expect(s).toMatchObject({ versioned: true, vectorized: false, fastPathKept: false });
  const k = findKernel('lu');
  const reference = buildKernel('lu', { flags: ['-O3', MARCH] });
  for (const args of [k.args, k.altArgs]) expect(run(bitcode, 'lu', args)).toBe(runKernel(reference, args));
}, 300_000);

test('2mm: the vectorized fast path and the one whose check rules out aliasing are both kept', () => {
  const { text, report } = throughTsopt('2mm', ORIGINAL_ORDER);
  const kernel = scops(report, 'kernel_2mm');
  expect(kernel).toHaveLength(2);
  expect(kernel.map((s) => [s.vectorized, s.fastPathKept])).toEqual([[false, true], [true, true]]);
  expect(kernel[0].profitability).toMatch(/^not vectorized, but the check rules out aliasing \(alias\(/);
  expect(kernel[1].profitability).toBe('opt vectorized the fast path');
  for (const s of kernel) expect(text).toContain(`!"tsopt kernel_2mm ${s.location}"`);
  expect(text).not.toContain('tsopt.keep');
}, 300_000);

test.each([['--keep-unprofitable'], ['--rtc-stats']])('%s keeps every fast path and decides nothing', (flag) => {
  const { text, report } = throughTsopt('lu', [flag]);
  const all = [...scops(report, 'kernel_lu'), ...scops(report, 'main')];
  expect(all.map((s) => [s.versioned, s.fastPathKept, s.profitability])).toEqual(all.map(() => [true, undefined, undefined]));
  expect(text).toContain(`!"tsopt kernel_lu ${scops(report, 'kernel_lu')[0].location}"`);
}, 300_000);

test("syrk: the fast path's `j <= i` loops count their iterations (nsw counters), so opt vectorizes the fast path, which stays, and prints what clang -O3's build prints", () => {
  // Without nsw on the AST loops' increments SCEV could not count `j <= i` and opt vectorized
  // only the original code: the fast path was dropped as the worse one.
  const { report, bitcode } = throughTsopt('syrk');
  const [s] = scops(report, 'kernel_syrk');
  expect(s).toMatchObject({ versioned: true, vectorized: true, fastPathKept: true, profitability: 'opt vectorized the fast path' });
  expect((s as { vectorizedLoops?: { by: string }[] }).vectorizedLoops?.some((l) => l.by === 'loop-vectorize')).toBe(true);
  const k = findKernel('syrk');
  const reference = buildKernel('syrk', { flags: ['-O3', MARCH] });
  for (const args of [k.args, k.altArgs]) expect(run(bitcode, 'syrk', args)).toBe(runKernel(reference, args));
}, 300_000);

test("interchanged (the default), both of 2mm's kernel fast paths are vectorized, and kept for that", () => {
  const { report } = throughTsopt('2mm');
  const kernel = scops(report, 'kernel_2mm');
  expect(kernel).toHaveLength(2);
  for (const s of kernel) expect(s).toMatchObject({ versioned: true, vectorized: true, fastPathKept: true, profitability: 'opt vectorized the fast path' });
}, 300_000);
