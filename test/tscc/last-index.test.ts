// `last-index` (passes/last-index.ts, codegen/last-index.ts): `j = c ? i : j` around a loop whose
// index rises from j's first value on becomes smax(j, c ? i : INT_MIN). Over tsvc-last-index
// (TSVC's s331 shape): the rising search is rewritten and the one counting down is not; a search
// whose j starts above the first index is not either (there the maximum would keep the start);
// tscc's build of the rising search is vector code with a vector maximum, and the program prints
// what clang -O3's build prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { findKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';
import { tsccAndClangOutputs } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const tscc = path.join(repoRoot, 'bin', 'tscc.js');
const work = tempDir('tsopt-last-index-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const kernel = findKernel('tsvc-last-index');
const FRONT_END = ['-O3', '-march=x86-64-v3', '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`];

/** The text of `fn` in an IR module or an assembly file. */
const functionText = (text: string, fn: string, end: string) => text.slice(text.indexOf(fn), text.indexOf(end, text.indexOf(fn)));
const passes = (ir: Buffer, extra: readonly string[]) => runOk('node', [tsopt, '-S', '--verify-each', '--post-pipeline=', ...extra], ir).toString();
const maxima = (ir: string, fn: string) => (functionText(ir, `@${fn}(`, '\n}\n').match(/call i32 @llvm\.smax\.i32/g) ?? []).length;

test('the rising search becomes a maximum; the falling one and --last-index=false stay as they were', () => {
  const ir = compileToIr(kernel.path, FRONT_END);
  const out = passes(ir, ['--passes=last-index']);
  expect(maxima(out, 'kernel_last_negative')).toBe(1);
  expect(functionText(out, '@kernel_last_negative(', '\n}\n')).toMatch(/select i1 %\w+, i32 %\w+, i32 -2147483648/);
  expect(maxima(out, 'kernel_first_negative_down')).toBe(0);
  expect(maxima(passes(ir, ['--passes=last-index', '--last-index=false']), 'kernel_last_negative')).toBe(0);
}, 120_000);

test('a search whose j starts above the first index is left alone', () => {
  const src = path.join(work, 'above.c');
  fs.writeFileSync(src, 'float a[1000];\nint f(int n) {\n  int j = 5;\n  for (int i = 0; i < n; i++)\n    if (a[i] < 0.f) j = i;\n  return j;\n}\nint g(int n) {\n  int j = 0;\n  for (int i = 0; i < n; i++)\n    if (a[i] < 0.f) j = i;\n  return j;\n}\n');
  const out = passes(compileToIr(src, FRONT_END), ['--passes=last-index']);
  expect(maxima(out, 'f')).toBe(0);
  expect(maxima(out, 'g')).toBe(1);
}, 120_000);

test("tscc's build of the rising search is vector code with a vector maximum", () => {
  const out = path.join(work, 'tscc.s');
  runOk(process.execPath, [tscc, '-O3', '-march=x86-64-v3', `-I${kernelsDir}`, '-S', kernel.path, '-o', out]);
  const asm = functionText(fs.readFileSync(out, 'utf8'), 'kernel_last_negative:', '.Lfunc_end');
  expect(asm).toMatch(/vpmaxsd\s+%ymm/);
}, 300_000);

test("tscc's build of tsvc-last-index prints what clang -O3's build prints", () => {
  const { tscc: ours, clang } = tsccAndClangOutputs(kernel, work);
  expect(ours).toEqual(clang);
}, 300_000);
