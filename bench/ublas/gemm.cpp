// gemm with Boost uBLAS matrices, element loops as in PolyBench: C := alpha*A*B + beta*C.
#include "common.hpp"

static void kernel_gemm(std::size_t n, double alpha, double beta, Matrix &C, const Matrix &A, const Matrix &B) {
  for (std::size_t i = 0; i < n; i++) {
    for (std::size_t j = 0; j < n; j++) C(i, j) *= beta;
    for (std::size_t k = 0; k < n; k++)
      for (std::size_t j = 0; j < n; j++) C(i, j) += alpha * A(i, k) * B(k, j);
  }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix A(n, n), B(n, n), C(n, n);
  fill(A, 1), fill(B, 2), fill(C, 3);
  report(timed([&] { kernel_gemm(n, 1.5, 1.2, C, A, B); }));
  dump("C", C);
  return 0;
}
