/*
 * lu -- in-place LU decomposition without pivoting of an n x n matrix:
 * afterwards the strictly lower part holds L (unit diagonal implied) and the
 * upper part holds U.
 *
 * Pins: PolyBench-style solver (issues 4, 5, 6, 7): triangular, imperfectly
 * nested loops with a division, dependences carried by every loop.
 * Build/run:  clang-14 -O3 lu.c -o lu && ./lu [n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_lu; parameter n; shape A[*][n]; at -O3 the
 *             element being reduced (A[i][j]) is the reduction target of the k
 *             loops (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=30 alt=31 bench=1200 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_lu(int n, ARRAY2(double, A, n, n)) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        AT2(A, i, j, n) -= AT2(A, i, k, n) * AT2(A, k, j, n);
      AT2(A, i, j, n) /= AT2(A, j, j, n);
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        AT2(A, i, j, n) -= AT2(A, i, k, n) * AT2(A, k, j, n);
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 30);
  double *A = alloc_array((size_t)n * n, sizeof(double));
  /* Diagonally dominant, so no pivot comes near zero. */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = (i == j) ? (double)n + 1.0 : (double)((i * 3 + j * 7) % 11) / 10.0;
  TIME_KERNEL(kernel_lu(n, PASS2(double, A, n, n)));
  print_checksum("A", A, (size_t)n * n);
  free(A);
  return 0;
}
