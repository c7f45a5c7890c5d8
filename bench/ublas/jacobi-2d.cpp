// 2-D Jacobi stencil with Boost uBLAS matrices (PolyBench's jacobi-2d, tsteps = 100).
#include "common.hpp"

static void kernel_jacobi_2d(std::size_t tsteps, std::size_t n, Matrix &A, Matrix &B) {
  for (std::size_t t = 0; t < tsteps; t++) {
    for (std::size_t i = 1; i + 1 < n; i++)
      for (std::size_t j = 1; j + 1 < n; j++)
        B(i, j) = 0.2 * (A(i, j) + A(i, j - 1) + A(i, 1 + j) + A(1 + i, j) + A(i - 1, j));
    for (std::size_t i = 1; i + 1 < n; i++)
      for (std::size_t j = 1; j + 1 < n; j++)
        A(i, j) = 0.2 * (B(i, j) + B(i, j - 1) + B(i, 1 + j) + B(1 + i, j) + B(i - 1, j));
  }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix A(n, n), B(n, n);
  fill(A, 1), fill(B, 2);
  report(timed([&] { kernel_jacobi_2d(100, n, A, B); }));
  dump("A", A);
  dump("B", B);
  return 0;
}
