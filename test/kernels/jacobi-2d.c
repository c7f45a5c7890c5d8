/*
 * jacobi-2d -- tsteps sweeps of a 5-point averaging stencil over two n x n
 * arrays, ping-ponging A -> B -> A.
 *
 * Pins: PolyBench-style stencil (issues 4, 5, 6, 7).
 * Build/run:  clang-14 -O3 jacobi-2d.c -o jacobi-2d && ./jacobi-2d [tsteps n]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_jacobi_2d; parameters tsteps, n; domain
 *             1 <= i, j <= n-2; shapes A[*][n], B[*][n]; the i and j loops are
 *             parallel, t carries the dependences.
 *
 * tsopt-kernel: category=polybench args=10,20 alt=11,20 bench=100,1300 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_jacobi_2d(int tsteps, int n, ARRAY2(double, A, n, n),
                             ARRAY2(double, B, n, n)) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        AT2(B, i, j, n) = 0.2 * (AT2(A, i, j, n) + AT2(A, i, j - 1, n) + AT2(A, i, j + 1, n) +
                                 AT2(A, i + 1, j, n) + AT2(A, i - 1, j, n));
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        AT2(A, i, j, n) = 0.2 * (AT2(B, i, j, n) + AT2(B, i, j - 1, n) + AT2(B, i, j + 1, n) +
                                 AT2(B, i + 1, j, n) + AT2(B, i - 1, j, n));
  }
}

int main(int argc, char **argv) {
  int tsteps = arg_int(argc, argv, 1, 10);
  int n = arg_int(argc, argv, 2, 20);
  double *A = alloc_array((size_t)n * n, sizeof(double));
  double *B = alloc_array((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = (double)((i * i + 2 * j * j + i * j) % n) / n;
      B[i * n + j] = (double)((3 * i * i + j * j + 1) % n) / n;
    }
  TIME_KERNEL(kernel_jacobi_2d(tsteps, n, PASS2(double, A, n, n), PASS2(double, B, n, n)));
  print_checksum("A", A, (size_t)n * n);
  print_checksum("B", B, (size_t)n * n);
  free(A);
  free(B);
  return 0;
}
