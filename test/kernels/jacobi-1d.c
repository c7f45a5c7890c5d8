/*
 * jacobi-1d -- tsteps sweeps of a 3-point averaging stencil over two 1-d
 * arrays of n, ping-ponging A -> B -> A.
 *
 * Pins: PolyBench-style stencil (issues 4, 6, 7): a time loop around two
 * inner loops; GVN at -O3 forwards the loaded neighbours between iterations
 * (PHIs across the inner loop, which DeLICM traverses back to A/B).
 * Build/run:  clang-14 -O3 jacobi-1d.c -o jacobi-1d && ./jacobi-1d [tsteps n]
 *             (-DTSOPT_VLA builds the same code: the arrays are 1-d)
 * Expected:   one SCoP in kernel_jacobi_1d; parameters tsteps, n; domain
 *             1 <= i <= n-2; shapes A[*], B[*].
 *
 * tsopt-kernel: category=polybench args=20,30 alt=21,30 bench=30000,20000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_jacobi_1d(int tsteps, int n, ARRAY1(double, A, n), ARRAY1(double, B, n)) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      AT1(B, i) = 0.33333 * (AT1(A, i - 1) + AT1(A, i) + AT1(A, i + 1));
    for (int i = 1; i < n - 1; i++)
      AT1(A, i) = 0.33333 * (AT1(B, i - 1) + AT1(B, i) + AT1(B, i + 1));
  }
}

int main(int argc, char **argv) {
  int tsteps = arg_int(argc, argv, 1, 20);
  int n = arg_int(argc, argv, 2, 30);
  double *A = alloc_array((size_t)n, sizeof(double));
  double *B = alloc_array((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) {
    A[i] = (double)((i * i + 2) % n) / n;
    B[i] = ((double)i + 3) / n;
  }
  TIME_KERNEL(kernel_jacobi_1d(tsteps, n, PASS1(double, A, n), PASS1(double, B, n)));
  print_checksum("A", A, (size_t)n);
  print_checksum("B", B, (size_t)n);
  free(A);
  free(B);
  return 0;
}
