// 2mm with Boost uBLAS matrices: tmp := alpha*A*B; D := tmp*C + beta*D.
#include "common.hpp"

static void kernel_2mm(std::size_t n, double alpha, double beta, Matrix &tmp, const Matrix &A, const Matrix &B,
                       const Matrix &C, Matrix &D) {
  for (std::size_t i = 0; i < n; i++)
    for (std::size_t j = 0; j < n; j++) {
      tmp(i, j) = 0.0;
      for (std::size_t k = 0; k < n; k++) tmp(i, j) += alpha * A(i, k) * B(k, j);
    }
  for (std::size_t i = 0; i < n; i++)
    for (std::size_t j = 0; j < n; j++) {
      D(i, j) *= beta;
      for (std::size_t k = 0; k < n; k++) D(i, j) += tmp(i, k) * C(k, j);
    }
}

int main(int argc, char **argv) {
  std::size_t n = sizeArg(argc, argv, 60);
  Matrix A(n, n), B(n, n), C(n, n), D(n, n), tmp(n, n);
  fill(A, 1), fill(B, 2), fill(C, 3), fill(D, 4);
  report(timed([&] { kernel_2mm(n, 1.5, 1.2, tmp, A, B, C, D); }));
  dump("D", D);
  return 0;
}
