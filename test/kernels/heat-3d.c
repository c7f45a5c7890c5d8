/*
 * heat-3d -- tsteps explicit steps of the 3-d heat equation (7-point stencil,
 * second differences along each axis) over two n x n x n arrays, A -> B -> A.
 *
 * Pins: PolyBench-style 3-d stencil (issues 4, 5, 6, 7): subscripts
 * i*n*n + j*n + k in the flat build (terms n*n and n, shape [*][n][n]).
 * Build/run:  clang-14 -O3 heat-3d.c -o heat-3d && ./heat-3d [tsteps n]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_heat_3d; parameters tsteps, n; domain
 *             1 <= i, j, k <= n-2; shapes A[*][n][n], B[*][n][n].
 *
 * tsopt-kernel: category=polybench args=6,10 alt=7,10 bench=100,120 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_heat_3d(int tsteps, int n, ARRAY3(double, A, n, n, n),
                           ARRAY3(double, B, n, n, n)) {
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          AT3(B, i, j, k, n, n) =
              0.125 * (AT3(A, i + 1, j, k, n, n) - 2.0 * AT3(A, i, j, k, n, n) + AT3(A, i - 1, j, k, n, n)) +
              0.125 * (AT3(A, i, j + 1, k, n, n) - 2.0 * AT3(A, i, j, k, n, n) + AT3(A, i, j - 1, k, n, n)) +
              0.125 * (AT3(A, i, j, k + 1, n, n) - 2.0 * AT3(A, i, j, k, n, n) + AT3(A, i, j, k - 1, n, n)) +
              AT3(A, i, j, k, n, n);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          AT3(A, i, j, k, n, n) =
              0.125 * (AT3(B, i + 1, j, k, n, n) - 2.0 * AT3(B, i, j, k, n, n) + AT3(B, i - 1, j, k, n, n)) +
              0.125 * (AT3(B, i, j + 1, k, n, n) - 2.0 * AT3(B, i, j, k, n, n) + AT3(B, i, j - 1, k, n, n)) +
              0.125 * (AT3(B, i, j, k + 1, n, n) - 2.0 * AT3(B, i, j, k, n, n) + AT3(B, i, j, k - 1, n, n)) +
              AT3(B, i, j, k, n, n);
  }
}

int main(int argc, char **argv) {
  int tsteps = arg_int(argc, argv, 1, 6);
  int n = arg_int(argc, argv, 2, 10);
  double *A = alloc_array((size_t)n * n * n, sizeof(double));
  double *B = alloc_array((size_t)n * n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        A[(i * n + j) * n + k] = (double)((i * i + 3 * j * k + k) % n) * 10 / n;
        B[(i * n + j) * n + k] = A[(i * n + j) * n + k];
      }
  TIME_KERNEL(kernel_heat_3d(tsteps, n, PASS3(double, A, n, n, n), PASS3(double, B, n, n, n)));
  print_checksum("A", A, (size_t)n * n * n);
  print_checksum("B", B, (size_t)n * n * n);
  free(A);
  free(B);
  return 0;
}
