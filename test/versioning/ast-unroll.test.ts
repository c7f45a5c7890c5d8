// The matmul path's micro-kernel i loop unrolled on the AST tree (codegen/ast-unroll.ts) instead
// of by isl (transform/matmul.ts, `unrollMark`): on a micro-kernel's shape of our own, the tree
// is the one isl's unrolling makes, node for node, for fewer isl operations; and end to end, a
// gemm whose micro-tiles are all full along i gets the mark (its AST costs under half of a size
// that leaves a partial micro-tile, where isl unrolls) and prints what clang -O3's build prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AstBuild, AstLoopType, Ctx, readAstNode, Schedule, type AstNodeTree, type ScheduleNode } from 'isl-wasm';
import { unrollMarked } from '../../codegen/ast-unroll';
import { unrollMark } from '../../transform/matmul';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, runOk, tempDir } from '../support/tools';

describe('the micro-kernel loop unrolled on the AST', () => {
  let ctx: Ctx;
  beforeAll(() => {
    ctx = new Ctx();
  });
  afterAll(() => ctx.dispose());

  /**
   * { S[i, j, k] } of `domain` scheduled as a micro-kernel: i tiled by 8, then k, then the tile's
   * i (the loop to unroll, isl's or marked), then j.
   */
  function ast(domain: string, unroll: 'isl' | 'marked'): { tree: AstNodeTree; operations: number } {
    return ctx.scope(() => {
      const params = domain.startsWith('[N]') ? '[N] -> ' : '';
      const band = (at: ScheduleNode, aff: string): ScheduleNode => at.insertPartialSchedule(ctx.multiUnionPwAff(`${params}[{ S[i, j, k] -> [(${aff})] }]`));
      let n: ScheduleNode = band(Schedule.fromDomain(ctx.unionSet(domain)).getRoot().child(0), '8 * floor(i / 8)').child(0);
      n = band(band(n, 'k').child(0), 'i - 8 * floor(i / 8)');
      n = unroll === 'isl' ? n.bandMemberSetAstLoopType(0, AstLoopType.unroll) : n.insertMark(ctx.id(unrollMark)).child(0);
      n = band(n.child(0), 'j');
      const before = ctx.operations;
      const built = readAstNode(AstBuild.fromContext(ctx.set(`${params}{ : }`)).nodeFromSchedule(n.getSchedule()));
      const operations = ctx.operations - before;
      return { tree: unroll === 'marked' ? unrollMarked(built, unrollMark) : built, operations };
    });
  }

  test('a box of whole micro-tiles: the same tree as isl unrolling, for fewer operations', () => {
    const domain = '{ S[i, j, k] : 0 <= i < 32 and 0 <= j < 40 and 0 <= k < 6 }';
    const isl = ast(domain, 'isl');
    const marked = ast(domain, 'marked');
    expect(marked.tree).toEqual(isl.tree);
    expect(marked.operations).toBeLessThan(isl.operations);
    // Eight copies of the j loop, the first with i's counter alone (`c0`, not `c0 + 0`).
    const text = JSON.stringify(marked.tree, (_, v) => (typeof v === 'bigint' ? Number(v) : v));
    expect(text.match(/"iterator":\{"kind":"id","name":"c3"\}/g)).toHaveLength(8);
    expect(text).not.toContain('"iterator":{"kind":"id","name":"c2"}');
  });

  test('an inner loop left with one iteration is no loop, as isl writes it', () => {
    // j runs to the tile's row: in the first copy j = 0 only.
    const domain = '{ S[i, j, k] : 0 <= i < 16 and 0 <= j and 8 * floor(i / 8) + j <= i and 0 <= k < 3 }';
    expect(ast(domain, 'marked').tree).toEqual(ast(domain, 'isl').tree);
  });

  test('a loop over a range that is not constant is refused', () => {
    const domain = '[N] -> { S[i, j, k] : 0 <= i < N and 0 <= j < 4 and 0 <= k < 2 }';
    expect(() => ctx.scope(() => {
      const built = ast(domain, 'marked');
      return built;
    })).toThrow(/does not run a constant range/);
  });
});

describe('end to end: gemm through the matmul path', () => {
  const work = tempDir('tsopt-ast-unroll-');
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  // C = beta C + A B at compile-time sizes (the matmul path takes constant sizes only).
  const GEMM = `#include <stdio.h>
static double C[NI][NJ], A[NI][NK], B[NK][NJ];
__attribute__((noinline)) void kernel_mm(double beta, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++)
      C[i][j] = beta * C[i][j];
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += A[i][k] * B[k][j];
  }
}
int main(void) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i][j] = (double)((i + 3 * j) % 17) / 16;
      if (j < NK) A[i][j] = (double)((2 * i + j) % 13) / 8 - 0.5;
    }
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (double)((k * j + 5) % 11) / 4;
  kernel_mm(0.75, C, A, B);
  double sum = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) sum = sum * 1.0000001 + C[i][j];
  printf("%.17g %.17g %.17g\\n", sum, C[0][0], C[NI - 1][NJ - 1]);
  return 0;
}
`;
  const FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];

  /** tsopt on gemm at NI rows: the kernel SCoP's AST operations and schedule, and whether the program prints clang -O3's output. */
  async function gemm(ni: number): Promise<{ astOperations: number; why: string }> {
    const dir = path.join(work, `ni${ni}`);
    fs.mkdirSync(dir, { recursive: true });
    const src = path.join(dir, 'gemm.c');
    fs.writeFileSync(src, GEMM);
    const defs = [`-DNI=${ni}`, '-DNJ=96', '-DNK=64'];
    const ll = path.join(dir, 'gemm.ll');
    fs.writeFileSync(ll, compileToIr(src, [...FLAGS, ...defs], true));
    const out = path.join(dir, 'gemm.opt.ll');
    const report = path.join(dir, 'report.json');
    const r = await tsoptAsync([ll, '-S', '-o', out, '--verify-each', '--l1-cache-size=32768', '--l2-cache-size=1048576', `--report=${report}`]);
    expect(r.status).toBe(0);
    const reference = path.join(dir, 'ref');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defs, src, '-o', reference]);
    const exe = path.join(dir, 'gemm');
    runOk('clang-14', ['-O3', '-march=skylake-avx512', '-x', 'ir', out, '-o', exe]);
    expect(runOk(exe, []).toString()).toBe(runOk(reference, []).toString());
    const scop = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: { islOperationsBySteps?: Record<string, number>; schedule?: { why: string; matmul?: boolean } }[] }[] })
      .functions.find((f) => f.name === 'kernel_mm')!.scops.find((s) => s.schedule?.matmul)!;
    return { astOperations: scop.islOperationsBySteps!['check and AST']!, why: scop.schedule!.why };
  }

  test('whole micro-tiles along i (64 rows) take under half the AST operations of a partial one (60 rows)', async () => {
    const whole = await gemm(64);
    const partial = await gemm(60);
    expect(whole.why).toMatch(/isl's schedule taken/);
    expect(partial.why).toMatch(/isl's schedule taken/);
    // 60 rows: 7 micro-tiles and a partial one, where isl unrolls i with its guards; 64 rows: 8
    // micro-tiles, every i loop unrolled on the tree: 59K against 185K operations (isl unrolling
    // 64 rows: 133K, over half of 60 rows').
    expect(whole.astOperations * 2).toBeLessThan(partial.astOperations);
  }, 120_000);
});
