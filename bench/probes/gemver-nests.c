/*
 * gemver-nests -- gemver's four nests as separate functions, each timed (CPU time), to find
 * which nest makes tscc's gemver slower than clang -O3 (README, Benchmarks; issue 6).
 *
 *   clang-14 -O3 -march=native gemver-nests.c -o g.clang
 *   clang-14 -O3 -march=native -DRESTRICT_N2 gemver-nests.c -o g.restrict
 *   node bin/tscc.js -O3 -march=native bench/probes/gemver-nests.c -o g.tscc
 *   for r in $(seq 15); do for v in clang tscc restrict; do ./g.$v 4000; done; done
 *
 * prints `checksum t1 t2 t3 t4` (seconds per nest). Finding (2026-11-22, 15 alternating runs,
 * n = 4000): the column walk n2 takes 0.177 s in clang's build, 0.188 s in tscc's, and 0.188 s
 * in clang's build with `restrict` (-DRESTRICT_N2): the two slower builds run the same loop,
 * with x[i] summed in a register instead of stored every iteration, and that loop is slower on
 * this machine although it executes fewer instructions. Since tscc runs the column walk
 * interchanged (transform/interchange.ts, same day, 5 alternating runs): n2 takes 0.016-0.018 s
 * in tscc's build against 0.190-0.195 s in clang's; the other nests are unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef RESTRICT_N2
#define R restrict
#else
#define R
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void n1(int n, double *A, double *u1, double *v1, double *u2, double *v2) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
}

__attribute__((noinline)) void n2(int n, double beta, double *R A, double *R x, double *R y) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x[i] += beta * A[j * n + i] * y[j];
}

__attribute__((noinline)) void n3(int n, double *x, double *z) {
  for (int i = 0; i < n; i++)
    x[i] += z[i];
}

__attribute__((noinline)) void n4(int n, double alpha, double *A, double *w, double *x) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      w[i] += alpha * A[i * n + j] * x[j];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 400;
  if (n <= 0) return 2;
  double *A = calloc((size_t)n * n, sizeof(double));
  double *v[8];
  for (int k = 0; k < 8; k++) v[k] = calloc((size_t)n, sizeof(double));
  double *u1 = v[0], *v1 = v[1], *u2 = v[2], *v2 = v[3], *w = v[4], *x = v[5], *y = v[6], *z = v[7];
  for (int i = 0; i < n; i++) {
    u1[i] = i % 7;
    v1[i] = i % 5;
    u2[i] = i % 3;
    v2[i] = i % 11;
    y[i] = i % 13;
    z[i] = i % 17;
  }
  for (long i = 0; i < (long)n * n; i++) A[i] = (double)(i % 19) / 19.0;
  double t[4], t0;
  t0 = now();
  n1(n, A, u1, v1, u2, v2);
  t[0] = now() - t0;
  t0 = now();
  n2(n, 1.2, A, x, y);
  t[1] = now() - t0;
  t0 = now();
  n3(n, x, z);
  t[2] = now() - t0;
  t0 = now();
  n4(n, 1.5, A, w, x);
  t[3] = now() - t0;
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] + x[i];
  printf("%g %.4f %.4f %.4f %.4f\n", s, t[0], t[1], t[2], t[3]);
  free(A);
  for (int k = 0; k < 8; k++) free(v[k]);
  return 0;
}
