/*
 * gemver -- A := A + u1*v1^T + u2*v2^T; x := x + beta*A^T*y + z;
 * w := w + alpha*A*x, with A n x n and vectors of n.
 *
 * Pins: PolyBench-style BLAS-2 chain (issues 4, 5, 6, 7): four nests, later
 * ones reading the matrix and vector the earlier ones wrote.
 * Build/run:  clang-14 -O3 gemver.c -o gemver && ./gemver [n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_gemver; parameter n; shape A[*][n]; x[i] and
 *             w[i] are reduction targets of the j loops (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=40 alt=41 bench=4000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_gemver(int n, double alpha, double beta, ARRAY2(double, A, n, n),
                          ARRAY1(double, u1, n), ARRAY1(double, v1, n),
                          ARRAY1(double, u2, n), ARRAY1(double, v2, n),
                          ARRAY1(double, w, n), ARRAY1(double, x, n),
                          ARRAY1(double, y, n), ARRAY1(double, z, n)) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      AT2(A, i, j, n) += AT1(u1, i) * AT1(v1, j) + AT1(u2, i) * AT1(v2, j);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      AT1(x, i) += beta * AT2(A, j, i, n) * AT1(y, j);
  for (int i = 0; i < n; i++)
    AT1(x, i) += AT1(z, i);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      AT1(w, i) += alpha * AT2(A, i, j, n) * AT1(x, j);
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 40);
  double *A = alloc_array((size_t)n * n, sizeof(double));
  double *u1 = alloc_array((size_t)n, sizeof(double));
  double *v1 = alloc_array((size_t)n, sizeof(double));
  double *u2 = alloc_array((size_t)n, sizeof(double));
  double *v2 = alloc_array((size_t)n, sizeof(double));
  double *w = alloc_array((size_t)n, sizeof(double));
  double *x = alloc_array((size_t)n, sizeof(double));
  double *y = alloc_array((size_t)n, sizeof(double));
  double *z = alloc_array((size_t)n, sizeof(double));
  double fn = (double)n;
  for (int i = 0; i < n; i++) {
    u1[i] = i;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    for (int j = 0; j < n; j++)
      A[i * n + j] = (double)(i * j % n) / n;
  }
  TIME_KERNEL(kernel_gemver(n, 1.5, 1.2, PASS2(double, A, n, n), PASS1(double, u1, n),
                            PASS1(double, v1, n), PASS1(double, u2, n), PASS1(double, v2, n),
                            PASS1(double, w, n), PASS1(double, x, n), PASS1(double, y, n),
                            PASS1(double, z, n)));
  print_checksum("A", A, (size_t)n * n);
  print_checksum("x", x, (size_t)n);
  print_checksum("w", w, (size_t)n);
  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
