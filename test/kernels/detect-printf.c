/*
 * detect-printf -- a loop that prints as it computes: running prefix sums of
 * a, each partial sum also printed with printf.
 *
 * Pins: issue 4, a call to a function with side effects inside the loop.
 * Build/run:  clang-14 -O3 detect-printf.c -o p && ./p [n]
 * Expected:   the loop in kernel_print_prefix is rejected with cause
 *             "function-call" (printf writes to memory we cannot model); no
 *             SCoP in that function. The loop in kernel_scale, in the same
 *             file and without calls, is a SCoP (one statement, parameter n).
 *
 * tsopt-kernel: category=detection args=12 alt=13 bench=200000 vla=no
 */
#include "kernel.h"

KERNEL void kernel_scale(int n, double *a) {
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 0.5 + 1.0;
}

KERNEL void kernel_print_prefix(int n, double *a, double *prefix) {
  double running = 0.0;
  for (int i = 0; i < n; i++) {
    running += a[i];
    prefix[i] = running;
    printf("prefix[%d] = %.6e\n", i, running);
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 12);
  double *a = alloc_array((size_t)n, sizeof(double));
  double *prefix = alloc_array((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = (double)((i * 7 + 3) % 10) / 4.0;
  TIME_KERNEL(kernel_scale(n, a));
  TIME_KERNEL(kernel_print_prefix(n, a, prefix));
  print_checksum("prefix", prefix, (size_t)n);
  free(a);
  free(prefix);
  return 0;
}
