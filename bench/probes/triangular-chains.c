/*
 * triangular-chains -- why Polly beats clang -O3 and tscc on PolyBench trisolv and cholesky,
 * and what would beat Polly (issue 23: "tscc at least Polly's speed where Polly is faster").
 * Both kernels' innermost loop is an in-order sum into one element (x[i] -= L[i][j] * x[j];
 * A[i][j] -= A[i][k] * A[j][k]): one chain of dependent fused multiply-adds, bound by the FMA's
 * latency. Three orders of the same operations, each element's operations in the same order
 * (the program checks the results bit for bit):
 *   row     the source order (clang -O3's and tscc's code);
 *   column  Polly's schedule: the two inner loops interchanged, so the innermost loop updates a
 *           different element each iteration (no chain) but walks a column of L (of A);
 *   uj4     four rows at once over the columns left of the block (four chains side by side,
 *           x[j] loaded once for four rows), then the 4x4 triangle in the source order.
 *
 *   clang-14 -O3 -march=native bench/probes/triangular-chains.c -o chains -lm
 *   for r in 1 2 3; do ./chains 2000 20; ./chains 4000 5; done
 *
 * prints per order the CPU seconds of REPS forward substitutions of size N, and of one Cholesky
 * factorization of size N (uj4: the substitution only). Found (2026-11-27, load average 20-30,
 * two to five runs each): forward substitution N=2000 row 0.055-0.070 s, column 0.048-0.055 s,
 * uj4 0.021-0.037 s; N=4000 row 0.055-0.068 s, column 0.18-0.26 s (a column of 4000 rows
 * 32 KB apart: more pages than the TLB holds), uj4 0.024-0.032 s. Cholesky N=2000: row
 * 2.07-2.63 s, column 1.67-2.09 s (1.2-1.25x); N=4000: row 16.9 s, column 34.2 s (one run).
 * So Polly's order pays at PolyBench's LARGE sizes and loses 2-4x past them, while interleaving
 * chains pays 1.9-3.3x at both sizes: the next step for these kernels is an unroll-and-jam of
 * the row loop over the sum (register tiling of the chains), not the interchange.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

__attribute__((noinline)) static void subst_row(int n, double (*restrict L)[n], double *restrict x, const double *restrict b) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

__attribute__((noinline)) static void subst_column(int n, double (*restrict L)[n], double *restrict x, const double *restrict b) {
  for (int i = 0; i < n; i++) x[i] = b[i];
  for (int j = 0; j < n; j++) {
    x[j] = x[j] / L[j][j];
    for (int i = j + 1; i < n; i++) x[i] -= L[i][j] * x[j];
  }
}

__attribute__((noinline)) static void subst_uj4(int n, double (*restrict L)[n], double *restrict x, const double *restrict b) {
  int i = 0;
  for (; i + 3 < n; i += 4) {
    double s0 = b[i], s1 = b[i + 1], s2 = b[i + 2], s3 = b[i + 3];
    for (int j = 0; j < i; j++) {
      double xj = x[j];
      s0 -= L[i][j] * xj;
      s1 -= L[i + 1][j] * xj;
      s2 -= L[i + 2][j] * xj;
      s3 -= L[i + 3][j] * xj;
    }
    x[i] = s0 / L[i][i];
    s1 -= L[i + 1][i] * x[i];
    x[i + 1] = s1 / L[i + 1][i + 1];
    s2 -= L[i + 2][i] * x[i];
    s2 -= L[i + 2][i + 1] * x[i + 1];
    x[i + 2] = s2 / L[i + 2][i + 2];
    s3 -= L[i + 3][i] * x[i];
    s3 -= L[i + 3][i + 1] * x[i + 1];
    s3 -= L[i + 3][i + 2] * x[i + 2];
    x[i + 3] = s3 / L[i + 3][i + 3];
  }
  for (; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

__attribute__((noinline)) static void cholesky_row(int n, double (*restrict A)[n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++) A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++) A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}

__attribute__((noinline)) static void cholesky_column(int n, double (*restrict A)[n]) {
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) {
      A[i][k] /= A[k][k];
      for (int j = k + 1; j < i; j++) A[i][j] -= A[i][k] * A[j][k];
    }
    for (int k = 0; k < i; k++) A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  double (*L)[n] = malloc(sizeof(double) * n * n);
  double *b = malloc(sizeof(double) * n), *x[3];
  for (int v = 0; v < 3; v++) x[v] = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    b[i] = i;
    for (int j = 0; j < n; j++) L[i][j] = j <= i ? (double)(i + n - j + 1) * 2 / n : 0.0;
  }
  void (*subst[3])(int, double (*restrict)[n], double *restrict, const double *restrict) = {subst_row, subst_column, subst_uj4};
  double t[5];
  for (int v = 0; v < 3; v++) {
    double t0 = now();
    for (int r = 0; r < reps; r++) subst[v](n, L, x[v], b);
    t[v] = now() - t0;
  }
  for (int v = 1; v < 3; v++)
    if (memcmp(x[0], x[v], sizeof(double) * n) != 0) { printf("substitution %d differs\n", v); return 1; }
  double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) A[i][j] = A[j][i] = i == j ? n + 1.0 : (double)((i * j) % 7 + 1) / (4.0 * n);
  memcpy(B, A, sizeof(double) * n * n);
  double t0 = now();
  cholesky_row(n, A);
  t[3] = now() - t0;
  t0 = now();
  cholesky_column(n, B);
  t[4] = now() - t0;
  if (memcmp(A, B, sizeof(double) * n * n) != 0) { printf("cholesky differs\n"); return 1; }
  printf("substitution row %.4f column %.4f uj4 %.4f | cholesky row %.4f column %.4f\n", t[0], t[1], t[2], t[3], t[4]);
  free(L); free(b); free(A); free(B);
  for (int v = 0; v < 3; v++) free(x[v]);
  return 0;
}
