/*
 * seidel-2d -- tsteps in-place Gauss-Seidel sweeps of a 9-point averaging
 * stencil over one n x n array.
 *
 * Pins: PolyBench-style stencil (issues 4, 5, 6, 7): in-place update, so every
 * loop carries a dependence (no parallel loop without skewing); GVN forwards
 * the previous iteration's values as PHIs across the j loop at -O3.
 * Build/run:  clang-14 -O3 seidel-2d.c -o seidel-2d && ./seidel-2d [tsteps n]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_seidel_2d; parameters tsteps, n; domain
 *             1 <= i, j <= n-2; shape A[*][n].
 *
 * tsopt-kernel: category=polybench args=8,20 alt=9,20 bench=100,1000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_seidel_2d(int tsteps, int n, ARRAY2(double, A, n, n)) {
  for (int t = 0; t <= tsteps - 1; t++)
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        AT2(A, i, j, n) = (AT2(A, i - 1, j - 1, n) + AT2(A, i - 1, j, n) + AT2(A, i - 1, j + 1, n) +
                           AT2(A, i, j - 1, n) + AT2(A, i, j, n) + AT2(A, i, j + 1, n) +
                           AT2(A, i + 1, j - 1, n) + AT2(A, i + 1, j, n) + AT2(A, i + 1, j + 1, n)) /
                          9.0;
}

int main(int argc, char **argv) {
  int tsteps = arg_int(argc, argv, 1, 8);
  int n = arg_int(argc, argv, 2, 20);
  double *A = alloc_array((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = (double)((i * i + 3 * j * j + i * j) % n) / n;
  TIME_KERNEL(kernel_seidel_2d(tsteps, n, PASS2(double, A, n, n)));
  print_checksum("A", A, (size_t)n * n);
  free(A);
  return 0;
}
