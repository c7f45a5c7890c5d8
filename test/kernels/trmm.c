/*
 * trmm -- triangular matrix product B := alpha * A^T * B, where A is m x m
 * unit lower triangular (only its strictly lower part is read) and B is m x n.
 *
 * Pins: PolyBench-style BLAS-3 with a triangular inner loop k > i (issues 4, 5, 6, 7).
 * Build/run:  clang-14 -O3 trmm.c -o trmm && ./trmm [m n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_trmm; parameters m, n; domain i < k < m;
 *             shapes A[*][m], B[*][n]. B[i][j] is the reduction target of the k
 *             loop (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=20,24 alt=21,24 bench=850,1000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_trmm(int m, int n, double alpha, ARRAY2(double, A, m, m),
                        ARRAY2(double, B, m, n)) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      for (int k = i + 1; k < m; k++)
        AT2(B, i, j, n) += AT2(A, k, i, m) * AT2(B, k, j, n);
      AT2(B, i, j, n) = alpha * AT2(B, i, j, n);
    }
}

int main(int argc, char **argv) {
  int m = arg_int(argc, argv, 1, 20);
  int n = arg_int(argc, argv, 2, 24);
  double *A = alloc_array((size_t)m * m, sizeof(double));
  double *B = alloc_array((size_t)m * n, sizeof(double));
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < i; j++)
      A[i * m + j] = (double)((i + j) % m) / m;
    A[i * m + i] = 1.0;
    for (int j = 0; j < n; j++)
      B[i * n + j] = (double)((n + (i - j)) % n) / n;
  }
  TIME_KERNEL(kernel_trmm(m, n, 1.5, PASS2(double, A, m, m), PASS2(double, B, m, n)));
  print_checksum("B", B, (size_t)m * n);
  free(A);
  free(B);
  return 0;
}
