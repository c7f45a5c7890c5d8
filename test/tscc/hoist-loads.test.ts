// `hoist-loads` (passes/hoist-loads.ts, codegen/hoist-loads.ts): where both arms of a branch load
// one address before anything in them may write it, the load is made once before the branch. Over
// tsvc-branch-load (TSVC's s278 shape): tscc's front end loads b[i], c[i], d[i] and e[i] in both
// arms; after the pass each is loaded once, in the block that branches, and the program prints
// what clang -O3's build prints. An arm that may write the address first (a call) keeps its load.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { findKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';
import { tsccAndClangOutputs } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-hoist-loads-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const kernel = findKernel('tsvc-branch-load');
const FRONT_END = ['-O3', '-march=x86-64-v3', '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`];

const functionText = (ir: string, fn: string) => ir.slice(ir.indexOf(`@${fn}(`), ir.indexOf('\n}\n', ir.indexOf(`@${fn}(`)));
/** The loads of global `array` in `fn`, and how many of them are in a block that ends in a conditional branch. */
function loadsOf(ir: string, fn: string, array: string): { all: number; beforeBranch: number } {
  const blocks = functionText(ir, fn).split(/\n(?=\d+:)/);
  const count = (b: string) => (b.match(new RegExp(`getelementptr inbounds \\[\\d+ x float\\], \\[\\d+ x float\\]\\* @${array}, `, 'g')) ?? []).length;
  return { all: blocks.reduce((n, b) => n + count(b), 0), beforeBranch: blocks.filter((b) => /\n\s*br i1 /.test(b)).reduce((n, b) => n + count(b), 0) };
}
const passes = (ir: Buffer, extra: readonly string[]) => runOk('node', [tsopt, '-S', '--verify-each', '--post-pipeline=', ...extra], ir).toString();

test('b[i] and c[i], loaded in both arms, are loaded once before the branch; --hoist-loads=false keeps them', () => {
  const ir = compileToIr(kernel.path, FRONT_END);
  const before = passes(ir, ['--passes=none']);
  const after = passes(ir, ['--passes=hoist-loads']);
  for (const array of ['b', 'c']) {
    expect(loadsOf(before, 'kernel_branch_load', array).beforeBranch).toBe(0);
    // One address computed for the hoisted load, one for the store of the arm that writes it.
    expect(loadsOf(after, 'kernel_branch_load', array)).toEqual({ all: 2, beforeBranch: 1 });
  }
  expect(passes(ir, ['--passes=hoist-loads', '--hoist-loads=false'])).toEqual(before);
}, 120_000);

test('an arm that may write the address before loading it keeps its load', () => {
  const src = path.join(work, 'call.c');
  fs.writeFileSync(src, 'float a[1000], b[1000];\nvoid g(void);\nvoid f(int n) {\n  for (int i = 0; i < n; i++) {\n    float t;\n    if (a[i] > 0.f) { g(); t = b[i]; } else t = b[i] * 2.f;\n    a[i] = t;\n  }\n}\n');
  const ir = compileToIr(src, FRONT_END);
  expect(loadsOf(passes(ir, ['--passes=hoist-loads']), 'f', 'b').beforeBranch).toBe(0);
}, 120_000);

test("tscc's build of tsvc-branch-load prints what clang -O3's build prints", () => {
  const { tscc: ours, clang } = tsccAndClangOutputs(kernel, work);
  expect(ours).toEqual(clang);
}, 300_000);
