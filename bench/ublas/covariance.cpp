// covariance with Boost uBLAS matrices (PolyBench's datamining kernel, m = n variables).
#include "common.hpp"

static void kernel_covariance(std::size_t m, std::size_t n, Matrix &data, Matrix &cov, ublas::vector<double> &mean) {
  const double fn = static_cast<double>(n);
  for (std::size_t j = 0; j < m; j++) {
    mean(j) = 0.0;
    for (std::size_t i = 0; i < n; i++) mean(j) += data(i, j);
    mean(j) /= fn;
  }
  for (std::size_t i = 0; i < n; i++)
    for (std::size_t j = 0; j < m; j++) data(i, j) -= mean(j);
  for (std::size_t i = 0; i < m; i++)
    for (std::size_t j = i; j < m; j++) {
      cov(i, j) = 0.0;
      for (std::size_t k = 0; k < n; k++) cov(i, j) += data(k, i) * data(k, j);
      cov(i, j) /= (fn - 1.0);
      cov(j, i) = cov(i, j);
    }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix data(n, n), cov(n, n);
  ublas::vector<double> mean(n);
  fill(data, 5);
  report(timed([&] { kernel_covariance(n, n, data, cov, mean); }));
  dump("cov", cov);
  return 0;
}
