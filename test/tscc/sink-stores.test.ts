// `sink-stores` (passes/sink-stores.ts, codegen/sink-stores.ts): where every branch into a join
// ends by storing to one address, the join stores the selected value once. Over tsvc-branch-store
// (TSVC's s441 shape: a[i] updated in each of three branches), tscc's front end leaves one store
// per branch; after the pass the loop stores once, opt's vectorizer then writes plain vector
// stores where clang -O3's build writes one masked store per branch (AVX-512), and the program
// prints what clang -O3's build prints. A join one of whose branches does not store is left alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { findKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';
import { tsccAndClangOutputs } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const tscc = path.join(repoRoot, 'bin', 'tscc.js');
const work = tempDir('tsopt-sink-stores-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const kernel = findKernel('tsvc-branch-store');
const FRONT_END = ['-O3', '-march=x86-64-v4', '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`];

/** The text of `fn` in an IR module. */
const functionText = (ir: string, fn: string) => ir.slice(ir.indexOf(`@${fn}(`), ir.indexOf('\n}\n', ir.indexOf(`@${fn}(`)));
const stores = (ir: string, fn: string) => (functionText(ir, fn).match(/^\s*store /gm) ?? []).length;

/** tsopt's passes alone (no post pipeline) over `ir`, verified after each. */
const passes = (ir: Buffer, extra: readonly string[]) => runOk('node', [tsopt, '-S', '--verify-each', '--post-pipeline=', ...extra], ir).toString();

test('the three stores to a[i] become one at the join; with --sink-stores=false they stay', () => {
  const ir = compileToIr(kernel.path, FRONT_END);
  expect(stores(passes(ir, ['--passes=none']), 'kernel_branch_store')).toBe(3);
  const sunk = passes(ir, ['--passes=sink-stores']);
  expect(stores(sunk, 'kernel_branch_store')).toBe(1);
  expect(functionText(sunk, 'kernel_branch_store')).toMatch(/= phi float \[/);
  expect(stores(passes(ir, ['--passes=sink-stores', '--sink-stores=false']), 'kernel_branch_store')).toBe(3);
}, 120_000);

test('a join one of whose branches stores nothing keeps its stores', () => {
  const src = path.join(work, 'partial.c');
  fs.writeFileSync(src, 'float a[1000], b[1000];\nvoid f(int n) {\n  for (int i = 0; i < n; i++) {\n    if (b[i] < 0.3f) a[i] += b[i];\n    else if (b[i] < 0.6f) a[i] *= b[i];\n  }\n}\n');
  const ir = compileToIr(src, FRONT_END);
  expect(stores(passes(ir, ['--passes=none']), 'f')).toBe(2);
  expect(stores(passes(ir, ['--passes=sink-stores']), 'f')).toBe(2);
}, 120_000);

/** The vector stores to memory in `fn` of an assembly file, with or without a mask. */
function vectorStores(asm: string, fn: string): { masked: number; plain: number } {
  const body = asm.slice(asm.indexOf(`${fn}:`), asm.indexOf(`.Lfunc_end`, asm.indexOf(`${fn}:`)));
  const lines = body.split('\n').filter((l) => /^\s*vmov\w+\s+%[yz]mm\d+, [^%]*\(/.test(l));
  return { masked: lines.filter((l) => /\{%k\d\}/.test(l)).length, plain: lines.filter((l) => !/\{%k\d\}/.test(l)).length };
}

test("tscc's build stores a[i] with plain vector stores where clang -O3 masks a store per branch", () => {
  const asm = (cc: string[], name: string) => {
    const out = path.join(work, name);
    runOk(cc[0]!, [...cc.slice(1), '-O3', '-march=x86-64-v4', `-I${kernelsDir}`, '-S', kernel.path, '-o', out]);
    return fs.readFileSync(out, 'utf8');
  };
  const clang = vectorStores(asm(['clang-14'], 'clang.s'), 'kernel_branch_store');
  const ours = vectorStores(asm([process.execPath, tscc], 'tscc.s'), 'kernel_branch_store');
  expect(clang.masked).toBeGreaterThanOrEqual(3);
  expect(ours.masked).toBe(0);
  expect(ours.plain).toBeGreaterThan(0);
}, 300_000);

test("tscc's build of tsvc-branch-store prints what clang -O3's build prints", () => {
  const { tscc: ours, clang } = tsccAndClangOutputs(kernel, work);
  expect(ours).toEqual(clang);
}, 300_000);
