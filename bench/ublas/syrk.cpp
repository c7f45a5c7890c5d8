// syrk with Boost uBLAS matrices (PolyBench's loops, m = n): C := alpha*A*A^T + beta*C, lower triangle.
#include "common.hpp"

static void kernel_syrk(std::size_t n, std::size_t m, double alpha, double beta, Matrix &C, const Matrix &A) {
  for (std::size_t i = 0; i < n; i++) {
    for (std::size_t j = 0; j <= i; j++) C(i, j) *= beta;
    for (std::size_t k = 0; k < m; k++)
      for (std::size_t j = 0; j <= i; j++) C(i, j) += alpha * A(i, k) * A(j, k);
  }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix A(n, n), C(n, n);
  fill(A, 1), fill(C, 3);
  report(timed([&] { kernel_syrk(n, n, 1.5, 1.2, C, A); }));
  dump("C", C);
  return 0;
}
