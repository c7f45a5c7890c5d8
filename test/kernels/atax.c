/*
 * atax -- y := A^T * (A * x), with A m x n, x and y of n, tmp of m.
 *
 * Pins: PolyBench-style matrix-vector products (issues 4, 5, 6, 7): a row-wise
 * product followed by a column-wise one in the same i loop.
 * Build/run:  clang-14 -O3 atax.c -o atax && ./atax [m n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_atax; parameters m, n; shapes A[*][n], tmp[*],
 *             x[*], y[*]. Reduction target tmp[i] across the first j loop: at
 *             -O3 its stored value is forwarded to the next iteration as a PHI
 *             (see README: scalars at -O3), which DeLICM maps back to tmp[i].
 *
 * tsopt-kernel: category=polybench args=38,42 alt=39,42 bench=4000,4200 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_atax(int m, int n, ARRAY2(double, A, m, n), ARRAY1(double, x, n),
                        ARRAY1(double, y, n), ARRAY1(double, tmp, m)) {
  for (int j = 0; j < n; j++)
    AT1(y, j) = 0.0;
  for (int i = 0; i < m; i++) {
    AT1(tmp, i) = 0.0;
    for (int j = 0; j < n; j++)
      AT1(tmp, i) += AT2(A, i, j, n) * AT1(x, j);
    for (int j = 0; j < n; j++)
      AT1(y, j) += AT2(A, i, j, n) * AT1(tmp, i);
  }
}

int main(int argc, char **argv) {
  int m = arg_int(argc, argv, 1, 38);
  int n = arg_int(argc, argv, 2, 42);
  double *A = alloc_array((size_t)m * n, sizeof(double));
  double *x = alloc_array((size_t)n, sizeof(double));
  double *y = alloc_array((size_t)n, sizeof(double));
  double *tmp = alloc_array((size_t)m, sizeof(double));
  for (int j = 0; j < n; j++)
    x[j] = 1.0 + (double)j / n;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = (double)((i + j) % n) / (5 * m);
  TIME_KERNEL(kernel_atax(m, n, PASS2(double, A, m, n), PASS1(double, x, n), PASS1(double, y, n),
                          PASS1(double, tmp, m)));
  print_checksum("y", y, (size_t)n);
  print_checksum("tmp", tmp, (size_t)m);
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
