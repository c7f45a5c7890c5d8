/*
 * 3mm -- three matrix products: E := A*B, F := C*D, G := E*F, with
 * A ni x nk, B nk x nj, C nj x nm, D nm x nl, E ni x nj, F nj x nl, G ni x nl.
 *
 * Pins: PolyBench-style linear algebra (issues 4, 5, 6, 7): three nests, the
 * third reading the results of the first two.
 * Build/run:  clang-14 -O3 3mm.c -o 3mm && ./3mm [ni nj nk nl nm]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_3mm with all three nests; parameters ni, nj,
 *             nk, nl, nm; seven 2-d arrays with their row lengths as inner
 *             sizes; reduction targets E[i][j], F[i][j], G[i][j] (see README:
 *             scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=16,18,20,22,24 alt=17,18,20,22,24 bench=520,585,650,715,780 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                       ARRAY2(double, E, ni, nj), ARRAY2(double, A, ni, nk),
                       ARRAY2(double, B, nk, nj), ARRAY2(double, F, nj, nl),
                       ARRAY2(double, C, nj, nm), ARRAY2(double, D, nm, nl),
                       ARRAY2(double, G, ni, nl)) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      AT2(E, i, j, nj) = 0.0;
      for (int k = 0; k < nk; k++)
        AT2(E, i, j, nj) += AT2(A, i, k, nk) * AT2(B, k, j, nj);
    }
  for (int i = 0; i < nj; i++)
    for (int j = 0; j < nl; j++) {
      AT2(F, i, j, nl) = 0.0;
      for (int k = 0; k < nm; k++)
        AT2(F, i, j, nl) += AT2(C, i, k, nm) * AT2(D, k, j, nl);
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      AT2(G, i, j, nl) = 0.0;
      for (int k = 0; k < nj; k++)
        AT2(G, i, j, nl) += AT2(E, i, k, nj) * AT2(F, k, j, nl);
    }
}

int main(int argc, char **argv) {
  int ni = arg_int(argc, argv, 1, 16);
  int nj = arg_int(argc, argv, 2, 18);
  int nk = arg_int(argc, argv, 3, 20);
  int nl = arg_int(argc, argv, 4, 22);
  int nm = arg_int(argc, argv, 5, 24);
  double *E = alloc_array((size_t)ni * nj, sizeof(double));
  double *A = alloc_array((size_t)ni * nk, sizeof(double));
  double *B = alloc_array((size_t)nk * nj, sizeof(double));
  double *F = alloc_array((size_t)nj * nl, sizeof(double));
  double *C = alloc_array((size_t)nj * nm, sizeof(double));
  double *D = alloc_array((size_t)nm * nl, sizeof(double));
  double *G = alloc_array((size_t)ni * nl, sizeof(double));
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      A[i * nk + k] = (double)((i * k + 1) % ni) / (5 * ni);
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++)
      B[k * nj + j] = (double)((k * (j + 1) + 2) % nj) / (5 * nj);
  for (int j = 0; j < nj; j++)
    for (int m = 0; m < nm; m++)
      C[j * nm + m] = (double)(j * (m + 3) % nl) / (5 * nl);
  for (int m = 0; m < nm; m++)
    for (int l = 0; l < nl; l++)
      D[m * nl + l] = (double)((m * (l + 2) + 2) % nk) / (5 * nk);
  TIME_KERNEL(kernel_3mm(ni, nj, nk, nl, nm, PASS2(double, E, ni, nj), PASS2(double, A, ni, nk),
                         PASS2(double, B, nk, nj), PASS2(double, F, nj, nl),
                         PASS2(double, C, nj, nm), PASS2(double, D, nm, nl),
                         PASS2(double, G, ni, nl)));
  print_checksum("E", E, (size_t)ni * nj);
  print_checksum("F", F, (size_t)nj * nl);
  print_checksum("G", G, (size_t)ni * nl);
  free(E);
  free(A);
  free(B);
  free(F);
  free(C);
  free(D);
  free(G);
  return 0;
}
