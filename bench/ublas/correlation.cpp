// correlation with Boost uBLAS matrices (PolyBench's datamining kernel, m = n variables).
#include <cmath>
#include "common.hpp"

static void kernel_correlation(std::size_t m, std::size_t n, Matrix &data, Matrix &corr, ublas::vector<double> &mean,
                               ublas::vector<double> &stddev) {
  const double fn = static_cast<double>(n), eps = 0.1;
  for (std::size_t j = 0; j < m; j++) {
    mean(j) = 0.0;
    for (std::size_t i = 0; i < n; i++) mean(j) += data(i, j);
    mean(j) /= fn;
  }
  for (std::size_t j = 0; j < m; j++) {
    stddev(j) = 0.0;
    for (std::size_t i = 0; i < n; i++) stddev(j) += (data(i, j) - mean(j)) * (data(i, j) - mean(j));
    stddev(j) /= fn;
    stddev(j) = std::sqrt(stddev(j));
    stddev(j) = stddev(j) <= eps ? 1.0 : stddev(j);
  }
  for (std::size_t i = 0; i < n; i++)
    for (std::size_t j = 0; j < m; j++) {
      data(i, j) -= mean(j);
      data(i, j) /= std::sqrt(fn) * stddev(j);
    }
  for (std::size_t i = 0; i + 1 < m; i++) {
    corr(i, i) = 1.0;
    for (std::size_t j = i + 1; j < m; j++) {
      corr(i, j) = 0.0;
      for (std::size_t k = 0; k < n; k++) corr(i, j) += data(k, i) * data(k, j);
      corr(j, i) = corr(i, j);
    }
  }
  corr(m - 1, m - 1) = 1.0;
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix data(n, n), corr(n, n);
  ublas::vector<double> mean(n), stddev(n);
  fill(data, 6);
  report(timed([&] { kernel_correlation(n, n, data, corr, mean, stddev); }));
  dump("corr", corr);
  return 0;
}
