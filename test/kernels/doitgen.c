/*
 * doitgen -- multiresolution analysis kernel: for every (r, q), replace the
 * vector A[r][q][*] of np elements by its product with the np x np matrix C4,
 * through a temporary sum of np.
 *
 * Pins: PolyBench-style 3-d array kernel (issues 4, 5, 6, 7): subscripts
 * (r*nq + q)*np + p in the flat build, shape [*][nq][np].
 * Build/run:  clang-14 -O3 doitgen.c -o doitgen && ./doitgen [nr nq np]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_doitgen; parameters nr, nq, np; shapes
 *             A[*][nq][np], C4[*][np], sum[*]; sum[p] is the reduction target
 *             of the s loop (see README: scalars at -O3). The sum array carries false
 *             dependences between (r, q) iterations (WAR/WAW), not true ones.
 *
 * tsopt-kernel: category=polybench args=10,8,12 alt=11,8,12 bench=150,140,160 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_doitgen(int nr, int nq, int np, ARRAY3(double, A, nr, nq, np),
                           ARRAY2(double, C4, np, np), ARRAY1(double, sum, np)) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        AT1(sum, p) = 0.0;
        for (int s = 0; s < np; s++)
          AT1(sum, p) += AT3(A, r, q, s, nq, np) * AT2(C4, s, p, np);
      }
      for (int p = 0; p < np; p++)
        AT3(A, r, q, p, nq, np) = AT1(sum, p);
    }
}

int main(int argc, char **argv) {
  int nr = arg_int(argc, argv, 1, 10);
  int nq = arg_int(argc, argv, 2, 8);
  int np = arg_int(argc, argv, 3, 12);
  double *A = alloc_array((size_t)nr * nq * np, sizeof(double));
  double *C4 = alloc_array((size_t)np * np, sizeof(double));
  double *sum = alloc_array((size_t)np, sizeof(double));
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++)
      for (int p = 0; p < np; p++)
        A[(r * nq + q) * np + p] = (double)((r * q + p) % np) / np;
  for (int s = 0; s < np; s++)
    for (int p = 0; p < np; p++)
      C4[s * np + p] = (double)(s * p % np) / np;
  TIME_KERNEL(kernel_doitgen(nr, nq, np, PASS3(double, A, nr, nq, np), PASS2(double, C4, np, np),
                             PASS1(double, sum, np)));
  print_checksum("A", A, (size_t)nr * nq * np);
  print_checksum("sum", sum, (size_t)np);
  free(A);
  free(C4);
  free(sum);
  return 0;
}
