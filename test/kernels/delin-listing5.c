/*
 * delin-listing5 -- several accesses to one hand-linearized 3-d array whose
 * individual subscripts alone suggest different shapes:
 *   B[i][j][k] = A[i][j][k] + A[0][j][k] + A[i][m-1][k] + A[i][j][p-1] - A[0][0][p-1]
 * for i < n, j < m, k < p, with A and B of shape [*][m][p].
 *
 * Pins: issue 5, the ICS 2015 paper's §3.2/§3.3 (the Listing 5 pattern).
 * Written from the description (multiple accesses sharing one shape;
 * a subscript containing size parameters, A[0][0][M-1] linearized as M-1); the
 * paper's listing text was not available here, so this is the described access
 * pattern, not a transcription.
 * Build/run:  clang-14 -O3 delin-listing5.c -o l5 && ./l5 [n m p]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   flat build: A[0][j][k] alone has the single term p, A[0][0][p-1]
 *             none; combining the terms of all accesses to A (§3.2) gives
 *             [*][m][p]; the offsets m*p - p (from m-1) and p-1 contain size
 *             parameters and are resolved by §3.3's piecewise maps to
 *             A[i][m-1][k], A[i][j][p-1] and A[0][0][p-1] (not e.g.
 *             A[i][j+1][-1]). Validity needs m >= 1 and p >= 1 (true whenever
 *             the loops run). VLA build: the same accesses straight from the GEPs.
 *
 * tsopt-kernel: category=delinearization args=5,6,7 alt=6,6,7 bench=250,250,250 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_listing5(long n, long m, long p, ARRAY3(double, A, n, m, p),
                            ARRAY3(double, B, n, m, p)) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < m; j++)
      for (long k = 0; k < p; k++)
        AT3(B, i, j, k, m, p) = AT3(A, i, j, k, m, p) + AT3(A, 0, j, k, m, p) +
                                AT3(A, i, m - 1, k, m, p) + AT3(A, i, j, p - 1, m, p) -
                                AT3(A, 0, 0, p - 1, m, p);
}

int main(int argc, char **argv) {
  long n = arg_int(argc, argv, 1, 5), m = arg_int(argc, argv, 2, 6);
  long p = arg_int(argc, argv, 3, 7);
  size_t total = (size_t)(n * m * p);
  double *A = alloc_array(total, sizeof(double));
  double *B = alloc_array(total, sizeof(double));
  for (size_t x = 0; x < total; x++)
    A[x] = (double)((x * 7 + 3) % 23) / 4.0;
  TIME_KERNEL(kernel_listing5(n, m, p, PASS3(double, A, n, m, p), PASS3(double, B, n, m, p)));
  print_checksum("B", B, total);
  free(A);
  free(B);
  return 0;
}
