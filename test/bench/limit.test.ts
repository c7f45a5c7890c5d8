// The bench's OpenBLAS `limit` variant (bench/limit.ts): a PolyBench-shaped gemm whose SCoP is
// replaced by cblas_dgemm prints what clang -O3's build of the loops prints, and runs without
// the environment's OpenBLAS pin; a kernel BLAS does not compute is `n/a`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSuite, standardVariants, type Program } from '../../bench/harness';
import { limitEnv, limitVariant, openblasFacts } from '../../bench/limit';
import { tempDir } from '../support/tools';

const work = tempDir('tsopt-bench-limit-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** gemm as PolyBench writes it (its kernel function between `#pragma scop` lines), at odd sizes, printing C. */
const gemm = `#include <stdio.h>
static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++) C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++) C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}
int main(void) {
  enum { NI = 37, NJ = 41, NK = 29 };
  static double C[NI][NJ], A[NI][NK], B[NK][NJ];
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++) for (int k = 0; k < NK; k++) A[i][k] = (double)(i * (k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++) for (int j = 0; j < NJ; j++) B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
  kernel_gemm(NI, NJ, NK, 1.5, 1.2, C, A, B);
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) printf("%.6e\\n", C[i][j]);
  printf("0.001\\n");
  return 0;
}
`;

const program = (name: string, source: string): Program => ({
  name, cxx: false, sources: [source], flags: [], checkFlags: [], timeFlags: [], checkArgs: [], timeArgs: [], libs: [], checkStream: 'stdout', timing: 'printed',
});

test('OpenBLAS computes gemm as the loops do; a kernel without a BLAS call is n/a', () => {
  const dir = path.join(work, 'src');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'gemm.c'), gemm);
  fs.writeFileSync(path.join(dir, 'lu.c'), gemm);
  const variants = [...standardVariants().filter((v) => v.name === 'clang'), limitVariant()];
  const result = runSuite('limit', [program('gemm', path.join(dir, 'gemm.c')), program('lu', path.join(dir, 'lu.c'))], {
    variants, repeat: 1, tolerance: { relative: 1e-12, absolute: 0 }, work, progress: () => undefined, checkCost: false,
  });
  const [g, lu] = result.programs;
  expect(g!.variants.limit?.status).toBe('ok');
  expect(fs.readFileSync(path.join(work, 'limit', 'gemm.blas.c'), 'utf8')).toContain('cblas_dgemm(');
  expect(lu!.variants.limit).toEqual({ status: 'n/a', detail: 'no BLAS call computes this kernel', times: [] });
}, 120_000);

test('the limit runs on one thread without the OpenBLAS pin, and says which kernel ran', () => {
  const env = limitEnv({ PATH: process.env.PATH, OPENBLAS_CORETYPE: 'Haswell', OPENBLAS_L2_SIZE: '262144' });
  expect(env.OPENBLAS_CORETYPE).toBeUndefined();
  expect(env.OPENBLAS_L2_SIZE).toBeUndefined();
  expect(env.OPENBLAS_NUM_THREADS).toBe('1');
  const facts = openblasFacts(work);
  if ('error' in facts) throw new Error(facts.error);
  expect(facts.threads).toBe(1);
  expect(facts.config).toContain(facts.corename);
}, 60_000);
