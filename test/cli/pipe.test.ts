// The hand-back to LLVM and the README's pipe:
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm -c k.c -o - | tsopt
//     | llc-14 -O3 -relocation-model=pic -filetype=obj -o k.o && clang-14 k.o -o k
// builds programs that print what clang-14 -O3's build prints, with vector code from opt-14.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { O3_POST_PIPELINE, POST_PIPELINE } from '../../cli/post-pipeline';
import { kernelsDir, run, runOk, tempDir } from '../support/tools';
import { tsopt } from './tsopt-binary';

const dir = tempDir('tsopt-pipe-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const example = path.join(kernelsDir, 'example.c');
const NOVEC = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

/** Instructions producing a vector value (`%x = ... <4 x float> ...`). */
function vectorInstructions(text: string): number {
  return text.split('\n').filter((l) => /^\s+%\S+ = .*<\d+ x /.test(l)).length;
}

/** The pipe from the README (in a shell, as people run it); returns the program's output. */
function buildThroughTsopt(source: string, cflags: readonly string[], name: string): string {
  const obj = path.join(dir, `${name}.o`);
  const exe = path.join(dir, name);
  const tsoptJs = path.join(__dirname, '..', '..', 'bin', 'tsopt.js');
  const pipe =
    `set -o pipefail; clang-14 ${cflags.join(' ')} -emit-llvm -c '${source}' -o - | node '${tsoptJs}' ` +
    `| llc-14 -O3 -relocation-model=pic -filetype=obj -o '${obj}'`;
  runOk('bash', ['-c', pipe]);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  return runOk(exe, []).toString();
}

function buildWithClang(source: string, name: string): string {
  const exe = path.join(dir, name);
  runOk('clang-14', ['-O3', source, '-o', exe, '-lm']);
  return runOk(exe, []).toString();
}

test('the pipe builds the bundled example, which prints the same as clang-14 -O3', () => {
  const expected = buildWithClang(example, 'example-clang');
  expect(expected.split('\n').length).toBeGreaterThan(3);
  expect(buildThroughTsopt(example, NOVEC, 'example-tsopt')).toBe(expected);
});

test('input clang already vectorized passes through correctly', () => {
  const text = tsopt(['-S'], runOk('clang-14', ['-O3', '-emit-llvm', '-c', example, '-o', '-'])).stdout.toString();
  expect(vectorInstructions(text)).toBeGreaterThan(0);
  expect(buildThroughTsopt(example, ['-O3'], 'example-vectorized')).toBe(buildWithClang(example, 'example-clang2'));
});

describe('the post pipeline', () => {
  const saxpy = path.join(dir, 'saxpy.c');
  fs.writeFileSync(saxpy, 'void saxpy(int n, float a, const float *restrict x, float *restrict y) {\n  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];\n}\n');
  const bitcode = runOk('clang-14', [...NOVEC, '-emit-llvm', '-c', saxpy, '-o', '-']);

  test('vectorizes a simple loop; --no-post leaves it scalar', () => {
    const post = tsopt(['-S'], bitcode);
    expect(post.status).toBe(0);
    expect(post.stdout.toString()).toMatch(/<4 x float>/);
    expect(vectorInstructions(post.stdout.toString())).toBeGreaterThan(2);
    const noPost = tsopt(['-S', '--no-post'], bitcode);
    expect(noPost.status).toBe(0);
    expect(vectorInstructions(noPost.stdout.toString())).toBe(0);
  });

  test('--post-pipeline replaces it; a bad one is a one-line error', () => {
    const r = tsopt(['-S', '--post-pipeline=instcombine'], bitcode);
    expect(r.status).toBe(0);
    expect(vectorInstructions(r.stdout.toString())).toBe(0);
    const bad = tsopt(['-S', '--post-pipeline=no-such-pass'], bitcode);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^tsopt: error: <stdin>: opt-14 post pipeline failed: .*no-such-pass.*\n$/);
    expect(bad.stdout.length).toBe(0);
  });

  test("is -O3's pipeline from the polyhedral point (after lower-constant-intrinsics) on, plus slot promotion and SLP before the loop vectorizer", () => {
    const o3 = run('opt-14', ['-O3', '-print-pipeline-passes', '-disable-output', '-'], '').stdout.toString().trim();
    const start = o3.indexOf('function<eager-inv>(float2int,lower-constant-intrinsics,');
    expect(start).toBeGreaterThan(0);
    const tail = o3.slice(start).replace('float2int,lower-constant-intrinsics,', '').replace(/,verify(,BitcodeWriterPass)?$/, '');
    expect(O3_POST_PIPELINE).toBe(tail);
    // Plus, at the front, SROA and LICM to promote the fast path's stack slots and accumulators to
    // registers (escaping scalar writes in a loop otherwise store to a slot every iteration, which
    // the loop vectorizer refuses), and the SLP vectorizer before the loop vectorizer, for loops
    // the front end unrolled (cli/post-pipeline.ts has the measurements).
    expect(POST_PIPELINE).toBe(
      tail.replace('function<eager-inv>(', 'function<eager-inv>(sroa,loop-mssa(licm),').replace(',loop-vectorize<', ',slp-vectorizer,loop-vectorize<'),
    );
  });
});
