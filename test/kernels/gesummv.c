/*
 * gesummv -- y := alpha*A*x + beta*B*x, with A and B n x n, x, y, tmp of n.
 *
 * Pins: PolyBench-style BLAS-2 (issues 4, 5, 6, 7): two accumulators per row.
 * Build/run:  clang-14 -O3 gesummv.c -o gesummv && ./gesummv [n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_gesummv; parameter n; shapes A[*][n], B[*][n];
 *             tmp[i] and y[i] are reduction targets of the j loop (see README:
 *             scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=30 alt=31 bench=4000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_gesummv(int n, double alpha, double beta, ARRAY2(double, A, n, n),
                           ARRAY2(double, B, n, n), ARRAY1(double, tmp, n),
                           ARRAY1(double, x, n), ARRAY1(double, y, n)) {
  for (int i = 0; i < n; i++) {
    AT1(tmp, i) = 0.0;
    AT1(y, i) = 0.0;
    for (int j = 0; j < n; j++) {
      AT1(tmp, i) += AT2(A, i, j, n) * AT1(x, j);
      AT1(y, i) += AT2(B, i, j, n) * AT1(x, j);
    }
    AT1(y, i) = alpha * AT1(tmp, i) + beta * AT1(y, i);
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 30);
  double *A = alloc_array((size_t)n * n, sizeof(double));
  double *B = alloc_array((size_t)n * n, sizeof(double));
  double *tmp = alloc_array((size_t)n, sizeof(double));
  double *x = alloc_array((size_t)n, sizeof(double));
  double *y = alloc_array((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    for (int j = 0; j < n; j++) {
      A[i * n + j] = (double)((i * j + 1) % n) / n;
      B[i * n + j] = (double)((i * j + 2) % n) / n;
    }
  }
  TIME_KERNEL(kernel_gesummv(n, 1.5, 1.2, PASS2(double, A, n, n), PASS2(double, B, n, n),
                             PASS1(double, tmp, n), PASS1(double, x, n), PASS1(double, y, n)));
  print_checksum("y", y, (size_t)n);
  print_checksum("tmp", tmp, (size_t)n);
  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
