/*
 * detect-triangular -- a triangular loop nest: forward substitution
 * x := L^-1 * b for a lower triangular n x n matrix L, where the inner loop
 * runs j < i.
 *
 * Pins: issue 4, SCoP detection of a loop bound that depends on an outer
 * loop counter (affine: the domain is { [i, j] : 0 <= j < i < n }).
 * Build/run:  clang-14 -O3 detect-triangular.c -o t && ./t [n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_triangular: the whole nest, parameter n,
 *             domains { S1[i] : 0 <= i < n } and { S2[i, j] : 0 <= j < i < n },
 *             shape L[*][n]; dependences carried by both loops (x[j] read after
 *             x[j] written, x[i] reduced). Nothing rejected.
 *             Polly 14 rejects the i loop ("array subscript ... is not affine",
 *             at the division line: L[i][i], i.e. i*n + i in int arithmetic)
 *             and models only the j loop (with -polly-process-unprofitable).
 *
 * tsopt-kernel: category=detection args=24 alt=25 bench=6000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_triangular(int n, ARRAY2(double, L, n, n), ARRAY1(double, b, n),
                              ARRAY1(double, x, n)) {
  for (int i = 0; i < n; i++) {
    AT1(x, i) = AT1(b, i);
    for (int j = 0; j < i; j++)
      AT1(x, i) -= AT2(L, i, j, n) * AT1(x, j);
    AT1(x, i) = AT1(x, i) / AT2(L, i, i, n);
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 24);
  double *L = alloc_array((size_t)n * n, sizeof(double));
  double *b = alloc_array((size_t)n, sizeof(double));
  double *x = alloc_array((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) {
    b[i] = (double)(i % 7) - 2.5;
    for (int j = 0; j < i; j++)
      L[i * n + j] = (double)((i * j + 1) % 5) / (2.0 * n);
    L[i * n + i] = 1.0 + (double)(i % 3);
  }
  TIME_KERNEL(kernel_triangular(n, PASS2(double, L, n, n), PASS1(double, b, n),
                                PASS1(double, x, n)));
  print_checksum("x", x, (size_t)n);
  free(L);
  free(b);
  free(x);
  return 0;
}
