// trmm with Boost uBLAS matrices (PolyBench's loops, m = n): B := alpha * A^T * B, A unit lower triangular.
#include "common.hpp"

static void kernel_trmm(std::size_t m, std::size_t n, double alpha, const Matrix &A, Matrix &B) {
  for (std::size_t i = 0; i < m; i++)
    for (std::size_t j = 0; j < n; j++) {
      for (std::size_t k = i + 1; k < m; k++) B(i, j) += A(k, i) * B(k, j);
      B(i, j) = alpha * B(i, j);
    }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix A(n, n), B(n, n);
  fill(A, 1), fill(B, 2);
  report(timed([&] { kernel_trmm(n, n, 1.5, A, B); }));
  dump("B", B);
  return 0;
}
