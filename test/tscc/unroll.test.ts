// tscc defers loop unrolling to the post pipeline along with the vectorizers, unless the user
// chose about unrolling: -O3's front end would otherwise unroll loops that the post pipeline then
// vectorizes badly (gemm: 1.87x clang -O3's instructions; 1.21x with unrolling deferred).
import * as path from 'node:path';
import { DEFER_UNROLLING, deferLoopVersioning, deferUnrolling, postPipelineArgs } from '../../cli/tscc';
import { compileToIr, kernelsDir } from '../support/tools';
import { parseCommand } from '../../cli/tscc-args';
import { POST_PIPELINE } from '../../cli/post-pipeline';

const cmd = (...argv: string[]) => parseCommand(argv);

test('-O3 defers unrolling and keeps the whole post pipeline', () => {
  const c = cmd('-O3', '-c', 'k.c');
  expect(deferUnrolling(c)).toBe(true);
  expect(postPipelineArgs(c)).toEqual([]);
  expect(POST_PIPELINE).toMatch(/loop-unroll<O3>/);
});

test("the user's -fno-unroll-loops reaches neither the front end's nor the post pipeline's unroller", () => {
  const c = cmd('-O3', '-fno-unroll-loops', '-c', 'k.c');
  expect(deferUnrolling(c)).toBe(false);
  const [arg] = postPipelineArgs(c);
  expect(arg).toMatch(/^--post-pipeline=/);
  expect(arg).not.toMatch(/loop-unroll/);
  expect(arg).toMatch(/loop-vectorize/);
});

test("the user's -funroll-loops is left to the front end", () => {
  expect(deferUnrolling(cmd('-O2', '-funroll-loops', '-c', 'k.c'))).toBe(false);
});

test('with both vectorizers off there is no post pipeline, so nothing is deferred', () => {
  const c = cmd('-O3', '-fno-vectorize', '-fno-slp-vectorize', '-c', 'k.c');
  expect(postPipelineArgs(c)).toEqual(['--no-post']);
  expect(deferUnrolling(c)).toBe(false);
  expect(deferLoopVersioning(c)).toBe(false);
});

test('the deferred front end leaves loops rolled without marking them unroll.disable, which would stop the post pipeline unrolling them', () => {
  // -fno-unroll-loops made clang tag every loop `llvm.loop.unroll.disable`, so the slow paths and
  // all code outside fast paths stayed rolled in tscc builds; DEFER_UNROLLING leaves no such tag.
  const gemm = path.join(kernelsDir, 'gemm.c');
  const ir = (flags: readonly string[]) => compileToIr(gemm, ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`, ...flags], true).toString();
  const fmas = (text: string) => text.match(/call double @llvm\.fmuladd\.f64\(/g)?.length ?? 0;
  const deferred = ir(DEFER_UNROLLING);
  expect(deferred).not.toContain('llvm.loop.unroll.disable');
  expect(ir(['-fno-unroll-loops'])).toContain('llvm.loop.unroll.disable');
  // Rolled like -fno-unroll-loops: one multiply-add per source statement; -O3 alone unrolls the k loop.
  expect(fmas(deferred)).toBe(fmas(ir(['-fno-unroll-loops'])));
  expect(fmas(ir([]))).toBeGreaterThan(fmas(deferred));
});

test("loop-load elimination's versioning is deferred to the post pipeline, unless the user set its limit", () => {
  expect(deferLoopVersioning(cmd('-O3', '-c', 'k.c'))).toBe(true);
  expect(POST_PIPELINE).toMatch(/loop-load-elim/);
  expect(deferLoopVersioning(cmd('-O3', '-mllvm', '-runtime-check-per-loop-load-elim=2', '-c', 'k.c'))).toBe(false);
});
