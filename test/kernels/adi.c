/*
 * adi -- alternating-direction implicit solver of the 2-d heat equation:
 * each of tsteps steps does a column sweep (tridiagonal solves along i for
 * every column, forward elimination into p/q then back substitution into v)
 * and a row sweep (the same along j, into u).
 *
 * Pins: PolyBench-style solver (issues 4, 5, 6, 7): backward loops
 * (j from n-2 down to 1) and recurrences along the inner dimension.
 * Build/run:  clang-14 -O3 adi.c -o adi && ./adi [tsteps n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_adi; parameters tsteps, n; shapes u, v, p, q
 *             all [*][n]; the recurrences p[i][j-1] -> p[i][j] become PHIs
 *             (GVN/LICM) at -O3.
 *
 * tsopt-kernel: category=polybench args=6,20 alt=7,20 bench=100,700 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_adi(int tsteps, int n, ARRAY2(double, u, n, n), ARRAY2(double, v, n, n),
                       ARRAY2(double, p, n, n), ARRAY2(double, q, n, n)) {
  double dx = 1.0 / n, dy = 1.0 / n, dt = 1.0 / tsteps;
  double b1 = 2.0, b2 = 1.0;
  double mul1 = b1 * dt / (dx * dx), mul2 = b2 * dt / (dy * dy);
  double a = -mul1 / 2.0, b = 1.0 + mul1, c = a;
  double d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++) {
      AT2(v, 0, i, n) = 1.0;
      AT2(p, i, 0, n) = 0.0;
      AT2(q, i, 0, n) = AT2(v, 0, i, n);
      for (int j = 1; j < n - 1; j++) {
        AT2(p, i, j, n) = -c / (a * AT2(p, i, j - 1, n) + b);
        AT2(q, i, j, n) = (-d * AT2(u, j, i - 1, n) + (1.0 + 2.0 * d) * AT2(u, j, i, n) -
                           f * AT2(u, j, i + 1, n) - a * AT2(q, i, j - 1, n)) /
                          (a * AT2(p, i, j - 1, n) + b);
      }
      AT2(v, n - 1, i, n) = 1.0;
      for (int j = n - 2; j >= 1; j--)
        AT2(v, j, i, n) = AT2(p, i, j, n) * AT2(v, j + 1, i, n) + AT2(q, i, j, n);
    }
    for (int i = 1; i < n - 1; i++) {
      AT2(u, i, 0, n) = 1.0;
      AT2(p, i, 0, n) = 0.0;
      AT2(q, i, 0, n) = AT2(u, i, 0, n);
      for (int j = 1; j < n - 1; j++) {
        AT2(p, i, j, n) = -f / (d * AT2(p, i, j - 1, n) + e);
        AT2(q, i, j, n) = (-a * AT2(v, i - 1, j, n) + (1.0 + 2.0 * a) * AT2(v, i, j, n) -
                           c * AT2(v, i + 1, j, n) - d * AT2(q, i, j - 1, n)) /
                          (d * AT2(p, i, j - 1, n) + e);
      }
      AT2(u, i, n - 1, n) = 1.0;
      for (int j = n - 2; j >= 1; j--)
        AT2(u, i, j, n) = AT2(p, i, j, n) * AT2(u, i, j + 1, n) + AT2(q, i, j, n);
    }
  }
}

int main(int argc, char **argv) {
  int tsteps = arg_int(argc, argv, 1, 6);
  int n = arg_int(argc, argv, 2, 20);
  double *u = alloc_array((size_t)n * n, sizeof(double));
  double *v = alloc_array((size_t)n * n, sizeof(double));
  double *p = alloc_array((size_t)n * n, sizeof(double));
  double *q = alloc_array((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      u[i * n + j] = (double)((i * i + n - j + i * j) % n) / n;
  TIME_KERNEL(kernel_adi(tsteps, n, PASS2(double, u, n, n), PASS2(double, v, n, n),
                         PASS2(double, p, n, n), PASS2(double, q, n, n)));
  print_checksum("u", u, (size_t)n * n);
  print_checksum("v", v, (size_t)n * n);
  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}
