/* The bundled example for `bin/example` (README: "run the main job"): small loop nests of the
 * kind tsopt is for, compiled through the LLVM pipe with tsopt in the middle, then compared with
 * clang-14 -O3. It must print exactly what clang-14 -O3's build prints.
 *
 *   saxpy:     y[i] = a*x[i] + y[i], the simplest loop the hand-back's loop vectorizer takes
 *   jacobi-2d: a 5-point stencil, out-of-place, iterated (a SCoP with a time loop)
 *   matvec:    y = A x over a row-major matrix with its size known only at run time
 *   histogram: integer work with an indirect store, which must stay scalar
 *
 * No -ffast-math and no floating-point reductions in vectorizable loops, so every correct build
 * rounds the same way. Build and run: clang-14 -O3 example.c -o example -lm && ./example
 */
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define STEPS 20

static float xs[N * 8], ys[N * 8];

__attribute__((noinline)) static void saxpy(int n, float a, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

__attribute__((noinline)) static void jacobi_2d(int n, int steps, double (*restrict a)[N], double (*restrict b)[N]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        a[i][j] = 0.2 * (b[i][j] + b[i][j - 1] + b[i][j + 1] + b[i + 1][j] + b[i - 1][j]);
  }
}

__attribute__((noinline)) static void matvec(int n, const double *restrict m, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += m[i * n + j] * x[j];
    y[i] = s;
  }
}

__attribute__((noinline)) static void histogram(int n, const int *restrict v, int *restrict bins, int nbins) {
  for (int i = 0; i < n; i++) bins[(unsigned)v[i] % (unsigned)nbins] += 1;
}

/* Sum and position-weighted sum, in a fixed order: a misplaced element changes the second. */
static void report(const char *name, const double *v, int n) {
  double sum = 0.0, wsum = 0.0;
  for (int i = 0; i < n; i++) {
    sum += v[i];
    wsum += v[i] * (double)(i % 97 + 1);
  }
  printf("%s: n=%d sum=%.6e wsum=%.6e\n", name, n, sum, wsum);
}

int main(void) {
  int n = N * 8;
  for (int i = 0; i < n; i++) {
    xs[i] = (float)(i % 13) * 0.25f;
    ys[i] = (float)(i % 7) - 3.0f;
  }
  saxpy(n, 1.5f, xs, ys);
  double *yd = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) yd[i] = ys[i];
  report("saxpy", yd, n);

  double(*a)[N] = malloc(sizeof(double[N][N]));
  double(*b)[N] = malloc(sizeof(double[N][N]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (double)((i * 7 + j * 3) % 17) / 17.0;
      b[i][j] = 0.0;
    }
  jacobi_2d(N, STEPS, a, b);
  report("jacobi-2d", &a[0][0], N * N);

  int m = 300;
  double *mat = malloc(sizeof(double) * m * m), *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
  for (int i = 0; i < m; i++) {
    x[i] = 1.0 / (double)(i + 1);
    for (int j = 0; j < m; j++) mat[i * m + j] = (double)((i + 2 * j) % 11) - 5.0;
  }
  matvec(m, mat, x, y);
  report("matvec", y, m);

  int *v = malloc(sizeof(int) * n), bins[16] = {0};
  for (int i = 0; i < n; i++) v[i] = (i * i + 3 * i) % 1009;
  histogram(n, v, bins, 16);
  printf("histogram:");
  for (int i = 0; i < 16; i++) printf(" %d", bins[i]);
  printf("\n");

  free(yd), free(a), free(b), free(mat), free(x), free(y), free(v);
  return 0;
}
