/*
 * correlation -- the correlation matrix of n samples of m variables: mean and
 * standard deviation per variable (sqrt; a near-zero deviation is replaced by
 * 1), the data normalized in place, then corr[i][j] = corr[j][i] for j > i and
 * a unit diagonal.
 *
 * Pins: PolyBench-style data mining (issues 4, 5, 6, 7): a call to sqrt and a
 * data-dependent select inside the nest.
 * Build/run:  clang-14 -O3 correlation.c -o correlation -lm && ./correlation [m n]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   shapes data[*][m], corr[*][m]. Because math-errno is on by
 *             default, clang keeps sqrt as a libm call (guarded by a check),
 *             so detection splits the kernel at that call ("function-call")
 *             unless sqrt is treated as pure; the nests around it (mean,
 *             normalization, the correlation product) are SCoPs.
 *
 * tsopt-kernel: category=polybench args=28,32 alt=29,32 bench=800,1000 vla=yes libs=-lm
 */
#include <math.h>

#include "kernel.h"

KERNEL void kernel_correlation(int m, int n, double float_n, ARRAY2(double, data, n, m),
                               ARRAY2(double, corr, m, m), ARRAY1(double, mean, m),
                               ARRAY1(double, stddev, m)) {
  const double eps = 0.1;
  for (int j = 0; j < m; j++) {
    AT1(mean, j) = 0.0;
    for (int k = 0; k < n; k++)
      AT1(mean, j) += AT2(data, k, j, m);
    AT1(mean, j) /= float_n;
  }
  for (int j = 0; j < m; j++) {
    AT1(stddev, j) = 0.0;
    for (int k = 0; k < n; k++)
      AT1(stddev, j) += (AT2(data, k, j, m) - AT1(mean, j)) * (AT2(data, k, j, m) - AT1(mean, j));
    AT1(stddev, j) /= float_n;
    AT1(stddev, j) = sqrt(AT1(stddev, j));
    AT1(stddev, j) = AT1(stddev, j) <= eps ? 1.0 : AT1(stddev, j);
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++) {
      AT2(data, k, j, m) -= AT1(mean, j);
      AT2(data, k, j, m) /= sqrt(float_n) * AT1(stddev, j);
    }
  for (int i = 0; i < m - 1; i++) {
    AT2(corr, i, i, m) = 1.0;
    for (int j = i + 1; j < m; j++) {
      AT2(corr, i, j, m) = 0.0;
      for (int k = 0; k < n; k++)
        AT2(corr, i, j, m) += AT2(data, k, i, m) * AT2(data, k, j, m);
      AT2(corr, j, i, m) = AT2(corr, i, j, m);
    }
  }
  if (m > 0)
    AT2(corr, m - 1, m - 1, m) = 1.0;
}

int main(int argc, char **argv) {
  int m = arg_int(argc, argv, 1, 28);
  int n = arg_int(argc, argv, 2, 32);
  double *data = alloc_array((size_t)n * m, sizeof(double));
  double *corr = alloc_array((size_t)m * m, sizeof(double));
  double *mean = alloc_array((size_t)m, sizeof(double));
  double *stddev = alloc_array((size_t)m, sizeof(double));
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      data[k * m + j] = (double)(k * j % (j + 5)) / (j + 5) + (double)k / (3 * n);
  TIME_KERNEL(kernel_correlation(m, n, (double)n, PASS2(double, data, n, m),
                                 PASS2(double, corr, m, m), PASS1(double, mean, m),
                                 PASS1(double, stddev, m)));
  print_checksum("corr", corr, (size_t)m * m);
  print_checksum("stddev", stddev, (size_t)m);
  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
