/*
 * covariance -- the covariance matrix of n samples of m variables:
 * mean[j] = average of data[*][j]; data is centered in place; then
 * cov[i][j] = cov[j][i] = sum_k data[k][i]*data[k][j] / (n-1) for j >= i.
 *
 * Pins: PolyBench-style data mining (issues 4, 5, 6, 7): triangular nest
 * (j >= i) plus a symmetric write to cov[j][i].
 * Build/run:  clang-14 -O3 covariance.c -o covariance && ./covariance [m n]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_covariance; parameters m, n; shapes
 *             data[*][m], cov[*][m], mean[*]; mean[j] and cov[i][j] are
 *             reduction targets (see README: scalars at -O3).
 *
 * tsopt-kernel: category=polybench args=28,32 alt=29,32 bench=800,1000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_covariance(int m, int n, double float_n, ARRAY2(double, data, n, m),
                              ARRAY2(double, cov, m, m), ARRAY1(double, mean, m)) {
  for (int j = 0; j < m; j++) {
    AT1(mean, j) = 0.0;
    for (int k = 0; k < n; k++)
      AT1(mean, j) += AT2(data, k, j, m);
    AT1(mean, j) /= float_n;
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      AT2(data, k, j, m) -= AT1(mean, j);
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      AT2(cov, i, j, m) = 0.0;
      for (int k = 0; k < n; k++)
        AT2(cov, i, j, m) += AT2(data, k, i, m) * AT2(data, k, j, m);
      AT2(cov, i, j, m) /= (float_n - 1.0);
      AT2(cov, j, i, m) = AT2(cov, i, j, m);
    }
}

int main(int argc, char **argv) {
  int m = arg_int(argc, argv, 1, 28);
  int n = arg_int(argc, argv, 2, 32);
  double *data = alloc_array((size_t)n * m, sizeof(double));
  double *cov = alloc_array((size_t)m * m, sizeof(double));
  double *mean = alloc_array((size_t)m, sizeof(double));
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      data[k * m + j] = (double)((k * j + 3 * k + 1) % 17) / 17.0 + (double)k / n;
  TIME_KERNEL(kernel_covariance(m, n, (double)n, PASS2(double, data, n, m),
                                PASS2(double, cov, m, m), PASS1(double, mean, m)));
  print_checksum("cov", cov, (size_t)m * m);
  print_checksum("mean", mean, (size_t)m);
  free(data);
  free(cov);
  free(mean);
  return 0;
}
