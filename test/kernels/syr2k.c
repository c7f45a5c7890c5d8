/*
 * syr2k -- symmetric rank-2k update of the lower triangle:
 * C := alpha*A*B^T + alpha*B*A^T + beta*C for j <= i, with C n x n, A and B n x m.
 *
 * Pins: PolyBench-style BLAS-3 with a triangular iteration space (issues 4, 5, 6, 7).
 * Build/run:  clang-14 -O3 syr2k.c -o syr2k && ./syr2k [n m]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_syr2k; parameters n, m; domain j <= i;
 *             shapes C[*][n], A[*][m], B[*][m].
 *
 * tsopt-kernel: category=polybench args=30,24 alt=31,24 bench=800,700 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_syr2k(int n, int m, double alpha, double beta, ARRAY2(double, C, n, n),
                         ARRAY2(double, A, n, m), ARRAY2(double, B, n, m)) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      AT2(C, i, j, n) *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        AT2(C, i, j, n) += AT2(A, j, k, m) * alpha * AT2(B, i, k, m) +
                           AT2(B, j, k, m) * alpha * AT2(A, i, k, m);
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 30);
  int m = arg_int(argc, argv, 2, 24);
  double *C = alloc_array((size_t)n * n, sizeof(double));
  double *A = alloc_array((size_t)n * m, sizeof(double));
  double *B = alloc_array((size_t)n * m, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++) {
      A[i * m + k] = (double)((i * k + 1) % n) / n;
      B[i * m + k] = (double)((i * k + 2) % m) / m;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i * n + j] = (double)((i * j + 3) % n) / m;
  TIME_KERNEL(kernel_syr2k(n, m, 1.5, 1.2, PASS2(double, C, n, n), PASS2(double, A, n, m),
                           PASS2(double, B, n, m)));
  print_checksum("C", C, (size_t)n * n);
  free(C);
  free(A);
  free(B);
  return 0;
}
