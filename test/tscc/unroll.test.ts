// tscc defers loop unrolling to the post pipeline along with the vectorizers, unless the user
// chose about unrolling: -O3's front end would otherwise unroll loops that the post pipeline then
// vectorizes badly (gemm: 1.87x clang -O3's instructions; 1.21x with unrolling deferred).
import { deferUnrolling, postPipelineArgs } from '../../cli/tscc';
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
});
