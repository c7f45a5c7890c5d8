/*
 * gemm -- C := alpha*A*B + beta*C, with A ni x nk, B nk x nj, C ni x nj.
 *
 * Pins: PolyBench-style linear algebra (issues 4, 5, 6, 7). The plain triple
 * loop nest over three parametric 2-d arrays.
 * Build/run:  clang-14 -O3 gemm.c -o gemm && ./gemm [ni nj nk]
 *             add -DTSOPT_VLA for C99 VLA parameters.
 * Expected:   one SCoP in kernel_gemm (the whole nest), parameters ni, nj, nk.
 *             Flat build: subscripts i*nj+j, i*nk+k, k*nj+j are polynomial and
 *             delinearize to A[*][nk], B[*][nj], C[*][nj]; the arrays may alias
 *             (run-time check). VLA build: the same shapes straight from the
 *             GEPs. The loop order i, k, j keeps C[i][j] out of registers even
 *             with -DTSOPT_RESTRICT: no scalar dependences at -O3.
 *
 * tsopt-kernel: category=polybench args=20,25,30 alt=21,25,30 bench=1000,1100,1200 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        ARRAY2(double, C, ni, nj), ARRAY2(double, A, ni, nk),
                        ARRAY2(double, B, nk, nj)) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      AT2(C, i, j, nj) *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        AT2(C, i, j, nj) += alpha * AT2(A, i, k, nk) * AT2(B, k, j, nj);
  }
}

int main(int argc, char **argv) {
  int ni = arg_int(argc, argv, 1, 20);
  int nj = arg_int(argc, argv, 2, 25);
  int nk = arg_int(argc, argv, 3, 30);
  double *C = alloc_array((size_t)ni * nj, sizeof(double));
  double *A = alloc_array((size_t)ni * nk, sizeof(double));
  double *B = alloc_array((size_t)nk * nj, sizeof(double));
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      C[i * nj + j] = (double)((i * j + 1) % ni) / ni;
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      A[i * nk + k] = (double)(i * (k + 1) % nk) / nk;
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++)
      B[k * nj + j] = (double)(k * (j + 2) % nj) / nj;
  TIME_KERNEL(kernel_gemm(ni, nj, nk, 1.5, 1.2, PASS2(double, C, ni, nj),
                          PASS2(double, A, ni, nk), PASS2(double, B, nk, nj)));
  print_checksum("C", C, (size_t)ni * nj);
  free(C);
  free(A);
  free(B);
  return 0;
}
