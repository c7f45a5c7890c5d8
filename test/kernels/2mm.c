/*
 * 2mm -- two chained matrix products: tmp := alpha*A*B, D := beta*D + tmp*C,
 * with A ni x nk, B nk x nj, tmp ni x nj, C nj x nl, D ni x nl.
 *
 * Pins: PolyBench-style linear algebra (issues 4, 5, 6, 7): two nests where
 * the second reads what the first wrote (a RAW dependence through tmp).
 * Build/run:  clang-14 -O3 2mm.c -o 2mm && ./2mm [ni nj nk nl]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_2mm covering both nests; parameters ni, nj,
 *             nk, nl; shapes tmp[*][nj], A[*][nk], B[*][nj], C[*][nl], D[*][nl]
 *             (flat build: after delinearization). Reduction targets
 *             tmp[i][j] and D[i][j] (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=16,18,22,24 alt=17,18,22,24 bench=560,630,770,840 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_2mm(int ni, int nj, int nk, int nl, double alpha, double beta,
                       ARRAY2(double, tmp, ni, nj), ARRAY2(double, A, ni, nk),
                       ARRAY2(double, B, nk, nj), ARRAY2(double, C, nj, nl),
                       ARRAY2(double, D, ni, nl)) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      AT2(tmp, i, j, nj) = 0.0;
      for (int k = 0; k < nk; k++)
        AT2(tmp, i, j, nj) += alpha * AT2(A, i, k, nk) * AT2(B, k, j, nj);
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      AT2(D, i, j, nl) *= beta;
      for (int k = 0; k < nj; k++)
        AT2(D, i, j, nl) += AT2(tmp, i, k, nj) * AT2(C, k, j, nl);
    }
}

int main(int argc, char **argv) {
  int ni = arg_int(argc, argv, 1, 16);
  int nj = arg_int(argc, argv, 2, 18);
  int nk = arg_int(argc, argv, 3, 22);
  int nl = arg_int(argc, argv, 4, 24);
  double *tmp = alloc_array((size_t)ni * nj, sizeof(double));
  double *A = alloc_array((size_t)ni * nk, sizeof(double));
  double *B = alloc_array((size_t)nk * nj, sizeof(double));
  double *C = alloc_array((size_t)nj * nl, sizeof(double));
  double *D = alloc_array((size_t)ni * nl, sizeof(double));
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      A[i * nk + k] = (double)((i * k + 1) % ni) / ni;
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++)
      B[k * nj + j] = (double)(k * (j + 1) % nj) / nj;
  for (int j = 0; j < nj; j++)
    for (int l = 0; l < nl; l++)
      C[j * nl + l] = (double)((j * (l + 3) + 1) % nl) / nl;
  for (int i = 0; i < ni; i++)
    for (int l = 0; l < nl; l++)
      D[i * nl + l] = (double)(i * (l + 2) % nk) / nk;
  TIME_KERNEL(kernel_2mm(ni, nj, nk, nl, 1.5, 1.2, PASS2(double, tmp, ni, nj),
                         PASS2(double, A, ni, nk), PASS2(double, B, nk, nj),
                         PASS2(double, C, nj, nl), PASS2(double, D, ni, nl)));
  print_checksum("tmp", tmp, (size_t)ni * nj);
  print_checksum("D", D, (size_t)ni * nl);
  free(tmp);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
