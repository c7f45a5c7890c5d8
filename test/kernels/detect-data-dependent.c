/*
 * detect-data-dependent -- a loop whose body runs under a condition on loaded
 * data: clip the samples of x that exceed a threshold into y and count them
 * into hits[i / 8] (a histogram of where clipping happened).
 *
 * Pins: issue 4, a branch condition that is not affine (it compares a loaded
 * value). The stores under the condition are not speculatable, so -O3 keeps
 * the branch.
 * Build/run:  clang-14 -O3 detect-data-dependent.c -o d && ./d [n]
 * Expected:   the condition x[i] > limit is not affine in i and the parameters.
 *             A strict detector rejects the loop ("complex-cfg"/"other" with a
 *             non-affine branch detail). Polly 14 models such a branch as a
 *             non-affine subregion (one statement with may-writes): the loop
 *             is a SCoP with -polly-process-unprofitable, and by default
 *             dropped only as "No profitable polyhedral optimization found".
 *
 * tsopt-kernel: category=detection args=200 alt=201 bench=20000000 vla=no
 */
#include "kernel.h"

KERNEL void kernel_clip(int n, double limit, double *x, double *y, int *hits) {
  for (int i = 0; i < n; i++) {
    if (x[i] > limit) {
      y[i] = limit;
      hits[i / 8] += 1;
    }
  }
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 200);
  int nb = n / 8 + 1;
  double *x = alloc_array((size_t)n, sizeof(double));
  double *y = alloc_array((size_t)n, sizeof(double));
  int *hits = alloc_array((size_t)nb, sizeof(int));
  for (int i = 0; i < n; i++) {
    x[i] = (double)((i * 37 + 11) % 101) / 10.0;
    y[i] = -x[i];
  }
  TIME_KERNEL(kernel_clip(n, 6.5, x, y, hits));
  print_checksum("y", y, (size_t)n);
  print_checksum_int("hits", hits, (size_t)nb);
  free(x);
  free(y);
  free(hits);
  return 0;
}
