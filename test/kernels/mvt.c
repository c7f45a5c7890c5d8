/*
 * mvt -- x1 += A * y1 and x2 += A^T * y2, with A n x n and vectors of n.
 *
 * Pins: PolyBench-style matrix-vector products (issues 4, 5, 6, 7): two
 * independent nests, one traversing A by rows and one by columns.
 * Build/run:  clang-14 -O3 mvt.c -o mvt && ./mvt [n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_mvt; parameter n; shape A[*][n]; x1[i] and
 *             x2[i] are reduction targets of the j loops (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=40 alt=41 bench=4000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_mvt(int n, ARRAY1(double, x1, n), ARRAY1(double, x2, n),
                       ARRAY1(double, y1, n), ARRAY1(double, y2, n),
                       ARRAY2(double, A, n, n)) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      AT1(x1, i) += AT2(A, i, j, n) * AT1(y1, j);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      AT1(x2, i) += AT2(A, j, i, n) * AT1(y2, j);
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 40);
  double *x1 = alloc_array((size_t)n, sizeof(double));
  double *x2 = alloc_array((size_t)n, sizeof(double));
  double *y1 = alloc_array((size_t)n, sizeof(double));
  double *y2 = alloc_array((size_t)n, sizeof(double));
  double *A = alloc_array((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++) {
    x1[i] = (double)(i % n) / n;
    x2[i] = (double)((i + 1) % n) / n;
    y1[i] = (double)((i + 3) % n) / n;
    y2[i] = (double)((i + 4) % n) / n;
    for (int j = 0; j < n; j++)
      A[i * n + j] = (double)(i * j % n) / n;
  }
  TIME_KERNEL(kernel_mvt(n, PASS1(double, x1, n), PASS1(double, x2, n), PASS1(double, y1, n),
                         PASS1(double, y2, n), PASS2(double, A, n, n)));
  print_checksum("x1", x1, (size_t)n);
  print_checksum("x2", x2, (size_t)n);
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  free(A);
  return 0;
}
