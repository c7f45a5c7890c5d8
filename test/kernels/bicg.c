/*
 * bicg -- the two products of BiCGStab: s := A^T * r and q := A * p, with
 * A n x m, r and q of n, p and s of m.
 *
 * Pins: PolyBench-style matrix-vector products (issues 4, 5, 6, 7): one loop
 * nest updating a column-indexed and a row-indexed vector at once.
 * Build/run:  clang-14 -O3 bicg.c -o bicg && ./bicg [m n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_bicg; parameters m, n; shape A[*][m]; q[i]
 *             is the reduction target of the j loop (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=38,42 alt=39,42 bench=4000,4200 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_bicg(int m, int n, ARRAY2(double, A, n, m), ARRAY1(double, s, m),
                        ARRAY1(double, q, n), ARRAY1(double, p, m),
                        ARRAY1(double, r, n)) {
  for (int j = 0; j < m; j++)
    AT1(s, j) = 0.0;
  for (int i = 0; i < n; i++) {
    AT1(q, i) = 0.0;
    for (int j = 0; j < m; j++) {
      AT1(s, j) += AT1(r, i) * AT2(A, i, j, m);
      AT1(q, i) += AT2(A, i, j, m) * AT1(p, j);
    }
  }
}

int main(int argc, char **argv) {
  int m = arg_int(argc, argv, 1, 38);
  int n = arg_int(argc, argv, 2, 42);
  double *A = alloc_array((size_t)n * m, sizeof(double));
  double *s = alloc_array((size_t)m, sizeof(double));
  double *q = alloc_array((size_t)n, sizeof(double));
  double *p = alloc_array((size_t)m, sizeof(double));
  double *r = alloc_array((size_t)n, sizeof(double));
  for (int j = 0; j < m; j++)
    p[j] = (double)(j % m) / m;
  for (int i = 0; i < n; i++) {
    r[i] = (double)(i % n) / n;
    for (int j = 0; j < m; j++)
      A[i * m + j] = (double)(i * (j + 1) % n) / n;
  }
  TIME_KERNEL(kernel_bicg(m, n, PASS2(double, A, n, m), PASS1(double, s, m), PASS1(double, q, n),
                          PASS1(double, p, m), PASS1(double, r, n)));
  print_checksum("s", s, (size_t)m);
  print_checksum("q", q, (size_t)n);
  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
